//go:build unix

package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// ptyRun is wisp running at a real terminal, with what it has shown.
type ptyRun struct {
	t   *testing.T
	cmd *exec.Cmd
	tty *os.File // the terminal's other end: what wisp shows, and the keys

	mu     sync.Mutex
	screen bytes.Buffer

	waitOnce sync.Once
	waited   chan struct{} // closed once wisp has ended and been waited for
	waitErr  error
}

// wait waits for wisp in one goroutine, however many callers ask, so that
// exit and the test's cleanup never both call Cmd.Wait.
func (r *ptyRun) wait() <-chan struct{} {
	r.waitOnce.Do(func() {
		r.waited = make(chan struct{})
		go func() {
			r.waitErr = r.cmd.Wait()
			close(r.waited)
		}()
	})
	return r.waited
}

// startPTY runs the wisp test command with args at a pty, with home as
// WISP_HOME. It skips the test where there is no pty.
func startPTY(t *testing.T, home string, args ...string) *ptyRun {
	t.Helper()
	return startPTYTypedAhead(t, home, "", args...)
}

// startPTYTypedAhead is startPTY, and types early at the terminal before
// wisp has shown anything.
func startPTYTypedAhead(t *testing.T, home, early string, args ...string) *ptyRun {
	t.Helper()
	bin, err := exec.LookPath("wisp")
	if err != nil {
		t.Fatal("the wisp test command is not on PATH:", err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "WISP_HOME="+home)
	// The terminal exists before wisp does, so keys typed now wait in its
	// queue, as keys typed ahead of a prompt do.
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skip("no pty here:", err)
	}
	r := &ptyRun{t: t, cmd: cmd, tty: ptmx}
	t.Cleanup(func() {
		ptmx.Close()
		if cmd.Process != nil {
			cmd.Process.Kill()
			<-r.wait()
		}
	})
	defer tty.Close() // wisp holds its own
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 40, Cols: 200}); err != nil {
		t.Fatal(err)
	}
	if early != "" {
		r.press(early)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	// Its own session, with the pty as its controlling terminal, so that
	// Ctrl-C there is a real SIGINT, as pty.Start arranges.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			r.mu.Lock()
			r.screen.Write(buf[:n])
			r.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return r
}

// shown returns what the terminal has shown so far.
func (r *ptyRun) shown() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.screen.String()
}

// waitFor waits until the terminal shows s.
func (r *ptyRun) waitFor(s string) {
	r.t.Helper()
	r.waitForN(s, 1)
}

// waitForN waits until the terminal has shown s n times.
func (r *ptyRun) waitForN(s string, n int) {
	r.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if strings.Count(r.shown(), s) >= n {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("the terminal never showed %q %d times:\n%s", s, n, r.shown())
		}
	}
}

// press types keys at the terminal.
func (r *ptyRun) press(keys string) {
	r.t.Helper()
	if _, err := io.WriteString(r.tty, keys); err != nil {
		r.t.Fatal(err)
	}
}

// exit waits for wisp to end and returns its exit status.
func (r *ptyRun) exit() int {
	r.t.Helper()
	select {
	case <-r.wait():
		err := r.waitErr
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			r.t.Fatal(err)
		}
		return 0
	case <-time.After(10 * time.Second):
		r.t.Fatalf("wisp did not end:\n%s", r.shown())
		return -1
	}
}
