package policy_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/policy"
)

// shell is a classifier with rows for a few commands: make moderate, cat
// safe, rm dangerous.
var shell = func() *policy.Classifier {
	c, err := policy.NewClassifier(
		policy.Rule{Pattern: "make ...", Rating: policy.Moderate, Reason: "builds"},
		policy.Rule{Pattern: "cat ...", Rating: policy.Safe, Reason: "reads"},
		policy.Rule{Pattern: "rm ...", Rating: policy.Dangerous, Reason: "deletes"},
	)
	if err != nil {
		panic(err)
	}
	return c
}()

var allScopes = []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession, wisp.ScopeProject, wisp.ScopeAlways}

// command is a request the way run_command's reaches the gate, with the
// pattern its classifier gives.
func command(line, pattern string) policy.Request {
	return policy.Request{Thread: "t1", Turn: 3, Kind: "command", Command: line, Pattern: pattern, Text: "runs it", Scopes: allScopes}
}

func person(s wisp.Scope) answer {
	return answer{d: wisp.Decision{Scope: s, Provenance: wisp.FromPerson}}
}

// gateFor is a gate of one session over keeper, in project, asking face.
func gateFor(t *testing.T, face wisp.Approver, keeper policy.Keeper, project string, rec *recorder) *policy.Gate {
	t.Helper()
	return policy.NewGate(&policy.GateOptions{
		Approver: face, Events: rec, Session: "s1", Threshold: policy.Moderate, Classifier: shell,
		Keeper: keeper, Project: project, Now: func() time.Time { return now }, NewID: ids(),
	})
}

func ask(t *testing.T, g *policy.Gate, r policy.Request) policy.Outcome {
	t.Helper()
	out, err := g.Ask(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// An answer of project is kept, and covers the same pattern in the same
// project in later sessions, not in another project; one of always
// covers it everywhere. A covered request asks nobody.
func TestGateKeepsAnswers(t *testing.T) {
	keeper := &memKeeper{}
	face := newScript(t, person(wisp.ScopeProject), answer{d: wisp.Decision{Provenance: wisp.FromPerson}}, person(wisp.ScopeAlways))

	if out := ask(t, gateFor(t, face, keeper, "/w1", &recorder{}), command("make all", "make *")); !out.Approved || out.Scope != wisp.ScopeProject {
		t.Fatalf("project answer = %+v, want approved for the project", out)
	}
	want := []policy.Kept{{ID: "id1", Kind: "command", Command: "make all", Pattern: "make *", Scope: wisp.ScopeProject, Project: "/w1", Time: now}}
	if diff := cmp.Diff(want, keeper.all()); diff != "" {
		t.Errorf("kept (-want +got):\n%s", diff)
	}

	rec := &recorder{}
	out := ask(t, gateFor(t, face, keeper, "/w1", rec), command("make test", "make *"))
	if diff := cmp.Diff(policy.Outcome{Approved: true, ID: "id1", Scope: wisp.ScopeProject, Covered: true}, out); diff != "" {
		t.Errorf("a later session in the project (-want +got):\n%s", diff)
	}
	if got := rec.all(); len(got) != 2 || !got[1].Data.(wisp.ApprovalDecidedData).Covered {
		t.Errorf("a covered request recorded %+v; want its verdict and a covered decision", got)
	}

	if out := ask(t, gateFor(t, face, keeper, "/w2", &recorder{}), command("make test", "make *")); out.Approved {
		t.Errorf("another project = %+v; want it asked, and declined", out)
	}
	if out := ask(t, gateFor(t, face, keeper, "/w2", &recorder{}), command("make all", "make *")); out.Scope != wisp.ScopeAlways {
		t.Fatalf("always answer = %+v", out)
	}
	if out := ask(t, gateFor(t, face, keeper, "/w3", &recorder{}), command("make x", "make *")); !out.Covered || out.Scope != wisp.ScopeAlways {
		t.Errorf("always, in a third project = %+v; want covered", out)
	}
	if out := ask(t, gateFor(t, face, keeper, "", &recorder{}), command("make x", "make *")); !out.Covered {
		t.Errorf("always, in no project = %+v; want covered", out)
	}
	if face.left() != 0 {
		t.Errorf("%d answers left unasked", face.left())
	}
}

// A dangerous command is approved once only, whatever the person says:
// nothing is kept or remembered, and no kept answer covers it, not even
// one planted for its pattern.
func TestGateDangerousOnceOnly(t *testing.T) {
	keeper := &memKeeper{kept: []policy.Kept{{ID: "planted", Kind: "command", Pattern: "rm *", Scope: wisp.ScopeAlways}}}
	face := newScript(t, person(wisp.ScopeAlways), person(wisp.ScopeSession))
	rec := &recorder{}
	g := gateFor(t, face, keeper, "/w", rec)
	want := policy.Outcome{Approved: true, ID: "id1", Scope: wisp.ScopeOnce, DowngradedFrom: wisp.ScopeAlways}
	if diff := cmp.Diff(want, ask(t, g, command("rm build", "rm *"))); diff != "" {
		t.Errorf("always to a dangerous command (-want +got):\n%s", diff)
	}
	want = policy.Outcome{Approved: true, ID: "id2", Scope: wisp.ScopeOnce, DowngradedFrom: wisp.ScopeSession}
	if diff := cmp.Diff(want, ask(t, g, command("rm build", "rm *"))); diff != "" {
		t.Errorf("the same command again (-want +got):\n%s", diff)
	}
	if n := len(keeper.all()); n != 1 {
		t.Errorf("kept %d answers, want the planted one only", n)
	}
	for _, r := range face.requests() {
		if diff := cmp.Diff(onceOnly, r.Scopes); diff != "" {
			t.Errorf("a dangerous command offered (-want +got):\n%s", diff)
		}
	}
	if d := rec.all()[2].Data.(wisp.ApprovalDecidedData); d.Scope != "once" || d.DowngradedFrom != "always" {
		t.Errorf("approval.decided = %+v; want once, downgraded from always", d)
	}
}

// With no Keeper, or no project, the answers that cannot be kept are not
// offered, and a face's wider answer is narrowed.
func TestGateNothingToKeepWith(t *testing.T) {
	for _, tc := range []struct {
		name    string
		keeper  policy.Keeper
		project string
		offered []wisp.Scope
		answer  wisp.Scope
		want    wisp.Scope
	}{
		{"no keeper", nil, "/w", onceSession, wisp.ScopeProject, wisp.ScopeSession},
		{"no keeper, always", nil, "/w", onceSession, wisp.ScopeAlways, wisp.ScopeSession},
		{"no project", &memKeeper{}, "", []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession, wisp.ScopeAlways}, wisp.ScopeProject, wisp.ScopeSession},
	} {
		face := newScript(t, person(tc.answer))
		out := ask(t, gateFor(t, face, tc.keeper, tc.project, &recorder{}), command("make", "make *"))
		if out.Scope != tc.want || out.DowngradedFrom != tc.answer {
			t.Errorf("%s: %+v; want %v, downgraded from %v", tc.name, out, tc.want, tc.answer)
		}
		if diff := cmp.Diff(tc.offered, face.requests()[0].Scopes); diff != "" {
			t.Errorf("%s: offered (-want +got):\n%s", tc.name, diff)
		}
	}
}

// Kept answers that cannot be read cover nothing, and the person is told
// why in the request; an answer that cannot be kept lasts no longer than
// the session, and approval.decided says why.
func TestGateKeeperFails(t *testing.T) {
	keeper := &memKeeper{err: errors.New("approval rules file\n/home/ana/.wisp/approval-rules.json is writable by others")}
	face := newScript(t, person(wisp.ScopeAlways))
	rec := &recorder{}
	out := ask(t, gateFor(t, face, keeper, "/w", rec), command("make", "make *"))
	want := policy.Outcome{Approved: true, ID: "id1", Scope: wisp.ScopeSession, DowngradedFrom: wisp.ScopeAlways,
		Reason: "the answer could not be kept: approval rules file /home/ana/.wisp/approval-rules.json is writable by others"}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("outcome (-want +got):\n%s", diff)
	}
	if text := face.requests()[0].Text; text != "runs it\n"+policy.LineKeptUnread+"approval rules file /home/ana/.wisp/approval-rules.json is writable by others" {
		t.Errorf("request text = %q", text)
	}
	if d := rec.all()[2].Data.(wisp.ApprovalDecidedData); d.Reason != want.Reason || d.Scope != "session" {
		t.Errorf("approval.decided = %+v", d)
	}
}

// Unattended, whatever needs asking is refused; an answer the person kept
// still covers what it covers.
func TestGateUnattended(t *testing.T) {
	unattended := wisp.ApproverFunc(func(context.Context, wisp.ApprovalRequest) (wisp.Decision, error) {
		return wisp.Decision{Scope: wisp.ScopeAlways, Provenance: wisp.FromUnattended}, nil
	})
	keeper := &memKeeper{kept: []policy.Kept{{ID: "k1", Kind: "command", Pattern: "make *", Scope: wisp.ScopeAlways}}}
	for _, tc := range []struct {
		r    policy.Request
		want policy.Outcome
	}{
		{command("make", "make *"), policy.Outcome{Approved: true, ID: "k1", Scope: wisp.ScopeAlways, Covered: true}},
		{command("make", "make x *"), policy.Outcome{ID: "id1", Reason: policy.ReasonNoPerson}},
		{command("rm x", "rm *"), policy.Outcome{ID: "id1", Reason: policy.ReasonNoPerson}},
		{command("curl x | sh", ""), policy.Outcome{ID: "id1", Reason: policy.ReasonNoPerson}},
		{command("cat x", "cat *"), policy.Outcome{Approved: true, ID: "id1", Scope: wisp.ScopeOnce, Reason: policy.ReasonBelowThreshold}},
	} {
		got := ask(t, gateFor(t, unattended, keeper, "/w", &recorder{}), tc.r)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("Ask(%q) unattended (-want +got):\n%s", tc.r.Command, diff)
		}
		if strings.Contains(tc.r.Command, "|") && got.Approved {
			t.Errorf("Ask(%q) approved unattended", tc.r.Command)
		}
	}
}

// Of the kept answers that cover a request, the widest it allows covers
// it: one of always does not keep one of project from covering a request
// that allows no more than the project.
func TestGateKeptWidestAllowed(t *testing.T) {
	keeper := &memKeeper{kept: []policy.Kept{
		{ID: "always", Kind: "command", Pattern: "make *", Scope: wisp.ScopeAlways},
		{ID: "here", Kind: "command", Pattern: "make *", Scope: wisp.ScopeProject, Project: "/w"},
		{ID: "elsewhere", Kind: "command", Pattern: "make *", Scope: wisp.ScopeProject, Project: "/x"},
	}}
	for _, tc := range []struct {
		scopes []wisp.Scope
		want   policy.Outcome
	}{
		{allScopes, policy.Outcome{Approved: true, ID: "always", Scope: wisp.ScopeAlways, Covered: true}},
		{[]wisp.Scope{wisp.ScopeOnce, wisp.ScopeProject}, policy.Outcome{Approved: true, ID: "here", Scope: wisp.ScopeProject, Covered: true}},
	} {
		r := command("make all", "make *")
		r.Scopes = tc.scopes
		if diff := cmp.Diff(tc.want, ask(t, gateFor(t, nil, keeper, "/w", &recorder{}), r)); diff != "" {
			t.Errorf("scopes %v (-want +got):\n%s", tc.scopes, diff)
		}
	}
}
