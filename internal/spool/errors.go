package spool

import "errors"

// Sentinel errors callers can branch on with errors.Is. A [Spool]'s errors
// wrap the caller's own sentinels as well (Spool.ErrUnsafe,
// Spool.ErrMalformed).
var (
	// ErrUnsafe: the folder or a file in it is not one wisp may trust: a
	// symbolic link, not a regular file or folder, another user's, or
	// writable by others.
	ErrUnsafe = errors.New("unsafe spool file")
	// ErrMalformed: a file in the folder is not one wisp wrote.
	ErrMalformed = errors.New("malformed spool file")
	// ErrExists: CreateExclusive found a file at the name already.
	ErrExists = errors.New("exists")
)

// lineError is an error whose text is one finished line for a person and
// whose identity is one or two sentinels.
type lineError struct {
	msg   string
	kinds []error
}

func (e *lineError) Error() string   { return e.msg }
func (e *lineError) Unwrap() []error { return e.kinds }

// Line returns an error whose text is msg, one finished line for a
// person, and whose identity is kind: errors.Is(err, kind) holds.
func Line(kind error, msg string) error { return lineErr(kind, nil, msg) }

// lineErr builds a lineError that wraps kind and, when it is not nil,
// also.
func lineErr(kind, also error, msg string) error {
	kinds := []error{kind}
	if also != nil && also != kind {
		kinds = append(kinds, also)
	}
	return &lineError{msg: msg, kinds: kinds}
}
