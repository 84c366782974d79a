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
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry"
)

// Name is the tool's name.
const Name = "ask_user"

//go:embed description.md
var description string

// Description is what the model reads about the tool.
func Description() string { return description }

// Tool is the ask_user tool. Create it with New.
type Tool struct {
	desk *inquiry.Desk
}

var _ wisp.Tool = (*Tool)(nil)

// New returns the ask_user tool, which puts its cards through desk. The
// desk's Options.Vault keeps the values of secret questions; without one
// they are refused.
func New(desk *inquiry.Desk) *Tool { return &Tool{desk: desk} }

// Name returns "ask_user".
func (*Tool) Name() string { return Name }

// Description returns what the model reads about the tool.
func (*Tool) Description() string { return description }

// Schema returns the JSON Schema of the arguments, with the limits the
// desk enforces.
func (*Tool) Schema() json.RawMessage { return schema }

var schema = json.RawMessage(fmt.Sprintf(`{
  "type": "object",
  "properties": {
    "questions": {
      "type": "array",
      "minItems": 1,
      "maxItems": %[1]d,
      "description": "1 to %[1]d questions, shown to the person together on one card",
      "items": {
        "type": "object",
        "properties": {
          "question": {
            "type": "string",
            "minLength": 1,
            "maxLength": %[2]d,
            "description": "The question, 1 to %[2]d characters, one paragraph"
          },
          "header": {
            "type": "string",
            "maxLength": %[3]d,
            "description": "A short label shown as a chip, up to %[3]d characters, such as \"Env\""
          },
          "options": {
            "type": "array",
            "minItems": %[4]d,
            "maxItems": %[5]d,
            "description": "For a choice: %[4]d to %[5]d options, most applicable first, because a fallback follows that order. Left out for free text",
            "items": {
              "type": "object",
              "properties": {
                "label": {
                  "type": "string",
                  "minLength": 1,
                  "maxLength": %[6]d,
                  "description": "The choice as the person picks it, up to %[6]d characters, different from the others"
                },
                "description": {
                  "type": "string",
                  "maxLength": %[7]d,
                  "description": "The choice's trade-off in a short phrase, up to %[7]d characters"
                },
                "recommended": {
                  "type": "boolean",
                  "description": "Mark the one option a fallback picks when nobody answers; without one, the first"
                }
              },
              "required": ["label"],
              "additionalProperties": false
            }
          },
          "multiSelect": {
            "type": "boolean",
            "description": "Let the person choose more than one option"
          },
          "allowOther": {
            "type": "boolean",
            "description": "Offer a free-text \"something else\" answer besides the options"
          }
        },
        "required": ["question"],
        "additionalProperties": false
      }
    },
    "secret": {
      "type": "object",
      "description": "Collect one credential instead of asking questions: send it without questions. You get its reference, session:NAME, never the value",
      "properties": {
        "name": {
          "type": "string",
          "pattern": %[8]q,
          "description": "The secret's name, like an environment variable's: GH_TOKEN"
        },
        "question": {
          "type": "string",
          "minLength": 1,
          "maxLength": %[2]d,
          "description": "What to give and where it comes from, 1 to %[2]d characters, one paragraph"
        }
      },
      "required": ["name", "question"],
      "additionalProperties": false
    },
    "timeout_seconds": {
      "type": "integer",
      "minimum": %[9]d,
      "maximum": %[10]d,
      "description": "How long to wait for the person: %[9]d to %[10]d seconds. Left out, %[10]d, the most"
    }
  },
  "additionalProperties": false
}`, inquiry.MaxCardQuestions, inquiry.MaxQuestionChars, inquiry.MaxHeaderChars,
	inquiry.MinOptions, inquiry.MaxOptions, inquiry.MaxOptionChars, inquiry.MaxDescriptionChars,
	inquiry.SecretNamePattern, int(inquiry.MinCardTimeout/time.Second), int(inquiry.CardTimeout/time.Second)))

// args are the call's arguments, as the schema gives them.
type args struct {
	Questions      []questionArg `json:"questions"`
	Secret         *secretArg    `json:"secret"`
	TimeoutSeconds *float64      `json:"timeout_seconds"`
}

type questionArg struct {
	Question    string      `json:"question"`
	Header      string      `json:"header"`
	Options     []optionArg `json:"options"`
	MultiSelect bool        `json:"multiSelect"`
	AllowOther  bool        `json:"allowOther"`
}

type optionArg struct {
	Label       string `json:"label"`
	Description string `json:"description"`
	Recommended bool   `json:"recommended"`
}

type secretArg struct {
	Name     string `json:"name"`
	Question string `json:"question"`
}

// errArgs reports arguments that cannot be decoded.
var errArgs = errors.New("the arguments for ask_user are not valid")

// decode turns the call's arguments into a card request. It checks only
// their shape; the desk checks the rest. A secret comes after the
// questions, so that the desk refuses a call with both.
func decode(raw json.RawMessage) (inquiry.CardRequest, error) {
	var a args
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return inquiry.CardRequest{}, fmt.Errorf("%w: %v", errArgs, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return inquiry.CardRequest{}, fmt.Errorf("%w: more than one JSON value", errArgs)
	}
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

// Call puts the card to the person and returns what the model gets: a
// line per question saying what was chosen and who chose it, and the
// answers as facts of the thread.
func (t *Tool) Call(ctx context.Context, c wisp.Call) (wisp.Result, error) {
	r, err := decode(c.Arguments)
	if err != nil {
		return wisp.ErrorResult(err.Error() + `; send {"questions": [{"question": "…", "header": "…", "options": [{"label": "…", "description": "…", "recommended": true}, {"label": "…", "description": "…"}]}]}, or {"secret": {"name": "GH_TOKEN", "question": "…"}}`), nil
	}
	r.Thread, r.Turn, r.Facts = c.Thread, c.Turn, c.Facts
	s, err := t.desk.AskCard(ctx, r)
	if err != nil {
		return wisp.Result{}, err
	}
	return wisp.Result{Content: s.Line, IsError: s.Refused, Facts: s.Facts}, nil
}
