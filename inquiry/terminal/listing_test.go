package terminal_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/escape"
	"github.com/wisp-agent/wisp/inquiry/pending"
	"github.com/wisp-agent/wisp/inquiry/terminal"
	"github.com/wisp-agent/wisp/policy/outofband"
)

// As a table, the questions are a row each under a header, aligned, the
// model's words escaped; as JSON, each whole, with every character unsafe
// on a terminal as a \u escape.
func TestQuestionsListings(t *testing.T) {
	asked := time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)
	store := fileQuestions(t, []pending.Question{
		{ID: "a1b2c3d4", Session: "s-1", Thread: "t-1", Turn: 2, Text: "Which config did you mean?", Options: []string{"~/.wisp/config.json", "./wisp.json\x1b[A"}, Asked: asked},
		{ID: "0badcafe", Session: "s-1", Thread: "t-\u202e2", Turn: 3, Text: "Name the \x1b]0;x\x07branch", Asked: asked.Add(time.Minute)},
	})
	now := func() time.Time { return asked.Add(5 * time.Minute) }
	list := func(l terminal.Listing) string {
		var b bytes.Buffer
		if err := terminal.NewQuestions(store, terminal.NewInput(strings.NewReader("")), &b, &terminal.QuestionsOptions{Now: now, Listing: l}).List(); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}

	want := `ID        THREAD       ASKED      TAKES      THE MODEL ASKS
a1b2c3d4  t-1          5 min ago  2 options  Which config did you mean?
0badcafe  t-\u{202E}2  4 min ago  free text  Name the \e]0;x\u{7}branch

wisp questions answer ID shows a question and reads your answer; wisp questions decline ID declines it
`
	if diff := cmp.Diff(want, list(terminal.Table)); diff != "" {
		t.Errorf("List as a table (-want +got):\n%s", diff)
	}

	out := list(terminal.JSON)
	if !escape.Clean(strings.TrimSuffix(out, "\n")) || strings.Count(out, "\n") != 1 {
		t.Errorf("List as JSON = %q, want one line with no character unsafe on a terminal", out)
	}
	var got struct {
		Questions []struct {
			ID, Session, Thread, Text string
			Turn                      int
			Options                   []string
			Asked                     time.Time
		}
		Damaged []any
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("List as JSON = %q: %v", out, err)
	}
	if len(got.Questions) != 2 || got.Damaged == nil {
		t.Fatalf("List as JSON = %q, want two questions and no damaged file", out)
	}
	q := got.Questions[1]
	if q.ID != "0badcafe" || q.Thread != "t-\u202e2" || q.Text != "Name the \x1b]0;x\x07branch" || q.Turn != 3 || q.Options == nil || len(q.Options) != 0 || !q.Asked.Equal(asked.Add(time.Minute)) {
		t.Errorf("List as JSON: second question = %+v, want it whole, as filed", q)
	}

	empty := fileQuestions(t, nil)
	var b bytes.Buffer
	if err := terminal.NewQuestions(empty, terminal.NewInput(strings.NewReader("")), &b, &terminal.QuestionsOptions{Listing: terminal.Table}).List(); err != nil {
		t.Fatal(err)
	}
	if b.String() != terminal.NoQuestionsWaiting+"\n" {
		t.Errorf("an empty table = %q, want %q", b.String(), terminal.NoQuestionsWaiting+"\n")
	}
	b.Reset()
	if err := terminal.NewQuestions(empty, terminal.NewInput(strings.NewReader("")), &b, &terminal.QuestionsOptions{Listing: terminal.JSON}).List(); err != nil {
		t.Fatal(err)
	}
	if want := `{"questions":[],"damaged":[]}` + "\n"; b.String() != want {
		t.Errorf("empty JSON = %q, want %q", b.String(), want)
	}
}

// As a table, the approval requests are a row each, the command escaped;
// as JSON, each whole, with its text, scopes and diff.
func TestApprovalsListings(t *testing.T) {
	asked := time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)
	store := outofband.Store{Dir: filepath.Join(t.TempDir(), "approvals"), Now: func() time.Time { return asked }}
	for _, r := range []wisp.ApprovalRequest{
		{ID: "7f3a2c1d", Session: "s-1", Thread: "t-models", Turn: 1, Kind: "modelAction", Command: "models enable x\x1b[2J", Pattern: "models enable *",
			Text: "turns it on\r\nin config.json", Scopes: []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession}, Deadline: asked.Add(10 * time.Minute)},
		{ID: "0a0b0c0d", Session: "s-1", Thread: "t-edit", Turn: 2, Kind: "fileEdit", Command: "edit_file replace main.go",
			Text: "replaces 1 line", Diff: "-a\n+b\u202e\n", Scopes: []wisp.Scope{wisp.ScopeOnce}},
	} {
		if _, err := store.File(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
	now := func() time.Time { return asked.Add(90 * time.Second) }
	list := func(l terminal.Listing) string {
		var b bytes.Buffer
		if err := terminal.NewApprovals(store, terminal.NewInput(strings.NewReader("")), &b, &terminal.ApprovalsOptions{Now: now, Listing: l}).List(); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	want := `ID        THREAD    ASKED      REFUSED   OFFERS           COMMAND
0a0b0c0d  t-edit    1 min ago  never     once only        edit_file replace main.go
7f3a2c1d  t-models  1 min ago  in 8 min  once or session  models enable x\e[2J

wisp approvals approve ID [--scope session] shows a request in full and approves it once you confirm; wisp approvals deny ID refuses it
`
	if diff := cmp.Diff(want, list(terminal.Table)); diff != "" {
		t.Errorf("List as a table (-want +got):\n%s", diff)
	}

	out := list(terminal.JSON)
	if !escape.Clean(strings.TrimSuffix(out, "\n")) {
		t.Errorf("List as JSON = %q, holds a character unsafe on a terminal", out)
	}
	var got struct {
		Approvals []struct {
			ID, Thread, Kind, Command, Text, Diff string
			Scopes                                []string
			Deadline                              time.Time
		}
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("List as JSON = %q: %v", out, err)
	}
	wantJSON := []struct {
		ID, Thread, Kind, Command, Text, Diff string
		Scopes                                []string
		Deadline                              time.Time
	}{
		{"0a0b0c0d", "t-edit", "fileEdit", "edit_file replace main.go", "replaces 1 line", "-a\n+b\u202e\n", []string{"once"}, time.Time{}},
		{"7f3a2c1d", "t-models", "modelAction", "models enable x\x1b[2J", "turns it on\r\nin config.json", "", []string{"once", "session"}, asked.Add(10 * time.Minute)},
	}
	if diff := cmp.Diff(wantJSON, got.Approvals); diff != "" {
		t.Errorf("List as JSON (-want +got):\n%s", diff)
	}
}
