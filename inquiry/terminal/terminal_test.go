package terminal_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/facetest"
	"github.com/wisp-agent/wisp/inquiry/terminal"
)

// screen is a goroutine-safe buffer standing for the terminal.
type screen struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// keys are what a person types for each act on the terminal, one line an
// act, and the next when the face asks again.
func keys(p facetest.Person) string {
	var k string
	for _, a := range p.Acts() {
		k += key(a)
	}
	return k
}

func key(p facetest.Person) string {
	switch p.Act {
	case facetest.Choose:
		return fmt.Sprintf("%d\n", p.Option+1)
	case facetest.ChooseNone:
		return "4\n" // the face-contract choice has three options
	case facetest.Type:
		return p.Text + "\n"
	case facetest.Decline:
		return "\n"
	}
	return ""
}

func TestFaceContract(t *testing.T) {
	facetest.Run(t, func(t *testing.T, p facetest.Person) facetest.Harness {
		r, w := io.Pipe()
		t.Cleanup(func() { w.Close() })
		in := terminal.NewInput(r)
		out := &screen{}
		if k := keys(p); k != "" {
			go io.WriteString(w, k)
		}
		if p.Act == facetest.Interrupt {
			// Ctrl-C reaches the read that waits for the answer.
			go func() {
				for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
					if in.Interrupt() {
						return
					}
				}
			}()
		}
		return facetest.Harness{Face: terminal.New(in, out), Screen: out.String}
	}, nil)
}

func TestScreen(t *testing.T) {
	in := terminal.NewInput(strings.NewReader("2\n"))
	out := &screen{}
	a, err := terminal.New(in, out).Ask(context.Background(), wisp.Question{
		Text: "Which config did you mean?", Options: []string{"~/.wisp/config.json", "./wisp.json"}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wisp.Answer{Outcome: wisp.OutcomeChose, Text: "./wisp.json", Provenance: wisp.FromPerson}, a); diff != "" {
		t.Errorf("answer (-want +got):\n%s", diff)
	}
	want := "? the model asks\n  Which config did you mean?\n  1 ~/.wisp/config.json\n  2 ./wisp.json\n  3 none of these\ntype a number, or press Enter to decline › "
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("screen (-want +got):\n%s", diff)
	}
}

func TestReadAnswers(t *testing.T) {
	choice := wisp.Question{Text: "Which?", Options: []string{"a", "b"}}
	free := wisp.Question{Text: "Name?"}
	tests := []struct {
		name  string
		q     wisp.Question
		input string
		want  wisp.Answer
	}{
		{"number", choice, "1\n", wisp.Answer{Outcome: wisp.OutcomeChose, Text: "a", Provenance: wisp.FromPerson}},
		{"number with spaces and CRLF", choice, " 2 \r\n", wisp.Answer{Outcome: wisp.OutcomeChose, Text: "b", Provenance: wisp.FromPerson}},
		{"none of these", choice, "3\n", wisp.Answer{Outcome: wisp.OutcomeChoseNone, Provenance: wisp.FromPerson}},
		{"out of range asks again", choice, "9\n0\n2\n", wisp.Answer{Outcome: wisp.OutcomeChose, Text: "b", Provenance: wisp.FromPerson}},
		{"text on a choice asks again", choice, "the b one\n2\n", wisp.Answer{Outcome: wisp.OutcomeChose, Text: "b", Provenance: wisp.FromPerson}},
		{"an option's words choose it", choice, " B \n", wisp.Answer{Outcome: wisp.OutcomeChose, Text: "b", Provenance: wisp.FromPerson}},
		{"arrow keys on a choice ask again", choice, "\x1b[B\x1b[B\n\n", wisp.Answer{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson}},
		{"text on a choice, then the input ends", choice, "foo\n", wisp.Answer{Outcome: wisp.OutcomeNoPerson, Provenance: wisp.FromUnattended}},
		{"arrow keys on free text ask again", free, "\x1b[A\nmain\n", wisp.Answer{Outcome: wisp.OutcomeAnswered, Text: "main", Provenance: wisp.FromPerson}},
		{"Enter declines", choice, "\n", wisp.Answer{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson}},
		{"blank declines", free, "   \n", wisp.Answer{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson}},
		{"a number on free text is text", free, "42\n", wisp.Answer{Outcome: wisp.OutcomeAnswered, Text: "42", Provenance: wisp.FromPerson}},
		{"last line without newline", free, "main", wisp.Answer{Outcome: wisp.OutcomeAnswered, Text: "main", Provenance: wisp.FromPerson}},
		{"end of input: no person", free, "", wisp.Answer{Outcome: wisp.OutcomeNoPerson, Provenance: wisp.FromUnattended}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := &screen{}
			got, err := terminal.New(terminal.NewInput(strings.NewReader(tc.input)), out).Ask(context.Background(), tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Ask with input %q (-want +got):\n%s", tc.input, diff)
			}
		})
	}
}

// A line the question does not take gets one line saying what it takes,
// from the library, and the face reads again.
func TestAsksAgainWithWhatItTakes(t *testing.T) {
	q := wisp.Question{Text: "Which?", Options: []string{"a", "b"}}
	out := &screen{}
	got, err := terminal.New(terminal.NewInput(strings.NewReader("\x1b[B\x1b[B\nfoo\n7\n1\n")), out).Ask(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if want := (wisp.Answer{Outcome: wisp.OutcomeChose, Text: "a", Provenance: wisp.FromPerson}); got != want {
		t.Errorf("Ask = %+v, want %+v", got, want)
	}
	want := "? the model asks\n  Which?\n  1 a\n  2 b\n  3 none of these\n" + terminal.PromptChoice +
		"control characters, such as an arrow key or Esc, are never taken as typed text; " + q.Takes() + " › " +
		"that is none of the options; " + q.Takes() + " › " +
		"no option has that number; " + q.Takes() + " › "
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("screen (-want +got):\n%s", diff)
	}
}

func TestDeadlineShown(t *testing.T) {
	out := &screen{}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	dl := time.Date(2026, 11, 30, 10, 5, 0, 0, time.Local)
	_, err := terminal.New(terminal.NewInput(blocking{}), out).Ask(ctx, wisp.Question{Text: "Q?", Deadline: dl})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Ask = %v, want DeadlineExceeded", err)
	}
	for _, want := range []string{"(the question ends unanswered at 10:05:00)", "(no answer in time; the question ended)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("screen lacks %q:\n%s", want, out)
		}
	}
}

func TestNotifyEscapes(t *testing.T) {
	out := &screen{}
	f := terminal.New(terminal.NewInput(strings.NewReader("")), out)
	if err := f.Notify(context.Background(), wisp.Notice{Text: "bad \x1b[2J"}); err != nil {
		t.Fatal(err)
	}
	if want := "! wisp: bad \\e[2J\n"; out.String() != want {
		t.Errorf("notice = %q, want %q", out.String(), want)
	}
}

// blocking is a reader that never returns, like a person who never types.
type blocking struct{}

func (blocking) Read([]byte) (int, error) { select {} }
