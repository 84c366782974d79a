package wisp

import "encoding/json"

// A Call is one tool call, as a tool receives it.
type Call struct {
	ID        string // the model's id for the call, if it gave one
	Name      string
	Arguments json.RawMessage
	Session   string
	Thread    string
	Turn      int
	// Facts are the thread's facts as the call is made, for tools whose
	// rules span the thread: a question the person declined there (a
	// fact of subject "declined") is never asked again, whichever
	// process asks.
	Facts []Fact
	// Approval is the approval under which the call runs, as the agent's
	// guard gave it: set when the tool's Action needed one. Zero when the
	// call needed none.
	Approval Approval
	// Output, when set, receives what the call prints as it runs, such
	// as a command's output, for the person's face to show as it comes;
	// nil: nobody watches. A tool calls it from one goroutine at a time,
	// never after Call returns, with text that has passed the session's
	// redactor; it must return promptly. What it is given is a view, not
	// the record: it may be coalesced or dropped, and the Result holds
	// what the model reads.
	Output func(ToolOutput)
}

// A ToolOutput is a piece of what a tool call prints as it runs (see
// Call.Output). Text has passed the session's redactor; a face escapes it
// as it does any text it shows.
type ToolOutput struct {
	Thread string
	// CallID is the call's id (Call.ID); Tool is the tool's name.
	CallID string
	Tool   string
	// Stream is "stdout" or "stderr" for a command's output.
	Stream string
	Text   string
}

// An Action is what a tool call would do, said before it runs (see
// Guarded) so that the agent's guard can judge it: the classifier rates
// Command, and the approval gate asks the person unless the rating is
// below approval.threshold (and AlwaysAsk is not set) or an earlier answer
// of "this session" covers Pattern. Its fields are those of the gate's
// request.
type Action struct {
	// NoApproval declares that the call needs no approval and runs at
	// once: it changes nothing (it only reads, or only asks the person,
	// as ask and ask_user do), or it will refuse whatever is asked (its
	// arguments name nothing). Nothing is asked or recorded of it but the
	// call and its result. The zero Action does not say so: its empty
	// Command is judged like any command no rule knows, and asked.
	NoApproval bool
	// Kind names what is asked, for the face and the audit:
	// "modelAction", "requestApproval", "command".
	Kind string
	// Command is what the call would do, as the classifier judges it and
	// the person reads it: "models enable ollama:qwen3:4b",
	// "edit_file replace main.go". Parts of it may come from the model.
	Command string
	// Pattern is what an answer of "this session" covers, such as
	// "models enable *"; empty: no answer covers another call, and only
	// ScopeOnce is offered.
	Pattern string
	// Text is what the person needs to know, in plain words.
	Text string
	// Diff, when set, is the change the call would make to a file, as a
	// unified diff (---/+++ labels, @@ hunks), shown to the person with
	// the request (ApprovalRequest.Diff) and handed back to the call in
	// Approval.Diff. Lines from the file and from the model are in it:
	// a face escapes it like any model text.
	Diff string
	// Scopes are the answers the call allows, such as {ScopeOnce,
	// ScopeSession}; nil means {ScopeOnce}.
	Scopes []Scope
	// AlwaysAsk asks the person whatever approval.threshold says.
	AlwaysAsk bool
	// Release, when set, is called once, when the call has run or was
	// refused: it lets go of what the tool took hold of to say what the
	// call would do, such as the lock that keeps a second pull of a
	// repository from being asked about while the first waits for the
	// person.
	Release func()
}

// An Approval is the agent's guard's word that a call may do what its
// tool said it would (Action.Command).
type Approval struct {
	// ID is the approval's id: approval.decided's approvalID, which the
	// records of what the call does carry.
	ID string
	// Command is the Action.Command that was approved.
	Command string
	// Diff is the Action.Diff that was approved, if any. A tool that
	// showed a diff computes its change again when it runs and makes it
	// only if the diff is still this one: a file that changed while the
	// person read the request is not written over.
	Diff string
}

// A Result is what the model reads back from a tool call.
type Result struct {
	Content string
	// IsError marks a failure the model can act on; Content then starts
	// with "error: ".
	IsError bool
	// Facts are what the call taught the thread, such as the person's
	// answer to a question. The agent keeps them when it condenses.
	Facts []Fact
}

// ErrorResult returns a Result that tells the model what went wrong.
// The text is prefixed with "error: " unless it already is.
func ErrorResult(text string) Result {
	const prefix = "error: "
	if len(text) < len(prefix) || text[:len(prefix)] != prefix {
		text = prefix + text
	}
	return Result{Content: text, IsError: true}
}

// ToolSpec is how a tool is described to a model.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"parameters"`
}

// SpecOf returns the spec a model is given for t.
func SpecOf(t Tool) ToolSpec {
	return ToolSpec{Name: t.Name(), Description: t.Description(), Schema: t.Schema()}
}
