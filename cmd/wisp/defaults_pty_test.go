//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// At a terminal, wisp chat with no --tool says in its first line which
// tools the model has: the interactive preset.
func TestChatFirstLineNamesTheTools(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(script, []byte(`{"content":"ok"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := startPTY(t, filepath.Join(dir, "home"), "chat", "--model", "script:"+script)
	r.waitFor("Ctrl-D leaves.")
	first, _, _ := strings.Cut(r.shown(), "\n")
	if want := "wisp chat · model script:" + script + " · tools: ask_user, request_approval, read_file, list_files, search"; strings.TrimRight(first, "\r") != want {
		t.Errorf("the first line = %q, want %q", first, want)
	}
	r.press("\x04")
	if got := r.exit(); got != 0 {
		t.Errorf("wisp chat = exit %d, want 0:\n%s", got, r.shown())
	}
}
