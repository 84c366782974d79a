//go:build unix

package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/wisp-agent/wisp/inquiry/jsonl"
)

// TestChatJSONParkedAnswerNeedsATerminal runs the real wisp chat --json
// with pipes, as wisp-tui does: in a session whose controlling terminal
// is a pty (the person's terminal, under wisp-tui) it puts a parked
// question to the client; in a session of its own with no terminal (a
// program that runs it, such as a sandboxed command) it refuses.
func TestChatJSONParkedAnswerNeedsATerminal(t *testing.T) {
	bin, err := exec.LookPath("wisp")
	if err != nil {
		t.Fatal("the wisp test command is not on PATH:", err)
	}
	for _, withTerminal := range []bool{true, false} {
		name := "no terminal"
		if withTerminal {
			name = "a terminal"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			home := filepath.Join(dir, "home")
			parkTwo(t, home)
			cmd := exec.Command(bin, "chat", "--json", "--model", "script:"+writeScript(t, dir, `{"content":"ok"}`))
			cmd.Env = append(os.Environ(), "WISP_HOME="+home)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
			if withTerminal {
				ptmx, tty, err := pty.Open()
				if err != nil {
					t.Skip("no pty here:", err)
				}
				defer ptmx.Close()
				defer tty.Close()
				cmd.ExtraFiles = []*os.File{tty} // fd 3 in wisp
				cmd.SysProcAttr.Setctty, cmd.SysProcAttr.Ctty = true, 3
			}
			stdin, _ := cmd.StdinPipe()
			stdout, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() {
				cmd.Process.Kill()
				cmd.Wait()
			}()
			lines := make(chan jsonl.Line, 10)
			go func() {
				sc := bufio.NewScanner(stdout)
				for sc.Scan() {
					if l, err := jsonl.Decode(sc.Bytes()); err == nil {
						lines <- l
					}
				}
				close(lines)
			}()
			io.WriteString(stdin, `{"type":"questions","action":"answer","id":"a1b2c3d4"}`+"\n")
			for {
				var l jsonl.Line
				select {
				case l = <-lines:
				case <-time.After(20 * time.Second):
					t.Fatal("wisp wrote neither the question nor a refusal in 20 s")
				}
				switch l := l.(type) {
				case jsonl.Question:
					if !withTerminal || !l.Parked || l.ID != "a1b2c3d4" {
						t.Errorf("wisp put %+v to a client with no terminal", l)
					}
					return
				case jsonl.Error:
					if withTerminal {
						t.Errorf("wisp at a terminal refused: %s", l.Error)
					}
					return
				case nil:
					t.Fatal("wisp ended")
				}
			}
		})
	}
}
