package pending

import (
	"errors"
	"fmt"

	"github.com/wisp-agent/wisp"
)

// Sentinel errors callers can branch on with errors.Is. The errors the
// Store returns wrap them in one finished line for a person, which names
// the question and, where there is one, the way to mend things.
var (
	// ErrBadID: a question ID is not 8 characters from 0-9 and a-f. No
	// path is built from it and no file is touched.
	ErrBadID = errors.New("not a question ID")
	// ErrNoQuestion: no question with that ID is waiting: it was never
	// filed, or it was settled.
	ErrNoQuestion = errors.New("no such question")
	// ErrAnswered: the question already has an answer; the first answer
	// wins and later ones are refused.
	ErrAnswered = errors.New("question already answered")
	// ErrWithdrawn: the question was withdrawn and takes no answer.
	ErrWithdrawn = errors.New("question withdrawn")
	// ErrStale: an answer carries a digest other than the question's: it
	// was given to another question, to an earlier filing under the same
	// ID, or to a question whose file has since changed.
	ErrStale = errors.New("answer is for another question")
	// ErrUnsafe: the pending folder or a file in it is not one wisp may
	// trust: a symbolic link, not a regular file or folder, another user's,
	// or writable by others.
	ErrUnsafe = errors.New("unsafe pending file")
	// ErrMalformed: a file in the pending folder is not one wisp wrote: it
	// does not parse, breaks the limits, or its digest does not match.
	ErrMalformed = errors.New("malformed pending file")
	// ErrUnrecorded: the Store's Witness could not record who gives an
	// answer, so the answer was not filed. It wraps wisp.ErrNotRecorded,
	// as every record that could not be written does.
	ErrUnrecorded = fmt.Errorf("answer not recorded: %w", wisp.ErrNotRecorded)
	// ErrInvalid: an answer or question handed to the Store breaks the
	// limits (an unknown outcome, text too long, a choice that is not
	// among the options).
	ErrInvalid = errors.New("invalid pending value")
)
