package terminal

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/escape"
	"github.com/wisp-agent/wisp/inquiry/pending"
)

// The fixed lines of the questions wisp mcp parked, at a terminal.
const (
	// NoQuestionsWaiting is what a list says when no question waits.
	NoQuestionsWaiting = "no questions are waiting"
	// PrivacyNote, with the thread's id, is said before a parked question
	// is answered or declined.
	PrivacyNote = "your answer is not private from the agent that called wisp: it can read this thread's output, context, facts and audit through wisp://threads/%s"
)

// Questions are the questions wisp mcp parked for the person, at a
// terminal: wisp questions, and /questions in a plain chat. It lists
// them (and the files that are damaged), shows one before the person
// answers or declines it, and notes before a chat's prompt those the
// person has not been told of. Answering is a pending.Answerer's, with
// its rules: Questions only shows and reads.
//
// Its methods may be called from several goroutines.
type Questions struct {
	store    pending.Store
	out      io.Writer
	answerer *pending.Answerer
	commands string
	noting   bool // a person sits at the chat: waiting questions are noted
	now      func() time.Time
	listing  Listing
}

// QuestionsOptions configure Questions. A nil *QuestionsOptions or a zero
// field means the default given beside the field.
type QuestionsOptions struct {
	// Unattended: no person is asked anything (wisp chat --yes), so
	// every answer and decline is refused.
	Unattended bool
	// Now tells the time, for how long ago a question was asked. nil:
	// time.Now.
	Now func() time.Time
	// Listing is how List writes the questions: Blocks (the default),
	// Table or JSON.
	Listing Listing
}

// NewQuestions returns wisp questions: the questions of store, answered
// at the terminal that in reads and out writes. An answer or a decline
// is refused unless in and out are both terminals (a *NoTerminalError),
// so that nothing but a person may answer; it is filed through store,
// whose Witness records who answered (with the terminal's name) before
// the file appears.
func NewQuestions(store pending.Store, in *Input, out io.Writer, opts *QuestionsOptions) *Questions {
	return newQuestions(store, in, New(in, out), out, out, "wisp questions", pending.FromTerminal, opts)
}

// Questions returns /questions in the chat: the questions of store,
// answered through the chat's face from its input, refused unless the
// chat reads and writes a terminal. Answers are recorded through store's
// Witness, which should be the chat's audit log and session.
func (c *Chat) Questions(store pending.Store, opts *QuestionsOptions) *Questions {
	q := newQuestions(store, c.in, c.face, c.out, c.out.w, "/questions", pending.FromChat, opts)
	q.noting = q.noting && c.interactive
	return q
}

// newQuestions returns the questions of store, answered through face
// from in and shown on out; screen is the terminal out writes to, which
// must be one for the person to answer.
func newQuestions(store pending.Store, in *Input, face *Face, out, screen io.Writer, commands, from string, opts *QuestionsOptions) *Questions {
	var o QuestionsOptions
	if opts != nil {
		o = *opts
	}
	q := &Questions{store: store, out: out, commands: commands, now: o.Now, listing: o.Listing}
	if q.now == nil {
		q.now = time.Now
	}
	a := &pending.Answerer{
		Store: store, Face: face, From: from, Commands: commands,
		Show: q.show, Say: func(_ wisp.Question, line string) { fmt.Fprintln(out, line) },
	}
	err := AtTerminal("", "a question", in.file, screen)
	switch {
	case o.Unattended:
		a.Refuse = func(verb, id string) error {
			return fmt.Errorf("%s needs a person, and this chat runs with --yes, where nobody is asked anything; run wisp %s %s in a terminal", verb, strings.TrimPrefix(verb, "/"), id)
		}
	case err != nil:
		a.Refuse = func(verb, _ string) error { return AtTerminal(verb, "a question", in.file, screen) }
	default:
		a.Terminal, a.Flush = terminalName(in.file), in.DropTypeAhead
		q.noting = true
	}
	q.answerer = a
	return q
}

// List writes the questions that wait, and after them those whose file
// is damaged, with the commands that answer them, as
// QuestionsOptions.Listing says, and marks each told.
func (q *Questions) List() error {
	qs, ds, err := filed(q.store.List, q.store.Damaged)
	if err != nil {
		return err
	}
	for _, p := range qs {
		q.answerer.Tell(p.ID)
	}
	return listQuestions(q.out, q.listing, qs, ds, q.now(), q.commands)
}

// Answer puts question id to the person and files the answer, or a
// decline, as pending.Answerer.Answer does; ctx ends it, and every
// prompt of it.
func (q *Questions) Answer(ctx context.Context, id string, decline bool) error {
	q.answerer.Tell(id)
	return q.answerer.Answer(ctx, id, decline)
}

// NoteWaiting says, one line each, which questions wait that the person
// has not been told of: a chat's RunOptions.BeforePrompt. It says
// nothing unless a person sits at the chat's terminal.
func (q *Questions) NoteWaiting() {
	if !q.noting {
		return
	}
	qs, err := q.answerer.Fresh()
	if err != nil {
		fmt.Fprintf(q.out, "! wisp: %s\n", errorText(err))
		return
	}
	for _, p := range qs {
		fmt.Fprintf(q.out, "? a question waits for you (%s): \"%s\" — %s answer %s\n", p.ID, escape.Terminal(p.Text), q.commands, p.ID)
	}
}

// Command is the chat's /questions [list] | answer ID | decline ID.
func (q *Questions) Command() Command {
	return Command{Name: "/questions", Usage: "[list]|answer ID|decline ID", Run: func(ctx context.Context, args []string) (string, error) {
		command, id, err := pending.ParseCommand(args)
		switch {
		case err != nil:
			return "", err
		case command == pending.CommandList:
			return "", q.List()
		}
		return "", q.Answer(ctx, id, command == pending.CommandDecline)
	}}
}

// show shows p before it is answered or declined: its heading, the note
// that the answer is not private, and the question itself when it is
// declined (an answer's prompt shows it).
func (q *Questions) show(p pending.Question, decline bool) {
	fmt.Fprintln(q.out, questionHeading(p, q.now()))
	fmt.Fprintf(q.out, PrivacyNote+"\n", escape.Terminal(p.Thread))
	if decline {
		writeQuestion(q.out, p)
	}
}

// questionHeading is the line that names a parked question: its id, its
// thread and how long ago it was asked.
func questionHeading(q pending.Question, now time.Time) string {
	return askedHeading("question", q.ID, q.Thread, now.Sub(q.Asked))
}

// writeQuestion writes q as the face shows it, without the prompt.
func writeQuestion(w io.Writer, q pending.Question) {
	io.WriteString(w, questionFrame(wisp.Question{Text: q.Text, Options: q.Options, Deadline: q.Deadline}, Width(w), "(free text)\n"))
}

// writeQuestions lists qs, one block each, with the commands that answer
// them under prefix ("wisp questions" or "/questions").
func writeQuestions(w io.Writer, qs []pending.Question, now time.Time, prefix string) {
	writeBlocks(w, qs, NoQuestionsWaiting, func(q pending.Question) {
		fmt.Fprintln(w, questionHeading(q, now))
		writeQuestion(w, q)
		fmt.Fprintf(w, "answer: %s answer %s · decline: %s decline %s\n", prefix, q.ID, prefix, q.ID)
	})
}

// writeDamaged writes a question whose file cannot be read back: what is
// wrong with it and how to mend it, and that it will not be answered.
func writeDamaged(w io.Writer, d pending.Damaged) {
	if d.Thread == "" {
		fmt.Fprintf(w, "question %s · damaged\n", d.ID)
	} else {
		fmt.Fprintf(w, "question %s · thread %s · damaged\n", d.ID, escape.Terminal(d.Thread))
	}
	fmt.Fprintf(w, "! %s\n", escape.Terminal(strings.Join(strings.Fields(d.Err.Error()), " ")))
	if d.Thread == "" {
		fmt.Fprintln(w, "it will not be answered; its file does not say which thread asked it, so no thread is told")
	} else {
		fmt.Fprintf(w, "it will not be answered; thread %s is told so on its next turn\n", escape.Terminal(d.Thread))
	}
}
