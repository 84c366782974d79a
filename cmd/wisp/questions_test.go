package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/pending"
)

// wisp questions away from a terminal: list works; answer and decline
// refuse with one line and exit status 2, after the ID and the question
// have been checked; nothing is filed.
func TestQuestionsWithoutTerminal(t *testing.T) {
	const refused = "questions %s runs only at a terminal, so that nothing but a person may answer a question: stdin and stdout are not terminals; run it in a terminal"
	tests := []struct {
		args   []string
		exit   int
		stdout string
		stderr string
	}{
		{[]string{"questions", "answer", "a1b2c3d4"}, 2, "", strings.Replace(refused, "%s", "answer", 1)},
		{[]string{"questions", "decline", "a1b2c3d4"}, 2, "", strings.Replace(refused, "%s", "decline", 1)},
		{[]string{"questions", "answer", "a1b2"}, 2, "", `"a1b2" is not a question ID; an ID is 8 characters from 0-9 and a-f, such as a1b2c3d4 (wisp questions list shows them)`},
		{[]string{"questions", "answer", "12345678"}, 1, "", "no question 12345678 is waiting; wisp questions list shows those that are"},
		{[]string{"questions", "decline", "12345678"}, 1, "", "no question 12345678 is waiting; wisp questions list shows those that are"},
		{[]string{"questions", "answer", "a1b2c3d4", "more"}, 2, "", "questions answer takes one question ID, as wisp questions list shows it (got 2 arguments; see wisp questions answer --help)"},
		{[]string{"questions", "list", "x"}, 2, "", "questions list takes no arguments (got 1 argument; see wisp questions list --help)"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			home := t.TempDir()
			store := pending.Store{Dir: filepath.Join(home, "pending"), NewID: func() string { return "a1b2c3d4" }}
			if _, err := store.File(context.Background(), wisp.Question{Thread: "t-1", Text: "Which config?", Options: []string{"a", "b"}}); err != nil {
				t.Fatal(err)
			}
			env := testEnv(home)
			var stdout, stderr bytes.Buffer
			got := run(context.Background(), tc.args, strings.NewReader("1\n"), &stdout, &stderr, env)
			if got != tc.exit {
				t.Errorf("wisp %s = exit %d, want %d", strings.Join(tc.args, " "), got, tc.exit)
			}
			wantErr := ""
			if tc.stderr != "" {
				wantErr = "wisp: " + tc.stderr + "\n"
			}
			if diff := cmp.Diff(wantErr, stderr.String()); diff != "" {
				t.Errorf("wisp %s stderr (-want +got):\n%s", strings.Join(tc.args, " "), diff)
			}
			if diff := cmp.Diff(tc.stdout, stdout.String()); diff != "" {
				t.Errorf("wisp %s stdout (-want +got):\n%s", strings.Join(tc.args, " "), diff)
			}
			if _, ok, err := store.Answered("a1b2c3d4"); ok || err != nil {
				t.Errorf("after wisp %s, Answered = %v, %v; want no answer filed", strings.Join(tc.args, " "), ok, err)
			}
		})
	}
}
