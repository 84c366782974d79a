//go:build unix

package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// At a real terminal, Ctrl-C while a question waits stops the turn (a real
// SIGINT from the terminal's line discipline), the chat goes on, and Ctrl-D
// leaves with exit status 0.
func TestTerminalCtrlC(t *testing.T) {
	bin, err := exec.LookPath("wisp")
	if err != nil {
		t.Fatal("the wisp test command is not on PATH:", err)
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "ask.jsonl")
	src := `{"content":"","tool_calls":[{"name":"ask","arguments":{"question":"Which config did you mean?","options":["a","b"]}}]}
{"content":"Stopped asking."}
`
	if err := os.WriteFile(script, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "chat", "--model", "script:"+script, "--tool", "ask")
	cmd.Env = append(os.Environ(), "WISP_HOME="+filepath.Join(dir, "home"))
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Skip("no pty here:", err)
	}
	defer tty.Close()

	var mu sync.Mutex
	var screen bytes.Buffer
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			mu.Lock()
			screen.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	waitFor := func(s string) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			mu.Lock()
			ok := strings.Contains(screen.String(), s)
			mu.Unlock()
			if ok {
				return
			}
			if time.Now().After(deadline) {
				mu.Lock()
				defer mu.Unlock()
				t.Fatalf("the terminal never showed %q:\n%s", s, screen.String())
			}
		}
	}
	waitFor("Ctrl-D leaves.")
	io.WriteString(tty, "Replace the config\r")
	waitFor("type a number, or press Enter to decline › ")
	io.WriteString(tty, "\x03") // Ctrl-C
	waitFor("(turn stopped)")
	io.WriteString(tty, "again\r")
	waitFor("Stopped asking.")
	io.WriteString(tty, "\x04") // Ctrl-D at the prompt
	errc := make(chan error, 1)
	go func() { errc <- cmd.Wait() }()
	select {
	case err := <-errc:
		if err != nil {
			t.Errorf("wisp chat ended with %v, want exit status 0", err)
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("wisp chat did not leave on Ctrl-D")
	}
}
