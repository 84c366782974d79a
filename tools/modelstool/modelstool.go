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

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/models"
	"github.com/wisp-agent/wisp/tools"
)

// Name is the tool's name.
const Name = "models"

// The fixed refusals the model reads.
const (
	LineSwitch = "error: switch is not offered to the model"
)

//go:embed description.md
var description string

// New returns the tool over actions, the one place for model rules;
// current is this conversation's model, marked * in the listing.
//
// The tool is a wisp.Guarded: a pull, enable, disable or check says what
// it would change, for the agent's guard to put to the person before the
// call runs (in the words of actions' Action when it is a Describer, as
// *models.Actions is; otherwise as the model spelt it), and runs with the
// approval the guard gave. Every other call changes nothing (list, show)
// or is refused (trust, switch), and needs no approval. The tool places
// each action in the call's thread and turn (models.WithCall), and under
// the call's approval (models.WithApproval), for the records of
// *models.Actions.
func New(actions wisp.ModelActions, current string) wisp.Tool {
	t := &tool{actions: actions, current: current}
	return tools.New(Name, description, t.call, &tools.Options{Schema: limits, Action: t.action})
}

// A Describer is a wisp.ModelActions that says what a change the model
// asks for would do, as the command the approval gate judges:
// *models.Actions is one (see its Action). verb is pull, enable, disable
// or check; name is as the model gave it.
type Describer interface {
	Action(ctx context.Context, verb, name string) (wisp.Action, error)
}

// args are the call's arguments; the schema the model reads is theirs.
// Action is not an enum: the model reads why a switch or a trust is
// refused, not that its schema says no.
type args struct {
	Action string `json:"action" jsonschema:"list, show, pull, enable, disable, or check"`
	Name   string `json:"name,omitempty" jsonschema:"The model as list names it (ollama:granite4.1:8b, mlx:Qwen3-4B-4bit); for pull, the repository"`
	Page   int    `json:"page,omitempty" jsonschema:"For list: the page, from 1"`
}

// limits bounds the name and the page.
func limits(s *jsonschema.Schema) {
	s.Properties["name"].MaxLength = jsonschema.Ptr(300)
	s.Properties["page"].Minimum = jsonschema.Ptr(1.0)
}

type tool struct {
	actions wisp.ModelActions
	current string
}

// call runs one action. Refusals and failures come back as error lines the
// model can act on; only a cancelled context, the person's stop, an
// action the audit could not record (wisp.ErrNotRecorded) or settings
// that could not be saved (models.ErrNotSaved) end the turn.
func (t *tool) call(ctx context.Context, c wisp.Call, a args) (wisp.Result, error) {
	ctx = models.WithApproval(models.WithCall(ctx, c.Thread, c.Turn), c.Approval)
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

// action says what a call would change, for the agent's guard.
func (t *tool) action(ctx context.Context, c wisp.Call) (wisp.Action, error) {
	var a args
	if err := json.Unmarshal(c.Arguments, &a); err != nil || a.Name == "" {
		return wisp.Action{NoApproval: true}, nil // the call refuses it
	}
	switch a.Action {
	case models.VerbPull, models.VerbEnable, models.VerbDisable, models.VerbCheck:
	default:
		// list and show change nothing; trust and switch are refused.
		return wisp.Action{NoApproval: true}, nil
	}
	if d, ok := t.actions.(Describer); ok {
		return d.Action(ctx, a.Action, a.Name)
	}
	// A ModelActions that does not say what its changes do: the change as
	// the model spelt it, which the rules judge as they find it.
	act := wisp.Action{
		Kind:      models.KindModelAction,
		Command:   "models " + a.Action + " " + a.Name,
		Pattern:   "models " + a.Action + " *",
		Text:      "the model asks to " + a.Action + " " + a.Name,
		Scopes:    []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession},
		AlwaysAsk: true,
	}
	if a.Action == models.VerbPull {
		act.Scopes = []wisp.Scope{wisp.ScopeOnce}
	}
	return act, nil
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
