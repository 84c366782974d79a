package terminal_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/pending"
	"github.com/wisp-agent/wisp/inquiry/terminal"
	"github.com/wisp-agent/wisp/policy/outofband"
)

// The times in lists and headings are rough, in their largest whole unit.
func TestAgo(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{-time.Minute, "just now"},
		{0, "just now"},
		{999 * time.Millisecond, "just now"},
		{time.Second, "1 s ago"},
		{59 * time.Second, "59 s ago"},
		{time.Minute, "1 min ago"},
		{90 * time.Second, "1 min ago"},
		{59*time.Minute + 59*time.Second, "59 min ago"},
		{time.Hour, "1 h ago"},
		{2 * time.Hour, "2 h ago"},
		{47 * time.Hour, "47 h ago"},
		{48 * time.Hour, "2 days ago"},
		{72 * time.Hour, "3 days ago"},
	}
	for _, tc := range tests {
		if got := terminal.Ago(tc.d); got != tc.want {
			t.Errorf("ago(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestFromNow(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{-time.Second, "any moment"},
		{500 * time.Millisecond, "any moment"},
		{48 * time.Second, "in 48 s"},
		{9*time.Minute + 59*time.Second, "in 9 min"},
	}
	for _, tc := range tests {
		if got := terminal.FromNow(tc.d); got != tc.want {
			t.Errorf("fromNow(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

// Only a person at a terminal answers what waits for one: the refusal
// names which of stdin and stdout is not a terminal.
func TestAtTerminal(t *testing.T) {
	tests := []struct {
		err  terminal.NoTerminalError
		want string
	}{
		{terminal.NoTerminalError{Verb: "questions answer", What: "a question"},
			"questions answer runs only at a terminal, so that nothing but a person may answer a question: stdin and stdout are not terminals; run it in a terminal"},
		{terminal.NoTerminalError{Verb: "approvals deny", What: "an approval request", Stdout: true},
			"approvals deny runs only at a terminal, so that nothing but a person may answer an approval request: stdin is not a terminal; run it in a terminal"},
		{terminal.NoTerminalError{Verb: "questions decline", What: "a question", Stdin: true},
			"questions decline runs only at a terminal, so that nothing but a person may answer a question: stdout is not a terminal; run it in a terminal"},
	}
	for _, tc := range tests {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("NoTerminalError%+v = %q, want %q", tc.err, got, tc.want)
		}
	}
	err := terminal.AtTerminal("questions answer", "a question", strings.NewReader(""), &bytes.Buffer{})
	var nt *terminal.NoTerminalError
	if !errors.As(err, &nt) || nt.Stdin || nt.Stdout {
		t.Errorf("AtTerminal(a reader, a buffer) = %v, want a *NoTerminalError for both", err)
	}
}

// fileQuestions files qs in a pending folder of their own, each asked at
// its Asked time, with the IDs given.
func fileQuestions(t *testing.T, qs []pending.Question) pending.Store {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "pending")
	for _, q := range qs {
		s := pending.Store{Dir: dir, NewID: func() string { return q.ID }, Now: func() time.Time { return q.Asked }}
		if _, err := s.File(context.Background(), wisp.Question{Session: q.Session, Thread: q.Thread, Turn: q.Turn, Text: q.Text, Options: q.Options}); err != nil {
			t.Fatal(err)
		}
	}
	return pending.Store{Dir: dir}
}

// The list is one block a question, escaped, with the commands that
// answer it: wisp questions's, or a chat's /questions.
func TestQuestionsList(t *testing.T) {
	asked := time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)
	qs := []pending.Question{
		{ID: "a1b2c3d4", Thread: "t-1", Text: "Which config did you mean?", Options: []string{"~/.wisp/config.json", "./wisp.json\x1b[A"}, Asked: asked},
		{ID: "0badcafe", Thread: "t-\u202e2", Text: "Name the \x1b]0;x\x07branch", Asked: asked.Add(time.Minute)},
	}
	now := func() time.Time { return asked.Add(5 * time.Minute) }
	tests := []struct {
		name string
		qs   []pending.Question
		chat bool
		want string
	}{
		{"none", nil, false, "no questions are waiting\n"},
		{"two", qs, false, `question a1b2c3d4 · thread t-1 · asked 5 min ago
? the model asks
  Which config did you mean?
  1 ~/.wisp/config.json
  2 ./wisp.json\e[A
  3 none of these
answer: wisp questions answer a1b2c3d4 · decline: wisp questions decline a1b2c3d4

question 0badcafe · thread t-\u{202E}2 · asked 4 min ago
? the model asks
  Name the \e]0;x\u{7}branch
(free text)
answer: wisp questions answer 0badcafe · decline: wisp questions decline 0badcafe
`},
		{"in a chat", qs[:1], true, `question a1b2c3d4 · thread t-1 · asked 5 min ago
? the model asks
  Which config did you mean?
  1 ~/.wisp/config.json
  2 ./wisp.json\e[A
  3 none of these
answer: /questions answer a1b2c3d4 · decline: /questions decline a1b2c3d4
`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			store := fileQuestions(t, tc.qs)
			var b bytes.Buffer
			opts := &terminal.QuestionsOptions{Now: now}
			if tc.chat {
				chat := terminal.NewChat(strings.NewReader("/questions list\n"), &b, nil)
				if err := chat.Run(t.Context(), &conversation{respond: echo}, &terminal.RunOptions{Commands: []terminal.Command{chat.Questions(store, opts).Command()}}); err != nil {
					t.Fatal(err)
				}
				// The piped chat writes each line it reads first.
				b.Next(len("› /questions list\n"))
			} else if err := terminal.NewQuestions(store, terminal.NewInput(strings.NewReader("")), &b, opts).List(); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, b.String()); diff != "" {
				t.Errorf("List (-want +got):\n%s", diff)
			}
		})
	}
}

// Away from a terminal, and in a chat that runs with no person, answering
// and declining are refused once the question has been checked, and
// nothing is filed.
func TestQuestionsAnswerRefused(t *testing.T) {
	tests := []struct {
		name       string
		unattended bool
		id         string
		decline    bool
		want       string
	}{
		{"answer", false, "a1b2c3d4", false, "questions answer runs only at a terminal, so that nothing but a person may answer a question: stdin and stdout are not terminals; run it in a terminal"},
		{"decline", false, "a1b2c3d4", true, "questions decline runs only at a terminal, so that nothing but a person may answer a question: stdin and stdout are not terminals; run it in a terminal"},
		{"not waiting", false, "12345678", false, "no question 12345678 is waiting; wisp questions list shows those that are"},
		{"unattended", true, "a1b2c3d4", false, "questions answer needs a person, and this chat runs with --yes, where nobody is asked anything; run wisp questions answer a1b2c3d4 in a terminal"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			store := fileQuestions(t, []pending.Question{{ID: "a1b2c3d4", Thread: "t-1", Text: "Which?", Options: []string{"a", "b"}, Asked: time.Now()}})
			var out bytes.Buffer
			q := terminal.NewQuestions(store, terminal.NewInput(strings.NewReader("1\n")), &out, &terminal.QuestionsOptions{Unattended: tc.unattended})
			err := q.Answer(t.Context(), tc.id, tc.decline)
			if err == nil || err.Error() != tc.want {
				t.Errorf("Answer(%q, %v) = %v, want %q", tc.id, tc.decline, err, tc.want)
			}
			if _, ok, err := store.Answered("a1b2c3d4"); ok || err != nil {
				t.Errorf("after Answer, Answered = %v, %v; want no answer filed", ok, err)
			}
			if out.Len() > 0 {
				t.Errorf("Answer wrote %q, want nothing", out.String())
			}
		})
	}
}

// The list of approval requests: one block a request, its command and
// text escaped under wisp's own label, what it offers and when silence
// refuses it, and the commands that answer it; a damaged file after them.
func TestApprovalsList(t *testing.T) {
	asked := time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)
	dir := filepath.Join(t.TempDir(), "approvals")
	store := outofband.Store{Dir: dir, Now: func() time.Time { return asked }}
	for _, r := range []wisp.ApprovalRequest{
		{ID: "7f3a2c1d", Thread: "t-models", Kind: "modelAction", Command: "models enable x\x1b[2J", Pattern: "models enable *",
			Text: "turns it on\r\nin config.json", Scopes: []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession}, Deadline: asked.Add(10 * time.Minute)},
		{ID: "0a0b0c0d", Thread: "t-pull", Kind: "modelAction", Command: "models pull org/name", Scopes: []wisp.Scope{wisp.ScopeOnce}},
	} {
		if _, err := store.File(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
	var b bytes.Buffer
	now := func() time.Time { return asked.Add(90 * time.Second) }
	if err := terminal.NewApprovals(store, terminal.NewInput(strings.NewReader("")), &b, &terminal.ApprovalsOptions{Now: now}).List(); err != nil {
		t.Fatal(err)
	}
	want := `approval 0a0b0c0d · thread t-pull · asked 1 min ago
! wisp asks your approval
  models pull org/name
offers once only
approve: wisp approvals approve 0a0b0c0d · deny: wisp approvals deny 0a0b0c0d

approval 7f3a2c1d · thread t-models · asked 1 min ago
! wisp asks your approval
  models enable x\e[2J
  turns it on
  in config.json
offers once or session · refused unanswered in 8 min
approve: wisp approvals approve 7f3a2c1d [--scope session] · deny: wisp approvals deny 7f3a2c1d
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
}

// An error is one line, with a credential in it as its marker.
func TestErrorLine(t *testing.T) {
	const secret = "ghp_0123456789abcdefghijklmnopqrstuvwxyz"
	got := terminal.ErrorLine(errors.New("cannot read\n  the token " + secret + "\tin the file"))
	if strings.Contains(got, secret) || strings.ContainsAny(got, "\n\t") || !strings.HasPrefix(got, "cannot read the token [REDACTED:") || !strings.HasSuffix(got, " in the file") {
		t.Errorf("ErrorLine = %q, want one line with the token as its marker", got)
	}
}

// A file that cannot be read back is listed after what waits, as
// damaged, with what is wrong with it and what comes of it; with nothing
// waiting, it is listed alone.
func TestListDamaged(t *testing.T) {
	home := t.TempDir()
	for _, f := range []string{"pending/0badcafe.question.json", "approvals/0badcafe.request.json"} {
		path := filepath.Join(home, f)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(`{"version":1,"thread":"t-5","id":`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	in := terminal.NewInput(strings.NewReader(""))
	var q, a bytes.Buffer
	if err := terminal.NewQuestions(pending.Store{Dir: filepath.Join(home, "pending")}, in, &q, nil).List(); err != nil {
		t.Fatal(err)
	}
	if err := terminal.NewApprovals(outofband.Store{Dir: filepath.Join(home, "approvals")}, in, &a, nil).List(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		got  string
		want []string
	}{
		{"questions", q.String(), []string{"question 0badcafe · thread t-5 · damaged", "! ", "it will not be answered; thread t-5 is told so on its next turn"}},
		{"approvals", a.String(), []string{"approval 0badcafe · damaged", "! ", "nothing approves it: the request that waits on it is refused"}},
	} {
		lines := strings.Split(strings.TrimSuffix(tc.got, "\n"), "\n")
		if len(lines) != len(tc.want) {
			t.Errorf("%s list = %q, want %d lines", tc.name, tc.got, len(tc.want))
			continue
		}
		for i, w := range tc.want {
			if !strings.HasPrefix(lines[i], w) {
				t.Errorf("%s list line %d = %q, want it to start %q", tc.name, i+1, lines[i], w)
			}
		}
	}
}
