package jsonl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wisp-agent/wisp"
)

// errNoQuestions refuses a questions line in a session that does not
// take them.
var errNoQuestions = fmt.Errorf("%w: this session does not take questions lines (its hello does not accept them); answer parked questions with wisp questions answer ID at a terminal", ErrUnknownType)

// ReasonClosed is the reason an approval is refused when the client's
// input ends while it waits, or before it is asked.
const ReasonClosed = "the client closed its input, so no person can approve"

// Options configure a Face. A nil *Options or a zero field means the
// default given beside the field.
type Options struct {
	// Message is called with the text of each message line the client
	// sends, on the goroutine that runs Serve (or calls Handle); it must
	// not block for long, so a turn runs elsewhere. An error refuses the
	// message: it is written as an Error line, such as "a turn is
	// running; wait for its end line, or send cancel". nil: every message
	// is refused.
	Message func(text string) error
	// Cancel is called on each cancel line, after the choices that wait
	// have settled "cancelled": it stops the running turn. nil: the
	// choices settle and nothing more happens.
	Cancel func()
	// Questions is called with each questions line, on the goroutine
	// that runs Serve (or calls Handle); it must not block for long, so
	// a question it puts to the client (AskParked) waits elsewhere. An
	// error refuses the line: it is written as an Error line. When set,
	// Hello announces "questions" among the types the session accepts.
	// nil: questions lines are refused.
	Questions func(Questions) error
	// Command runs one of the person's commands (a command line) and
	// returns what it said; the error's text says why it failed, and is
	// shown to the person as it is. The face calls it with Serve's
	// context, one command at a time in the order they came, on a
	// goroutine of its own while the session reads on, and sends what it
	// said (or why it failed) as a note of kind command; Serve returns
	// once every command it was given has ended. When set,
	// Hello announces "command" among the types the session accepts.
	// nil: command lines are refused.
	Command func(ctx context.Context, c Command) (string, error)
	// MaxLine is the most bytes a line of the client may hold in Serve
	// (MaxLine).
	MaxLine int
}

// A Face speaks the protocol's wisp side over a line writer. It is a
// wisp.Inquirer, wisp.CardInquirer, wisp.Approver and wisp.Notifier: each
// question, card and approval request is written as a choice line and
// waits for the client's answer, which Serve (or Handle) routes to it by
// its id. Every choice ends with a Settled line.
//
// A Face only shows and reads. What a question may ask, how an answer is
// scanned, what the model gets and when a card falls back are the inquiry
// desk's rules; what an approval covers is the gate's.
//
// A Face is safe for concurrent use: choices may wait at once (the desk
// asks one question a thread at a time), each line is written whole, and
// lines are written in the order their calls were made.
type Face struct {
	opts Options

	wmu   sync.Mutex // held while a line is written
	w     io.Writer
	ended bool // Bye was written

	mu      sync.Mutex
	waiting map[string]*waiter
	settled map[string]string // id → outcome, for the choices that have ended
	closed  bool              // the client's input has ended
	seq     int               // for choices that come without an id

	commands sync.WaitGroup // the person's commands that run or wait to
	queue    []queued       // the commands that wait, in the order they came
}

// queued is a command line that waits to run, with its context.
type queued struct {
	ctx context.Context
	c   Command
}

var (
	_ wisp.Inquirer     = (*Face)(nil)
	_ wisp.CardInquirer = (*Face)(nil)
	_ wisp.Approver     = (*Face)(nil)
	_ wisp.Notifier     = (*Face)(nil)
)

// waiter is a choice that waits for its answer.
type waiter struct {
	choice Choice
	done   chan result // buffered: whoever settles the choice never waits
}

// result is how a choice ended.
type result struct {
	answer   wisp.Answer
	cards    []wisp.CardAnswer
	decision wisp.Decision
	outcome  string
	err      error
}

// NewFace returns a face that writes its lines to w.
func NewFace(w io.Writer, opts *Options) *Face {
	f := &Face{w: w, waiting: make(map[string]*waiter), settled: make(map[string]string)}
	if opts != nil {
		f.opts = *opts
	}
	return f
}

// Send writes one line. After a Bye it writes nothing and returns
// ErrEnded.
func (f *Face) Send(l Line) error {
	b, err := Encode(l)
	if err != nil {
		return err
	}
	f.wmu.Lock()
	defer f.wmu.Unlock()
	if f.ended {
		return ErrEnded
	}
	if _, err := f.w.Write(b); err != nil {
		return fmt.Errorf("jsonl: writing a %s line: %w", l.LineType(), err)
	}
	if _, ok := l.(Bye); ok {
		f.ended = true
	}
	return nil
}

// Hello writes h as the session's first line, with the protocol's own
// fields (Protocol, Version, Accepts, Choices, MaxLine) filled in where h
// leaves them zero.
func (f *Face) Hello(h Hello) error {
	if h.Protocol == "" {
		h.Protocol = Protocol
	}
	if h.Version == 0 {
		h.Version = Version
	}
	if h.Tools == nil {
		h.Tools = []string{}
	}
	if h.Accepts == nil {
		h.Accepts = slices.Clone(clientTypes)
		if f.opts.Questions != nil {
			h.Accepts = append(h.Accepts, TypeQuestions)
		}
		if f.opts.Command != nil {
			h.Accepts = append(h.Accepts, TypeCommand)
		}
	}
	if h.Choices == nil {
		h.Choices = []string{KindQuestion, KindCard, KindApproval}
	}
	if h.MaxLine == 0 {
		h.MaxLine = f.maxLine()
	}
	return f.Send(h)
}

func (f *Face) maxLine() int {
	if f.opts.MaxLine != 0 {
		return f.opts.MaxLine
	}
	return MaxLine
}

// Ask writes q as a choice of kind "question" and waits for the client's
// Choose: an option (OutcomeChose with the option's text), text where the
// question is free text (OutcomeAnswered), none of these
// (OutcomeChoseNone), or decline (OutcomeDeclined). The question's text
// and options go out exactly as the model wrote them.
//
// When ctx ends, Ask returns its cause, and the choice settles
// "timed-out" (a deadline) or "cancelled". A cancel line ends it with
// wisp.ErrInterrupted. When the client's input has ended, the question
// ends wisp.OutcomeNoPerson (wisp.FromUnattended): never answered, and
// never the person's decline.
func (f *Face) Ask(ctx context.Context, q wisp.Question) (wisp.Answer, error) {
	return f.ask(ctx, q, false)
}

// AskParked is Ask for a question wisp mcp parked on q.Thread, put to
// the client because the person asked to answer it: the choice line is
// marked Parked, so the client says where the answer goes and who can
// read it. Its outcomes are Ask's.
func (f *Face) AskParked(ctx context.Context, q wisp.Question) (wisp.Answer, error) {
	return f.ask(ctx, q, true)
}

func (f *Face) ask(ctx context.Context, q wisp.Question, parked bool) (wisp.Answer, error) {
	r, err := f.wait(ctx, Question{
		ID: f.idFor(q.ID), Thread: q.Thread, Turn: q.Turn, Title: TitleModelAsks,
		Text: q.Text, Options: slices.Clone(q.Options),
		NoneOfThese: !q.FreeText(), AcceptsText: q.FreeText(),
		Deadline: wireTime(q.Deadline), Parked: parked,
	})
	if err != nil {
		return wisp.Answer{}, err
	}
	return r.answer, nil
}

// AskCard writes c as a choice of kind "card" and waits for the client's
// Choose with one answer a question, in order (or a decline of the whole
// card). Chosen options come back as their labels, in the options' order.
// A secret question's value comes back as its Text: the client must read
// it without showing it.
//
// When ctx ends (the card's deadline, the end of the turn), AskCard
// returns its cause and no answers (at the deadline the desk falls the
// questions back). A
// cancel line ends it with wisp.ErrInterrupted. When the client's input
// has ended, every question ends wisp.OutcomeNoPerson
// (wisp.FromUnattended): the desk falls a choice back, marked unattended,
// and gives free text and a secret no answer; none of it is the person's.
func (f *Face) AskCard(ctx context.Context, c wisp.Card) ([]wisp.CardAnswer, error) {
	line := Card{ID: f.idFor(c.ID), Thread: c.Thread, Turn: c.Turn, Title: TitleModelAsks, Deadline: wireTime(c.Deadline)}
	for _, q := range c.Questions {
		cq := CardQuestion{Text: q.Text, Header: q.Header, MultiSelect: q.Multi,
			AcceptsText: q.Other || len(q.Options) == 0, Secret: q.Secret}
		for _, o := range q.Options {
			cq.Options = append(cq.Options, CardOption{Label: o.Label, Description: o.Description, Recommended: o.Recommended})
		}
		line.Questions = append(line.Questions, cq)
	}
	r, err := f.wait(ctx, line)
	if err != nil {
		return nil, err
	}
	return r.cards, nil
}

// Approve writes r as a choice of kind "approval", titled "wisp asks your
// approval", offering r's scopes, and waits for the client's Approve or
// Deny. An Approve with one of those scopes, or with a wider one, is the
// Decision's Scope as the client gave it: the gate narrows a wider answer
// to what r allows and records it as downgradedFrom. A cancelled,
// timed-out or interrupted request returns an error and never an
// approval; when the client's input has ended, the request is refused
// (ReasonClosed).
func (f *Face) Approve(ctx context.Context, r wisp.ApprovalRequest) (wisp.Decision, error) {
	scopes := []string{}
	for _, s := range r.Scopes {
		if s > wisp.ScopeNone && s <= wisp.ScopeAlways && !slices.Contains(scopes, s.String()) {
			scopes = append(scopes, s.String())
		}
	}
	res, err := f.wait(ctx, Approval{
		ID: f.idFor(r.ID), Thread: r.Thread, Turn: r.Turn, Title: TitleApproval,
		Command: r.Command, Text: r.Text, Diff: r.Diff, Scopes: scopes, Deadline: wireTime(r.Deadline),
	})
	if err != nil {
		return wisp.Decision{}, err
	}
	return res.decision, nil
}

// Notify writes n as a Note line. wisp.NoticeUnverifiedClaim is the note
// kind "flag"; every other kind is written as it is.
func (f *Face) Notify(ctx context.Context, n wisp.Notice) error {
	kind := n.Kind
	if kind == wisp.NoticeUnverifiedClaim {
		kind = NoteFlag
	}
	return f.Send(Note{Kind: kind, Thread: n.Thread, Text: n.Text})
}

// wait writes c, waits until it settles, and writes how it settled.
func (f *Face) wait(ctx context.Context, c Choice) (result, error) {
	if ctx.Err() != nil {
		return result{}, context.Cause(ctx)
	}
	id := c.ChoiceID()
	w := &waiter{choice: c, done: make(chan result, 1)}
	f.mu.Lock()
	if _, dup := f.waiting[id]; dup {
		f.mu.Unlock()
		return result{}, fmt.Errorf("jsonl: a choice with id %q waits already", id)
	}
	f.waiting[id] = w
	delete(f.settled, id)
	closed := f.closed
	f.mu.Unlock()

	if err := f.Send(c); err != nil {
		f.mu.Lock()
		delete(f.waiting, id)
		f.mu.Unlock()
		return result{}, err
	}
	if closed {
		f.mu.Lock()
		if f.waiting[id] == w {
			f.settleLocked(id, w, closedResult(c))
		}
		f.mu.Unlock()
	}
	var r result
	select {
	case r = <-w.done:
	case <-ctx.Done():
		f.mu.Lock()
		if f.waiting[id] == w {
			outcome := OutcomeCancelled
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				outcome = OutcomeTimedOut
			}
			f.settleLocked(id, w, result{outcome: outcome, err: context.Cause(ctx)})
		}
		f.mu.Unlock()
		// Settled by ctx just now, or by an answer that came first.
		r = <-w.done
	}
	// The outcome is told even when the client has gone; the answer stands.
	_ = f.Send(Settled{ID: id, Outcome: r.outcome})
	return r, r.err
}

// settleLocked ends the choice id, which waits as w, with r. f.mu must be
// held, and w must still wait: its channel takes one result.
func (f *Face) settleLocked(id string, w *waiter, r result) {
	delete(f.waiting, id)
	f.settled[id] = r.outcome
	w.done <- r
}

// closedResult is how c ends when the client's input has ended: no
// person can answer it, which is never the person's own answer or
// decline. A question ends wisp.OutcomeNoPerson and each question of a
// card too, marked wisp.FromUnattended: the desk tells the model that no
// person can answer, falls a card's choices back marked unattended, and
// gives free text and secrets no answer. An approval is refused
// (ReasonClosed).
func closedResult(c Choice) result {
	nobody := wisp.CardAnswer{Outcome: wisp.OutcomeNoPerson, Provenance: wisp.FromUnattended}
	switch c := c.(type) {
	case Card:
		cards := make([]wisp.CardAnswer, len(c.Questions))
		for i := range cards {
			cards[i] = nobody
		}
		return result{cards: cards, outcome: OutcomeClosed}
	case Approval:
		return result{decision: wisp.Decision{Reason: ReasonClosed, Provenance: wisp.FromUnattended}, outcome: OutcomeRefused}
	}
	return result{answer: wisp.Answer{Outcome: wisp.OutcomeNoPerson, Provenance: wisp.FromUnattended}, outcome: OutcomeClosed}
}

// idFor returns id, or an id of the face's own when id is empty.
func (f *Face) idFor(id string) string {
	if id != "" {
		return id
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seq++
	return "choice-" + strconv.Itoa(f.seq)
}

// wireTime is t as a line carries it: UTC, to the second; zero stays zero.
func wireTime(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.UTC().Truncate(time.Second)
}

// Close says the client's input has ended: every choice that waits, and
// every choice asked from now on, ends at once and settles "closed" (an
// approval "refused", with ReasonClosed). No person can answer them any
// more, and none of it is the person's: a question ends
// wisp.OutcomeNoPerson, and so does each question of a card, both marked
// wisp.FromUnattended, so the model is told no person can answer, never
// that the person declined, and a card's choices fall back marked
// unattended. Serve calls Close at the end of the input; call it when the
// transport closes if you call Handle yourself.
func (f *Face) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	for id, w := range f.waiting {
		f.settleLocked(id, w, closedResult(w.choice))
	}
}

// command runs c after the commands that came before it, one at a time,
// on a goroutine that runs while commands wait, and sends what each said
// as a note of kind command.
func (f *Face) command(ctx context.Context, c Command) {
	f.commands.Add(1)
	f.mu.Lock()
	f.queue = append(f.queue, queued{ctx, c})
	first := len(f.queue) == 1
	f.mu.Unlock()
	if !first {
		return // the goroutine that runs the queue takes it
	}
	go func() {
		for {
			f.mu.Lock()
			q := f.queue[0]
			f.mu.Unlock()
			text, err := f.opts.Command(q.ctx, q.c)
			if err != nil {
				text = err.Error()
			}
			_ = f.Send(Note{Kind: NoteCommand, Text: strings.TrimSuffix(text, "\n")})
			f.mu.Lock()
			f.queue = f.queue[1:]
			more := len(f.queue) > 0
			f.mu.Unlock()
			f.commands.Done()
			if !more {
				return
			}
		}
	}()
}

// interrupt ends every choice that waits with wisp.ErrInterrupted.
func (f *Face) interrupt() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for id, w := range f.waiting {
		f.settleLocked(id, w, result{outcome: OutcomeCancelled, err: wisp.ErrInterrupted})
	}
}

// Serve reads the client's lines from r and acts on each with Handle
// until r ends, then calls Close and returns nil. A line that is not one
// of the protocol's, or that Handle refuses, is answered with an Error
// line naming it; the session goes on. When ctx ends first, Serve calls
// Close and returns ctx's cause; the goroutine that reads r then exits
// when its read returns. Another error reading r is returned, after
// Close. Serve does not write Hello or Bye. It returns once the commands
// it started (Options.Command) have ended.
func (f *Face) Serve(ctx context.Context, r io.Reader) error {
	defer f.commands.Wait()
	rd := NewReader(r, &ReaderOptions{MaxLine: f.maxLine()})
	type item struct {
		l   Line
		n   int
		err error
	}
	items := make(chan item)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			l, err := rd.Next()
			select {
			case items <- item{l, rd.LineNumber(), err}:
			case <-stop:
				return
			}
			var ie *InputError
			if err != nil && !errors.As(err, &ie) {
				return
			}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			f.Close()
			return context.Cause(ctx)
		case it := <-items:
			var ie *InputError
			switch {
			case errors.As(it.err, &ie):
				_ = f.Send(Error{Error: ie.Err.Error(), Line: ie.Line})
			case errors.Is(it.err, io.EOF):
				f.Close()
				return nil
			case it.err != nil:
				f.Close()
				return fmt.Errorf("reading the client's lines: %w", it.err)
			default:
				if err := f.handle(ctx, it.l); err != nil {
					_ = f.Send(Error{Error: err.Error(), Line: it.n})
				}
			}
		}
	}
}

// Handle acts on one line the client sent: a Choose, Approve or Deny
// settles the choice it names; a Cancel settles every waiting choice
// "cancelled" (the wait returns wisp.ErrInterrupted) and calls
// Options.Cancel; a Message goes to Options.Message, a Questions line to
// Options.Questions; a Command runs Options.Command after the commands
// before it (with context.Background; Serve gives its own). It returns an error,
// for an Error line, when the line does not fit: a choice that does not
// exist (ErrNoChoice) or has settled (ErrSettled), an answer that does
// not fit its choice (ErrMismatch), a line only wisp writes
// (ErrUnknownType), or Options.Message's refusal. Such a line changes
// nothing.
func (f *Face) Handle(l Line) error { return f.handle(context.Background(), l) }

// handle is Handle, with the context a command runs in.
func (f *Face) handle(ctx context.Context, l Line) error {
	switch l := l.(type) {
	case Message:
		if f.opts.Message == nil {
			return fmt.Errorf("%w: this session takes no messages", ErrUnknownType)
		}
		return f.opts.Message(l.Text)
	case Cancel:
		f.interrupt()
		if f.opts.Cancel != nil {
			f.opts.Cancel()
		}
		return nil
	case Command:
		if f.opts.Command == nil {
			return fmt.Errorf("%w: this session does not take command lines (its hello does not accept them); run wisp %s in a terminal", ErrUnknownType, l.Name)
		}
		f.command(ctx, l)
		return nil
	case Questions:
		if f.opts.Questions == nil {
			return errNoQuestions
		}
		return f.opts.Questions(l)
	case Choose:
		return f.answer(l.ID, func(c Choice) (result, error) { return chooseResult(c, l) })
	case Approve:
		return f.answer(l.ID, func(c Choice) (result, error) {
			a, ok := c.(Approval)
			if !ok {
				return result{}, notApproval(c)
			}
			// A scope wider than the approval offers is the person's answer
			// all the same: it is passed on as given, and the gate narrows
			// it to what the request allows and records downgradedFrom. Only
			// a scope narrower than every offered one has nothing to
			// narrow to.
			scope := scopeOf(l.Scope)
			if !slices.ContainsFunc(a.Scopes, func(o string) bool { return scopeOf(o) <= scope }) {
				return result{}, fmt.Errorf("%w: approval %s does not offer the scope %q, nor one narrower; send approve with one of its scopes (%s), or deny",
					ErrMismatch, a.ID, l.Scope, strings.Join(a.Scopes, ", "))
			}
			return result{decision: wisp.Decision{Scope: scope, Provenance: wisp.FromPerson}, outcome: OutcomeApproved}, nil
		})
	case Deny:
		return f.answer(l.ID, func(c Choice) (result, error) {
			if _, ok := c.(Approval); !ok {
				return result{}, notApproval(c)
			}
			return result{decision: wisp.Decision{Provenance: wisp.FromPerson}, outcome: OutcomeRefused}, nil
		})
	case nil:
		return fmt.Errorf("%w: no line", ErrBadLine)
	}
	return fmt.Errorf("%w: %s is a line wisp writes, not one it reads; send one of %s", ErrUnknownType, l.LineType(), strings.Join(clientTypes, ", "))
}

// answer settles the choice id with what read makes of it, if it fits.
func (f *Face) answer(id string, read func(Choice) (result, error)) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	w := f.waiting[id]
	if w == nil {
		if outcome, ok := f.settled[id]; ok {
			return fmt.Errorf("%w: choice %s settled already (%s); nothing changed", ErrSettled, id, outcome)
		}
		return fmt.Errorf("%w: no choice has the id %q; answer a choice line's id while it waits", ErrNoChoice, id)
	}
	r, err := read(w.choice)
	if err != nil {
		return err
	}
	f.settleLocked(id, w, r)
	return nil
}

// count says n things: "1 question", "3 questions".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return strconv.Itoa(n) + " " + thing + "s"
}

func notApproval(c Choice) error {
	return fmt.Errorf("%w: choice %s is a %s (the model asks), not an approval; answer it with choose", ErrMismatch, c.ChoiceID(), c.ChoiceKind())
}

func scopeOf(name string) wisp.Scope {
	for s := wisp.ScopeOnce; s <= wisp.ScopeAlways; s++ {
		if s.String() == name {
			return s
		}
	}
	return wisp.ScopeNone
}

// chooseResult reads a Choose as an answer to c.
func chooseResult(c Choice, ch Choose) (result, error) {
	switch c := c.(type) {
	case Question:
		return questionResult(c, ch)
	case Card:
		return cardResult(c, ch)
	}
	return result{}, fmt.Errorf("%w: choice %s is an approval (wisp asks your approval), not a question; answer it with approve or deny", ErrMismatch, c.ChoiceID())
}

func questionResult(q Question, ch Choose) (result, error) {
	offer := func() string {
		var ways []string
		if n := len(q.Options); n > 0 {
			ways = append(ways, "option 1 to "+strconv.Itoa(n))
		}
		if q.NoneOfThese {
			ways = append(ways, "none")
		}
		if q.AcceptsText {
			ways = append(ways, "text")
		}
		return strings.Join(append(ways, "decline"), ", ")
	}
	switch {
	case ch.Answers != nil:
		return result{}, fmt.Errorf("%w: choice %s is a question, not a card; send %s, not answers", ErrMismatch, q.ID, offer())
	case ch.Option != 0:
		if ch.Option > len(q.Options) {
			if len(q.Options) == 0 {
				return result{}, fmt.Errorf("%w: choice %s takes free text and has no options; send %s", ErrMismatch, q.ID, offer())
			}
			return result{}, fmt.Errorf("%w: option %d is out of range: choice %s has options 1 to %d; send %s", ErrMismatch, ch.Option, q.ID, len(q.Options), offer())
		}
		return result{answer: wisp.Answer{Outcome: wisp.OutcomeChose, Text: q.Options[ch.Option-1], Provenance: wisp.FromPerson}, outcome: OutcomeChose}, nil
	case ch.Text != "":
		if !q.AcceptsText {
			return result{}, fmt.Errorf("%w: choice %s does not take text; send %s", ErrMismatch, q.ID, offer())
		}
		// The one rule of what an answer may be: text with control
		// characters is never taken.
		a, err := wisp.Question{Options: q.Options}.Fit(wisp.Answer{Outcome: wisp.OutcomeAnswered, Text: ch.Text, Provenance: wisp.FromPerson})
		if err != nil {
			return result{}, fmt.Errorf("%w: choice %s: %v; send %s", ErrMismatch, q.ID, err, offer())
		}
		if a.Outcome == wisp.OutcomeDeclined {
			return result{answer: a, outcome: OutcomeDeclined}, nil
		}
		return result{answer: a, outcome: OutcomeAnswered}, nil
	case ch.None:
		if !q.NoneOfThese {
			return result{}, fmt.Errorf("%w: choice %s does not offer none of these; send %s", ErrMismatch, q.ID, offer())
		}
		return result{answer: wisp.Answer{Outcome: wisp.OutcomeChoseNone, Provenance: wisp.FromPerson}, outcome: OutcomeChoseNone}, nil
	case ch.Decline:
		return result{answer: wisp.Answer{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson}, outcome: OutcomeDeclined}, nil
	}
	return result{}, fmt.Errorf("%w: choose needs one of %s", ErrBadLine, offer())
}

func cardResult(c Card, ch Choose) (result, error) {
	switch {
	case ch.Decline && ch.Answers == nil:
		cards := make([]wisp.CardAnswer, len(c.Questions))
		for i := range cards {
			cards[i] = wisp.CardAnswer{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson}
		}
		return result{cards: cards, outcome: OutcomeDeclined}, nil
	case ch.Answers == nil:
		return result{}, fmt.Errorf("%w: choice %s is a card; send answers, one a question in order, or decline", ErrMismatch, c.ID)
	case len(ch.Answers) != len(c.Questions):
		return result{}, fmt.Errorf("%w: card %s has %s, and the line has %s; send one a question, in order", ErrMismatch, c.ID, count(len(c.Questions), "question"), count(len(ch.Answers), "answer"))
	}
	out := make([]wisp.CardAnswer, len(c.Questions))
	for i, q := range c.Questions {
		a, err := cardAnswerResult(c.ID, i+1, q, ch.Answers[i])
		if err != nil {
			return result{}, err
		}
		out[i] = a
	}
	return result{cards: out, outcome: OutcomeAnswered}, nil
}

func cardAnswerResult(id string, n int, q CardQuestion, a CardAnswer) (wisp.CardAnswer, error) {
	bad := func(format string, args ...any) (wisp.CardAnswer, error) {
		return wisp.CardAnswer{}, fmt.Errorf("%w: card %s, question %d: %s", ErrMismatch, id, n, fmt.Sprintf(format, args...))
	}
	if a.Decline {
		return wisp.CardAnswer{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson}, nil
	}
	picks := a.Options
	if a.Option != 0 {
		picks = []int{a.Option}
	}
	switch {
	case len(picks) == 0 && a.Text == "":
		return bad("send option, options, text or decline")
	case len(picks) > 0 && len(q.Options) == 0 && q.Secret != "":
		return bad("a secret takes text (its value) or decline, not options")
	case len(picks) > 0 && len(q.Options) == 0:
		return bad("it takes free text and has no options; send text, or decline")
	case a.Options != nil && !q.MultiSelect:
		return bad("it is a single choice; send option, not options")
	case a.Text != "" && !q.AcceptsText:
		return bad("it does not take text; send option 1 to %d, or decline", len(q.Options))
	case a.Text != "" && len(picks) > 0 && !q.MultiSelect:
		return bad("it is a single choice; send option or text, not both")
	case a.Text != "" && wisp.CheckTyped(strings.TrimSpace(a.Text)) != nil:
		return bad("%v; send the text without them, or decline", wisp.CheckTyped(strings.TrimSpace(a.Text)))
	}
	var chosen []string
	for i, o := range q.Options {
		if slices.Contains(picks, i+1) {
			chosen = append(chosen, o.Label)
		}
	}
	for _, p := range picks {
		if p > len(q.Options) {
			return bad("option %d is out of range: the question has options 1 to %d", p, len(q.Options))
		}
	}
	if len(chosen) > 0 {
		return wisp.CardAnswer{Outcome: wisp.OutcomeChose, Chosen: chosen, Text: a.Text, Provenance: wisp.FromPerson}, nil
	}
	return wisp.CardAnswer{Outcome: wisp.OutcomeAnswered, Text: a.Text, Provenance: wisp.FromPerson}, nil
}
