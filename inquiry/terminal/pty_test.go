//go:build unix

package terminal_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/terminal"
)

// ptyScreen is what the terminal at the far end of a pty shows: the face's
// output and the line discipline's echo of the keys typed.
type ptyScreen struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *ptyScreen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor waits until the screen shows want after position from, and
// returns where it ends.
func (s *ptyScreen) waitFor(t *testing.T, from int, want string) int {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(2 * time.Millisecond) {
		got := s.String()
		if i := strings.Index(got[from:], want); i >= 0 {
			return from + i + len(want)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the terminal never showed %q:\n%s", want, got[from:])
		}
	}
}

// At a real terminal, what the person types for a secret is not echoed;
// the echo is on again before and after it, and keys typed ahead of the
// secret's prompt (echoed) are dropped rather than taken for the secret.
func TestPtySecretNotEchoed(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skip("no pty here:", err)
	}
	defer ptmx.Close()
	defer tty.Close()

	var scr ptyScreen
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			scr.mu.Lock()
			scr.b.Write(buf[:n])
			scr.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()

	in := terminal.NewInput(tty)
	f := terminal.New(in, tty)
	ask := func(c wisp.Card) <-chan []wisp.CardAnswer {
		got := make(chan []wisp.CardAnswer, 1)
		go func() {
			a, err := f.AskCard(context.Background(), c)
			if err != nil {
				t.Errorf("AskCard: %v", err)
			}
			got <- a
		}()
		return got
	}
	answer := func(ch <-chan []wisp.CardAnswer) []wisp.CardAnswer {
		t.Helper()
		select {
		case a := <-ch:
			return a
		case <-time.After(10 * time.Second):
			t.Fatalf("AskCard did not return:\n%s", scr.String())
			return nil
		}
	}
	notes := wisp.Card{Questions: []wisp.CardQuestion{{Text: "Anything else?"}}}
	token := wisp.Card{Questions: []wisp.CardQuestion{{Header: "GitHub", Text: "Which token?", Secret: "GH_TOKEN"}}}

	// Echo on: an ordinary answer shows as it is typed.
	got := ask(notes)
	pos := scr.waitFor(t, 0, terminal.PromptText)
	io.WriteString(ptmx, "visible-answer\r")
	pos = scr.waitFor(t, pos, "visible-answer")
	if diff := cmp.Diff([]wisp.CardAnswer{{Outcome: wisp.OutcomeAnswered, Text: "visible-answer", Provenance: wisp.FromPerson}}, answer(got)); diff != "" {
		t.Errorf("the ordinary answer (-want +got):\n%s", diff)
	}

	// Keys typed ahead (echoed), then the secret at its prompt.
	io.WriteString(ptmx, "typed-ahead\r")
	pos = scr.waitFor(t, pos, "typed-ahead")
	time.Sleep(20 * time.Millisecond) // let the Input's goroutine take the line from the terminal
	got = ask(token)
	pos = scr.waitFor(t, pos, terminal.PromptSecret)
	io.WriteString(ptmx, "hunter2-s3cret\r")
	pos = scr.waitFor(t, pos, "(received)")
	if diff := cmp.Diff([]wisp.CardAnswer{{Outcome: wisp.OutcomeAnswered, Text: "hunter2-s3cret", Provenance: wisp.FromPerson}}, answer(got)); diff != "" {
		t.Errorf("the secret (-want +got):\n%s", diff)
	}

	// Echo on again: the next answer shows.
	got = ask(notes)
	pos = scr.waitFor(t, pos, terminal.PromptText)
	io.WriteString(ptmx, "after-the-secret\r")
	scr.waitFor(t, pos, "after-the-secret")
	if diff := cmp.Diff([]wisp.CardAnswer{{Outcome: wisp.OutcomeAnswered, Text: "after-the-secret", Provenance: wisp.FromPerson}}, answer(got)); diff != "" {
		t.Errorf("the answer after the secret (-want +got):\n%s", diff)
	}
	if s := scr.String(); strings.Contains(s, "hunter2") {
		t.Errorf("the terminal showed the secret:\n%s", s)
	}
}

// The face at a pty whose input is not the terminal (a pipe) reads no
// secret, even though it writes to a terminal.
func TestPtySecretFromPipe(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skip("no pty here:", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	go io.Copy(io.Discard, ptmx)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	io.WriteString(pw, "hunter2\n")
	f := terminal.New(terminal.NewInput(pr), tty)
	got, err := f.AskCard(context.Background(), wisp.Card{Questions: []wisp.CardQuestion{{Text: "Which token?", Secret: "GH_TOKEN"}}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]wisp.CardAnswer{{Outcome: wisp.OutcomeNoPerson, Provenance: wisp.FromUnattended}}, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
}
