package policy_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/policy"
	shelljudge "github.com/wisp-agent/wisp/policy/shell"
)

// shellLine is a run_command request for line, with the command, pattern
// and scopes the shell judge gives it.
func shellLine(t *testing.T, j *shelljudge.Judge, c *policy.Classifier, line string) policy.Request {
	t.Helper()
	inv := shelljudge.Invocation{Line: line}
	l := j.Line(c, inv)
	r := policy.Request{Thread: "t1", Turn: 1, Kind: "command", Command: inv.Command(), Scopes: l.Scopes()}
	if p := l.Pattern(); p != nil {
		r.Pattern = p.String()
	}
	return r
}

// An earlier answer covers a later request when the classifier finds its
// pattern covers the request's command, not only when the two patterns
// are the same: an answer for "git add * ; git commit *" covers git
// commit alone, and git status, which is rated below the threshold,
// needs no cover. An answer about one kind of request never covers
// another kind's, whatever its pattern.
func TestGateCoversByClassifier(t *testing.T) {
	j, err := shelljudge.New(&shelljudge.Options{Workspace: "/ws", Home: "/home/p", GitProtected: true})
	if err != nil {
		t.Fatal(err)
	}
	c, err := policy.NewClassifier(j.Rule())
	if err != nil {
		t.Fatal(err)
	}
	for _, keeper := range []bool{false, true} {
		face := newScript(t, person(wisp.ScopeSession), person(wisp.ScopeNone), person(wisp.ScopeNone))
		o := &policy.GateOptions{Approver: face, Session: "s1", Threshold: policy.Moderate, Classifier: c, NewID: ids()}
		if keeper {
			face = newScript(t, person(wisp.ScopeProject), person(wisp.ScopeNone), person(wisp.ScopeNone))
			o.Approver, o.Keeper, o.Project = face, &memKeeper{}, "/ws"
		}
		g := policy.NewGate(o)
		first := shellLine(t, j, c, "git add -A && git commit -m first")
		if first.Pattern != "git add * ; git commit *" {
			t.Fatalf("pattern %q, want git add * ; git commit *", first.Pattern)
		}
		if out := ask(t, g, first); !out.Approved || out.Covered {
			t.Fatalf("first request: %+v, want approved by the person", out)
		}
		for _, line := range []string{"git commit -m second", "git status && git commit -m third", "git add x.go"} {
			out := ask(t, g, shellLine(t, j, c, line))
			if !out.Approved || !out.Covered || out.ID != "id1" {
				t.Errorf("keeper %v: Ask(%q) = %+v, want covered by id1", keeper, line, out)
			}
		}
		// Not covered: a part the answer did not name, and the same
		// pattern asked by another kind of request.
		other := shellLine(t, j, c, "git commit -m x && go test ./...")
		other2 := first
		other2.Kind = "modelAction"
		for _, r := range []policy.Request{other, other2} {
			out := ask(t, g, r)
			if out.Covered || out.Approved {
				t.Errorf("keeper %v: Ask(%q, kind %s) = %+v, want asked (and declined)", keeper, r.Command, r.Kind, out)
			}
		}
		if diff := cmp.Diff(3, len(face.requests())); diff != "" {
			t.Errorf("keeper %v: the person was asked (-want +got):\n%s", keeper, diff)
		}
	}
}
