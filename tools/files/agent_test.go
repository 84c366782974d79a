package files_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/models/script"
	"github.com/wisp-agent/wisp/policy"
	"github.com/wisp-agent/wisp/tools"
	"github.com/wisp-agent/wisp/tools/files"
)

// person approves every request once, and keeps what it was shown.
type person struct {
	mu   sync.Mutex
	seen []wisp.ApprovalRequest
}

func (p *person) Approve(_ context.Context, r wisp.ApprovalRequest) (wisp.Decision, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seen = append(p.seen, r)
	return wisp.Decision{Scope: wisp.ScopeOnce, Provenance: wisp.FromPerson}, nil
}

func step(name string, args string) script.Step {
	return script.Step{ToolCalls: []script.ToolCall{{Name: name, Arguments: json.RawMessage(args)}}}
}

// Through the agent, its guard and the gate, with a scripted model: the
// model reads a file and searches without being asked about, its edit is
// put to the person as a diff and written once approved, a read outside
// the workspace is refused, and an edit under .git/ is dangerous, so it
// is asked even where moderate changes are not.
func TestThroughTheAgent(t *testing.T) {
	tr := newTree(t)
	w := tr.open(t)
	r := tools.NewRegistry()
	for _, tl := range w.Tools() {
		if err := r.Add(tl); err != nil {
			t.Fatal(err)
		}
	}
	set, err := r.Select(tools.Selection{})
	if err != nil {
		t.Fatal(err)
	}
	classifier, err := policy.NewClassifier(files.Rules()...)
	if err != nil {
		t.Fatal(err)
	}
	p := &person{}
	gate := policy.NewGate(&policy.GateOptions{Approver: p, Classifier: classifier, Threshold: policy.Dangerous})
	m := script.New("t", []script.Step{
		step("read_file", `{"path":"notes.txt"}`),
		step("search", `{"pattern":"thr"}`),
		step("edit_file", `{"path":"notes.txt","mode":"replace","old":"three","new":"3"}`),
		step("read_file", `{"path":"../outside/secret.txt"}`),
		step("edit_file", `{"path":".git/config","mode":"append","new":"[alias]\n"}`),
		{Content: "done"},
	})
	a := agent.New(m, &agent.Options{Tools: set, Guard: gate})
	if _, err := a.Respond(context.Background(), "t1", "go"); err != nil {
		t.Fatal(err)
	}
	var results []string
	for _, msg := range m.Requests()[len(m.Requests())-1].Messages {
		if msg.Role == "tool" {
			results = append(results, msg.Content)
		}
	}
	want := []string{
		"1\tone\n2\ttwo\n3\tthree\n4\ttwo\n(end of notes.txt, 4 lines)",
		"notes.txt:3: three\n(1 match in 1 file)",
		"replaced 1 line in notes.txt with 1 line",
		"error: \"../outside/secret.txt\" is outside the workspace",
		"added 1 line at the end of .git/config",
	}
	if len(results) != len(want) {
		t.Fatalf("the model read %d results, want %d: %q", len(results), len(want), results)
	}
	for i := range want {
		if !strings.HasPrefix(results[i], want[i]) {
			t.Errorf("result %d = %q, want %q", i+1, results[i], want[i])
		}
	}
	if got := tr.read(t, "notes.txt"); got != "one\ntwo\n3\ntwo\n" {
		t.Errorf("notes.txt holds %q after the approved edit", got)
	}
	// Moderate is below the threshold: the edit of notes.txt was allowed
	// without asking; the edit under .git/ was asked, with its diff.
	if len(p.seen) != 1 || p.seen[0].Command != "edit_file append .git/config" ||
		p.seen[0].Diff != "--- a/.git/config\n+++ b/.git/config\n@@ -1 +1,2 @@\n [core]\n+[alias]\n" {
		t.Errorf("the person was asked %+v; want the edit under .git/ alone, with its diff", p.seen)
	}
}
