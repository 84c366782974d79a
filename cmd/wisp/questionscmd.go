package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/audit"
	"github.com/wisp-agent/wisp/conversation"
	"github.com/wisp-agent/wisp/inquiry"
	"github.com/wisp-agent/wisp/inquiry/escape"
	"github.com/wisp-agent/wisp/inquiry/pending"
	"github.com/wisp-agent/wisp/inquiry/terminal"
	"github.com/wisp-agent/wisp/policy/secrets"
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
	p := &parkedAnswerer{
		store:  h.Questions(nil),
		out:    stdout,
		from:   pending.FromTerminal,
		prefix: "wisp questions",
		now:    time.Now,
	}
	ctx := cmd.Context() // Ctrl-C ends it, and every prompt of it
	if !isTerminal(stdin) || !isTerminal(stdout) {
		p.refuse = func(verb, _ string) error { return terminalRefusal(verb, "a question", stdin, stdout) }
	} else {
		log, err := openAnswerLog(h)
		if err != nil {
			return err
		}
		defer log.Close()
		// The answer is recorded in a session of its own, with this
		// terminal's name, before it is filed.
		p.store.Witness = audit.Witness{Log: log, Session: newID()}
		tty := stdin.(*os.File) // a terminal, as isTerminal saw
		p.terminal = ttyName(tty)
		in := terminal.NewInput(tty)
		p.face = terminal.New(in, stdout)
		p.flush = func() {
			flushInput(tty)
			in.Discard()
		}
	}
	return p.answer(ctx, id, decline)
}

// parkedAnswerer shows a parked question to the person and files their
// answer: wisp questions answer|decline, chat's /questions and chat
// --json's questions lines share it.
type parkedAnswerer struct {
	store pending.Store
	// out is where a terminal's lines go: the question's heading and the
	// privacy note before it is answered, and what was filed. nil (chat
	// --json): the client shows the choice, which names the thread, and
	// say tells what was filed.
	out io.Writer
	// say tells the person one line about question q (what was filed, an
	// answer cut or holding a credential); nil: the line goes to out.
	say func(q pending.Question, line string)
	// face shows the question and reads the answer; nil only when refuse
	// is set.
	face wisp.Inquirer
	// from names the face in the answer file: pending.FromTerminal,
	// pending.FromChat or pending.FromTUI.
	from string
	// terminal names the terminal the person answers at, for
	// inquiry.answered, which the store's Witness records (set unless
	// refuse is).
	terminal string
	// flush drops keys typed before the prompt appeared; nil: none.
	flush func()
	// refuse, when set, refuses verb ("questions answer", "/questions
	// decline") on question id once the ID and the question have been
	// checked: no person can answer here.
	refuse func(verb, id string) error
	// prefix is how the person runs these commands: "wisp questions" or
	// "/questions".
	prefix string
	now    func() time.Time
}

// answer shows question id and files the person's answer to it, or a
// declined answer when decline is set. Nothing is filed when the person
// stops (Ctrl-C), the input ends, or the question's deadline passes.
func (p *parkedAnswerer) answer(ctx context.Context, id string, decline bool) error {
	q, err := p.lookup(id, decline)
	if err != nil {
		return err
	}
	return p.answerQuestion(ctx, q, decline)
}

// lookup returns the waiting question id, or why it cannot be answered
// here: not an ID, not waiting, already answered, or no person (refuse).
func (p *parkedAnswerer) lookup(id string, decline bool) (pending.Question, error) {
	q, err := p.store.Get(id)
	switch {
	case errors.Is(err, pending.ErrBadID):
		return pending.Question{}, usageError{err}
	case errors.Is(err, pending.ErrAnswered):
		return pending.Question{}, fmt.Errorf("%w; the first answer wins", err)
	case err != nil:
		return pending.Question{}, err
	}
	if p.refuse != nil {
		verb := strings.TrimPrefix(p.prefix, "wisp ") + " answer"
		if decline {
			verb = strings.TrimPrefix(p.prefix, "wisp ") + " decline"
		}
		return pending.Question{}, p.refuse(verb, q.ID)
	}
	return q, nil
}

// answerQuestion shows q, which lookup returned, and files the person's
// answer, or a declined answer when decline is set.
func (p *parkedAnswerer) answerQuestion(ctx context.Context, q pending.Question, decline bool) error {
	if p.out != nil {
		fmt.Fprintf(p.out, "%s\n", questionHeading(q, p.now()))
		fmt.Fprintf(p.out, privacyNote+"\n", escape.Terminal(q.Thread))
	}

	a := pending.Answer{ID: q.ID, Digest: q.Digest, Outcome: wisp.OutcomeDeclined, From: p.from, Terminal: p.terminal}
	if decline {
		if p.out != nil {
			writeQuestion(p.out, q)
		}
	} else {
		got, err := p.ask(ctx, q)
		if err != nil {
			return err
		}
		a.Outcome, a.Text = got.Outcome, got.Text
		if a.Outcome == wisp.OutcomeAnswered {
			a.Text = p.fitText(q, a.Text)
		}
	}

	// Filing waits for the folder's lock; Ctrl-C may still stop it. The
	// store's Witness records inquiry.answered before the answer appears.
	switch err := p.store.Answer(ctx, a); {
	case errors.Is(err, pending.ErrStale):
		return fmt.Errorf("question %s was filed again while you answered, so your answer to what you were shown was not filed; run %s answer %s to see it as it is now", q.ID, p.prefix, q.ID)
	case errors.Is(err, pending.ErrAnswered):
		return fmt.Errorf("%w; the first answer wins, so yours was not filed", err)
	case errors.Is(err, pending.ErrWithdrawn), errors.Is(err, pending.ErrNoQuestion):
		return fmt.Errorf("%w; your answer was not filed", err)
	case err != nil:
		return err
	}
	p.tell(q, fmt.Sprintf("question %s: %s; the thread that asked gets it", q.ID, filedSummary(a)))
	return nil
}

// tell says line about q to the person.
func (p *parkedAnswerer) tell(q pending.Question, line string) {
	if p.say != nil {
		p.say(q, line)
		return
	}
	fmt.Fprintln(p.out, line)
}

// ask shows q through the face and reads the answer. It returns an error
// when no answer is to be filed.
func (p *parkedAnswerer) ask(ctx context.Context, q pending.Question) (wisp.Answer, error) {
	ctx, cancel := withDeadline(ctx, q.Deadline)
	defer cancel()
	if p.flush != nil {
		p.flush()
	}
	got, err := p.face.Ask(ctx, wisp.Question{
		ID: q.ID, Session: q.Session, Thread: q.Thread, Turn: q.Turn,
		Text: q.Text, Options: q.Options, Deadline: q.Deadline,
	})
	switch {
	case errors.Is(err, wisp.ErrInterrupted), errors.Is(err, context.Canceled):
		return wisp.Answer{}, fmt.Errorf("stopped; nothing was filed for question %s (%s answer %s asks again)", q.ID, p.prefix, q.ID)
	case errors.Is(err, context.DeadlineExceeded):
		return wisp.Answer{}, fmt.Errorf("question %s reached its deadline; nothing was filed, and the thread that asked has given up on it", q.ID)
	case err != nil:
		return wisp.Answer{}, err
	case got.Outcome == wisp.OutcomeNoPerson:
		return wisp.Answer{}, fmt.Errorf("the input ended; nothing was filed for question %s (%s answer %s asks again)", q.ID, p.prefix, q.ID)
	}
	return got, nil
}

// fitText makes typed text fit what the pending folder files: valid
// UTF-8 of at most MaxAnswerBytes, and tells the person when a credential
// will not be passed on.
func (p *parkedAnswerer) fitText(q pending.Question, s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) > pending.MaxAnswerBytes {
		n := len(s)
		s = cutUTF8(s, pending.MaxAnswerBytes)
		p.tell(q, fmt.Sprintf("! wisp: your answer was %d bytes; its first %d bytes were filed, and the model gets at most 2,000", n, len(s)))
	}
	if _, found := secrets.NewRedactor().Redact(s); len(found) > 0 {
		p.tell(q, "! wisp: your answer looked like it held a credential; it is not passed on: the model and the audit log see a marker in its place")
	}
	return s
}

// cutUTF8 cuts s to at most n bytes on a character boundary.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// filedSummary says what was filed, escaped.
func filedSummary(a pending.Answer) string {
	switch a.Outcome {
	case wisp.OutcomeChose:
		return "you chose " + escape.Terminal(a.Text)
	case wisp.OutcomeChoseNone:
		return "you chose " + inquiry.NoneOfThese
	case wisp.OutcomeAnswered:
		return "your answer was filed"
	default:
		return "you declined it"
	}
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
	answerer *parkedAnswerer
	// noting: the chat is at a terminal with a person, so waiting
	// questions are noted before each prompt.
	noting bool
	watch  *questionWatch
}

// newChatQuestions wires /questions into a chat that reads in (from
// stdin), shows questions through face (on stdout) and writes its other
// lines to out; yes says the chat runs with no person (--yes).
func newChatQuestions(conv *conversation.Conversation, face *terminal.Face, in *terminal.Input, stdin io.Reader, stdout, out io.Writer, yes bool) *chatQuestions {
	// Answers are recorded in the chat's session and taken only when
	// recorded.
	store := conv.Questions()
	p := &parkedAnswerer{
		store:  store,
		out:    out,
		face:   face,
		from:   pending.FromChat,
		prefix: "/questions",
		now:    time.Now,
	}
	interactive := isTerminal(stdin) && isTerminal(stdout)
	switch {
	case yes:
		p.refuse = func(verb, id string) error {
			return fmt.Errorf("%s needs a person, and this chat runs with --yes, where nobody is asked anything; run wisp %s %s in a terminal", verb, strings.TrimPrefix(verb, "/"), id)
		}
	case !interactive:
		p.refuse = func(verb, _ string) error { return terminalRefusal(verb, "a question", stdin, stdout) }
	default:
		tty := stdin.(*os.File)
		p.terminal = ttyName(tty)
		p.flush = func() {
			flushInput(tty)
			in.Discard()
		}
	}
	return &chatQuestions{store: store, out: out, answerer: p, noting: interactive && !yes, watch: newQuestionWatch(store)}
}

// noteWaiting says, one line each, which questions wait that the person
// has not been told about in this chat. It does nothing unless the chat is
// at a terminal with a person.
func (c *chatQuestions) noteWaiting() {
	if !c.noting {
		return
	}
	qs, err := c.watch.fresh()
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
		qs, err := listParkedQuestions(c.out, c.store, c.answerer.now(), "/questions")
		if err != nil {
			return err
		}
		for _, q := range qs {
			c.watch.tell(q.ID)
		}
		return nil
	case len(args) == 2 && (args[0] == "answer" || args[0] == "decline"):
		c.watch.tell(args[1])
		return c.answerer.answer(ctx, args[1], args[0] == "decline")
	}
	return errors.New("/questions takes list, answer ID or decline ID")
}
