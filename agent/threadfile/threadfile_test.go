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
		Messages: []agent.ThreadRecord{
			{Message: wisp.Message{Role: wisp.RoleUser, Content: "hi"}},
			{Message: wisp.Message{Role: wisp.RoleAssistant, ToolCalls: []wisp.ToolCall{{ID: "c1", Name: "ask", Arguments: json.RawMessage(`{"question":"Q?"}`)}}}},
			{Kind: agent.RecordNotice, Message: wisp.Message{Role: wisp.RoleUser, Content: "[wisp: the pull finished]"}},
			{Message: wisp.Message{Role: wisp.RoleUser, Content: "[wisp: typed by the person]"}},
		},
		Facts: []wisp.Fact{{ID: "c1", Subject: "answer", Name: "Q?", Value: "yes", Source: "person", Turn: 1}}}
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
	st := agent.ThreadState{Messages: []agent.ThreadRecord{
		{Message: wisp.Message{Role: wisp.RoleUser, Content: "deploy with " + key}},
		{Message: wisp.Message{Role: wisp.RoleAssistant, ToolCalls: []wisp.ToolCall{{Name: "x", Arguments: json.RawMessage(`{"k":"` + key + `"}`)}}}},
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
				agent.ThreadRecord{Message: wisp.Message{Role: wisp.RoleUser, Content: c.Text}},
				agent.ThreadRecord{Message: wisp.Message{Role: wisp.RoleAssistant, Content: c.Text, ToolCalls: []wisp.ToolCall{{ID: c.Text, Name: c.Text, Arguments: args}}}},
				agent.ThreadRecord{Message: wisp.Message{Role: wisp.RoleTool, ToolCallID: c.Text, Name: c.Text, Content: c.Text}},
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
	st := agent.ThreadState{Messages: []agent.ThreadRecord{{Message: wisp.Message{Role: wisp.RoleAssistant, ToolCalls: []wisp.ToolCall{
		{Name: "x", Arguments: json.RawMessage(`{"a":1}`)}, {Name: "y", Arguments: bad},
	}}}}}
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

// A file written before records had kinds (format version 1, no
// "version") still loads: its notices and its condensing note become
// records of their kind, and the next save writes the current format.
func TestLoadsVersion1(t *testing.T) {
	d := threadfile.Dir{Path: filepath.Join(t.TempDir(), "threads")}
	old, err := os.ReadFile(filepath.Join("testdata", "version1.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(d.Path, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d.Path, "old.json"), old, 0o600); err != nil {
		t.Fatal(err)
	}
	got, ok, err := d.Load("old")
	if err != nil || !ok {
		t.Fatalf("Load(version 1) = %v, %v", ok, err)
	}
	var kinds []string
	for _, r := range got.Messages {
		kinds = append(kinds, string(r.Role)+" "+string(r.Kind))
	}
	want := []string{"system condensed", "user notice", "user ", "assistant ", "tool ", "assistant "}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("the records of a version 1 file (-want +got):\n%s", diff)
	}
	if got.Turn != 4 || got.FactSeq != 1 || len(got.Facts) != 1 || got.Facts[0].Value != "./wisp.json" {
		t.Errorf("Load(version 1) = turn %d, factSeq %d, facts %+v", got.Turn, got.FactSeq, got.Facts)
	}
	if err := d.Save("old", got); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(d.Path, "old.json"))
	if !strings.HasPrefix(string(b), `{"version":2,`) || !strings.Contains(string(b), `"kind":"notice"`) {
		t.Errorf("the saved file is not of version 2:\n%s", b)
	}
	again, _, err := d.Load("old")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got, again); diff != "" {
		t.Errorf("version 2 round trip (-want +got):\n%s", diff)
	}
}

// In the current format a record's kind is what it says it is: a
// person's message that starts as a notice does stays a message.
func TestMessageLikeANotice(t *testing.T) {
	d := threadfile.Dir{Path: t.TempDir()}
	st := agent.ThreadState{Turn: 1, Messages: []agent.ThreadRecord{
		{Message: wisp.Message{Role: wisp.RoleUser, Content: "[wisp: the pull of org/x finished]"}},
		{Message: wisp.Message{Role: wisp.RoleAssistant, Content: "ok"}},
	}}
	if err := d.Save("t", st); err != nil {
		t.Fatal(err)
	}
	got, _, err := d.Load("t")
	if err != nil {
		t.Fatal(err)
	}
	if k := got.Messages[0].Kind; k != agent.RecordMessage {
		t.Errorf("Load gave the person's message the kind %q, want a message", k)
	}
}

// A damaged file is refused with one line that names it by its folder
// and name (never its whole path: an MCP caller's model may read it),
// says what is wrong in the file's terms, and how to go on.
func TestDamaged(t *testing.T) {
	tests := []struct {
		name, data, says string
	}{
		{"cut", `{"version":2,"turn":1,"mess`, "it ends before its JSON does"},
		{"empty", ``, "it ends before its JSON does"},
		{"syntax", `{"turn":1,}`, "its JSON breaks off at byte 11: invalid character '}'"},
		{"wrong type", `{"turn":"x"}`, `its "turn" holds a string, where the format has a number`},
		{"nested type", `{"messages":[{"role":"user","content":5}]}`, `its "messages.content" holds a number, where the format has a string`},
		{"array", `[]`, "it holds a JSON array, not an object"},
		{"newer", `{"version":3,"turn":1}`, "its format is version 3, and this wisp reads versions 1 to 2"},
		{"unknown kind", `{"version":2,"messages":[{"kind":"memo","role":"user","content":"x"}]}`, `record 1 is of a kind this wisp does not know ("memo")`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			d := threadfile.Dir{Path: filepath.Join(home, "threads")}
			if err := os.MkdirAll(d.Path, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d.Path, "x.json"), []byte(tc.data), 0o600); err != nil {
				t.Fatal(err)
			}
			_, ok, err := d.Load("x")
			if err == nil || ok {
				t.Fatalf("Load(%s) = %v, %v; want an error", tc.data, ok, err)
			}
			msg := err.Error()
			want := "its file threads/x.json is damaged (" + tc.says
			if !strings.HasPrefix(msg, want) || !strings.HasSuffix(msg, "); move the file aside to start the thread afresh") {
				t.Errorf("Load(%s) = %q, want %q…; move the file aside to start the thread afresh", tc.data, msg, want)
			}
			for _, bad := range []string{home, "Go ", "ThreadState", "threadfile."} {
				if strings.Contains(msg, bad) {
					t.Errorf("Load(%s) = %q, which holds %q", tc.data, msg, bad)
				}
			}
		})
	}
}
