// Command customface shows a face of one's own: the model's questions go to a
// chat room (here, standard output and standard input stand in for it), and
// the answers come back from it. The face only shows and reads; the inquiry
// desk applies every rule. face_test.go checks it with the contract suite.
package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/wisp-agent/wisp"
)

// Room is the chat room the face talks to.
type Room interface {
	Post(text string) error
	// Next returns the next message posted to the room; it must end with
	// ctx.
	Next(ctx context.Context) (string, error)
}

// Face puts questions to whoever is in the room.
type Face struct{ Room Room }

var (
	_ wisp.Inquirer     = Face{}
	_ wisp.CardInquirer = Face{}
)

// Ask posts the question, numbered options and "none of these", and reads
// the answer: a number, text, "/decline", or "/stop". What the question
// does not take (text on a choice, control characters) is never passed
// on: the face posts the line that says what it takes, and reads again.
func (f Face) Ask(ctx context.Context, q wisp.Question) (wisp.Answer, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "the model asks: %q", q.Text)
	for i, o := range q.Options {
		fmt.Fprintf(&b, "\n%d. %q", i+1, o)
	}
	if len(q.Options) > 0 {
		fmt.Fprintf(&b, "\n%d. none of these", len(q.Options)+1)
	}
	b.WriteString("\n(answer with a number or text; /decline to decline)")
	post := b.String()
	for {
		if err := f.Room.Post(post); err != nil {
			return wisp.Answer{}, err
		}
		msg, err := f.Room.Next(ctx)
		if err != nil {
			return wisp.Answer{}, err // fail closed: a read that failed is no answer
		}
		switch strings.TrimSpace(msg) {
		case "/decline":
			return wisp.Answer{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson}, nil
		case "/stop":
			return wisp.Answer{}, wisp.ErrInterrupted
		}
		a, err := q.Typed(msg)
		if err == nil {
			return a, nil
		}
		post = err.Error() + " (or /decline)"
	}
}

// AskCard posts the questions of an ask_user card one at a time, each
// option with its trade-off, and reads each answer: numbers ("1 3" picks
// two on a multi-select question), text where the question takes it,
// "/decline", or "/stop". Everyone in a room sees what is typed there, so
// the face never asks a secret: no person can answer one here.
func (f Face) AskCard(ctx context.Context, c wisp.Card) ([]wisp.CardAnswer, error) {
	var answers []wisp.CardAnswer
	for _, q := range c.Questions {
		if q.Secret != "" {
			answers = append(answers, wisp.CardAnswer{Outcome: wisp.OutcomeNoPerson, Provenance: wisp.FromUnattended})
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "the model asks: %q", q.Text)
		for i, o := range q.Options {
			fmt.Fprintf(&b, "\n%d. %q: %q", i+1, o.Label, o.Description)
			if o.Recommended {
				b.WriteString(" (recommended)")
			}
		}
		b.WriteString("\n(answer with numbers or text; /decline to decline)")
		post := b.String()
		for {
			if err := f.Room.Post(post); err != nil {
				return answers, err
			}
			msg, err := f.Room.Next(ctx)
			if err != nil {
				return answers, err // the answers so far are kept; the rest fall back
			}
			if msg == "/stop" {
				return answers, wisp.ErrInterrupted
			}
			if a, ok := readCard(q, msg); ok {
				answers = append(answers, a)
				break
			}
			post = "(answer with the numbers shown, or /decline)"
		}
	}
	return answers, nil
}

// readCard reads a message as the answer to q; ok is false when it is
// text the question does not take.
func readCard(q wisp.CardQuestion, msg string) (wisp.CardAnswer, bool) {
	msg = strings.TrimSpace(msg)
	if msg == "" || msg == "/decline" {
		return wisp.CardAnswer{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson}, true
	}
	a := wisp.CardAnswer{Outcome: wisp.OutcomeChose, Provenance: wisp.FromPerson}
	for _, field := range strings.FieldsFunc(msg, func(r rune) bool { return r == ' ' || r == ',' }) {
		n, err := strconv.Atoi(field)
		if err != nil || n < 1 || n > len(q.Options) {
			// Not numbers: the person's own words, where the question
			// takes them and they hold no control character. The desk
			// checks the rest.
			typed := wisp.CardAnswer{Outcome: wisp.OutcomeAnswered, Text: msg, Provenance: wisp.FromPerson}
			return typed, (q.Other || len(q.Options) == 0) && wisp.CheckTyped(msg) == nil
		}
		a.Chosen = append(a.Chosen, q.Options[n-1].Label)
	}
	return a, true
}
