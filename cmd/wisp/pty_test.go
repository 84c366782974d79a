//go:build unix

package main

import (
	"os"
	"path/filepath"
	"testing"
)

// At a real terminal, Ctrl-C while a question waits stops the turn (a real
// SIGINT from the terminal's line discipline), the chat goes on, and Ctrl-D
// leaves with exit status 0.
func TestTerminalCtrlC(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "ask.jsonl")
	src := `{"content":"","tool_calls":[{"name":"ask","arguments":{"question":"Which config did you mean?","options":["a","b"]}}]}
{"content":"Stopped asking."}
`
	if err := os.WriteFile(script, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	r := startPTY(t, filepath.Join(dir, "home"), "chat", "--model", "script:"+script, "--tool", "ask")
	r.waitFor("Ctrl-D leaves.")
	r.press("Replace the config\r")
	r.waitFor("type a number, or press Enter to decline › ")
	r.press("\x03") // Ctrl-C
	r.waitFor("(turn stopped)")
	r.press("again\r")
	r.waitFor("Stopped asking.")
	r.press("\x04") // Ctrl-D at the prompt
	if got := r.exit(); got != 0 {
		t.Errorf("wisp chat = exit %d, want 0:\n%s", got, r.shown())
	}
}
