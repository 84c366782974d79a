// Package terminal is the plain terminal face: it shows the model's
// question under "? the model asks", escaped and indented, with numbered
// options and "none of these" last, and reads the person's answer from a
// line. It
// shows an ask_user card the same way, one question after another, and
// reads a secret with the terminal's echo off.
//
// The face only shows and reads. Every rule (limits, secrets, deadlines,
// what the model gets) is the inquiry desk's.
package terminal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry"
	"github.com/wisp-agent/wisp/inquiry/escape"
)

// The face's fixed text.
const (
	Label        = "? the model asks"
	PromptChoice = "type a number, or press Enter to decline › "
	PromptText   = "type your answer, or press Enter to decline › "
)

// tooLong tells the person a line was dropped for being over MaxLine.
const tooLong = "(that line was longer than 1 MiB, the most wisp reads as one line; it was dropped)\n"

// Face is the terminal face. It is safe for concurrent use; questions are
// shown one at a time.
type Face struct {
	in  *Input
	out io.Writer
	mu  sync.Mutex

	// See Options.
	flushTypeAhead func()
	columns        func() int
	hideEcho       func() (restore func(), err error)
	now            func() time.Time
	color          bool
}

var (
	_ wisp.Inquirer     = (*Face)(nil)
	_ wisp.CardInquirer = (*Face)(nil)
	_ wisp.Notifier     = (*Face)(nil)
)

// New returns a face that reads the person's answers from in and writes to
// out. Share in with whatever else reads the same stream.
func New(in *Input, out io.Writer) *Face { return &Face{in: in, out: out} }

// width is the columns of the person's terminal, 0 when not known.
func (f *Face) width() int {
	if f.columns != nil {
		return f.columns()
	}
	return Width(f.out)
}

// Ask shows q and reads the answer as wisp.Question.Typed reads a line: a
// number chooses an option (the last number is "none of these"), Enter
// alone declines, and typed text answers where the question takes text
// (on a choice, only an option's own words). A line the question does not
// take (text on a choice, a number that names no option, control
// characters such as an arrow key's) is never passed on: the face shows
// the line that says what the question takes, and reads again. The read
// ends with ctx: at the deadline, or when the turn is
// stopped. At the end of the input no person can answer any more, and the
// face says so.
func (f *Face) Ask(ctx context.Context, q wisp.Question) (wisp.Answer, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	prompt := PromptText
	if !q.FreeText() {
		prompt = PromptChoice
	}
	if _, err := io.WriteString(f.out, questionFrame(q, f.width(), "")+prompt); err != nil {
		return wisp.Answer{}, err
	}
	for {
		text, err := f.in.ReadLine(ctx)
		switch {
		case errors.Is(err, io.EOF):
			fmt.Fprintln(f.out, "\n(the input ended; no person can answer)")
			return wisp.Answer{Outcome: wisp.OutcomeNoPerson, Provenance: wisp.FromUnattended}, nil
		case errors.Is(err, context.DeadlineExceeded):
			fmt.Fprintln(f.out, "\n(no answer in time; the question ended)")
			return wisp.Answer{}, err
		case errors.Is(err, wisp.ErrInterrupted):
			fmt.Fprintln(f.out)
			return wisp.Answer{}, err
		case errors.Is(err, ErrLineTooLong):
			fmt.Fprint(f.out, tooLong+prompt)
			continue
		case err != nil:
			fmt.Fprintln(f.out)
			return wisp.Answer{}, err
		}
		a, err := q.Typed(text)
		if err == nil {
			return a, nil
		}
		// What the question does not take is never passed on: say what
		// it takes, and read again.
		fmt.Fprintf(f.out, "%s › ", escape.Terminal(err.Error()))
	}
}

// questionFrame is q as the face shows it, without the prompt: under
// Label, escaped, wrapped to width and indented, its options numbered
// with "none of these" last (or the line freeText, for a question that
// takes free text), and when it ends.
func questionFrame(q wisp.Question, width int, freeText string) string {
	var b strings.Builder
	b.WriteString(Label + "\n")
	b.WriteString(Quote("", q.Text, width))
	for i, o := range q.Options {
		b.WriteString(Quote(fmt.Sprintf("%d ", i+1), o, width))
	}
	if q.FreeText() {
		b.WriteString(freeText)
	} else {
		fmt.Fprintf(&b, "%s%d %s\n", Indent, len(q.Options)+1, inquiry.NoneOfThese)
	}
	if !q.Deadline.IsZero() {
		fmt.Fprintf(&b, "(the question ends unanswered at %s)\n", q.Deadline.Local().Format(time.TimeOnly))
	}
	return b.String()
}

// Notify shows a notice from wisp, escaped, on a line of its own.
func (f *Face) Notify(ctx context.Context, n wisp.Notice) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, err := fmt.Fprintf(f.out, "! wisp: %s\n", escape.Terminal(n.Text))
	return err
}
