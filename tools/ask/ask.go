// Package ask is the ask tool: the model asks the person one question in
// the middle of a turn and goes on with the answer. Every rule of the
// question contract is the inquiry desk's; this package only adapts the
// tool call to it.
package ask

import (
	"context"
	_ "embed"
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry"
	"github.com/wisp-agent/wisp/tools"
)

// Name is the tool's name.
const Name = "ask"

//go:embed description.md
var description string

// Description is what the model reads about the tool, word for word as
// the specification gives it.
func Description() string { return description }

// New returns the ask tool, which puts its questions through desk. Its
// schema states the limits the desk enforces; a call it does not fit is
// refused before the desk sees it. The tool is a wisp.Summarizer whose
// summary is "a question": the question's words reach the person only in
// the face's frame, once the desk has taken them. A question changes
// nothing, so a call needs no approval (tools.NoApproval): the person
// answers it at the desk.
func New(desk *inquiry.Desk) wisp.Tool {
	call := func(ctx context.Context, c wisp.Call, a args) (wisp.Result, error) {
		s, err := desk.Ask(ctx, inquiry.Request{Thread: c.Thread, Turn: c.Turn, Text: a.Question, Options: a.Options, Facts: c.Facts})
		if err != nil {
			return wisp.Result{}, err
		}
		r := wisp.Result{Content: s.Line, IsError: s.Refused}
		if s.Fact != nil {
			r.Facts = []wisp.Fact{*s.Fact}
		}
		return r, nil
	}
	return tools.New(Name, description, call, &tools.Options{
		Schema:  limits,
		Summary: func(json.RawMessage) string { return "a question" },
		Action:  tools.NoApproval,
	})
}

// args are the call's arguments; the schema the model reads is theirs.
type args struct {
	Question string   `json:"question" jsonschema:"The question, 1 to 300 characters, one paragraph"`
	Options  []string `json:"options,omitempty" jsonschema:"For a choice: 2 to 6 options of up to 80 characters each, all different. Left out for free text"`
}

// limits gives the schema the desk's limits.
func limits(s *jsonschema.Schema) {
	q, o := s.Properties["question"], s.Properties["options"]
	q.MinLength, q.MaxLength = jsonschema.Ptr(1), jsonschema.Ptr(inquiry.MaxQuestionChars)
	o.MinItems, o.MaxItems = jsonschema.Ptr(inquiry.MinOptions), jsonschema.Ptr(inquiry.MaxOptions)
	o.Items.MinLength, o.Items.MaxLength = jsonschema.Ptr(1), jsonschema.Ptr(inquiry.MaxOptionChars)
}
