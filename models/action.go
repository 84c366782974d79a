package models

import (
	"context"
	"strings"

	"github.com/wisp-agent/wisp"
)

// KindModelAction is the kind of the approval request for a change the
// model asks for (wisp.ApprovalRequest.Kind).
const KindModelAction = "modelAction"

// The verbs of the changes the model may ask for.
const (
	VerbPull    = "pull"
	VerbEnable  = "enable"
	VerbDisable = "disable"
	VerbCheck   = "check"
)

// Action says what a change the model asks for would do, for the agent's
// guard to put to the person before the models tool makes it: verb is
// pull, enable, disable or check, and name is as the model gave it. The
// command names the model by its full name, or the repository as the Hub
// spells it (models enable ollama:qwen3:4b, models pull
// mlx-community/Qwen3-4B-4bit), as the classifier's rows (Rules) judge it;
// the text says what the person needs: for a pull, the download, the
// publisher and the licence; for the rest, what changes in config.json.
// Every change is asked whatever approval.threshold says. An answer of
// "this session" covers the same change of another model (models enable
// *) for the session; a pull allows only once, so every pull is asked.
//
// A request that will change nothing, or be refused whatever the person
// says, needs no approval (NoApproval), and the change says why: a name
// that names no model, a model already enabled (or disabled), a pull that
// cannot start (pulls not set up here, a repository the Hub does not
// have, a pull of it already running or waiting for the person). Action
// returns an error only when ctx is done.
//
// For a pull, Action plans it and takes the repository's lock, so that a
// second pull of it is refused without asking while the person decides:
// the plan and the lock pass to the pull the approval allows (Pull under
// WithApproval), or the action's Release lets the lock go.
func (a *Actions) Action(ctx context.Context, verb, name string) (wisp.Action, error) {
	if verb == VerbPull {
		return a.pullAction(ctx, name)
	}
	free := wisp.Action{NoApproval: true}
	m, held, err := a.forDisable(ctx, name)
	if err != nil {
		if ctx.Err() != nil {
			return wisp.Action{}, context.Cause(ctx)
		}
		return free, nil
	}
	var text string
	switch {
	case verb == VerbEnable && (m.Enabled || isGone(m)), verb == VerbDisable && !held:
		return free, nil
	case verb == VerbEnable:
		text = "adds " + m.Name + " to models.enabled in config.json, after checking that it can call tools"
	case verb == VerbDisable:
		text = "removes " + m.Name + " from models.enabled in config.json"
	case verb == VerbCheck && held && !m.Enabled && !isGone(m):
		text = "checks " + m.Name + ", another model than the one enabled under its name; if it passes, its entry in models.enabled in config.json holds this one, and if it fails, the entry goes"
	case verb == VerbCheck && held:
		text = "checks " + m.Name + "; if it fails, removes it from models.enabled in config.json"
	case verb == VerbCheck:
		text = "checks " + m.Name + "; config.json does not change unless it fails"
	default:
		// No change this package knows: asked, as no rule knows it.
		return wisp.Action{Kind: KindModelAction, Command: "models " + verb + " " + m.Name, AlwaysAsk: true}, nil
	}
	return wisp.Action{
		Kind:      KindModelAction,
		Command:   "models " + verb + " " + m.Name,
		Pattern:   "models " + verb + " *",
		Text:      text,
		Scopes:    []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession},
		AlwaysAsk: true,
	}, nil
}

// pullAction is Action for a pull: it plans the pull and holds it, with
// the repository's lock, until the approved pull takes it or the action
// is released.
func (a *Actions) pullAction(ctx context.Context, repo string) (wisp.Action, error) {
	pp, unlock, err := a.lockedPlan(ctx, repo)
	if err != nil {
		if ctx.Err() != nil {
			return wisp.Action{}, context.Cause(ctx)
		}
		return wisp.Action{NoApproval: true}, nil
	}
	command := "models pull " + pp.Plan.Repo
	h := &heldPull{pp: pp, unlock: unlock}
	a.jobsMu.Lock()
	if a.held == nil {
		a.held = make(map[string]*heldPull)
	}
	a.held[command] = h
	a.jobsMu.Unlock()
	return wisp.Action{
		Kind:      KindModelAction,
		Command:   command,
		Pattern:   "models pull *",
		Text:      pp.Text(),
		Scopes:    []wisp.Scope{wisp.ScopeOnce},
		AlwaysAsk: true,
		Release:   func() { a.release(command, h) },
	}, nil
}

// heldPull is a pull planned for the person to approve, with its
// repository's lock.
type heldPull struct {
	pp     PullPlan
	unlock func()
}

// take hands over the pull held for command, if any: the approved pull
// runs with its plan and its lock.
func (a *Actions) take(command string) (*heldPull, bool) {
	if command == "" || !strings.HasPrefix(command, "models pull ") {
		return nil, false
	}
	a.jobsMu.Lock()
	defer a.jobsMu.Unlock()
	h, ok := a.held[command]
	delete(a.held, command)
	return h, ok
}

// release lets go of h's lock, unless a pull took it.
func (a *Actions) release(command string, h *heldPull) {
	a.jobsMu.Lock()
	mine := a.held[command] == h
	if mine {
		delete(a.held, command)
	}
	a.jobsMu.Unlock()
	if mine {
		h.unlock()
	}
}
