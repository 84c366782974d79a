package jsonl

import (
	"errors"
	"strconv"
)

// Errors callers can branch on with errors.Is. Each error Decode, Reader
// and Face.Handle return wraps one of them, with what was wrong and how to
// mend it; the text is what an Error line says.
var (
	// ErrNotJSON: the line is not one JSON object (or not UTF-8).
	ErrNotJSON = errors.New("the line is not a JSON object")
	// ErrUnknownType: the line's type (or a choice's kind, or a tool
	// line's phase) is not one of the protocol's, or not one the reader
	// accepts from that side.
	ErrUnknownType = errors.New("unknown line type")
	// ErrBadLine: a key the type needs is missing or has the wrong form.
	ErrBadLine = errors.New("the line does not fit its type")
	// ErrTooLong: the line is longer than the reader's limit (MaxLine).
	ErrTooLong = errors.New("the line is too long")
	// ErrNoChoice: an answer names a choice that does not exist.
	ErrNoChoice = errors.New("no such choice")
	// ErrSettled: an answer names a choice that has already settled.
	ErrSettled = errors.New("the choice has already settled")
	// ErrMismatch: an answer does not fit its choice: an option out of
	// range, text where none is taken, approve on a question, choose on an
	// approval, a scope the request does not offer.
	ErrMismatch = errors.New("the answer does not fit the choice")
	// ErrEnded: the face wrote Bye; it writes nothing more.
	ErrEnded = errors.New("the session has ended")
)

// An InputError is a line from the client that was refused: Line is its
// number, from 1, and Err says what was wrong (it wraps one of the
// errors above). The session goes on.
type InputError struct {
	Line int
	Err  error
}

// Error returns "line N: " and Err's text.
func (e *InputError) Error() string { return "line " + strconv.Itoa(e.Line) + ": " + e.Err.Error() }

// Unwrap returns Err.
func (e *InputError) Unwrap() error { return e.Err }
