package threadfile_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/agent/threadfile"
	"github.com/wisp-agent/wisp/models/script"
	"github.com/wisp-agent/wisp/policy/secrets"
	"github.com/wisp-agent/wisp/policy/secrets/secretstest"
)

func TestRoundTrip(t *testing.T) {
	d := threadfile.Dir{Path: filepath.Join(t.TempDir(), "threads")}
	if _, ok, err := d.Load("t1"); ok || err != nil {
		t.Fatalf("Load of a new thread = %v, %v", ok, err)
	}
	st := agent.ThreadState{Turn: 2, FactSeq: 1,
		Messages: []wisp.Message{{Role: wisp.RoleUser, Content: "hi"}, {Role: wisp.RoleAssistant, ToolCalls: []wisp.ToolCall{{ID: "c1", Name: "ask", Arguments: json.RawMessage(`{"question":"Q?"}`)}}}},
		Facts:    []wisp.Fact{{ID: "c1", Subject: "answer", Name: "Q?", Value: "yes", Source: "person", Turn: 1}}}
	if err := d.Save("t1", st); err != nil {
		t.Fatal(err)
	}
	got, ok, err := d.Load("t1")
	if err != nil || !ok {
		t.Fatalf("Load = %v, %v", ok, err)
	}
	if diff := cmp.Diff(st, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	fi, err := os.Stat(filepath.Join(d.Path, "t1.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("thread file mode = %v, %v; want 0600", fi.Mode(), err)
	}
}

func TestBadIDs(t *testing.T) {
	d := threadfile.Dir{Path: t.TempDir()}
	for _, id := range []string{"", "../x", ".hidden", "a/b", strings.Repeat("a", 129), "t 1"} {
		if _, _, err := d.Load(id); !errors.Is(err, threadfile.ErrBadID) {
			t.Errorf("Load(%q) = %v, want ErrBadID", id, err)
		}
		if err := d.Save(id, agent.ThreadState{}); !errors.Is(err, threadfile.ErrBadID) {
			t.Errorf("Save(%q) = %v, want ErrBadID", id, err)
		}
	}
}

// No credential reaches the disk: the thread file holds markers.
func TestRedacted(t *testing.T) {
	r := secrets.NewRedactor()
	d := threadfile.Dir{Path: t.TempDir(), Redact: func(s string) string { out, _ := r.Redact(s); return out }}
	const key = "AKIAFAKEKEYEXAMPLE77"
	st := agent.ThreadState{Messages: []wisp.Message{
		{Role: wisp.RoleUser, Content: "deploy with " + key},
		{Role: wisp.RoleAssistant, ToolCalls: []wisp.ToolCall{{Name: "x", Arguments: json.RawMessage(`{"k":"` + key + `"}`)}}},
	}, Facts: []wisp.Fact{{Value: key}}}
	if err := d.Save("t", st); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(d.Path, "t.json"))
	if strings.Contains(string(b), key) || !strings.Contains(string(b), "[REDACTED:aws-access-key#1]") {
		t.Errorf("thread file:\n%s", b)
	}
}

// A thread outlives its agent: a new Agent over the same folder goes on
// where the last left off, with its messages and facts.
func TestAgentContinuesAThread(t *testing.T) {
	d := threadfile.Dir{Path: t.TempDir()}
	m1 := script.New("s", []script.Step{{Content: "first reply"}})
	if _, err := agent.New(m1, &agent.Options{Store: d}).Respond(context.Background(), "t7", "one"); err != nil {
		t.Fatal(err)
	}
	m2 := script.New("s", []script.Step{{Content: "second reply"}})
	r, err := agent.New(m2, &agent.Options{Store: d}).Respond(context.Background(), "t7", "two")
	if err != nil {
		t.Fatal(err)
	}
	if r.Turn != 2 {
		t.Errorf("turn = %d, want 2", r.Turn)
	}
	var got []string
	for _, msg := range m2.Requests()[0].Messages {
		got = append(got, msg.Content)
	}
	if diff := cmp.Diff([]string{"one", "first reply", "two"}, got); diff != "" {
		t.Errorf("the second agent's request (-want +got):\n%s", diff)
	}
}

// No case of the corpus reaches a thread file, wherever a model or a
// person put it: in a message, as a tool's name or call id, as a key or a
// value of a tool call's arguments (a value only its key shows to be
// secret included), or in a fact. The file still loads.
func TestRedactedCorpus(t *testing.T) {
	cases := secretstest.Corpus()
	r := secrets.NewRedactor()
	for _, d := range []threadfile.Dir{
		{Path: t.TempDir(), Redact: func(s string) string { out, _ := r.Redact(s); return out }},
		{Path: t.TempDir()}, // nil Redact: a Redactor of its own
	} {
		var st agent.ThreadState
		for _, c := range cases {
			args, err := json.Marshal(map[string]any{c.Text: "x", c.Key: c.Value, "q": c.Text, "list": []string{c.Text}})
			if err != nil {
				t.Fatal(err)
			}
			st.Messages = append(st.Messages,
				wisp.Message{Role: wisp.RoleUser, Content: c.Text},
				wisp.Message{Role: wisp.RoleAssistant, Content: c.Text, ToolCalls: []wisp.ToolCall{{ID: c.Text, Name: c.Text, Arguments: args}}},
				wisp.Message{Role: wisp.RoleTool, ToolCallID: c.Text, Name: c.Text, Content: c.Text},
			)
			st.Facts = append(st.Facts, wisp.Fact{ID: "c1", Subject: "answer", Name: c.Text, Value: c.Text, Source: c.Text})
		}
		if err := d.Save("t", st); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(d.Path, "t.json"))
		if err != nil {
			t.Fatal(err)
		}
		if leaks := secretstest.Leaks(b, cases); leaks != nil {
			t.Errorf("the thread file holds %d cases of the corpus: %v", len(leaks), leaks)
		}
		got, ok, err := d.Load("t")
		if err != nil || !ok || len(got.Messages) != len(st.Messages) || len(got.Facts) != len(st.Facts) {
			t.Errorf("Load of the redacted thread = %d messages, %d facts, %v, %v; want %d, %d", len(got.Messages), len(got.Facts), ok, err, len(st.Messages), len(st.Facts))
		}
	}
}

// A tool call whose arguments are not JSON (a model can send anything)
// does not stop the thread being saved: they are kept as a string, with
// credentials in it redacted, and the state saved is left as it was.
func TestSavesArgumentsThatAreNotJSON(t *testing.T) {
	d := threadfile.Dir{Path: t.TempDir()}
	bad := json.RawMessage(`{"k": AKIA` + `FAKEKEYEXAMPLE77`)
	st := agent.ThreadState{Messages: []wisp.Message{{Role: wisp.RoleAssistant, ToolCalls: []wisp.ToolCall{
		{Name: "x", Arguments: json.RawMessage(`{"a":1}`)}, {Name: "y", Arguments: bad},
	}}}}
	if err := d.Save("t", st); err != nil {
		t.Fatalf("Save = %v", err)
	}
	if string(st.Messages[0].ToolCalls[1].Arguments) != string(bad) {
		t.Errorf("Save changed the state it was given: %s", st.Messages[0].ToolCalls[1].Arguments)
	}
	got, ok, err := d.Load("t")
	if err != nil || !ok {
		t.Fatalf("Load = %v, %v", ok, err)
	}
	want := []string{`{"a":1}`, `"{\"k\": [REDACTED:aws-access-key#1]"`}
	for i, c := range got.Messages[0].ToolCalls {
		if string(c.Arguments) != want[i] {
			t.Errorf("call %d arguments = %s, want %s", i, c.Arguments, want[i])
		}
	}
}
