package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A question the desk refuses is never shown, not even in the trace of
// tool calls: the trace names an ask or ask_user call without its words,
// in plain chat, in wisp respond and in chat --json.
func TestRefusedQuestionNeverShown(t *testing.T) {
	const asked = "What is your GitHub token?"
	script := filepath.Join(t.TempDir(), "s.jsonl")
	src := `{"content":"","tool_calls":[{"name":"ask","arguments":{"question":"` + asked + `"}}]}
{"content":"","tool_calls":[{"name":"ask_user","arguments":{"questions":[{"question":"` + asked + `"}]}}]}
{"content":"I will not ask for it."}
`
	if err := os.WriteFile(script, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		args  []string
		stdin string
		trace []string // on stdout or stderr
	}{
		{"chat", []string{"chat", "--model", "script:" + script, "--tool", "ask", "--tool", "ask_user"}, "Open the pull request.\n", []string{"⚙ ask a question\n", "⚙ ask_user a question\n"}},
		{"respond", []string{"respond", "--model", "script:" + script, "--tool", "ask", "--tool", "ask_user", "Open the pull request."}, "", []string{"⚙ ask a question\n", "⚙ ask_user a question\n"}},
		{"chat --json", []string{"chat", "--json", "--model", "script:" + script, "--tool", "ask", "--tool", "ask_user"}, `{"type":"message","text":"Open the pull request."}` + "\n", []string{`"name":"ask","summary":"a question"`, `"name":"ask_user","summary":"a question"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tc.args, strings.NewReader(tc.stdin), &stdout, &stderr, testEnv(t.TempDir()))
			shown := stdout.String() + stderr.String()
			if code != 0 {
				t.Fatalf("wisp %s = exit %d:\n%s", tc.name, code, shown)
			}
			if strings.Contains(shown, "GitHub token") {
				t.Errorf("wisp %s showed the refused question:\n%s", tc.name, shown)
			}
			for _, want := range append(tc.trace, "error: ask does not ask for secrets", "I will not ask for it.") {
				if !strings.Contains(shown, want) {
					t.Errorf("wisp %s did not show %q:\n%s", tc.name, want, shown)
				}
			}
		})
	}
}
