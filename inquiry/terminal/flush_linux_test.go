package terminal_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/wisp-agent/wisp/inquiry/terminal"
)

// At a terminal, DropTypeAhead drops the lines typed before it, which the
// terminal holds, so that they cannot answer the prompt that follows; what
// is typed after it is read.
func TestDropTypeAheadAtATerminal(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skip("no pty here:", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	go func() { // the screen, unread
		buf := make([]byte, 4096)
		for {
			if _, err := ptmx.Read(buf); err != nil {
				return
			}
		}
	}()
	in := terminal.NewInput(tty)
	if _, err := ptmx.WriteString("early\n"); err != nil {
		t.Fatal(err)
	}
	// The line discipline has the line once tty can read it.
	for deadline := time.Now().Add(10 * time.Second); !readable(t, tty); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the typed line never reached the terminal")
		}
	}
	in.DropTypeAhead()
	if _, err := ptmx.WriteString("late\n"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if got, err := in.ReadLine(ctx); err != nil || got != "late" {
		t.Errorf("ReadLine after DropTypeAhead = %q, %v; want late", got, err)
	}
}

// readable reports whether f has input waiting.
func readable(t *testing.T, f *os.File) bool {
	t.Helper()
	n, err := inputWaiting(f)
	if err != nil {
		t.Fatal(err)
	}
	return n > 0
}
