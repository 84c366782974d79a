package memory_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/policy"
	"github.com/wisp-agent/wisp/policy/secrets"
	"github.com/wisp-agent/wisp/policy/secrets/secretstest"
	"github.com/wisp-agent/wisp/tools/memory"
	"github.com/wisp-agent/wisp/wisptest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// store returns a store in a fresh folder, its clock at 2026-12-01 and
// a minute later each time it is read.
func store(t *testing.T) memory.Store {
	t.Helper()
	dir := t.TempDir()
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	return memory.Store{
		Path: filepath.Join(dir, "memory.json"), LockPath: filepath.Join(dir, "memory.lock"),
		Now: func() time.Time { now = now.Add(time.Minute); return now },
	}
}

// call runs the tool with args, as the agent does once the guard let it.
func call(t *testing.T, tool wisp.Tool, args string) wisp.Result {
	t.Helper()
	res, err := tool.Call(context.Background(), wisp.Call{Name: memory.Name, Arguments: json.RawMessage(args), Thread: "t-1", Session: "s-1"})
	if err != nil {
		t.Fatalf("Call(%s) = %v", args, err)
	}
	return res
}

// action returns what the tool says a call would do.
func action(t *testing.T, tool wisp.Tool, args string) wisp.Action {
	t.Helper()
	a, err := tool.(wisp.Guarded).Action(context.Background(), wisp.Call{Name: memory.Name, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("Action(%s) = %v", args, err)
	}
	return a
}

// The schema is what the model sees: pinned, byte for byte.
func TestSchemaGolden(t *testing.T) {
	wisptest.SchemaGolden(t, memory.New(memory.Store{}), filepath.Join("testdata", "schema.json"), *update)
}

// Remember, recall and forget through the tool, as the model reads them;
// each fact keeps where and when it was kept.
func TestToolRemembersRecallsForgets(t *testing.T) {
	s := store(t)
	tool := memory.New(s)
	for _, c := range []struct{ args, want string }{
		{`{"action":"recall"}`, "no facts are kept"},
		{`{"action":"remember","text":"  The person prefers tabs.  "}`, "remembered as m1: The person prefers tabs."},
		{`{"action":"remember","text":"Deploys go through staging."}`, "remembered as m2: Deploys go through staging."},
		{`{"action":"remember","text":"The person prefers tabs."}`, "already kept as m1: The person prefers tabs."},
		{`{"action":"recall"}`, "m2 (2026-12-01): Deploys go through staging.\nm1 (2026-12-01): The person prefers tabs."},
		{`{"action":"recall","text":"STAGING"}`, "m2 (2026-12-01): Deploys go through staging."},
		{`{"action":"recall","text":"nothing"}`, `no fact kept contains "nothing"`},
		{`{"action":"forget","id":"m1"}`, "forgot m1: The person prefers tabs."},
		{`{"action":"forget","id":"m1"}`, `error: no such fact "m1"; recall lists the facts kept`},
		{`{"action":"forget"}`, "error: forget needs the fact's id in id; recall lists them"},
		{`{"action":"remember"}`, "error: remember needs the fact in text"},
		{`{"action":"remember","text":"Tabs, not spaces."}`, "remembered as m3: Tabs, not spaces."},
		{`{"action":"drop"}`, ""},
	} {
		res := call(t, tool, c.args)
		if c.want == "" {
			if !res.IsError {
				t.Errorf("Call(%s) = %q, want an error", c.args, res.Content)
			}
			continue
		}
		if res.Content != c.want || res.IsError != strings.HasPrefix(c.want, "error: ") {
			t.Errorf("Call(%s) = %q (error %v), want %q", c.args, res.Content, res.IsError, c.want)
		}
	}
	facts, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	want := []memory.Fact{
		{ID: "m2", Text: "Deploys go through staging.", Source: memory.SourceModel, Thread: "t-1", Session: "s-1", Time: time.Date(2026, 12, 1, 9, 2, 0, 0, time.UTC)},
		{ID: "m3", Text: "Tabs, not spaces.", Source: memory.SourceModel, Thread: "t-1", Session: "s-1", Time: time.Date(2026, 12, 1, 9, 3, 0, 0, time.UTC)},
	}
	if diff := cmp.Diff(want, facts); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
}

// Remembering and forgetting ask the person, as the rules rate them;
// recalling, and calls the store would refuse, do not.
func TestActions(t *testing.T) {
	s := store(t)
	tool := memory.New(s)
	call(t, tool, `{"action":"remember","text":"kept"}`)
	c, err := policy.NewClassifier(memory.Rules()...)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args    string
		command string // "": no approval
		pattern string
	}{
		{`{"action":"recall"}`, "", ""},
		{`{"action":"remember","text":"new fact"}`, "memory remember", "memory remember"},
		{`{"action":"remember","text":"kept"}`, "", ""},
		{`{"action":"remember","text":"   "}`, "", ""},
		{`{"action":"forget","id":"m1"}`, "memory forget m1", "memory forget *"},
		{`{"action":"forget","id":"m9"}`, "", ""},
		{`{"action":"forget","id":"m1 ; rm -rf /"}`, "", ""},
	} {
		a := action(t, tool, tc.args)
		if tc.command == "" {
			if !a.NoApproval {
				t.Errorf("Action(%s) = %+v, want no approval", tc.args, a)
			}
			continue
		}
		if a.NoApproval || a.Command != tc.command || a.Pattern != tc.pattern || a.Kind != memory.Kind {
			t.Errorf("Action(%s) = %+v, want %q under %q", tc.args, a, tc.command, tc.pattern)
		}
		if v := c.Classify(a.Command); v.Rating != policy.Moderate {
			t.Errorf("Classify(%q) = %v, want moderate", a.Command, v)
		}
	}
}

// A credential in a fact is kept only as a marker, in the file, in what
// the model reads back and in what the person is asked to approve.
func TestCredentialKeptAsMarker(t *testing.T) {
	cases := secretstest.Corpus()
	s := store(t)
	r := secrets.NewRedactor()
	s.Redact = r.Replace
	tool := memory.New(s)
	var read []string
	for i, c := range cases {
		text := fmt.Sprintf("fact %d: %s", i, c.Text)
		if len(text) > memory.MaxFactBytes {
			continue
		}
		args, _ := json.Marshal(map[string]string{"action": "remember", "text": text})
		a := action(t, tool, string(args))
		read = append(read, a.Text, call(t, tool, string(args)).Content)
	}
	read = append(read, call(t, tool, `{"action":"recall"}`).Content)
	data, err := os.ReadFile(s.Path)
	if err != nil {
		t.Fatal(err)
	}
	if l := secretstest.Leaks(data, cases); l != nil {
		t.Errorf("memory.json holds %d cases of the corpus: %v", len(l), l)
	}
	if l := secretstest.Leaks([]byte(strings.Join(read, "\n")), cases); l != nil {
		t.Errorf("the model or the person read %d cases of the corpus: %v", len(l), l)
	}
	if !strings.Contains(string(data), "[REDACTED:") {
		t.Errorf("memory.json holds no marker:\n%s", data)
	}
}

// Facts survive the store: another Store over the same file, as a new
// conversation or another process opens it, reads them, and numbers a
// new fact after them.
func TestFactsSurvive(t *testing.T) {
	s := store(t)
	if _, _, err := s.Remember(context.Background(), memory.Fact{Text: "first", Source: memory.SourceModel}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Forget(context.Background(), "m1"); err != nil {
		t.Fatal(err)
	}
	again := memory.Store{Path: s.Path, LockPath: s.LockPath}
	f, added, err := again.Remember(context.Background(), memory.Fact{Text: "second", Source: memory.SourceModel})
	if err != nil || !added || f.ID != "m2" {
		t.Fatalf("Remember in a new store = %+v, %v, %v; want m2 (ids are never reused)", f, added, err)
	}
	facts, err := memory.Store{Path: s.Path}.List()
	if err != nil || len(facts) != 1 || facts[0].Text != "second" {
		t.Errorf("List = %+v, %v; want the fact second", facts, err)
	}
	fi, err := os.Stat(s.Path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("memory.json: %v, %v; want mode 0600", fi.Mode(), err)
	}
}

// The store keeps at most MaxFacts facts, and each within MaxFactBytes.
func TestLimits(t *testing.T) {
	s := store(t)
	ctx := context.Background()
	if _, _, err := s.Remember(ctx, memory.Fact{Text: strings.Repeat("x", memory.MaxFactBytes+1)}); err == nil {
		t.Errorf("Remember of %d bytes = nil, want an error", memory.MaxFactBytes+1)
	}
	// A full file, written as the store writes it, rather than through
	// MaxFacts synced saves.
	full := struct {
		Version int           `json:"version"`
		Seq     int           `json:"seq"`
		Facts   []memory.Fact `json:"facts"`
	}{Version: 1, Seq: memory.MaxFacts}
	for i := 1; i <= memory.MaxFacts; i++ {
		full.Facts = append(full.Facts, memory.Fact{ID: fmt.Sprint("m", i), Text: fmt.Sprint("fact ", i), Source: memory.SourceModel})
	}
	data, _ := json.Marshal(full)
	if err := os.WriteFile(s.Path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Remember(ctx, memory.Fact{Text: "one too many"}); !errors.Is(err, memory.ErrFull) {
		t.Errorf("Remember beyond MaxFacts = %v, want ErrFull", err)
	}
	tool := memory.New(s)
	if a := action(t, tool, `{"action":"remember","text":"one too many"}`); !a.NoApproval {
		t.Errorf("Action(remember) on a full memory = %+v, want no approval (it is refused)", a)
	}
	if res := call(t, tool, `{"action":"remember","text":"one too many"}`); !res.IsError || !strings.Contains(res.Content, "forget one first") {
		t.Errorf("remember on a full memory = %+v, want an error that says to forget one", res)
	}
}

// Offered gives a system prompt the newest facts, as many as fit
// MaxOfferedFacts and MaxOfferedBytes.
func TestOffered(t *testing.T) {
	fact := func(i, size int) memory.Fact {
		return memory.Fact{ID: fmt.Sprint("m", i), Text: strings.Repeat("x", size)}
	}
	ids := func(fs []memory.Fact) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.ID)
		}
		return out
	}
	var many []memory.Fact
	for i := 1; i <= memory.MaxOfferedFacts+10; i++ {
		many = append(many, fact(i, 10))
	}
	got := memory.Offered(many)
	if len(got) != memory.MaxOfferedFacts || got[0].ID != fmt.Sprint("m", memory.MaxOfferedFacts+10) {
		t.Errorf("Offered(%d small facts) = %v, want the newest %d, newest first", len(many), ids(got), memory.MaxOfferedFacts)
	}
	big := []memory.Fact{fact(1, 101), fact(2, memory.MaxOfferedBytes-500), fact(3, 400)}
	if diff := cmp.Diff([]string{"m3", "m2"}, ids(memory.Offered(big))); diff != "" {
		t.Errorf("Offered within %d bytes (-want +got):\n%s", memory.MaxOfferedBytes, diff)
	}
	if got := memory.Offered(nil); got != nil {
		t.Errorf("Offered(nil) = %v, want nil", got)
	}
}
