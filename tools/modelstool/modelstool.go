// Package modelstool is the models tool: the model lists the models wisp
// can run, reads one model's facts, and asks the person to enable, disable
// or check a model. Every rule is ModelActions'; this package adapts the
// tool call to it and keeps every reply within 4 KiB.
package modelstool

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/models"
)

// Name is the tool's name.
const Name = "models"

// The fixed refusals the model reads.
const (
	LineSwitch = "error: switch is not offered to the model"
)

//go:embed description.md
var description string

// Tool is the models tool.
type Tool struct {
	actions *models.Actions
	current string
}

var _ wisp.Tool = (*Tool)(nil)

// New returns the tool over actions; current is this conversation's model,
// marked * in the listing.
func New(actions *models.Actions, current string) *Tool {
	return &Tool{actions: actions, current: current}
}

// Name returns "models".
func (*Tool) Name() string { return Name }

// Description returns what the model reads, word for word as the
// specification gives it.
func (*Tool) Description() string { return description }

// Schema returns the JSON Schema of the arguments.
func (*Tool) Schema() json.RawMessage { return schema }

var schema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "action": {"type": "string", "description": "list, show, pull, enable, disable, or check"},
    "name": {"type": "string", "maxLength": 300, "description": "The model as list names it (ollama:granite4.1:8b, mlx:Qwen3-4B-4bit); for pull, the repository"},
    "page": {"type": "integer", "minimum": 1, "description": "For list: the page, from 1"}
  },
  "required": ["action"],
  "additionalProperties": false
}`)

type args struct {
	Action string `json:"action"`
	Name   string `json:"name"`
	Page   int    `json:"page"`
}

// Call runs one action. Refusals and failures come back as error lines the
// model can act on; only a cancelled context, the person's stop, an
// action the audit could not record (wisp.ErrNotRecorded) or settings
// that could not be saved (models.ErrNotSaved) end the turn.
func (t *Tool) Call(ctx context.Context, c wisp.Call) (wisp.Result, error) {
	var a args
	if err := json.Unmarshal(c.Arguments, &a); err != nil {
		return wisp.ErrorResult(fmt.Sprintf("the arguments for models are not valid: %v", err)), nil
	}
	ctx = models.WithCall(ctx, c.Thread, c.Turn)
	needName := func() (wisp.Result, bool) {
		if a.Name == "" {
			return wisp.ErrorResult(fmt.Sprintf("%s needs a name: %v", a.Action, models.ErrBadName)), false
		}
		return wisp.Result{}, true
	}
	var out string
	var err error
	switch a.Action {
	case "list":
		page := max(a.Page, 1)
		var l wisp.Listing
		if l, err = t.actions.List(ctx, page); err == nil {
			out = models.FormatListing(l, t.current)
		}
	case "show":
		if r, ok := needName(); !ok {
			return r, nil
		}
		var m wisp.ModelInfo
		if m, err = t.actions.Show(ctx, a.Name); err == nil {
			out = models.FormatInfo(m)
		}
	case "pull":
		if a.Name == "" {
			return wisp.ErrorResult("pull needs the repository, as ORGANISATION/NAME (an MLX model on Hugging Face)"), nil
		}
		var p wisp.PullStarted
		if p, err = t.actions.Pull(ctx, a.Name, wisp.ActorModel); err == nil {
			out = models.LinePullStarted(p)
		}
	case "enable", "disable", "check":
		if r, ok := needName(); !ok {
			return r, nil
		}
		var ch wisp.Change
		switch a.Action {
		case "enable":
			ch, err = t.actions.Enable(ctx, a.Name, wisp.ActorModel)
		case "disable":
			ch, err = t.actions.Disable(ctx, a.Name, wisp.ActorModel)
		default:
			ch, err = t.actions.Check(ctx, a.Name, wisp.ActorModel)
		}
		if err == nil {
			out = models.FormatChange(ch)
		}
	case "trust":
		err = t.actions.Trust(ctx, a.Name, wisp.ActorModel)
	case "switch":
		return wisp.ErrorResult(LineSwitch), nil
	default:
		return wisp.ErrorResult(fmt.Sprintf("unknown action %q; action is list, show, pull, enable, disable or check", a.Action)), nil
	}
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, wisp.ErrInterrupted) || errors.Is(err, wisp.ErrNotRecorded) ||
			errors.Is(err, models.ErrNotSaved) {
			return wisp.Result{}, err
		}
		return wisp.ErrorResult(models.Clip(oneLine(err.Error()))), nil
	}
	return wisp.Result{Content: models.Clip(out)}, nil
}

func oneLine(s string) string {
	b := []rune(s)
	for i, r := range b {
		if r == '\n' || r == '\r' {
			b[i] = ' '
		}
	}
	return string(b)
}
