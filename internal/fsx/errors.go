package fsx

import "errors"

// Sentinel errors callers can branch on with errors.Is.
var (
	// ErrUnsafe: a folder is unsafe to keep wisp's files in, or a file
	// unsafe to trust (a symbolic link, not a folder or regular file,
	// someone else's, or writable by others).
	ErrUnsafe = errors.New("unsafe folder")
	// ErrNotRegular: a path that should hold a regular file holds a
	// symbolic link, a folder, a device or a pipe.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge: a file is larger than the caller allows.
	ErrTooLarge = errors.New("file too large")
)

// lineError is an error whose text is one finished line for a person and
// whose identity is a sentinel.
type lineError struct {
	msg  string
	kind error
}

func (e *lineError) Error() string { return e.msg }
func (e *lineError) Unwrap() error { return e.kind }
