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
