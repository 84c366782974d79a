package agent

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/policy"
)

// A Guard decides whether a tool call may do what its tool says it would
// (wisp.Guarded): Options.Guard. *policy.Gate is one: it rates the
// action's command with its classifier, allows what is rated below
// approval.threshold, lets an earlier answer of "this session" cover the
// same pattern, asks the person about the rest, and records every step.
//
// A refusal is an Outcome that is not Approved, with its reason; Ask
// returns an error only when the turn cannot go on (see policy.Gate.Ask).
type Guard interface {
	Ask(ctx context.Context, r policy.Request) (policy.Outcome, error)
}

// KindTool is the kind of the approval request for a call of a tool that
// does not say what its calls do (it is not a wisp.Guarded).
const KindTool = "tool"

// maxShownArguments bounds the arguments an undeclared tool's request
// shows the person.
const maxShownArguments = 1 << 10

// CallTool runs one call of t as the agent runs every call, through g:
// t's Action (or, for a tool that is not a wisp.Guarded, the call judged
// by the tool's name) is put to g, and the call runs only when it needs
// no approval or g approved it, with the approval in c.Approval (the
// action's Diff, which g shows the person, comes back in
// c.Approval.Diff). A refused call does not run; the model reads
// policy.LineNotApproved and the reason. A nil g refuses every call that needs approval: no person
// can approve. The call's arguments must have passed t's schema
// (tools.Set.Check). An error from the Action, from g or from the call
// ends the turn.
func CallTool(ctx context.Context, g Guard, t wisp.Tool, c wisp.Call) (wisp.Result, error) {
	act := undeclared(c)
	if guarded, ok := t.(wisp.Guarded); ok {
		var err error
		act, err = guarded.Action(ctx, c)
		if act.Release != nil {
			defer act.Release()
		}
		if err != nil {
			return wisp.Result{}, err
		}
	}
	if act.NoApproval {
		return t.Call(ctx, c)
	}
	if g == nil {
		return wisp.ErrorResult(policy.LineNotApproved + policy.ReasonNoPerson), nil
	}
	out, err := g.Ask(ctx, policy.Request{
		Thread: c.Thread, Turn: c.Turn, Kind: act.Kind, Command: act.Command, Pattern: act.Pattern,
		Text: act.Text, Diff: act.Diff, Scopes: act.Scopes, AlwaysAsk: act.AlwaysAsk,
	})
	if err != nil {
		return wisp.Result{}, err
	}
	if !out.Approved {
		return wisp.ErrorResult(policy.LineNotApproved + out.Reason), nil
	}
	c.Approval = wisp.Approval{ID: out.ID, Command: act.Command, Diff: act.Diff}
	return t.Call(ctx, c)
}

// undeclared is the action of a call of a tool that does not say what
// its calls do: it is judged by the tool's name, which no rule knows, so
// it is dangerous and asked; an answer of "this session" covers every
// call of the tool. The person reads the arguments.
func undeclared(c wisp.Call) wisp.Action {
	var b bytes.Buffer
	args := string(c.Arguments)
	if json.Compact(&b, c.Arguments) == nil {
		args = b.String()
	}
	if len(args) > maxShownArguments {
		args = validPrefix(args[:maxShownArguments]) + "…"
	}
	return wisp.Action{
		Kind:    KindTool,
		Command: c.Name,
		Pattern: c.Name + " *",
		Text:    "calls " + c.Name + ", a tool that does not say what its calls do, with " + args,
		Scopes:  []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession},
	}
}
