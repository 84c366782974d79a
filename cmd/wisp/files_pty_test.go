//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// At a real terminal, wisp chat colours the diff of an edit it asks about,
// removed lines red and added lines green, unless NO_COLOR is set; either
// way the model's escape sequences in it are shown, not obeyed.
func TestChatDiffColourAtATerminal(t *testing.T) {
	const (
		red   = "\x1b[31m-"
		green = "\x1b[32m+"
	)
	edit := `{"content":"","tool_calls":[{"name":"edit_file","arguments":{"path":"main.go","mode":"replace","old":"x := 1","new":"x := \"\u001b[2J\""}}]}`
	for _, tc := range []struct {
		noColor  string
		coloured bool
	}{
		{"", true},
		{"1", false},
	} {
		t.Run("NO_COLOR="+tc.noColor, func(t *testing.T) {
			t.Setenv("NO_COLOR", tc.noColor)
			dir := t.TempDir()
			ws := filepath.Join(dir, "ws")
			script := filepath.Join(dir, "edit.jsonl")
			if err := os.Mkdir(ws, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n\nfunc main() {\n\tx := 1\n}\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(script, []byte(edit+"\n"+`{"content":"Left as it was."}`+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			r := startPTY(t, filepath.Join(dir, "home"), "chat", "--model", "script:"+script, "--tool", "edit_file", "--workspace", ws)
			r.waitFor("Ctrl-D leaves.")
			r.press("Change x.\r")
			r.waitFor("allow? [y]once [s]ession [n]o › ")
			r.press("n\r")
			r.waitFor("Left as it was.")
			r.press("\x04")
			if got := r.exit(); got != 0 {
				t.Errorf("wisp chat = exit %d, want 0:\n%s", got, r.shown())
			}
			shown := r.shown()
			if got := strings.Contains(shown, red) && strings.Contains(shown, green); got != tc.coloured {
				t.Errorf("with NO_COLOR=%q the diff is coloured: %v, want %v:\n%q", tc.noColor, got, tc.coloured, shown)
			}
			if !strings.Contains(shown, `+    x := "\e[2J"`) || strings.Contains(shown, "\x1b[2J") {
				t.Errorf("the diff's escape sequence was not shown escaped:\n%q", shown)
			}
		})
	}
}
