package outofband

import (
	"errors"
	"fmt"

	"github.com/wisp-agent/wisp"
)

// Sentinel errors callers can branch on with errors.Is. The errors the
// Store returns wrap them in one finished line for a person, which names
// the request and, where there is one, the way to mend things.
var (
	// ErrBadID: an approval ID is not 8 characters from 0-9 and a-f. No
	// path is built from it and no file is touched.
	ErrBadID = errors.New("not an approval ID")
	// ErrNoRequest: no approval request with that ID is filed: it was
	// never filed, or it was settled.
	ErrNoRequest = errors.New("no such approval request")
	// ErrFiled: File was given a request whose ID is filed already.
	ErrFiled = errors.New("approval request already filed")
	// ErrDecided: the request already has a decision; the first decision
	// wins and later ones are refused.
	ErrDecided = errors.New("approval request already decided")
	// ErrWithdrawn: the request was withdrawn, or its time ran out, and
	// takes no decision.
	ErrWithdrawn = errors.New("approval request withdrawn")
	// ErrStale: a decision carries a digest other than the request's: it
	// was made on another request, on an earlier filing under the same
	// ID, or on a request whose file has changed since it was shown.
	ErrStale = errors.New("decision is for another approval request")
	// ErrUnsafe: the approvals folder or a file in it is not one wisp may
	// trust: a symbolic link, not a regular file or folder, another
	// user's, or writable by others.
	ErrUnsafe = errors.New("unsafe approvals file")
	// ErrMalformed: a file in the approvals folder is not one wisp wrote:
	// it does not parse, breaks the limits, or its digest does not match.
	ErrMalformed = errors.New("malformed approvals file")
	// ErrUnrecorded: the Store's Witness could not record who gives a
	// decision, so the decision was not filed. It wraps
	// wisp.ErrNotRecorded, as every record that could not be written does.
	ErrUnrecorded = fmt.Errorf("decision not recorded: %w", wisp.ErrNotRecorded)
	// ErrInvalid: a request or decision handed to the Store breaks the
	// limits (text too long, a scope that is not offered, an unknown
	// face).
	ErrInvalid = errors.New("invalid approval value")
)
