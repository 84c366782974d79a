package wisp

import "errors"

// Sentinel errors callers can branch on with errors.Is.
var (
	// ErrInterrupted: the person asked to stop the turn (Ctrl-C).
	ErrInterrupted = errors.New("the person stopped the turn")
	// ErrStepLimit: a turn ran more model steps than it may.
	ErrStepLimit = errors.New("the turn ran out of steps")
	// ErrScriptExhausted: a scripted model has no message left to play.
	ErrScriptExhausted = errors.New("the script has no message left")
	// ErrUnknownModel: a model reference names no backend wisp has.
	ErrUnknownModel = errors.New("unknown model")
	// ErrNotApproved: a request for approval was declined, timed out or
	// went unanswered.
	ErrNotApproved = errors.New("not approved")
	// ErrNotRecorded: an event of consequence could not be recorded (the
	// audit log could not be written). The turn it belongs to ends, and
	// nothing of that turn is kept on its thread.
	ErrNotRecorded = errors.New("the audit log could not be written")
)
