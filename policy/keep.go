package policy

import (
	"context"
	"time"

	"github.com/wisp-agent/wisp"
)

// A Kept answer is the person's approval of a pattern beyond the
// session: of scope project (in one workspace) or always (everywhere).
// The gate keeps one through its Keeper when the person answers so, and
// lets it cover later requests of the same kind that its pattern covers,
// in later sessions too, never wider than each request allows.
type Kept struct {
	// ID is the approval's id, approval.decided's approvalID.
	ID string
	// Kind and Command are the request's, for the person's listing.
	Kind    string
	Command string
	// Pattern is what the answer covers: requests of the same Kind whose
	// pattern is the same, or whose command the classifier finds it
	// covers (Classifier.Covers).
	Pattern string
	// Scope is wisp.ScopeProject or wisp.ScopeAlways.
	Scope wisp.Scope
	// Project is the workspace a ScopeProject answer holds in
	// (GateOptions.Project); empty for ScopeAlways.
	Project string
	// Time is when the person answered.
	Time time.Time
}

// A Keeper keeps the person's answers of scope project and always across
// sessions (GateOptions.Keeper). policy/standing's Store, in the wisp
// home, is one. It must be safe for concurrent use, and fail closed: an
// answer it cannot vouch for is no answer.
type Keeper interface {
	// Kept returns the kept answers that hold in project: those of
	// ScopeAlways, and those of ScopeProject kept for project (none when
	// project is empty). An error (kept answers that cannot be read, or
	// are not the person's own) covers nothing.
	Kept(ctx context.Context, project string) ([]Kept, error)
	// Keep keeps k, in place of any kept answer of the same pattern,
	// scope and project.
	Keep(ctx context.Context, k Kept) error
}

// WidestScope returns the widest answer a command of rating r may be
// given: a dangerous command is approved once at a time, never for a
// session or longer, whatever the person answers; any other as far as its
// request allows.
func WidestScope(r Rating) wisp.Scope {
	if r >= Dangerous {
		return wisp.ScopeOnce
	}
	return wisp.ScopeAlways
}
