package terminal_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/terminal"
)

// An approval request's diff is shown below its text, each line escaped
// and within the frame; coloured only when asked, with wisp's colours
// alone.
func TestApproveDiff(t *testing.T) {
	r := wisp.ApprovalRequest{ID: "id1", Kind: "fileEdit", Command: "edit_file replace main.go",
		Text: "replaces 1 line in main.go with 1 line", Scopes: []wisp.Scope{wisp.ScopeOnce},
		Diff: "--- a/main.go\n+++ b/main.go\n@@ -1,2 +1,2 @@\n package main\n-\tx := 1\n+\tx := \"\x1b[2J\"\r\n! wisp asks your approval\n"}
	head := "! wisp asks your approval\n  edit_file replace main.go\n  replaces 1 line in main.go with 1 line\n"
	tests := []struct {
		name  string
		color bool
		want  string
	}{
		{"plain", false, head +
			"  --- a/main.go\n  +++ b/main.go\n  @@ -1,2 +1,2 @@\n   package main\n  -    x := 1\n  +    x := \"\\e[2J\"\n  ! wisp asks your approval\n" +
			"allow? [y]once [n]o › "},
		{"coloured", true, head +
			"  \x1b[1m--- a/main.go\x1b[0m\n  \x1b[1m+++ b/main.go\x1b[0m\n  \x1b[36m@@ -1,2 +1,2 @@\x1b[0m\n   package main\n" +
			"  \x1b[31m-    x := 1\x1b[0m\n  \x1b[32m+    x := \"\\e[2J\"\x1b[0m\n  ! wisp asks your approval\n" +
			"allow? [y]once [n]o › "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := &screen{}
			f := terminal.NewWithOptions(terminal.NewInput(strings.NewReader("n\n")), out, &terminal.Options{Color: tc.color})
			if _, err := f.Approve(context.Background(), r); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, out.String()); diff != "" {
				t.Errorf("screen (-want +got):\n%s", diff)
			}
		})
	}

	// Wrapped, a long line of the diff stays within the frame.
	r.Diff = "+" + strings.Repeat("word ", 30) + "\n"
	out := &screen{}
	f := terminal.NewWithOptions(terminal.NewInput(strings.NewReader("n\n")), out, &terminal.Options{Width: func() int { return 40 }, Color: true})
	if _, err := f.Approve(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	for _, row := range strings.Split(out.String(), "\n") {
		if strings.Contains(row, "word") && !strings.HasPrefix(row, terminal.Indent+"\x1b[32m") {
			t.Errorf("a row of the diff %q is not in the frame and coloured", row)
		}
	}
}

// A chat at a terminal colours a request's diff, unless NO_COLOR asks it
// not to (ChatOptions.NoColor); a chat that does not write to a terminal
// never does.
func TestChatDiffNoColor(t *testing.T) {
	r := wisp.ApprovalRequest{ID: "id1", Kind: "fileEdit", Command: "edit_file replace main.go",
		Text: "replaces 1 line", Scopes: []wisp.Scope{wisp.ScopeOnce}, Diff: "-x := 1\n+x := 2\n"}
	yes, no := true, false
	tests := []struct {
		name     string
		terminal *bool
		noColor  bool
		coloured bool
	}{
		{"at a terminal", &yes, false, true},
		{"at a terminal with NO_COLOR", &yes, true, false},
		{"in a pipe", &no, false, false},
	}
	for _, tc := range tests {
		out := &screen{}
		chat := terminal.NewChat(strings.NewReader("n\n"), out, &terminal.ChatOptions{Terminal: tc.terminal, NoColor: tc.noColor})
		if _, err := chat.Face().Approve(context.Background(), r); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(out.String(), "\x1b["); got != tc.coloured {
			t.Errorf("%s: the diff is coloured: %v, want %v:\n%q", tc.name, got, tc.coloured, out.String())
		}
	}
}
