// Package ask is the ask tool: the model asks the person one question in
// the middle of a turn and goes on with the answer. Every rule of the
// question contract is the inquiry desk's; this package only adapts the
// tool call to it.
package ask

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry"
)

// Name is the tool's name.
const Name = "ask"

//go:embed description.md
var description string

// Description is what the model reads about the tool, word for word as
// the specification gives it.
func Description() string { return description }

// Tool is the ask tool. Create it with New.
type Tool struct {
	desk *inquiry.Desk
}

var _ wisp.Tool = (*Tool)(nil)

// New returns the ask tool, which puts its questions through desk.
func New(desk *inquiry.Desk) *Tool { return &Tool{desk: desk} }

// Name returns "ask".
func (*Tool) Name() string { return Name }

// Description returns what the model reads about the tool.
func (*Tool) Description() string { return description }

// Schema returns the JSON Schema of the arguments, with the limits the
// desk enforces.
func (*Tool) Schema() json.RawMessage { return schema }

var schema = json.RawMessage(fmt.Sprintf(`{
  "type": "object",
  "properties": {
    "question": {
      "type": "string",
      "minLength": 1,
      "maxLength": %d,
      "description": "The question, 1 to %d characters, one paragraph"
    },
    "options": {
      "type": "array",
      "minItems": %d,
      "maxItems": %d,
      "items": {"type": "string", "minLength": 1, "maxLength": %d},
      "description": "For a choice: %d to %d options of up to %d characters each, all different. Left out for free text"
    }
  },
  "required": ["question"],
  "additionalProperties": false
}`, inquiry.MaxQuestionChars, inquiry.MaxQuestionChars,
	inquiry.MinOptions, inquiry.MaxOptions, inquiry.MaxOptionChars,
	inquiry.MinOptions, inquiry.MaxOptions, inquiry.MaxOptionChars))

type args struct {
	Question string   `json:"question"`
	Options  []string `json:"options"`
}

// Call puts the question to the person and returns what the model gets:
// the outcome line, and the answer as a fact of the thread.
func (t *Tool) Call(ctx context.Context, c wisp.Call) (wisp.Result, error) {
	var a args
	if err := json.Unmarshal(c.Arguments, &a); err != nil {
		return wisp.ErrorResult(fmt.Sprintf("the arguments for ask are not valid: %v; send {\"question\": \"…\", \"options\": [\"…\", \"…\"]}", err)), nil
	}
	s, err := t.desk.Ask(ctx, inquiry.Request{Thread: c.Thread, Turn: c.Turn, Text: a.Question, Options: a.Options, Facts: c.Facts})
	if err != nil {
		return wisp.Result{}, err
	}
	r := wisp.Result{Content: s.Line, IsError: s.Refused}
	if s.Fact != nil {
		r.Facts = []wisp.Fact{*s.Fact}
	}
	return r, nil
}
