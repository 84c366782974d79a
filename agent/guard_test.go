package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/models/script"
	"github.com/wisp-agent/wisp/policy"
	"github.com/wisp-agent/wisp/wisptest"
)

// guard is a scripted agent.Guard: it keeps the requests it is given and
// answers each with answer.
type guard struct {
	mu     sync.Mutex
	answer policy.Outcome
	err    error
	got    []policy.Request
}

func (g *guard) Ask(ctx context.Context, r policy.Request) (policy.Outcome, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.got = append(g.got, r)
	return g.answer, g.err
}

// plain is a tool that does not say what its calls do; it keeps the
// calls that ran.
type plain struct {
	mu  *sync.Mutex
	ran *[]wisp.Call
}

func newPlain() plain { return plain{mu: &sync.Mutex{}, ran: &[]wisp.Call{}} }

func (plain) Name() string        { return "deploy" }
func (plain) Description() string { return "deploys" }
func (plain) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"to":{"type":"string"}},"additionalProperties":false}`)
}
func (p plain) Call(ctx context.Context, c wisp.Call) (wisp.Result, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	*p.ran = append(*p.ran, c)
	return wisp.Result{Content: "deployed"}, nil
}
func (p plain) calls() []wisp.Call {
	p.mu.Lock()
	defer p.mu.Unlock()
	return *p.ran
}

// declared is a tool that says what its calls do.
type declared struct {
	plain
	action   wisp.Action
	err      error
	released *int
}

func (d declared) Action(ctx context.Context, c wisp.Call) (wisp.Action, error) {
	a := d.action
	if d.released != nil {
		a.Release = func() { *d.released++ }
	}
	return a, d.err
}

// toolResult runs one call of tl through an agent with g as its guard
// (nil: none), and returns what the model read of it.
func toolResult(t *testing.T, tl wisp.Tool, g agent.Guard, args string) (string, error) {
	t.Helper()
	m := script.New("t", []script.Step{call(tl.Name(), args), {Content: "ok"}})
	opts := &agent.Options{Tools: set(t, tl)}
	if g != nil {
		opts.Guard = g
	}
	if _, err := agent.New(m, opts).Respond(context.Background(), "t1", "go"); err != nil {
		return "", err
	}
	msgs := m.Requests()[1].Messages
	return msgs[len(msgs)-1].Content, nil
}

// A tool that does not say what its calls do is judged by its name: with
// no guard it is refused, and with one the person is asked about the
// tool's name and reads its arguments.
func TestUndeclaredToolIsAsked(t *testing.T) {
	t.Run("no guard", func(t *testing.T) {
		p := newPlain()
		got, err := toolResult(t, p, nil, `{"to":"prod"}`)
		if err != nil || got != "error: not approved: no person can approve here" {
			t.Errorf("the model read %q, %v; want it refused: no person can approve here", got, err)
		}
		if len(p.calls()) != 0 {
			t.Errorf("the tool ran %d times; want none", len(p.calls()))
		}
	})
	t.Run("declined", func(t *testing.T) {
		p, g := newPlain(), &guard{answer: policy.Outcome{ID: "a1", Reason: policy.ReasonDeclined}}
		got, err := toolResult(t, p, g, `{ "to" : "prod" }`)
		if err != nil || got != "error: not approved: the person declined" {
			t.Errorf("the model read %q, %v; want it refused: the person declined", got, err)
		}
		want := []policy.Request{{Thread: "t1", Turn: 1, Kind: agent.KindTool, Command: "deploy", Pattern: "deploy *",
			Text:   `calls deploy, a tool that does not say what its calls do, with {"to":"prod"}`,
			Scopes: []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession}}}
		if diff := cmp.Diff(want, g.got); diff != "" {
			t.Errorf("the guard was asked (-want +got):\n%s", diff)
		}
		if len(p.calls()) != 0 {
			t.Errorf("the tool ran %d times; want none", len(p.calls()))
		}
	})
	t.Run("approved", func(t *testing.T) {
		p, g := newPlain(), &guard{answer: policy.Outcome{Approved: true, ID: "a1", Scope: wisp.ScopeOnce}}
		got, err := toolResult(t, p, g, `{"to":"prod"}`)
		if err != nil || got != "deployed" {
			t.Errorf("the model read %q, %v; want the tool's result", got, err)
		}
		if ran := p.calls(); len(ran) != 1 || ran[0].Approval != (wisp.Approval{ID: "a1", Command: "deploy"}) {
			t.Errorf("the tool ran %+v; want once, under approval a1 for deploy", ran)
		}
	})
}

// A tool that says what its calls do is judged by its action; one whose
// calls need no approval runs without the guard; what the action took
// hold of is let go once, whatever the answer; arguments that fail the
// schema are refused before anyone is asked.
func TestGuardedTool(t *testing.T) {
	enable := wisp.Action{Kind: "modelAction", Command: "models enable ollama:qwen3:4b", Pattern: "models enable *",
		Text: "adds it", Scopes: []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession}, AlwaysAsk: true}
	edit := wisp.Action{Kind: "fileEdit", Command: "edit_file write notes.md", Pattern: "edit_file write *", Text: "writes notes.md",
		Diff: "--- a/notes.md\n+++ b/notes.md\n@@ -1 +1 @@\n-old\n+new\n", Scopes: []wisp.Scope{wisp.ScopeOnce}}
	tests := []struct {
		name     string
		action   wisp.Action
		args     string
		answer   policy.Outcome
		noGuard  bool
		want     string
		asked    []policy.Request
		ran      []wisp.Approval
		released int
	}{
		{name: "approved", action: enable, args: `{}`, answer: policy.Outcome{Approved: true, ID: "a7", Scope: wisp.ScopeSession},
			want: "deployed", ran: []wisp.Approval{{ID: "a7", Command: "models enable ollama:qwen3:4b"}}, released: 1,
			asked: []policy.Request{{Thread: "t1", Turn: 1, Kind: "modelAction", Command: "models enable ollama:qwen3:4b", Pattern: "models enable *",
				Text: "adds it", Scopes: []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession}, AlwaysAsk: true}}},
		{name: "a diff goes to the guard and back to the call", action: edit, args: `{}`, answer: policy.Outcome{Approved: true, ID: "a8", Scope: wisp.ScopeOnce},
			want: "deployed", ran: []wisp.Approval{{ID: "a8", Command: "edit_file write notes.md", Diff: edit.Diff}}, released: 1,
			asked: []policy.Request{{Thread: "t1", Turn: 1, Kind: "fileEdit", Command: "edit_file write notes.md", Pattern: "edit_file write *",
				Text: "writes notes.md", Diff: edit.Diff, Scopes: []wisp.Scope{wisp.ScopeOnce}}}},
		{name: "refused", action: enable, args: `{}`, answer: policy.Outcome{ID: "a7", Reason: "no answer within 5 min"},
			want: "error: not approved: no answer within 5 min", released: 1,
			asked: []policy.Request{{Thread: "t1", Turn: 1, Kind: "modelAction", Command: "models enable ollama:qwen3:4b", Pattern: "models enable *",
				Text: "adds it", Scopes: []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession}, AlwaysAsk: true}}},
		{name: "no guard", action: enable, args: `{}`, noGuard: true, want: "error: not approved: no person can approve here", released: 1},
		{name: "needs no approval", action: wisp.Action{NoApproval: true}, args: `{}`, want: "deployed", ran: []wisp.Approval{{}}, released: 1},
		{name: "needs no approval, no guard", action: wisp.Action{NoApproval: true}, args: `{}`, noGuard: true, want: "deployed", ran: []wisp.Approval{{}}, released: 1},
		{name: "the zero action is asked", args: `{}`, answer: policy.Outcome{Reason: policy.ReasonDeclined},
			want: "error: not approved: the person declined", released: 1, asked: []policy.Request{{Thread: "t1", Turn: 1}}},
		{name: "arguments that fail the schema", action: enable, args: `{"to":5}`,
			want: "error: the arguments for deploy do not match its schema: at /to: got number, want string; send arguments that match it"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			released := 0
			d := declared{plain: newPlain(), action: tc.action, released: &released}
			var g agent.Guard
			fake := &guard{answer: tc.answer}
			if !tc.noGuard {
				g = fake
			}
			got, err := toolResult(t, d, g, tc.args)
			if err != nil || got != tc.want {
				t.Errorf("the model read %q, %v; want %q", got, err, tc.want)
			}
			if diff := cmp.Diff(tc.asked, fake.got); diff != "" {
				t.Errorf("the guard was asked (-want +got):\n%s", diff)
			}
			var ran []wisp.Approval
			for _, c := range d.calls() {
				ran = append(ran, c.Approval)
			}
			if diff := cmp.Diff(tc.ran, ran); diff != "" {
				t.Errorf("the calls that ran, by their approval (-want +got):\n%s", diff)
			}
			if released != tc.released {
				t.Errorf("released %d times; want %d", released, tc.released)
			}
		})
	}
}

// A failure to say what a call would do, or a guard that cannot go on,
// ends the turn; the tool does not run.
func TestGuardErrorsEndTheTurn(t *testing.T) {
	errBroken := errors.New("the backend stopped answering")
	for _, tc := range []struct {
		name string
		d    declared
		g    *guard
	}{
		{"action", declared{plain: newPlain(), err: errBroken}, &guard{}},
		{"guard", declared{plain: newPlain()}, &guard{err: errBroken}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := toolResult(t, tc.d, tc.g, `{}`); !errors.Is(err, errBroken) {
				t.Errorf("Respond = %v, want %v", err, errBroken)
			}
			if n := len(tc.d.calls()); n != 0 {
				t.Errorf("the tool ran %d times; want none", n)
			}
		})
	}
}

// With the gate as its guard, the agent records the gate's steps between
// the call and its result, and a tool that asks nothing records none.
func TestGateAsGuard(t *testing.T) {
	rec := &wisptest.Recorder{}
	person := wisp.ApproverFunc(func(ctx context.Context, r wisp.ApprovalRequest) (wisp.Decision, error) {
		return wisp.Decision{Scope: wisp.ScopeOnce, Provenance: wisp.FromPerson}, nil
	})
	gate := policy.NewGate(&policy.GateOptions{Approver: person, Events: rec, Session: "s1"})
	m := script.New("t", []script.Step{call("deploy", `{}`), call("echo", `{"text":"x"}`), {Content: "ok"}})
	a := agent.New(m, &agent.Options{Tools: set(t, newPlain(), echo{}), Guard: gate, Events: rec, Session: "s1"})
	if _, err := a.Respond(context.Background(), "t1", "go"); err != nil {
		t.Fatal(err)
	}
	kinds := []string{"turn.started", "model.message", "tool.call",
		"classifier.verdict", "approval.requested", "approval.decided", "tool.result",
		"model.message", "tool.call", "tool.result", "model.message", "turn.ended"}
	if diff := cmp.Diff(kinds, rec.Kinds()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	want := wisp.ClassifierVerdictData{Command: "deploy", Rating: "dangerous", Reason: policy.ReasonUnknown}
	if v := rec.Events(wisp.KindClassifierVerdict); len(v) != 1 || v[0].Data != want {
		t.Errorf("verdicts = %+v; want deploy, not a command wisp knows", v)
	}
}
