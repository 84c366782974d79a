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
	"strconv"
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

// Ask shows q and reads the answer: a number chooses an option (the last
// number is "none of these"), other text is the answer, Enter alone
// declines. The read ends with ctx: at the deadline, or when the turn is
// stopped. At the end of the input no person can answer any more, and the
// face says so.
func (f *Face) Ask(ctx context.Context, q wisp.Question) (wisp.Answer, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var b strings.Builder
	w := f.width()
	b.WriteString(Label + "\n")
	b.WriteString(Quote("", q.Text, w))
	for i, o := range q.Options {
		b.WriteString(Quote(fmt.Sprintf("%d ", i+1), o, w))
	}
	prompt := PromptText
	if !q.FreeText() {
		fmt.Fprintf(&b, "%s%d %s\n", Indent, len(q.Options)+1, inquiry.NoneOfThese)
		prompt = PromptChoice
	}
	if !q.Deadline.IsZero() {
		fmt.Fprintf(&b, "(the question ends unanswered at %s)\n", q.Deadline.Local().Format(time.TimeOnly))
	}
	b.WriteString(prompt)
	if _, err := io.WriteString(f.out, b.String()); err != nil {
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
		a, ok := f.read(q, text)
		if ok {
			return a, nil
		}
		fmt.Fprintf(f.out, "type a number from 1 to %d, or press Enter to decline › ", len(q.Options)+1)
	}
}

// read turns a line into an answer; ok is false for a number that names
// no option.
func (f *Face) read(q wisp.Question, text string) (wisp.Answer, bool) {
	t := strings.TrimSpace(text)
	if t == "" {
		return wisp.Answer{Outcome: wisp.OutcomeDeclined}, true
	}
	if !q.FreeText() {
		if n, err := strconv.Atoi(t); err == nil {
			switch {
			case n >= 1 && n <= len(q.Options):
				return wisp.Answer{Outcome: wisp.OutcomeChose, Text: q.Options[n-1]}, true
			case n == len(q.Options)+1:
				return wisp.Answer{Outcome: wisp.OutcomeChoseNone}, true
			default:
				return wisp.Answer{}, false
			}
		}
	}
	return wisp.Answer{Outcome: wisp.OutcomeAnswered, Text: text}, true
}

// Notify shows a notice from wisp, escaped, on a line of its own.
func (f *Face) Notify(ctx context.Context, n wisp.Notice) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, err := fmt.Fprintf(f.out, "! wisp: %s\n", escape.Terminal(n.Text))
	return err
}
