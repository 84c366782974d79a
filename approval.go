package wisp

import "time"

// Scope is how far an approval reaches.
type Scope int

// The scopes, narrowest first. The zero Scope is ScopeNone: not approved.
const (
	ScopeNone    Scope = iota // not approved
	ScopeOnce                 // this request only
	ScopeSession              // the same pattern for the rest of the session
	ScopeProject              // the same pattern in this project
	ScopeAlways               // the same pattern everywhere
)

var scopeNames = [...]string{"none", "once", "session", "project", "always"}

// String returns the scope's name.
func (s Scope) String() string {
	if s >= 0 && int(s) < len(scopeNames) {
		return scopeNames[s]
	}
	return "unknown"
}

// An ApprovalRequest asks the person to allow something.
type ApprovalRequest struct {
	ID      string
	Session string
	Thread  string
	Turn    int
	// Kind names what is asked: "command", "modelAction".
	Kind string
	// Command is what the classifier judged, such as
	// "models enable ollama:qwen3:4b", shown to the person as it is
	// (escaped). Parts of it may come from the model.
	Command string
	// Pattern is how the request is judged and remembered, such as
	// "models enable *".
	Pattern string
	// Text says what the person needs to know, in plain words.
	Text string
	// Diff, when set, is the change to a file the request would allow,
	// as a unified diff (Action.Diff). Lines from the file and from the
	// model are in it: a face escapes it like any model text, and may
	// colour its added and removed lines.
	Diff string
	// Scopes are the answers the request allows, narrowest first.
	Scopes []Scope
	// Deadline is when the request ends refused if unanswered; zero means
	// it waits for as long as the person takes.
	Deadline time.Time
}

// A Decision is the person's answer to an ApprovalRequest. The zero
// Decision approves nothing.
type Decision struct {
	Scope Scope
	// Reason is set when the request was refused.
	Reason string
	// DowngradedFrom is set when a wider answer was narrowed.
	DowngradedFrom Scope
	// Provenance says who answered. A face sets FromPerson for the
	// person's answer, and FromUnattended when it has no person (wisp
	// respond, --yes). The zero value, FromUnknown, approves nothing: the
	// gate refuses an approval that does not say it is the person's.
	Provenance Provenance
	// FileSHA256 is set on a decision taken from a file another process
	// filed (wisp approvals, or an MCP client's dialog, under wisp mcp):
	// the SHA-256, in lower-case hex, of that file, which the
	// approval.answered record of who answered carries too (see
	// Witness). approval.decided records it.
	FileSHA256 string
}

// Approved reports whether d allows the request: a scope wider than
// ScopeNone, given by the person (FromPerson). Any other provenance
// approves nothing.
func (d Decision) Approved() bool { return d.Scope > ScopeNone && d.Provenance == FromPerson }
