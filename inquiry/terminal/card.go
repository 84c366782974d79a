package terminal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/escape"
)

// The prompts of a card's questions, besides PromptChoice and PromptText.
const (
	PromptChoiceOther = "type a number or your own answer, or press Enter to decline › "
	PromptMulti       = "type one or more numbers, like 1 2, or press Enter to decline › "
	PromptMultiOther  = "type one or more numbers, like 1 2, or your own answer, or press Enter to decline › "
	PromptSecret      = "type the secret, or press Enter to decline › "
)

// SecretNote is shown under a secret question, before its prompt.
const SecretNote = "What you type is not shown; the model gets a reference to it, never the value."

// AskCard shows the card c and reads its answers, one question after
// another:
//
//	? the model asks
//	2 questions · ends in 5 min, at 10:05:00
//	Questions you leave unanswered by then fall back to their defaults.
//
//	1/2 · Env
//	Which environment should the migration run against?
//	  1 staging (recommended)
//	    safe to break; data is a week old
//	  2 production
//	    real data; needs a maintenance window
//	type a number, or press Enter to decline ›
//
// Every word of the model's (header, question, labels, descriptions, the
// secret's name) is escaped. A number chooses an option; on a multi-select
// question, several numbers separated by spaces or commas choose several,
// returned in the options' order. When the question offers "something
// else" (Other), any line that is not numbers is the person's own answer;
// otherwise the face asks again, as it does for a number that names no
// option. On free text the line is the answer. Enter alone declines the
// question.
//
// A secret is read with the terminal's echo off, and keys typed before its
// prompt are dropped. When the echo cannot be turned off (the input is a
// pipe or a file, or the system has no terminal control the face knows),
// the secret is not read: the face says so and returns OutcomeNoPerson
// with FromUnattended for it, since no person can answer it safely here.
//
// At the card's deadline, or when ctx ends otherwise, AskCard returns the
// answers to the questions finished so far with ctx's cause; on
// wisp.ErrInterrupted (Ctrl-C, through Input.Interrupt or ctx's cause) it
// returns them with that error. At the end of the input no person can
// answer any more: the questions left are OutcomeNoPerson with
// FromUnattended, as for Ask.
func (f *Face) AskCard(ctx context.Context, c wisp.Card) ([]wisp.CardAnswer, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	if _, err := io.WriteString(f.out, f.cardTitle(c)); err != nil {
		return nil, err
	}
	answers := make([]wisp.CardAnswer, 0, len(c.Questions))
	for i, q := range c.Questions {
		if ctx.Err() != nil {
			return answers, f.cardEnded(c, context.Cause(ctx))
		}
		if _, err := io.WriteString(f.out, questionBlock(c, i)); err != nil {
			return answers, err
		}
		var (
			a   wisp.CardAnswer
			err error
		)
		if q.Secret != "" {
			a, err = f.readSecret(ctx)
		} else {
			a, err = f.readQuestion(ctx, q)
		}
		switch {
		case errors.Is(err, io.EOF):
			fmt.Fprintln(f.out, "\n(the input ended; no person can answer)")
			for range c.Questions[i:] {
				answers = append(answers, wisp.CardAnswer{Outcome: wisp.OutcomeNoPerson, Provenance: wisp.FromUnattended})
			}
			return answers, nil
		case err != nil:
			return answers, f.cardEnded(c, err)
		}
		answers = append(answers, a)
	}
	return answers, nil
}

// cardEnded tells the person why the card ended early and returns err.
func (f *Face) cardEnded(c wisp.Card, err error) error {
	switch {
	case !errors.Is(err, context.DeadlineExceeded):
		fmt.Fprintln(f.out)
	case secretCard(c):
		fmt.Fprintln(f.out, "\n(time is up; the secret was not given)")
	default:
		fmt.Fprintln(f.out, "\n(time is up; the questions you did not answer fall back to their defaults)")
	}
	return err
}

// cardTitle writes the label, how many questions, when the card ends and
// what happens then.
func (f *Face) cardTitle(c wisp.Card) string {
	var b strings.Builder
	b.WriteString(Label + "\n")
	n := len(c.Questions)
	if n == 1 {
		b.WriteString("1 question")
	} else {
		fmt.Fprintf(&b, "%d questions", n)
	}
	if c.Deadline.IsZero() {
		b.WriteString("\n")
		return b.String()
	}
	now := time.Now
	if f.now != nil {
		now = f.now
	}
	fmt.Fprintf(&b, " · ends in %s, at %s\n", until(c.Deadline.Sub(now())), c.Deadline.Local().Format(time.TimeOnly))
	switch {
	case secretCard(c):
		b.WriteString("If you leave it unanswered by then, it is declined.\n")
	case n == 1:
		b.WriteString("If you leave it unanswered by then, it falls back to its default.\n")
	default:
		b.WriteString("Questions you leave unanswered by then fall back to their defaults.\n")
	}
	return b.String()
}

// until writes d for a person: "5 min", or "45 s" under a minute.
func until(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%d s", max(0, int(math.Ceil(d.Seconds()))))
	}
	return fmt.Sprintf("%d min", int(d.Round(time.Minute)/time.Minute))
}

// secretCard reports whether c asks for a secret.
func secretCard(c wisp.Card) bool {
	return slices.ContainsFunc(c.Questions, func(q wisp.CardQuestion) bool { return q.Secret != "" })
}

// questionBlock writes question i of c: its chip, its text, and its
// options or, for a secret, the note; everything but the prompt.
func questionBlock(c wisp.Card, i int) string {
	q := c.Questions[i]
	var b strings.Builder
	b.WriteString("\n")
	var chip []string
	if len(c.Questions) > 1 {
		chip = append(chip, fmt.Sprintf("%d/%d", i+1, len(c.Questions)))
	}
	if q.Header != "" {
		chip = append(chip, escape.Terminal(q.Header))
	}
	if q.Secret != "" {
		chip = append(chip, "secret "+escape.Terminal(q.Secret))
	}
	if len(chip) > 0 {
		b.WriteString(strings.Join(chip, " · ") + "\n")
	}
	b.WriteString(escape.Terminal(q.Text) + "\n")
	if q.Secret != "" {
		b.WriteString(SecretNote + "\n")
		return b.String()
	}
	for j, o := range q.Options {
		fmt.Fprintf(&b, "  %d %s", j+1, escape.Terminal(o.Label))
		if o.Recommended {
			b.WriteString(" (recommended)")
		}
		b.WriteString("\n")
		if o.Description != "" {
			b.WriteString("    " + escape.Terminal(o.Description) + "\n")
		}
	}
	return b.String()
}

// prompts returns the prompt for q, and the one that asks again after a
// line that answers nothing.
func prompts(q wisp.CardQuestion) (first, again string) {
	n := len(q.Options)
	switch {
	case n == 0:
		return PromptText, PromptText
	case q.Multi && q.Other:
		return PromptMultiOther, fmt.Sprintf("type numbers from 1 to %d, like 1 2, or your own answer, or press Enter to decline › ", n)
	case q.Multi:
		return PromptMulti, fmt.Sprintf("type numbers from 1 to %d, like 1 2, or press Enter to decline › ", n)
	case q.Other:
		return PromptChoiceOther, fmt.Sprintf("type a number from 1 to %d or your own answer, or press Enter to decline › ", n)
	default:
		return PromptChoice, fmt.Sprintf("type a number from 1 to %d, or press Enter to decline › ", n)
	}
}

// readQuestion prompts for q and reads lines until one answers it.
func (f *Face) readQuestion(ctx context.Context, q wisp.CardQuestion) (wisp.CardAnswer, error) {
	prompt, again := prompts(q)
	if _, err := io.WriteString(f.out, prompt); err != nil {
		return wisp.CardAnswer{}, err
	}
	for {
		text, err := f.in.ReadLine(ctx)
		if err != nil {
			return wisp.CardAnswer{}, err
		}
		prompt := again
		if err := wisp.CheckTyped(strings.TrimSpace(text)); err != nil {
			// Keys a line cannot hold (an arrow key, Esc) are never an
			// answer; say so, and read again.
			prompt = err.Error() + "; " + again
		} else if a, ok := readCardLine(q, text); ok {
			return a, nil
		}
		if _, err := io.WriteString(f.out, prompt); err != nil {
			return wisp.CardAnswer{}, err
		}
	}
}

// readSecret reads a secret's value with the echo off. When the echo
// cannot be turned off it reads nothing and answers that no person can
// answer here.
func (f *Face) readSecret(ctx context.Context) (wisp.CardAnswer, error) {
	hide := f.hideEcho
	if hide == nil {
		hide = f.in.hideEcho
	}
	restore, err := hide()
	if err != nil {
		_, werr := io.WriteString(f.out, "(wisp cannot hide what you type here, so it does not read the secret; do not type it)\n")
		return wisp.CardAnswer{Outcome: wisp.OutcomeNoPerson, Provenance: wisp.FromUnattended}, werr
	}
	defer func() {
		restore()
		// Lines read with the echo off but not taken as the secret (the
		// rest of a pasted key) are dropped too, never passed on.
		f.in.Discard()
	}()
	// Lines typed before the echo went off were shown: none is the secret.
	f.in.Discard()
	if _, err := io.WriteString(f.out, PromptSecret); err != nil {
		return wisp.CardAnswer{}, err
	}
	text, err := f.in.ReadLine(ctx)
	for err == nil && wisp.CheckTyped(strings.TrimSpace(text)) != nil {
		// Never a secret's value; the line says so without showing it.
		if _, err := io.WriteString(f.out, "\n"+wisp.CheckTyped(text).Error()+"; "+PromptSecret); err != nil {
			return wisp.CardAnswer{}, err
		}
		text, err = f.in.ReadLine(ctx)
	}
	if err != nil {
		return wisp.CardAnswer{}, err
	}
	// The person's Enter was not echoed either.
	if strings.TrimSpace(text) == "" {
		_, err = io.WriteString(f.out, "\n")
		return wisp.CardAnswer{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson}, err
	}
	_, err = io.WriteString(f.out, "\n(received)\n")
	return wisp.CardAnswer{Outcome: wisp.OutcomeAnswered, Text: text, Provenance: wisp.FromPerson}, err
}

// readCardLine turns a line into the answer to q; ok is false when the
// line answers nothing and the face asks again.
//
// A line of numbers (separated by spaces or commas) chooses: one number on
// a single-choice question, one or more on a multi-select one, each naming
// an option. Any other line is the person's own answer when the question
// takes text (free text, or Other); Enter alone, or blanks, declines.
func readCardLine(q wisp.CardQuestion, text string) (wisp.CardAnswer, bool) {
	t := strings.TrimSpace(text)
	if t == "" {
		return wisp.CardAnswer{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson}, true
	}
	if len(q.Options) == 0 {
		return wisp.CardAnswer{Outcome: wisp.OutcomeAnswered, Text: text, Provenance: wisp.FromPerson}, true
	}
	nums, isNums := numbers(t)
	if !isNums {
		if q.Other {
			return wisp.CardAnswer{Outcome: wisp.OutcomeAnswered, Text: text, Provenance: wisp.FromPerson}, true
		}
		return wisp.CardAnswer{}, false
	}
	if !q.Multi && len(nums) != 1 {
		return wisp.CardAnswer{}, false
	}
	chosen := make([]bool, len(q.Options))
	for _, n := range nums {
		if n < 1 || n > len(q.Options) {
			return wisp.CardAnswer{}, false
		}
		chosen[n-1] = true
	}
	a := wisp.CardAnswer{Outcome: wisp.OutcomeChose, Provenance: wisp.FromPerson}
	for i, o := range q.Options {
		if chosen[i] {
			a.Chosen = append(a.Chosen, o.Label)
		}
	}
	return a, true
}

// numbers splits t on spaces and commas and reports whether every field is
// a decimal number; a number too large for an int is returned as -1, so
// that it names no option.
func numbers(t string) ([]int, bool) {
	fields := strings.FieldsFunc(t, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
	if len(fields) == 0 {
		return nil, false
	}
	nums := make([]int, len(fields))
	for i, f := range fields {
		if strings.TrimLeft(f, "0123456789") != "" {
			return nil, false
		}
		n, err := strconv.Atoi(f)
		if err != nil {
			n = -1
		}
		nums[i] = n
	}
	return nums, true
}
