// Package agent runs turns: the model, its tool calls, their results, the
// model again, until a reply without tool calls. It keeps each thread's
// messages and facts, condenses long threads without losing facts, and
// checks every final reply with the verification pass.
package agent

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/internal/fsx"
	"github.com/wisp-agent/wisp/internal/jsonredact"
	"github.com/wisp-agent/wisp/tools"
)

// Defaults for Options.
const (
	DefaultMaxSteps   = 16
	DefaultMaxHistory = 200
)

// Options configure an Agent. A nil *Options or a zero field means the
// default given beside the field.
type Options struct {
	// Tools are the conversation's tools; nil means none.
	Tools *tools.Set
	// Guard judges every tool call before it runs, from what its tool
	// says the call would do (wisp.Guarded): a call runs only when its
	// tool says it needs no approval, or the guard approved it (see
	// Guard). A *policy.Gate is one. nil: no person can approve, so every
	// call that needs approval is refused, as the gate refuses with no
	// Approver.
	Guard Guard
	// System is the system prompt; empty means none.
	System string
	// Events receives every event of every turn (the audit log, a face's
	// display); nil drops them.
	Events wisp.EventSink
	// Notifier tells the person about the verification pass's findings;
	// nil tells nobody (they are still in Reply.Flags and the events).
	Notifier wisp.Notifier
	// OnDelta receives pieces of the model's replies as they stream; nil
	// streams nothing.
	OnDelta func(thread string, d wisp.ChatDelta)
	// OnOutput receives what tool calls print as they run, such as a
	// command's output, redacted (wisp.Call.Output); nil: the calls print
	// nothing while they run.
	OnOutput func(wisp.ToolOutput)
	// MaxSteps bounds the model steps of one turn (DefaultMaxSteps).
	MaxSteps int
	// MaxHistory is how many messages a thread keeps before it is
	// condensed (DefaultMaxHistory); facts are always kept.
	MaxHistory int
	// ContextTokens is the model's context length (from its facts); when
	// a request would not fit three quarters of it, older turns are
	// condensed. A model that can say what its runner has (a
	// ContextSizer) is asked instead, before each step. 0: only
	// MaxHistory applies.
	ContextTokens int
	// Session names the session in events and tool calls.
	Session string
	// Now and NewID make time and ids injectable; nil: the clock and
	// random ids.
	Now   func() time.Time
	NewID func() string
	// Store keeps threads across processes: a thread is loaded from it at
	// the start of every turn and saved after every turn. nil: threads
	// live as long as the Agent.
	Store ThreadStore
	// Redact, when set, is applied to the person's input and to every
	// tool result before the model or the thread sees them, so that a
	// credential (a value the session's vault holds among them) reaches
	// neither; and to the id, name and arguments (keys and values) of
	// every tool call in the events the agent records. It must be safe
	// for concurrent use.
	Redact func(string) string
	// Home is the wisp home. A tool's result or a notice that names it,
	// such as an error about one of wisp's files, reaches the model (and
	// the thread) with the home written $WISP_HOME: the model never reads
	// where this machine keeps wisp's files. Empty: texts are left as
	// they are.
	Home string
	// Inbox, when set, is asked at the start of every turn for what
	// arrived for the thread while no turn ran, such as the answer to a
	// question that waited beyond its turn (wisp mcp). nil: nothing
	// arrives that way.
	Inbox wisp.Inbox
}

// ThreadState is what a thread keeps between turns.
type ThreadState struct {
	Turn int `json:"turn"`
	// Messages are the thread's records in order: the conversation's
	// messages, and the notices and condensing notes wisp added.
	Messages []ThreadRecord `json:"messages"`
	Facts    []wisp.Fact    `json:"facts"`
	FactSeq  int            `json:"factSeq"`
}

// A RecordKind says what a thread record is. What a record says never
// decides its kind: a person's message that reads like a notice is a
// message.
type RecordKind string

// The kinds of thread records.
const (
	// RecordMessage, the zero value, is a message of the conversation:
	// the person's input, the model's reply or call, a tool's result.
	RecordMessage RecordKind = ""
	// RecordNotice is wisp's word to the model between turns, such as
	// the end of a background pull or an answer that came after its
	// turn: the model reads it as a user message, it is no turn of its
	// own, and condensing keeps it.
	RecordNotice RecordKind = "notice"
	// RecordCondensed stands where condensed messages were: the model
	// reads it as a system message.
	RecordCondensed RecordKind = "condensed"
)

// A ThreadRecord is one record of a thread: a message as the model reads
// it, and what kind of record it is. Its JSON is the message's, with
// "kind" added for every kind but RecordMessage.
type ThreadRecord struct {
	Kind RecordKind `json:"kind,omitempty"`
	wisp.Message
}

// A ThreadStore keeps threads' states. Load reports ok false for a thread
// it has never saved. Implementations must be safe for concurrent use.
//
// A store that keeps threads where other processes can reach them should
// also be a ThreadLocker, so that turns on one thread never lose each
// other.
type ThreadStore interface {
	Load(id string) (st ThreadState, ok bool, err error)
	Save(id string, st ThreadState) error
}

// A ThreadLocker is a ThreadStore that holds a thread for one turn against
// every other holder, in this process or another. The agent holds the
// thread from before it loads it until it has saved it.
//
// Lock takes the lock if it is free, even when ctx is done. Otherwise it
// calls waiting (when not nil) once and waits until the lock is free or
// ctx is done; then it returns an error that wraps context.Cause(ctx).
// unlock gives the lock up; calls after the first do nothing.
type ThreadLocker interface {
	Lock(ctx context.Context, id string, waiting func()) (unlock func(), err error)
}

// MaxTurn is the highest turn number a thread reaches. A stored thread
// whose turn (or fact count) is negative or above it is refused when it
// is loaded: wisp never writes one, and the audit log could not number
// its records.
const MaxTurn = 1<<31 - 1

// ErrNotSaved: a turn's thread could not be saved. The turn is not kept:
// the thread stays as it was before the turn.
var ErrNotSaved = errors.New("the thread could not be saved")

// ErrBadThread: a stored thread holds what wisp never writes (a negative
// turn, say); it is refused rather than run unaudited.
var ErrBadThread = errors.New("the stored thread is not one wisp wrote")

// NoticeWaiting is the kind of the Notice a turn gives, through
// Options.Notifier, when it must wait for its thread (LineBusy).
const NoticeWaiting = wisp.NoticeWaiting

// LineBusy is what a turn says when another turn holds its thread and it
// waits for it to end.
func LineBusy(thread string) string {
	return "thread " + thread + " is busy with another turn; waiting…"
}

// An Agent answers on threads. It is safe for concurrent use; turns on the
// same thread run one at a time.
type Agent struct {
	model wisp.Model
	opts  Options

	mu      sync.Mutex
	threads map[string]*thread
}

var _ wisp.Agent = (*Agent)(nil)

type thread struct {
	notesMu sync.Mutex
	notes   []notice // notices not yet in the thread's messages

	busy     chan struct{} // holds a token while a turn runs
	turn     int
	messages []ThreadRecord
	facts    []wisp.Fact
	factSeq  int
}

// A notice is one posted to a thread and not yet in its messages.
type notice struct {
	text     string
	recorded bool // thread.notice is in the audit log
}

// state is the thread as its store keeps it.
func (t *thread) state() ThreadState {
	return ThreadState{Turn: t.turn, Messages: slices.Clip(t.messages), Facts: slices.Clip(t.facts), FactSeq: t.factSeq}
}

// restore puts the thread back as it was in st, with the notices a turn
// took back among those still to come.
func (t *thread) restore(st ThreadState, notes []notice) {
	t.turn, t.messages, t.facts, t.factSeq = st.Turn, st.Messages, st.Facts, st.FactSeq
	if len(notes) > 0 {
		t.notesMu.Lock()
		t.notes = append(slices.Clone(notes), t.notes...)
		t.notesMu.Unlock()
	}
}

// New returns an agent that runs on model.
func New(model wisp.Model, opts *Options) *Agent {
	a := &Agent{model: model, threads: make(map[string]*thread)}
	if opts != nil {
		a.opts = *opts
	}
	if a.opts.MaxSteps <= 0 {
		a.opts.MaxSteps = DefaultMaxSteps
	}
	if a.opts.MaxHistory <= 0 {
		a.opts.MaxHistory = DefaultMaxHistory
	}
	if a.opts.Now == nil {
		a.opts.Now = time.Now
	}
	if a.opts.NewID == nil {
		a.opts.NewID = randomID
	}
	return a
}

func (a *Agent) thread(id string) *thread {
	a.mu.Lock()
	defer a.mu.Unlock()
	t := a.threads[id]
	if t == nil {
		t = &thread{busy: make(chan struct{}, 1)}
		a.threads[id] = t
	}
	return t
}

// Note posts a notice to a thread: wisp's word to the model, such as the
// end of a background pull. It is no turn of its own; the model reads it
// with the thread's next model step. Note never waits for a running turn.
//
// A notice the audit log could not record is recorded again by the turn
// that takes it, which ends if it cannot be: no notice reaches the model
// unrecorded.
func (a *Agent) Note(threadID, text string) {
	_ = a.note(context.Background(), threadID, a.thread(threadID), text)
}

// note records a notice and posts it to t. One whose record fails is
// posted all the same, to be recorded by the turn that takes it.
func (a *Agent) note(ctx context.Context, threadID string, t *thread, text string) error {
	text = fsx.HideHome(text, a.opts.Home)
	err := a.record(ctx, wisp.Event{Thread: threadID, Source: wisp.SourceWisp, Data: wisp.NoticeData{Text: text}})
	t.notesMu.Lock()
	t.notes = append(t.notes, notice{text: text, recorded: err == nil})
	t.notesMu.Unlock()
	return err
}

// Hold takes a thread for one turn ahead of Respond, as Respond itself
// does: from this Agent's other turns on it and, when the store is a
// ThreadLocker, from every other Agent and process. A thread another turn
// holds is waited for, with one Notice (NoticeWaiting, LineBusy) through
// Options.Notifier, until ctx is done; a free thread is taken even under
// a done ctx.
//
// Respond on held, or on a context derived from it, runs on the held
// thread without taking it again; release gives the thread up once that
// Respond has returned (calls after the first do nothing). A caller that
// runs its turn apart from the request that asked for it, as wisp mcp
// does, holds the thread under the request's context, so that cancelling
// the request ends the wait.
func (a *Agent) Hold(ctx context.Context, thread string) (held context.Context, release func(), err error) {
	t := a.thread(thread)
	h := &holding{agent: a, id: thread}
	unlock, err := a.hold(ctx, thread, t)
	if err != nil {
		return nil, nil, err
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			h.mu.Lock()
			h.done = true
			h.mu.Unlock()
			unlock()
		})
	}
	return context.WithValue(ctx, holdingKey{}, h), release, nil
}

// A holding marks a context whose thread Hold took.
type holding struct {
	agent *Agent
	id    string

	mu   sync.Mutex
	done bool // released
	used bool // a Respond ran on it
}

type holdingKey struct{}

// heldBy reports whether ctx carries a live Hold of thread on a, and
// claims it for one Respond.
func (a *Agent) heldBy(ctx context.Context, thread string) bool {
	h, _ := ctx.Value(holdingKey{}).(*holding)
	if h == nil || h.agent != a || h.id != thread {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.done || h.used {
		return false
	}
	h.used = true
	return true
}

// hold takes thread t for a turn: from this Agent's other turns, then,
// through the store, from every other holder. A turn that must wait says
// so once; ctx ends the wait.
func (a *Agent) hold(ctx context.Context, id string, t *thread) (release func(), err error) {
	told := false
	waiting := func() {
		if !told {
			told = true
			a.notify(ctx, wisp.Notice{Kind: NoticeWaiting, Thread: id, Text: LineBusy(id)})
		}
	}
	select {
	case t.busy <- struct{}{}: // a free thread starts its turn, even under a done ctx
	default:
		waiting()
		select {
		case t.busy <- struct{}{}:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
	l, ok := a.opts.Store.(ThreadLocker)
	if !ok {
		return func() { <-t.busy }, nil
	}
	unlock, err := l.Lock(ctx, id, waiting)
	if err != nil {
		<-t.busy
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, fmt.Errorf("thread %s: %w", id, err)
	}
	return func() { unlock(); <-t.busy }, nil
}

// notify tells the person n through Options.Notifier, if any.
func (a *Agent) notify(ctx context.Context, n wisp.Notice) {
	if a.opts.Notifier != nil {
		_ = a.opts.Notifier.Notify(context.WithoutCancel(ctx), n)
	}
}

// load reads a thread from the store at the start of every turn, so that
// a turn never builds on a copy another Agent, or another process, has
// since moved on from (wisp mcp keeps one Agent per tool list; wisp respond
// --thread may go on with the same thread elsewhere). A thread that has
// reached MaxTurn, or whose stored numbers wisp never writes, is refused.
func (a *Agent) load(id string, t *thread) error {
	if a.opts.Store != nil {
		st, ok, err := a.opts.Store.Load(id)
		if err != nil {
			return fmt.Errorf("thread %s: %w", id, err)
		}
		if ok {
			if err := checkState(st); err != nil {
				return fmt.Errorf("thread %s: %w: %v; move it aside to start the thread afresh", id, ErrBadThread, err)
			}
			t.turn, t.messages, t.facts, t.factSeq = st.Turn, st.Messages, st.Facts, st.FactSeq
		}
	}
	if t.turn >= MaxTurn {
		return fmt.Errorf("thread %s has run %d turns, the most a thread runs; start a new thread", id, t.turn)
	}
	return nil
}

// checkState says what is wrong with a stored thread's numbers, or nil.
func checkState(st ThreadState) error {
	switch {
	case st.Turn < 0 || st.Turn > MaxTurn:
		return fmt.Errorf("it is at turn %d, and a turn is 0 to %d", st.Turn, MaxTurn)
	case st.FactSeq < 0 || st.FactSeq > MaxTurn:
		return fmt.Errorf("its factSeq is %d, and that is 0 to %d", st.FactSeq, MaxTurn)
	}
	return nil
}

// save writes a thread to the store.
func (a *Agent) save(id string, t *thread) error {
	if a.opts.Store == nil {
		return nil
	}
	return a.opts.Store.Save(id, t.state())
}

// takeNotes moves the thread's pending notices into its messages and
// returns them, recording those not yet recorded. It stops at the first
// that cannot be.
func (a *Agent) takeNotes(ctx context.Context, threadID string, t *thread) ([]notice, error) {
	t.notesMu.Lock()
	notes := t.notes
	t.notes = nil
	t.notesMu.Unlock()
	for i, n := range notes {
		if !n.recorded {
			if err := a.record(ctx, wisp.Event{Thread: threadID, Turn: t.turn, Source: wisp.SourceWisp,
				Data: wisp.NoticeData{Text: n.text}}); err != nil {
				return notes, err
			}
			notes[i].recorded = true
		}
		t.messages = append(t.messages, ThreadRecord{Kind: RecordNotice, Message: wisp.Message{Role: wisp.RoleUser, Content: n.text}})
	}
	return notes, nil
}

// add appends messages of the conversation to the thread.
func (t *thread) add(ms ...wisp.Message) {
	for _, m := range ms {
		t.messages = append(t.messages, ThreadRecord{Message: m})
	}
}

// Facts returns the facts a thread has learned.
func (a *Agent) Facts(threadID string) []wisp.Fact {
	t := a.thread(threadID)
	t.busy <- struct{}{}
	defer func() { <-t.busy }()
	return append([]wisp.Fact(nil), t.facts...)
}

// Respond runs one turn on a thread: the person's input, then model steps
// and tool calls until the model replies without calling a tool.
//
// The thread is held for the whole turn (see Hold): a turn on a thread
// another turn holds waits for it, and ctx ends the wait.
//
// A tool failure the model can act on goes back to the model. Respond
// returns an error when the turn cannot go on: the model failed, a tool's
// face or context failed, the person stopped the turn
// (wisp.ErrInterrupted), or the turn used more than MaxSteps model steps
// (wisp.ErrStepLimit). Such a turn is kept on its thread, as far as it
// went.
//
// A turn whose events could not all be recorded (an error wrapping
// wisp.ErrNotRecorded), or whose thread could not be saved (ErrNotSaved),
// is not kept: the thread stays as it was before the turn, and the error
// says so in one line. A reply that comes with an error is never the
// turn's answer.
func (a *Agent) Respond(ctx context.Context, threadID, input string) (wisp.Reply, error) {
	t := a.thread(threadID)
	if !a.heldBy(ctx, threadID) {
		release, err := a.hold(ctx, threadID, t)
		if err != nil {
			return wisp.Reply{}, err
		}
		defer release()
	}
	if err := a.load(threadID, t); err != nil {
		return wisp.Reply{}, err
	}
	before := t.state()
	var taken []wisp.Mail
	if a.opts.Inbox != nil {
		var err error
		if taken, err = a.opts.Inbox.Take(ctx, threadID, t.turn+1); err != nil {
			return wisp.Reply{}, fmt.Errorf("thread %s: %w", threadID, err)
		}
	}
	if a.opts.Redact != nil {
		// The person's own words too: a credential pasted into a message,
		// or a value the session's vault holds, reaches the model as its
		// marker.
		input = a.opts.Redact(input)
	}
	if stored := storedLen(input); stored > MaxInputBytes {
		input, _ = fit(input, MaxInputBytes)
		a.notify(ctx, wisp.Notice{Kind: wisp.NoticeCut, Thread: threadID, Text: lineInputCut(stored)})
	}
	t.turn++
	reply := wisp.Reply{Thread: threadID, Turn: t.turn}
	steps, notes, err := a.run(ctx, threadID, t, &reply, input, taken)
	return a.finish(ctx, threadID, t, turnEnd{before: before, notes: notes, mail: taken, steps: steps}, reply, err)
}

// turnEnd is what finish needs of a turn besides its reply and error.
type turnEnd struct {
	before ThreadState // the thread as the turn found it
	notes  []notice    // the notices the turn took
	mail   []wisp.Mail // what the inbox brought
	steps  int         // model steps taken
}

// run runs the turn's steps and records all but its end. It returns the
// steps taken and the notices it took into the thread.
func (a *Agent) run(ctx context.Context, threadID string, t *thread, reply *wisp.Reply, input string, taken []wisp.Mail) (int, []notice, error) {
	turn := reply.Turn
	if err := a.record(ctx, wisp.Event{Thread: threadID, Turn: turn, Source: wisp.SourcePerson,
		Data: wisp.TurnStartedData{Input: input}}); err != nil {
		return 0, nil, err
	}
	var mail []wisp.Fact // facts the inbox brought
	for _, m := range taken {
		if m.Text != "" {
			if err := a.note(ctx, threadID, t, m.Text); err != nil {
				return 0, nil, err
			}
		}
		mail = append(mail, m.Facts...)
	}
	notes, err := a.takeNotes(ctx, threadID, t)
	if err != nil {
		return 0, notes, err
	}
	answered := a.learn(t, reply, mail)
	turnStart := len(t.messages)
	t.add(wisp.Message{Role: wisp.RoleUser, Content: input})
	for step := 1; step <= a.opts.MaxSteps; step++ {
		var err error
		if turnStart, err = a.condense(ctx, threadID, t, turnStart); err != nil {
			return step - 1, notes, err
		}
		req := wisp.ChatRequest{Messages: a.prompt(t)}
		if a.opts.Tools != nil {
			req.Tools = a.opts.Tools.Specs()
		}
		msg, refused, err := a.ask(ctx, threadID, req)
		if err != nil {
			return step, notes, err
		}
		t.add(msg)
		if err := a.record(ctx, wisp.Event{Thread: threadID, Turn: turn, Source: wisp.SourceModel,
			Data: a.messageData(msg)}); err != nil {
			return step, notes, err
		}

		if len(msg.ToolCalls) == 0 {
			reply.Text = msg.Content
			flags, err := a.verify(ctx, threadID, turn, msg.Content, answered)
			reply.Flags = flags
			return step, notes, err
		}
		for i, call := range msg.ToolCalls {
			res, err := a.call(ctx, threadID, turn, call, refused[i], t.facts)
			if err != nil {
				// Every call keeps a result, so the thread stays well formed
				// for the next turn.
				for _, c := range msg.ToolCalls[i:] {
					t.add(wisp.Message{Role: wisp.RoleTool, ToolCallID: c.ID, Name: c.Name, Content: LineStopped})
				}
				return step, notes, err
			}
			if a.learn(t, reply, res.Facts) {
				answered = true
			}
			t.add(wisp.Message{Role: wisp.RoleTool, ToolCallID: call.ID, Name: call.Name, Content: res.Content})
		}
		if size := messagesBytes(t.messages[turnStart:]); size > MaxTurnBytes {
			return step, notes, fmt.Errorf("%w: it takes %d bytes, and a turn keeps at most %d; it ended here and is kept as far as it went: ask for less at a time", ErrTurnTooLarge, size, MaxTurnBytes)
		}
	}
	return a.opts.MaxSteps, notes, fmt.Errorf("%w: %d model steps without a reply; raise the limit or look at what the model keeps calling", wisp.ErrStepLimit, a.opts.MaxSteps)
}

// finish ends a turn: it saves the thread and records turn.ended, in that
// order, so that a turn on the thread is a turn the audit log ends. A turn
// that could not be recorded, or saved, is undone (the thread is put back
// as the turn found it) and its error says so; the inbox's mail is
// forgotten only once a kept turn holds it.
func (a *Agent) finish(ctx context.Context, id string, t *thread, end turnEnd, reply wisp.Reply, err error) (wisp.Reply, error) {
	ended := func(err error) wisp.Event {
		data := wisp.TurnEndedData{Steps: end.steps}
		if err != nil {
			data = wisp.TurnEndedData{Error: err.Error(), Interrupted: errors.Is(err, wisp.ErrInterrupted)}
		}
		return wisp.Event{Thread: id, Turn: reply.Turn, Source: wisp.SourceWisp, Data: data}
	}
	if errors.Is(err, wisp.ErrNotRecorded) {
		t.restore(end.before, end.notes)
		err = notKept(err)
		_ = a.record(ctx, ended(err)) // tried, for what the log can still take
		return reply, err
	}
	if serr := a.save(id, t); serr != nil {
		t.restore(end.before, end.notes)
		err = &turnError{line: fmt.Sprintf("thread %s could not be saved: %v; this turn was not kept", id, serr), kind: ErrNotSaved, cause: serr}
		if rerr := a.record(ctx, ended(err)); rerr != nil {
			err = &turnError{line: fmt.Sprintf("%v, and %v", err, rerr), kind: ErrNotSaved, cause: serr}
		}
		return reply, err
	}
	if rerr := a.record(ctx, ended(err)); rerr != nil {
		// The thread holds a turn whose end the log does not: put the
		// thread back.
		t.restore(end.before, end.notes)
		if serr := a.save(id, t); serr != nil {
			return reply, &turnError{line: fmt.Sprintf("%v; and thread %s could not be put back as it was (%v), so it holds this turn unrecorded", rerr, id, serr),
				kind: wisp.ErrNotRecorded, cause: rerr}
		}
		return reply, notKept(rerr)
	}
	if len(end.mail) > 0 {
		// Mail is forgotten only once the thread holds it; unsaved, it
		// comes again with the next turn.
		a.opts.Inbox.Delivered(context.WithoutCancel(ctx), id, end.mail)
	}
	return reply, err
}

// notKept says of a turn's error that nothing of the turn was kept.
func notKept(err error) error {
	return fmt.Errorf("%w; nothing of this turn was kept", err)
}

// A turnError is one line for the person, with the sentinel it is and
// the failure that caused it.
type turnError struct {
	line  string
	kind  error
	cause error
}

func (e *turnError) Error() string   { return e.line }
func (e *turnError) Unwrap() []error { return []error{e.kind, e.cause} }

// learn adds facts to the thread and the reply, numbering them, and
// reports whether one of them is the person's answer.
func (a *Agent) learn(t *thread, reply *wisp.Reply, facts []wisp.Fact) (answered bool) {
	for _, f := range facts {
		t.factSeq++
		f.ID = fmt.Sprintf("c%d", t.factSeq)
		if f.Turn == 0 {
			f.Turn = reply.Turn
		}
		t.facts = append(t.facts, f)
		reply.Facts = append(reply.Facts, f)
		if f.Subject == "answer" && f.Source == wisp.SourcePerson {
			answered = true
		}
	}
	return answered
}

// call runs one tool call and records it; the tool is given a copy of
// the thread's facts. A call that could not be recorded is not run; one
// refused (its result says why) is recorded, and not run.
func (a *Agent) call(ctx context.Context, threadID string, turn int, tc wisp.ToolCall, refused string, facts []wisp.Fact) (wisp.Result, error) {
	if err := a.record(ctx, wisp.Event{Thread: threadID, Turn: turn, Source: wisp.SourceModel,
		Data: a.callData(tc)}); err != nil {
		return wisp.Result{}, err
	}
	c := wisp.Call{ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments, Session: a.opts.Session, Thread: threadID, Turn: turn,
		Facts: slices.Clone(facts), Output: a.opts.OnOutput}
	var res wisp.Result
	var err error
	switch {
	case refused != "":
		res = wisp.Result{Content: refused, IsError: true}
	case a.opts.Tools == nil:
		res = wisp.ErrorResult(fmt.Sprintf("there is no tool named %q in this conversation; it has no tools", tc.Name))
	default:
		var t wisp.Tool
		if t, c, res = a.opts.Tools.Check(c); t != nil {
			res, err = CallTool(ctx, a.opts.Guard, t, c)
		}
	}
	res.Content = fsx.HideHome(res.Content, a.opts.Home)
	if a.opts.Redact != nil {
		res.Content = a.opts.Redact(res.Content)
	}
	res.Content, _ = fit(res.Content, MaxMessageBytes)
	data := wisp.ToolResultData{ID: a.redact(tc.ID), Name: a.redact(tc.Name), Content: res.Content, IsError: res.IsError}
	if err != nil {
		data = wisp.ToolResultData{ID: data.ID, Name: data.Name, Error: err.Error()}
	}
	if rerr := a.record(ctx, wisp.Event{Thread: threadID, Turn: turn, Source: wisp.SourceTool, Data: data}); rerr != nil {
		return res, rerr
	}
	return res, err
}

// prompt builds the messages the model is sent: the system prompt, the
// thread's facts, then its messages.
func (a *Agent) prompt(t *thread) []wisp.Message {
	var msgs []wisp.Message
	if a.opts.System != "" {
		msgs = append(msgs, wisp.Message{Role: wisp.RoleSystem, Content: a.opts.System})
	}
	if len(t.facts) > 0 {
		var b strings.Builder
		b.WriteString(factsHeader)
		for _, f := range t.facts {
			b.WriteString("\n")
			b.WriteString(f.String())
		}
		msgs = append(msgs, wisp.Message{Role: wisp.RoleSystem, Content: b.String()})
	}
	for _, r := range t.messages {
		msgs = append(msgs, r.Message)
	}
	return msgs
}

// LineStopped is the result a tool call keeps when its turn ended before
// the call finished.
const LineStopped = "error: the turn ended before this call finished; nothing was done"

// factsHeader opens the message that carries a thread's facts.
const factsHeader = "Facts of this thread (kept when the conversation is condensed):"

// condensedNote stands where condensed messages were.
const condensedNote = "[wisp: %d earlier messages of this thread were condensed away; the facts above keep what was learned]"

// estimateTokens guesses how many tokens a text takes: about four bytes a
// token for the languages models are mostly trained on. It only decides
// when to condense, so a rough figure serves.
func estimateTokens(s string) int { return len(s)/4 + 1 }

func messagesTokens(ms []ThreadRecord) int {
	n := 0
	for _, m := range ms {
		n += estimateTokens(m.Content) + 4
		for _, c := range m.ToolCalls {
			n += estimateTokens(c.Name) + estimateTokens(string(c.Arguments))
		}
	}
	return n
}

// A ContextSizer is a wisp.Model that can say how much context its
// runner has for it, which may be less than the most the model takes:
// Ollama loads a model with its own default unless asked for more. The
// agent asks before each step and condenses the thread to fit.
type ContextSizer interface {
	// ContextTokens returns the tokens of context the model's runner has
	// for it, or 0 when it cannot tell. It may load the model to find
	// out, as the step's request would.
	ContextTokens(ctx context.Context) int
}

// contextTokens is the context a request must fit: what the model says
// its runner has, else Options.ContextTokens.
func (a *Agent) contextTokens(ctx context.Context) int {
	if s, ok := a.model.(ContextSizer); ok {
		if n := s.ContextTokens(ctx); n > 0 {
			return n
		}
	}
	return a.opts.ContextTokens
}

// condense drops a thread's oldest turns when it holds more than
// MaxHistory messages, when its request would not fit the context the
// model runs with (contextTokens, with a quarter kept for the reply), or
// when its messages and facts would take more than MaxThreadBytes stored.
// It drops
// whole turns from the front, starting each kept part at a message the
// person wrote so no tool result loses its call; the system prompt, the
// facts, the notices and the current turn are always kept. Each
// condensing is recorded as thread.condensed.
func (a *Agent) condense(ctx context.Context, threadID string, t *thread, turnStart int) (int, error) {
	budget := 0
	if n := a.contextTokens(ctx); n > 0 {
		budget = n * 3 / 4
	}
	fixed := estimateTokens(a.opts.System) + messagesTokens(nil)
	for _, f := range t.facts {
		fixed += estimateTokens(f.String())
	}
	factsSize := 0
	for _, f := range t.facts {
		factsSize += factBytes(f)
	}
	// The tokens and bytes of the messages from i on, for every i.
	n := len(t.messages)
	tokens, bytes := make([]int, n+1), make([]int, n+1)
	for i := n - 1; i >= 0; i-- {
		m := t.messages[i : i+1]
		tokens[i], bytes[i] = tokens[i+1]+messagesTokens(m), bytes[i+1]+messagesBytes(m)
	}
	tooLong := func(from int) (bool, string) {
		switch {
		case n-from > a.opts.MaxHistory:
			return true, "messages"
		case budget > 0 && fixed+tokens[from] > budget:
			return true, "context"
		case factsSize+bytes[from] > MaxThreadBytes:
			return true, "size"
		}
		return false, ""
	}
	over, reason := tooLong(0)
	if !over {
		return turnStart, nil
	}
	// Cut at person's messages, oldest first, never into the current turn.
	cut := 0
	for i := 1; i <= turnStart && i < n; i++ {
		if t.messages[i].Kind != RecordMessage || t.messages[i].Role != wisp.RoleUser {
			continue
		}
		cut = i
		if over, _ := tooLong(i); !over {
			break
		}
	}
	if cut == 0 {
		return turnStart, nil // only the current turn is left; it is kept whole
	}
	var notices []ThreadRecord
	dropped := 0
	for _, r := range t.messages[:cut] {
		switch r.Kind {
		case RecordNotice:
			notices = append(notices, r)
		case RecordCondensed:
			// the note of an earlier condensing is not a message of the thread
		default:
			dropped++
		}
	}
	note := ThreadRecord{Kind: RecordCondensed, Message: wisp.Message{Role: wisp.RoleSystem, Content: fmt.Sprintf(condensedNote, dropped)}}
	kept := append([]ThreadRecord{note}, notices...)
	kept = append(kept, t.messages[cut:]...)
	if err := a.record(ctx, wisp.Event{Thread: threadID, Turn: t.turn, Source: wisp.SourceWisp,
		Data: wisp.CondensedData{Dropped: dropped, Kept: len(kept), Reason: reason, Facts: len(t.facts)}}); err != nil {
		return turnStart, err
	}
	t.messages = kept
	return turnStart - cut + 1 + len(notices), nil
}

// record hands e to Options.Events. The audit log writes it even when ctx
// is done, and ctx ends only a long wait for the log's lock; an event that
// was not recorded is an error wrapping wisp.ErrNotRecorded, which ends
// the turn.
func (a *Agent) record(ctx context.Context, e wisp.Event) error {
	if a.opts.Events == nil {
		return nil
	}
	e.Time = a.opts.Now()
	e.Session = a.opts.Session
	return wisp.Record(ctx, a.opts.Events, e)
}

// messageData is model.message's data for m; the names of its tool calls
// are redacted as callData's are.
func (a *Agent) messageData(m wisp.Message) wisp.ModelMessageData {
	d := wisp.ModelMessageData{Content: m.Content}
	for _, c := range m.ToolCalls {
		d.ToolCalls = append(d.ToolCalls, a.redact(c.Name))
	}
	return d
}

// callData is tool.call's data for tc. With Redact set, the call's id,
// name and arguments are redacted, the arguments' keys too and each value
// in the light of its key, so that what the model put in a call reaches
// no event sink (the audit log, a screen) raw; arguments that are not
// JSON, or that jsonredact cannot read, are redacted as one string. With
// a tool that is a wisp.Summarizer it holds the tool's summary too.
func (a *Agent) callData(tc wisp.ToolCall) wisp.ToolCallData {
	d := wisp.ToolCallData{ID: a.redact(tc.ID), Name: a.redact(tc.Name), Arguments: wisp.ToolArguments(tc.Arguments)}
	if a.opts.Redact != nil && len(tc.Arguments) > 0 {
		b, err := jsonredact.Redact(tc.Arguments, a.opts.Redact)
		if !json.Valid(tc.Arguments) || err != nil {
			b = jsonString(a.opts.Redact(string(tc.Arguments)))
		}
		d.Arguments = b
	}
	if a.opts.Tools != nil {
		// What a face shows of the call: never the words of a question
		// before the desk has taken it (wisp.Summarizer).
		if s, ok := a.opts.Tools.Summary(tc.Name, tc.Arguments); ok {
			s = a.redact(s)
			d.Summary = &s
		}
	}
	return d
}

// redact is Options.Redact, or s as it is when none is set.
func (a *Agent) redact(s string) string {
	if a.opts.Redact == nil {
		return s
	}
	return a.opts.Redact(s)
}

// jsonString is s as a JSON string, with <, > and & as they are.
func jsonString(s string) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func randomID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
