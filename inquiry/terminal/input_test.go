package terminal_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/terminal"
)

// fakeTTY stands for a terminal in line mode: what the person types waits
// in the terminal's queue until it is read, one line a read, and flushing
// the queue (what turning the echo off or on with TCSAFLUSH does) drops
// it. Its channels belong to the synctest bubble it is made in.
type fakeTTY struct {
	queue chan string
	reads int
	// stall, when not nil, holds read number stallAt (from 1) after it
	// has taken its line from the queue, until stall is closed: the reader
	// has the line, and has not handed it over yet.
	stall   chan struct{}
	stallAt int
	hidden  bool
	flushed []string
}

func newFakeTTY() *fakeTTY { return &fakeTTY{queue: make(chan string, 64)} }

// typeLines types lines at the terminal, each ended by Enter.
func (t *fakeTTY) typeLines(lines ...string) {
	for _, l := range lines {
		t.queue <- l + "\n"
	}
}

func (t *fakeTTY) Read(p []byte) (int, error) {
	l, ok := <-t.queue
	if !ok {
		return 0, io.EOF
	}
	t.reads++
	if t.stall != nil && t.reads == t.stallAt {
		<-t.stall
	}
	return copy(p, l), nil
}

// flush drops what waits in the queue.
func (t *fakeTTY) flush() {
	for {
		select {
		case l := <-t.queue:
			t.flushed = append(t.flushed, strings.TrimSuffix(l, "\n"))
		default:
			return
		}
	}
}

// hideEcho is Options.HideEcho for the fake: it flushes the queue when
// the echo goes off and again when it comes back on, as the face's own
// hiding does at a real terminal. Before it flushes on the way back, it
// lets every other goroutine of the bubble run until it blocks, so that a
// reader that has taken a line from the terminal holds it by then.
func (t *fakeTTY) hideEcho() (func(), error) {
	t.hidden = true
	t.flush()
	return func() {
		synctest.Wait()
		t.flush()
		t.hidden = false
	}, nil
}

// The rest of a pasted private key, typed with the echo off after the
// secret's first line, never becomes the next line read: not when it
// waits in the terminal's queue, and not when a reader has already taken
// it from the terminal as the secret's read ends.
func TestPastedKeyNotNextLine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tty := newFakeTTY()
		// The read after the secret's stalls with its line in hand until
		// the face is done with the secret.
		tty.stall, tty.stallAt = make(chan struct{}), 2
		in := terminal.NewInput(tty)
		f := terminal.NewWithOptions(in, &screen{}, &terminal.Options{HideEcho: tty.hideEcho})
		done := make(chan []wisp.CardAnswer)
		go func() {
			got, err := f.AskCard(context.Background(), wisp.Card{Questions: []wisp.CardQuestion{secretQ}})
			if err != nil {
				t.Errorf("AskCard: %v", err)
			}
			done <- got
		}()
		synctest.Wait() // the secret's prompt is up
		tty.typeLines("-----BEGIN OPENSSH PRIVATE KEY-----", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAE", "QyNTUxOQAAACBmZWVkZmFjZWJlZWZjYWZl")
		got := <-done
		if diff := cmp.Diff([]wisp.CardAnswer{{Outcome: wisp.OutcomeAnswered, Text: "-----BEGIN OPENSSH PRIVATE KEY-----", Provenance: wisp.FromPerson}}, got); diff != "" {
			t.Errorf("answers (-want +got):\n%s", diff)
		}
		close(tty.stall)
		tty.typeLines("thanks")
		if l, err := in.ReadLine(context.Background()); l != "thanks" || err != nil {
			t.Errorf("ReadLine after the secret = %q, %v; want the next line typed, thanks", l, err)
		}
	})
}

// A secret typed with the echo off just as the question's deadline passes
// is never the next line read, even when a reader took it from the
// terminal before the face gave up.
func TestSecretAfterDeadlineNotNextLine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tty := newFakeTTY()
		tty.stall, tty.stallAt = make(chan struct{}), 1
		in := terminal.NewInput(tty)
		f := terminal.NewWithOptions(in, &screen{}, &terminal.Options{HideEcho: tty.hideEcho, Now: time.Now})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		done := make(chan error)
		go func() {
			_, err := f.AskCard(ctx, wisp.Card{Questions: []wisp.CardQuestion{secretQ}, Deadline: time.Now().Add(time.Minute)})
			done <- err
		}()
		synctest.Wait() // the secret's prompt is up
		tty.typeLines("ghp_typedAtTheDeadline")
		synctest.Wait() // a reader holds it
		time.Sleep(time.Minute)
		if err := <-done; !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("AskCard past its deadline = %v, want DeadlineExceeded", err)
		}
		close(tty.stall)
		tty.typeLines("next message")
		if l, err := in.ReadLine(context.Background()); l != "next message" || err != nil {
			t.Errorf("ReadLine after the secret's deadline = %q, %v; want next message", l, err)
		}
	})
}

// Nothing is read from the terminal unless a reader asks for a line: a
// line typed while nobody reads waits in the terminal, where flushing it
// drops it.
func TestInputReadsOnlyWhenAsked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tty := newFakeTTY()
		in := terminal.NewInput(tty)
		tty.typeLines("first", "typed ahead")
		if l, err := in.ReadLine(context.Background()); l != "first" || err != nil {
			t.Fatalf("ReadLine = %q, %v; want first", l, err)
		}
		synctest.Wait()
		if tty.reads != 1 {
			t.Errorf("the terminal was read %d times for one line, want 1", tty.reads)
		}
		tty.flush()
		if diff := cmp.Diff([]string{"typed ahead"}, tty.flushed); diff != "" {
			t.Errorf("flushed (-want +got):\n%s", diff)
		}
	})
}

// A line longer than MaxLine is read to its end and refused with
// ErrLineTooLong, never cut and passed on; the next line reads as it is.
func TestLongLineRefused(t *testing.T) {
	long := strings.Repeat("x", terminal.MaxLine+10)
	tests := []struct {
		name  string
		input string
		want  []string // lines read, "!" for ErrLineTooLong, "EOF" for the end
	}{
		{"longer by 10 bytes", long + "\nnext\n", []string{"!", "next", "EOF"}},
		{"longer, at the end of the input", long, []string{"!", "EOF"}},
		{"exactly MaxLine", long[:terminal.MaxLine] + "\r\nnext\n", []string{long[:terminal.MaxLine], "next", "EOF"}},
		{"one byte over", long[:terminal.MaxLine+1] + "\nnext\n", []string{"!", "next", "EOF"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := terminal.NewInput(strings.NewReader(tc.input))
			var got []string
			for range tc.want {
				l, err := in.ReadLine(context.Background())
				switch {
				case errors.Is(err, terminal.ErrLineTooLong):
					got = append(got, "!")
				case errors.Is(err, io.EOF):
					got = append(got, "EOF")
				case err != nil:
					t.Fatalf("ReadLine: %v", err)
				default:
					got = append(got, l)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
		})
	}
}

// Interrupt ends the read that waits, and only one that waits: with no
// reader it reports false and leaves nothing behind for the next one.
func TestInterrupt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tty := newFakeTTY()
		in := terminal.NewInput(tty)
		if in.Interrupt() {
			t.Errorf("Interrupt with nobody reading = true, want false")
		}
		done := make(chan error)
		go func() {
			_, err := in.ReadLine(context.Background())
			done <- err
		}()
		synctest.Wait()
		if !in.Interrupt() {
			t.Errorf("Interrupt with a reader waiting = false, want true")
		}
		if err := <-done; !errors.Is(err, wisp.ErrInterrupted) {
			t.Errorf("ReadLine interrupted = %v, want wisp.ErrInterrupted", err)
		}
		tty.typeLines("after")
		if l, err := in.ReadLine(context.Background()); l != "after" || err != nil {
			t.Errorf("ReadLine after an interrupt = %q, %v; want after", l, err)
		}
	})
}

// At a question, a line over MaxLine is not the answer: the face says it
// was dropped and asks again.
func TestLongAnswerRefused(t *testing.T) {
	long := strings.Repeat("x", terminal.MaxLine+1)
	out := &screen{}
	q := wisp.Question{Text: "Name?"}
	got, err := terminal.New(terminal.NewInput(strings.NewReader(long+"\nAda\n")), out).Ask(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wisp.Answer{Outcome: wisp.OutcomeAnswered, Text: "Ada", Provenance: wisp.FromPerson}, got); diff != "" {
		t.Errorf("answer (-want +got):\n%s", diff)
	}
	want := terminal.PromptText + "(that line was longer than 1 MiB, the most wisp reads as one line; it was dropped)\n" + terminal.PromptText
	if !strings.HasSuffix(out.String(), want) {
		t.Errorf("screen ends %q, want %q", out.String()[max(0, len(out.String())-200):], want)
	}
}
