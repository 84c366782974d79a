package audit

import "errors"

// Sentinel errors callers can branch on with errors.Is. The errors returned
// wrap them with the details.
var (
	// ErrInvalidEntry: an Entry cannot be recorded as it is (an unknown
	// source, an empty or reserved kind, a negative turn, data that is not a
	// JSON object).
	ErrInvalidEntry = errors.New("audit: invalid entry")
	// ErrClosed: Append was called on a closed Log.
	ErrClosed = errors.New("audit: log is closed")
	// ErrSymlink: the log or lock file is a symbolic link, which the log
	// refuses to follow.
	ErrSymlink = errors.New("audit: refusing to follow a symbolic link")
	// ErrNotRegular: the log or lock file is not a regular file.
	ErrNotRegular = errors.New("audit: not a regular file")
	// ErrCorrupt: Read met a complete line that is not an audit record.
	// Verify tells more.
	ErrCorrupt = errors.New("audit: corrupt line")
	// ErrSyncFailed: an fsync of the log failed. Whether the record reached
	// the disk is unknown, and a retried fsync proves nothing, so the Log
	// refuses further appends; open a new one to go on.
	ErrSyncFailed = errors.New("audit: fsync failed")
	// ErrBadFilter: a Filter picks by a seq that no record has (a
	// negative After).
	ErrBadFilter = errors.New("audit: not a seq: a record's seq is 1 or more")
	// ErrCheckFailed: Check found the log fails its check, and said so.
	ErrCheckFailed = errors.New("audit: the log fails its check")
	// ErrLocked: Append gave up waiting for the log's lock, which another
	// process held past Options.Patience, because its ctx was done.
	// Nothing was written.
	ErrLocked = errors.New("audit: the log is locked")
)
