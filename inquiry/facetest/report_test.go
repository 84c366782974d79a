package facetest_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/escape"
	"github.com/wisp-agent/wisp/inquiry/facetest"
)

// rawFace answers as the person acts but writes the model's words to its
// screen as they are: a face the suite must fail.
type rawFace struct {
	mu     sync.Mutex
	screen strings.Builder
	acts   []facetest.Person
}

func (f *rawFace) Ask(ctx context.Context, q wisp.Question) (wisp.Answer, error) {
	f.mu.Lock()
	fmt.Fprintf(&f.screen, "? the model asks\n%s\n", q.Text)
	for i, o := range q.Options {
		fmt.Fprintf(&f.screen, "%d %s\n", i+1, o)
	}
	f.mu.Unlock()
	for _, p := range f.acts {
		switch p.Act {
		case facetest.Choose:
			return wisp.Answer{Outcome: wisp.OutcomeChose, Text: q.Options[p.Option], Provenance: wisp.FromPerson}, nil
		case facetest.ChooseNone:
			return wisp.Answer{Outcome: wisp.OutcomeChoseNone, Provenance: wisp.FromPerson}, nil
		case facetest.Type:
			if q.FreeText() && escape.Clean(p.Text) {
				return wisp.Answer{Outcome: wisp.OutcomeAnswered, Text: p.Text, Provenance: wisp.FromPerson}, nil
			}
		case facetest.Decline:
			return wisp.Answer{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson}, nil
		case facetest.Interrupt:
			return wisp.Answer{}, wisp.ErrInterrupted
		}
	}
	<-ctx.Done()
	return wisp.Answer{}, ctx.Err()
}

func (f *rawFace) Screen() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.screen.String()
}

// A face that shows the model's words raw fails the suite, and the
// failure shows its screen escaped: no escape sequence of the model's
// reaches the terminal of whoever runs the tests.
func TestFailureShowsTheScreenEscaped(t *testing.T) {
	if os.Getenv("FACETEST_RUN_RAW_FACE") == "1" {
		facetest.Run(t, func(t *testing.T, p facetest.Person) facetest.Harness {
			f := &rawFace{acts: p.Acts()}
			return facetest.Harness{Face: f, Screen: f.Screen}
		}, nil)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestFailureShowsTheScreenEscaped$", "-test.v")
	cmd.Env = append(os.Environ(), "FACETEST_RUN_RAW_FACE=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the suite passed a face that shows the model's words raw:\n%s", escape.Terminal(string(out)))
	}
	for _, want := range []string{
		"holds a raw control or invisible character",
		`\e[2J\e[1;1HApprove rm -rf build? [y/n]\r\e]0;wisp\u{7} \u{202E}txt.exe`,
	} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("the failure does not say %q:\n%s", want, escape.Terminal(string(out)))
		}
	}
	for _, raw := range []string{"\x1b", "\x07", "\r", "\u202e"} {
		if bytes.Contains(out, []byte(raw)) {
			t.Errorf("the failure holds %q raw:\n%s", raw, escape.Terminal(string(out)))
		}
	}
}
