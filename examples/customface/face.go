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

var _ wisp.Inquirer = Face{}

// Ask posts the question, numbered options and "none of these", and reads
// the answer: a number, text, "/decline", or "/stop".
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
	if err := f.Room.Post(b.String()); err != nil {
		return wisp.Answer{}, err
	}
	msg, err := f.Room.Next(ctx)
	if err != nil {
		return wisp.Answer{}, err // fail closed: a read that failed is no answer
	}
	msg = strings.TrimSpace(msg)
	switch msg {
	case "", "/decline":
		return wisp.Answer{Outcome: wisp.OutcomeDeclined}, nil
	case "/stop":
		return wisp.Answer{}, wisp.ErrInterrupted
	}
	if n, err := strconv.Atoi(msg); err == nil && len(q.Options) > 0 {
		switch {
		case n >= 1 && n <= len(q.Options):
			return wisp.Answer{Outcome: wisp.OutcomeChose, Text: q.Options[n-1]}, nil
		case n == len(q.Options)+1:
			return wisp.Answer{Outcome: wisp.OutcomeChoseNone}, nil
		}
	}
	return wisp.Answer{Outcome: wisp.OutcomeAnswered, Text: msg}, nil
}
