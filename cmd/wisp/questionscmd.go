package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/audit"
	"github.com/wisp-agent/wisp/conversation"
	"github.com/wisp-agent/wisp/inquiry"
	"github.com/wisp-agent/wisp/inquiry/escape"
	"github.com/wisp-agent/wisp/inquiry/pending"
	"github.com/wisp-agent/wisp/inquiry/terminal"
)

// The fixed lines of wisp questions and chat's /questions.
const (
	// noneWaiting is what list says when no question waits.
	noneWaiting = "no questions are waiting"
	// privacyNote, with the thread's id, is said before a parked question
	// is answered or declined.
	privacyNote = "your answer is not private from the agent that called wisp: it can read this thread's output, context, facts and audit through wisp://threads/%s"
)

func newQuestionsCmd(env environ) *cobra.Command {
	c := &cobra.Command{
		Use:   "questions [list] | answer ID | decline ID",
		Short: "List the questions wisp mcp parked for you; answer or decline one at a terminal",
		Long: `When wisp's model asks a question under wisp mcp and nobody answers within 60 s, the
question is parked in $WISP_HOME/pending until you answer it. list (the default)
shows the questions still waiting: each one's id, thread and age, the question as
the model wrote it (escaped), its options, and the command that answers it.

answer ID shows the question under "? the model asks" and reads your answer: a
number chooses an option, other text is your answer, Enter alone declines, Ctrl-C
leaves without filing anything. decline ID shows the question and declines it. The
first answer wins; an answer to a question that was answered, withdrawn, or filed
again since you were shown it is refused. Your answer is not private from the agent
that called wisp: it can read the thread through wisp://threads/{thread_id}.

answer and decline run only when standard input and output are both a terminal, so
that nothing but a person may answer a question; anywhere else they refuse with exit
status 2, as for any other usage error. The answer is recorded in the audit log
(inquiry.answered, with this terminal's name) before it is filed; the thread takes
only an answer so recorded. A question whose file is damaged is listed as such.`,
		Args: exactArgs(0, "questions takes list, answer ID or decline ID"),
		RunE: func(cmd *cobra.Command, _ []string) error { return listQuestionsCmd(cmd, env) },
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "Show the questions waiting for you",
		Args:  exactArgs(0, "questions list takes no arguments"),
		RunE:  func(cmd *cobra.Command, _ []string) error { return listQuestionsCmd(cmd, env) },
	}
	answer := &cobra.Command{
		Use:   "answer ID",
		Short: "Answer a waiting question (at a terminal only)",
		Args:  exactArgs(1, "questions answer takes one question ID, as wisp questions list shows it"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return answerQuestionCmd(cmd, env, args[0], false)
		},
	}
	decline := &cobra.Command{
		Use:   "decline ID",
		Short: "Decline a waiting question (at a terminal only)",
		Args:  exactArgs(1, "questions decline takes one question ID, as wisp questions list shows it"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return answerQuestionCmd(cmd, env, args[0], true)
		},
	}
	c.AddCommand(list, answer, decline)
	return c
}

func listQuestionsCmd(cmd *cobra.Command, env environ) error {
	h, err := openHome(env)
	if err != nil {
		return err
	}
	_, err = listParkedQuestions(cmd.OutOrStdout(), h.Questions(nil), time.Now(), "wisp questions")
	return err
}

// listParkedQuestions lists the questions of store that wait, and after
// them those whose file is damaged, with the commands under prefix ("wisp
// questions" or "/questions"). It returns the questions that wait.
func listParkedQuestions(w io.Writer, store pending.Store, now time.Time, prefix string) ([]pending.Question, error) {
	qs, err := store.List()
	if err != nil {
		return nil, err
	}
	ds, err := store.Damaged()
	if err != nil {
		return nil, err
	}
	if len(qs) > 0 || len(ds) == 0 {
		writeQuestions(w, qs, now, prefix)
	}
	for i, d := range ds {
		if i > 0 || len(qs) > 0 {
			fmt.Fprintln(w)
		}
		writeDamaged(w, d)
	}
	return qs, nil
}

// writeDamaged writes a question whose file cannot be read back: what is
// wrong with it and how to mend it, and that it will not be answered.
func writeDamaged(w io.Writer, d pending.Damaged) {
	if d.Thread == "" {
		fmt.Fprintf(w, "question %s · damaged\n", d.ID)
	} else {
		fmt.Fprintf(w, "question %s · thread %s · damaged\n", d.ID, escape.Terminal(d.Thread))
	}
	fmt.Fprintf(w, "! %s\n", escape.Terminal(oneLine(d.Err.Error())))
	if d.Thread == "" {
		fmt.Fprintln(w, "it will not be answered; its file does not say which thread asked it, so no thread is told")
	} else {
		fmt.Fprintf(w, "it will not be answered; thread %s is told so on its next turn\n", escape.Terminal(d.Thread))
	}
}

func answerQuestionCmd(cmd *cobra.Command, env environ, id string, decline bool) error {
	h, err := openHome(env)
	if err != nil {
		return err
	}
	stdin, stdout := cmd.InOrStdin(), cmd.OutOrStdout()
	p := &pending.Answerer{
		Store: h.Questions(nil), From: pending.FromTerminal, Commands: "wisp questions",
		Refuse: func(verb, _ string) error { return terminalRefusal(verb, "a question", stdin, stdout) },
		Show:   showParked(stdout), Say: sayParked(stdout),
	}
	if isTerminal(stdin) && isTerminal(stdout) {
		log, err := openAnswerLog(h)
		if err != nil {
			return err
		}
		defer log.Close()
		// The answer is recorded in a session of its own, with this
		// terminal's name, before it is filed.
		p.Store.Witness = audit.Witness{Log: log, Session: newID()}
		tty := stdin.(*os.File) // a terminal, as isTerminal saw
		p.Terminal = ttyName(tty)
		in := terminal.NewInput(tty)
		p.Face = terminal.New(in, stdout)
		p.Flush = func() {
			flushInput(tty)
			in.Discard()
		}
	}
	// Ctrl-C ends it, and every prompt of it.
	err = p.Answer(cmd.Context(), id, decline)
	if errors.Is(err, pending.ErrBadID) {
		return usageError{err}
	}
	return err
}

// showParked shows a parked question on a terminal before it is answered
// or declined: its heading, the note that the answer is not private, and
// the question itself when it is declined (an answer's prompt shows it).
func showParked(out io.Writer) func(pending.Question, bool) {
	return func(q pending.Question, decline bool) {
		fmt.Fprintf(out, "%s\n", questionHeading(q, time.Now()))
		fmt.Fprintf(out, privacyNote+"\n", escape.Terminal(q.Thread))
		if decline {
			writeQuestion(out, q)
		}
	}
}

// sayParked writes a line about a parked question on a terminal.
func sayParked(out io.Writer) func(wisp.Question, string) {
	return func(_ wisp.Question, line string) { fmt.Fprintln(out, line) }
}

// questionHeading is the line that names a parked question: its id, its
// thread and how long ago it was asked.
func questionHeading(q pending.Question, now time.Time) string {
	return askedHeading("question", q.ID, q.Thread, now.Sub(q.Asked))
}

// writeQuestion writes q as the terminal face shows it, escaped, indented
// and labelled as the model's, without the prompt.
func writeQuestion(w io.Writer, q pending.Question) {
	width := terminal.Width(w)
	var b strings.Builder
	b.WriteString(terminal.Label + "\n")
	b.WriteString(terminal.Quote("", q.Text, width))
	for i, o := range q.Options {
		b.WriteString(terminal.Quote(fmt.Sprintf("%d ", i+1), o, width))
	}
	if q.FreeText() {
		b.WriteString("(free text)\n")
	} else {
		fmt.Fprintf(&b, "%s%d %s\n", terminal.Indent, len(q.Options)+1, inquiry.NoneOfThese)
	}
	if !q.Deadline.IsZero() {
		fmt.Fprintf(&b, "(the question ends unanswered at %s)\n", q.Deadline.Local().Format(time.TimeOnly))
	}
	io.WriteString(w, b.String())
}

// writeQuestions lists qs, one block each, with the commands that answer
// them under prefix ("wisp questions" or "/questions").
func writeQuestions(w io.Writer, qs []pending.Question, now time.Time, prefix string) {
	writeBlocks(w, qs, noneWaiting, func(q pending.Question) {
		fmt.Fprintln(w, questionHeading(q, now))
		writeQuestion(w, q)
		fmt.Fprintf(w, "answer: %s answer %s · decline: %s decline %s\n", prefix, q.ID, prefix, q.ID)
	})
}

// chatQuestions is /questions in a plain wisp chat, and the notes before
// its prompt of questions the person has not been told about.
type chatQuestions struct {
	store    pending.Store
	out      io.Writer
	answerer *pending.Answerer
	// noting: the chat is at a terminal with a person, so waiting
	// questions are noted before each prompt.
	noting bool
}

// newChatQuestions wires /questions into a chat that reads in (from
// stdin), shows questions through face (on stdout) and writes its other
// lines to out; yes says the chat runs with no person (--yes).
func newChatQuestions(conv *conversation.Conversation, face *terminal.Face, in *terminal.Input, stdin io.Reader, stdout, out io.Writer, yes bool) *chatQuestions {
	// Answers are recorded in the chat's session and taken only when
	// recorded.
	store := conv.Questions()
	p := &pending.Answerer{
		Store: store, Face: face, From: pending.FromChat, Commands: "/questions",
		Show: showParked(out), Say: sayParked(out),
	}
	interactive := isTerminal(stdin) && isTerminal(stdout)
	switch {
	case yes:
		p.Refuse = func(verb, id string) error {
			return fmt.Errorf("%s needs a person, and this chat runs with --yes, where nobody is asked anything; run wisp %s %s in a terminal", verb, strings.TrimPrefix(verb, "/"), id)
		}
	case !interactive:
		p.Refuse = func(verb, _ string) error { return terminalRefusal(verb, "a question", stdin, stdout) }
	default:
		tty := stdin.(*os.File)
		p.Terminal = ttyName(tty)
		p.Flush = func() {
			flushInput(tty)
			in.Discard()
		}
	}
	return &chatQuestions{store: store, out: out, answerer: p, noting: interactive && !yes}
}

// noteWaiting says, one line each, which questions wait that the person
// has not been told about in this chat. It does nothing unless the chat is
// at a terminal with a person.
func (c *chatQuestions) noteWaiting() {
	if !c.noting {
		return
	}
	qs, err := c.answerer.Fresh()
	if err != nil {
		fmt.Fprintf(c.out, "! wisp: %s\n", escape.Terminal(errorLine(err)))
		return
	}
	for _, q := range qs {
		fmt.Fprintf(c.out, "? a question waits for you (%s): \"%s\" — /questions answer %s\n", q.ID, escape.Terminal(q.Text), q.ID)
	}
}

// slash runs /questions [list] | answer ID | decline ID; args follow
// "/questions".
func (c *chatQuestions) slash(ctx context.Context, args []string) error {
	switch {
	case len(args) == 0 || len(args) == 1 && args[0] == "list":
		qs, err := listParkedQuestions(c.out, c.store, time.Now(), "/questions")
		if err != nil {
			return err
		}
		for _, q := range qs {
			c.answerer.Tell(q.ID)
		}
		return nil
	case len(args) == 2 && (args[0] == "answer" || args[0] == "decline"):
		c.answerer.Tell(args[1])
		return c.answerer.Answer(ctx, args[1], args[0] == "decline")
	}
	return errors.New("/questions takes list, answer ID or decline ID")
}
