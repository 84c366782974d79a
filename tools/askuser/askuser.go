// Package askuser is the ask_user tool: the model asks the person 1 to 4
// structured questions on one card, or collects one credential, and goes
// on with the answers in the same turn. Its arguments are shaped like
// Claude Code's AskUserQuestion (questions[], each with question, header,
// options of {label, description}, multiSelect), with what wisp's
// contract adds: recommended on an option, allowOther, the secret kind
// and timeout_seconds.
//
// Every rule of the contract (limits, fallbacks, provenance, secrets,
// declined questions) is the inquiry desk's (inquiry.Desk.AskCard); this
// package only decodes the call and hands it over.
package askuser

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry"
	"github.com/wisp-agent/wisp/tools"
)

// Name is the tool's name.
const Name = "ask_user"

//go:embed description.md
var description string

// Description is what the model reads about the tool.
func Description() string { return description }

// New returns the ask_user tool, which puts its cards through desk. The
// desk's Options.Vault keeps the values of secret questions; without one
// they are refused. Its schema states the limits the desk enforces; a
// call it does not fit is refused before the desk sees it. The tool is a
// wisp.Summarizer: its summary says how many questions a call asks ("a
// question", "3 questions"), or "a secret", and none of their words. A
// card changes nothing, so a call needs no approval (tools.NoApproval):
// the person answers it at the desk.
func New(desk *inquiry.Desk) wisp.Tool {
	call := func(ctx context.Context, c wisp.Call, a args) (wisp.Result, error) {
		r, err := card(a)
		if err != nil {
			return wisp.ErrorResult(err.Error() + `; send {"questions": [{"question": "…", "header": "…", "options": [{"label": "…", "description": "…", "recommended": true}, {"label": "…", "description": "…"}]}]}, or {"secret": {"name": "GH_TOKEN", "question": "…"}}`), nil
		}
		r.Thread, r.Turn, r.Facts = c.Thread, c.Turn, c.Facts
		s, err := desk.AskCard(ctx, r)
		if err != nil {
			return wisp.Result{}, err
		}
		return wisp.Result{Content: s.Line, IsError: s.Refused, Facts: s.Facts}, nil
	}
	return tools.New(Name, description, call, &tools.Options{Schema: limits, Summary: summary, Action: tools.NoApproval})
}

// args are the call's arguments; the schema the model reads is theirs.
type args struct {
	Questions []questionArg `json:"questions,omitempty" jsonschema:"1 to 4 questions, shown to the person together on one card"`
	Secret    *secretArg    `json:"secret,omitempty" jsonschema:"Collect one credential instead of asking questions: send it without questions. You get its reference, session:NAME, never the value"`
	// TimeoutSeconds is a whole number of seconds (the schema says
	// integer), which JSON may spell 30.0.
	TimeoutSeconds *float64 `json:"timeout_seconds,omitempty" jsonschema:"How long to wait for the person: 10 to 300 seconds. Left out, 300, the most"`
}

type questionArg struct {
	Question    string      `json:"question" jsonschema:"The question, 1 to 300 characters, one paragraph"`
	Header      string      `json:"header,omitempty" jsonschema:"A short label shown as a chip, up to 12 characters, such as \"Env\""`
	Options     []optionArg `json:"options,omitempty" jsonschema:"For a choice: 2 to 6 options, most applicable first, because a fallback follows that order. Left out for free text"`
	MultiSelect bool        `json:"multiSelect,omitempty" jsonschema:"Let the person choose more than one option"`
	AllowOther  bool        `json:"allowOther,omitempty" jsonschema:"Offer a free-text \"something else\" answer besides the options"`
}

type optionArg struct {
	Label       string `json:"label" jsonschema:"The choice as the person picks it, up to 80 characters, different from the others"`
	Description string `json:"description,omitempty" jsonschema:"The choice's trade-off in a short phrase, up to 200 characters"`
	Recommended bool   `json:"recommended,omitempty" jsonschema:"Mark the one option a fallback picks when nobody answers; without one, the first"`
}

type secretArg struct {
	Name     string `json:"name" jsonschema:"The secret's name, like an environment variable's: GH_TOKEN"`
	Question string `json:"question" jsonschema:"What to give and where it comes from, 1 to 300 characters, one paragraph"`
}

// limits gives the schema the limits the desk enforces.
func limits(s *jsonschema.Schema) {
	n := jsonschema.Ptr[int]
	qs := s.Properties["questions"]
	qs.MinItems, qs.MaxItems = n(1), n(inquiry.MaxCardQuestions)
	q := qs.Items.Properties
	q["question"].MinLength, q["question"].MaxLength = n(1), n(inquiry.MaxQuestionChars)
	q["header"].MaxLength = n(inquiry.MaxHeaderChars)
	q["options"].MinItems, q["options"].MaxItems = n(inquiry.MinOptions), n(inquiry.MaxOptions)
	o := q["options"].Items.Properties
	o["label"].MinLength, o["label"].MaxLength = n(1), n(inquiry.MaxOptionChars)
	o["description"].MaxLength = n(inquiry.MaxDescriptionChars)
	secret := s.Properties["secret"].Properties
	secret["name"].Pattern = inquiry.SecretNamePattern
	secret["question"].MinLength, secret["question"].MaxLength = n(1), n(inquiry.MaxQuestionChars)
	t := s.Properties["timeout_seconds"]
	t.Type = "integer"
	t.Minimum, t.Maximum = jsonschema.Ptr(inquiry.MinCardTimeout.Seconds()), jsonschema.Ptr(inquiry.CardTimeout.Seconds())
}

// summary says how many questions a call with these arguments asks ("a
// question", "3 questions"), or "a secret", and none of their words: those
// reach the person only in the face's frame, once the desk has taken
// them.
func summary(arguments json.RawMessage) string {
	var a struct {
		Questions []json.RawMessage `json:"questions"`
		Secret    json.RawMessage   `json:"secret"`
	}
	_ = json.Unmarshal(arguments, &a)
	switch {
	case len(a.Secret) > 0 && string(a.Secret) != "null":
		return "a secret"
	case len(a.Questions) > 1:
		return fmt.Sprintf("%d questions", len(a.Questions))
	}
	return "a question"
}

// errArgs reports arguments the desk cannot be given.
var errArgs = errors.New("the arguments for ask_user are not valid")

// card turns the call's arguments, which have the schema's shape, into a
// card request. The desk checks the rest. A secret comes after the
// questions, so that the desk refuses a call with both.
func card(a args) (inquiry.CardRequest, error) {
	var r inquiry.CardRequest
	for _, q := range a.Questions {
		cq := wisp.CardQuestion{Text: q.Question, Header: q.Header, Multi: q.MultiSelect, Other: q.AllowOther}
		for _, o := range q.Options {
			cq.Options = append(cq.Options, wisp.Option{Label: o.Label, Description: o.Description, Recommended: o.Recommended})
		}
		r.Questions = append(r.Questions, cq)
	}
	if a.Secret != nil {
		if a.Secret.Name == "" {
			return inquiry.CardRequest{}, fmt.Errorf("%w: the secret has no name; name it like an environment variable, such as GH_TOKEN", errArgs)
		}
		r.Questions = append(r.Questions, wisp.CardQuestion{Text: a.Secret.Question, Secret: a.Secret.Name})
	}
	if t := a.TimeoutSeconds; t != nil {
		switch {
		case *t == 0:
			// The default.
		case *t != math.Trunc(*t) || *t < 0 || *t > math.MaxInt32:
			r.Timeout = -1 // out of range: the desk says what it may be
		default:
			r.Timeout = time.Duration(*t) * time.Second
		}
	}
	return r, nil
}
