// Package agent runs turns: the model, its tool calls, their results, the
// model again, until a reply without tool calls. It keeps each thread's
// messages and facts, condenses long threads without losing facts, and
// checks every final reply with the verification pass.
package agent

import (
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
	// MaxSteps bounds the model steps of one turn (DefaultMaxSteps).
	MaxSteps int
	// MaxHistory is how many messages a thread keeps before it is
	// condensed (DefaultMaxHistory); facts are always kept.
	MaxHistory int
	// ContextTokens is the model's context length (from its facts); when
	// a request would not fit three quarters of it, older turns are
	// condensed. 0: only MaxHistory applies.
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
	Inbox Inbox
}

// A Mail is something that arrived for a thread between turns: a notice
// the model reads before the person's input, and the facts it brings.
type Mail struct {
	// Text is the notice, wisp's word to the model.
	Text string
	// Facts become the thread's, as a tool result's do; their IDs are
	// assigned by the thread.
	Facts []wisp.Fact
	// Key lets the Inbox tell its mail apart in Delivered; the agent does
	// not read it.
	Key string
}

// An Inbox holds mail for threads. Take is called at the start of a turn,
// after the thread is loaded; the mail is posted as notices, in order,
// before the person's input. Delivered is called with the same mail once
// the thread has been saved with it, whatever the turn's end, so the
// Inbox can forget it. A crash between the two delivers the mail again
// on the next turn rather than losing it.
//
// An error from Take ends the turn before the model is asked. Inboxes must
// be safe for concurrent use.
type Inbox interface {
	Take(ctx context.Context, thread string, turn int) ([]Mail, error)
	Delivered(ctx context.Context, thread string, mail []Mail)
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
type ThreadStore interface {
	Load(id string) (st ThreadState, ok bool, err error)
	Save(id string, st ThreadState) error
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
	notes   []string // notices not yet in the thread's messages

	busy     chan struct{} // holds a token while a turn runs
	turn     int
	messages []ThreadRecord
	facts    []wisp.Fact
	factSeq  int
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
func (a *Agent) Note(threadID, text string) {
	text = fsx.HideHome(text, a.opts.Home)
	t := a.thread(threadID)
	t.notesMu.Lock()
	t.notes = append(t.notes, text)
	t.notesMu.Unlock()
	a.record(context.Background(), wisp.Event{Kind: wisp.KindNotice, Thread: threadID, Source: wisp.SourceWisp,
		Data: map[string]any{"text": text}})
}

// load reads a thread from the store at the start of every turn, so that
// a turn never builds on a copy another Agent, or another process, has
// since moved on from (wisp mcp keeps one Agent per tool list; wisp respond
// --thread may go on with the same thread elsewhere).
func (a *Agent) load(id string, t *thread) error {
	if a.opts.Store == nil {
		return nil
	}
	st, ok, err := a.opts.Store.Load(id)
	if err != nil {
		return fmt.Errorf("thread %s: %w", id, err)
	}
	if ok {
		t.turn, t.messages, t.facts, t.factSeq = st.Turn, st.Messages, st.Facts, st.FactSeq
	}
	return nil
}

// save writes a thread to the store after a turn, whatever its end, and
// reports whether it did. A failure is recorded; the turn's reply stands.
func (a *Agent) save(ctx context.Context, id string, t *thread) bool {
	if a.opts.Store == nil {
		return true
	}
	st := ThreadState{Turn: t.turn, Messages: t.messages, Facts: t.facts, FactSeq: t.factSeq}
	if err := a.opts.Store.Save(id, st); err != nil {
		a.record(ctx, wisp.Event{Kind: wisp.KindTurnEnded, Thread: id, Turn: t.turn, Source: wisp.SourceWisp,
			Data: map[string]any{"error": "the thread was not saved: " + err.Error()}})
		return false
	}
	return true
}

// takeNotes moves the thread's pending notices into its messages.
func (t *thread) takeNotes() {
	t.notesMu.Lock()
	notes := t.notes
	t.notes = nil
	t.notesMu.Unlock()
	for _, n := range notes {
		t.messages = append(t.messages, ThreadRecord{Kind: RecordNotice, Message: wisp.Message{Role: wisp.RoleUser, Content: n}})
	}
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
// A tool failure the model can act on goes back to the model. Respond
// returns an error when the turn cannot go on: the model failed, a tool's
// face or context failed, the person stopped the turn
// (wisp.ErrInterrupted), or the turn used more than MaxSteps model steps
// (wisp.ErrStepLimit).
func (a *Agent) Respond(ctx context.Context, threadID, input string) (wisp.Reply, error) {
	t := a.thread(threadID)
	select {
	case t.busy <- struct{}{}: // a free thread starts its turn, even under a done ctx
	default:
		select {
		case t.busy <- struct{}{}:
		case <-ctx.Done():
			return wisp.Reply{}, context.Cause(ctx)
		}
	}
	defer func() { <-t.busy }()
	if err := a.load(threadID, t); err != nil {
		return wisp.Reply{}, err
	}
	var mail []wisp.Fact // facts the inbox brought
	var taken []Mail
	if a.opts.Inbox != nil {
		var err error
		if taken, err = a.opts.Inbox.Take(ctx, threadID, t.turn+1); err != nil {
			return wisp.Reply{}, fmt.Errorf("thread %s: %w", threadID, err)
		}
	}
	defer func() {
		// Mail is forgotten only once the thread holds it; unsaved, it
		// comes again with the next turn.
		if a.save(ctx, threadID, t) && len(taken) > 0 {
			a.opts.Inbox.Delivered(context.WithoutCancel(ctx), threadID, taken)
		}
	}()

	if a.opts.Redact != nil {
		// The person's own words too: a credential pasted into a message,
		// or a value the session's vault holds, reaches the model as its
		// marker.
		input = a.opts.Redact(input)
	}
	t.turn++
	turn := t.turn
	reply := wisp.Reply{Thread: threadID, Turn: turn}
	a.record(ctx, wisp.Event{Kind: wisp.KindTurnStarted, Thread: threadID, Turn: turn, Source: wisp.SourcePerson,
		Data: map[string]any{"input": input}})
	for _, m := range taken {
		if m.Text != "" {
			a.Note(threadID, m.Text)
		}
		mail = append(mail, m.Facts...)
	}
	t.takeNotes()
	answered := a.learn(t, &reply, mail)
	turnStart := len(t.messages)
	t.add(wisp.Message{Role: wisp.RoleUser, Content: input})
	for step := 1; step <= a.opts.MaxSteps; step++ {
		turnStart = a.condense(ctx, threadID, t, turnStart)
		req := wisp.ChatRequest{Messages: a.prompt(t)}
		if a.opts.Tools != nil {
			req.Tools = a.opts.Tools.Specs()
		}
		var stream func(wisp.ChatDelta)
		if a.opts.OnDelta != nil {
			stream = func(d wisp.ChatDelta) { a.opts.OnDelta(threadID, d) }
		}
		resp, err := a.model.Chat(ctx, req, stream)
		if err != nil {
			return a.fail(ctx, reply, fmt.Errorf("model: %w", err))
		}
		msg := resp.Message
		msg.Role = wisp.RoleAssistant
		for i := range msg.ToolCalls {
			if msg.ToolCalls[i].ID == "" {
				msg.ToolCalls[i].ID = "call_" + a.opts.NewID()
			}
		}
		t.add(msg)
		a.record(ctx, wisp.Event{Kind: wisp.KindModelMessage, Thread: threadID, Turn: turn, Source: wisp.SourceModel,
			Data: a.messageData(msg)})

		if len(msg.ToolCalls) == 0 {
			reply.Text = msg.Content
			reply.Flags = a.verify(ctx, threadID, turn, msg.Content, answered)
			a.record(ctx, wisp.Event{Kind: wisp.KindTurnEnded, Thread: threadID, Turn: turn, Source: wisp.SourceWisp,
				Data: map[string]any{"steps": step}})
			return reply, nil
		}
		for i, call := range msg.ToolCalls {
			res, err := a.call(ctx, threadID, turn, call, t.facts)
			if err != nil {
				// Every call keeps a result, so the thread stays well formed
				// for the next turn.
				for _, c := range msg.ToolCalls[i:] {
					t.add(wisp.Message{Role: wisp.RoleTool, ToolCallID: c.ID, Name: c.Name, Content: LineStopped})
				}
				return a.fail(ctx, reply, err)
			}
			if a.learn(t, &reply, res.Facts) {
				answered = true
			}
			t.add(wisp.Message{Role: wisp.RoleTool, ToolCallID: call.ID, Name: call.Name, Content: res.Content})
		}
	}
	return a.fail(ctx, reply, fmt.Errorf("%w: %d model steps without a reply; raise the limit or look at what the model keeps calling", wisp.ErrStepLimit, a.opts.MaxSteps))
}

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
// the thread's facts.
func (a *Agent) call(ctx context.Context, threadID string, turn int, tc wisp.ToolCall, facts []wisp.Fact) (wisp.Result, error) {
	a.record(ctx, wisp.Event{Kind: wisp.KindToolCall, Thread: threadID, Turn: turn, Source: wisp.SourceModel,
		Data: a.callData(tc)})
	c := wisp.Call{ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments, Session: a.opts.Session, Thread: threadID, Turn: turn,
		Facts: slices.Clone(facts)}
	var res wisp.Result
	var err error
	if a.opts.Tools == nil {
		res = wisp.ErrorResult(fmt.Sprintf("there is no tool named %q in this conversation; it has no tools", tc.Name))
	} else {
		res, err = a.opts.Tools.Call(ctx, c)
	}
	res.Content = fsx.HideHome(res.Content, a.opts.Home)
	if a.opts.Redact != nil {
		res.Content = a.opts.Redact(res.Content)
	}
	data := map[string]any{"id": a.redact(tc.ID), "name": a.redact(tc.Name)}
	if err != nil {
		data["error"] = err.Error()
	} else {
		data["content"] = res.Content
		if res.IsError {
			data["isError"] = true
		}
	}
	a.record(ctx, wisp.Event{Kind: wisp.KindToolResult, Thread: threadID, Turn: turn, Source: wisp.SourceTool, Data: data})
	return res, err
}

func (a *Agent) fail(ctx context.Context, reply wisp.Reply, err error) (wisp.Reply, error) {
	a.record(ctx, wisp.Event{Kind: wisp.KindTurnEnded, Thread: reply.Thread, Turn: reply.Turn, Source: wisp.SourceWisp,
		Data: map[string]any{"error": err.Error(), "interrupted": errors.Is(err, wisp.ErrInterrupted)}})
	return reply, err
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

// condense drops a thread's oldest turns when it holds more than
// MaxHistory messages, or when its request would not fit the model's
// context (ContextTokens, with a quarter kept for the reply). It drops
// whole turns from the front, starting each kept part at a message the
// person wrote so no tool result loses its call; the system prompt, the
// facts, the notices and the current turn are always kept. Each
// condensing is recorded as thread.condensed.
func (a *Agent) condense(ctx context.Context, threadID string, t *thread, turnStart int) int {
	budget := 0
	if a.opts.ContextTokens > 0 {
		budget = a.opts.ContextTokens * 3 / 4
	}
	fixed := estimateTokens(a.opts.System) + messagesTokens(nil)
	for _, f := range t.facts {
		fixed += estimateTokens(f.String())
	}
	tooLong := func(ms []ThreadRecord) (bool, string) {
		switch {
		case len(ms) > a.opts.MaxHistory:
			return true, "messages"
		case budget > 0 && fixed+messagesTokens(ms) > budget:
			return true, "context"
		}
		return false, ""
	}
	over, reason := tooLong(t.messages)
	if !over {
		return turnStart
	}
	// Cut at person's messages, oldest first, never into the current turn.
	cut := 0
	for i := 1; i <= turnStart && i < len(t.messages); i++ {
		if t.messages[i].Kind != RecordMessage || t.messages[i].Role != wisp.RoleUser {
			continue
		}
		cut = i
		if over, _ := tooLong(t.messages[i:]); !over {
			break
		}
	}
	if cut == 0 {
		return turnStart // only the current turn is left; it is kept whole
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
	a.record(ctx, wisp.Event{Kind: wisp.KindCondensed, Thread: threadID, Turn: t.turn, Source: wisp.SourceWisp,
		Data: map[string]any{"dropped": dropped, "kept": len(kept), "reason": reason, "facts": len(t.facts)}})
	t.messages = kept
	return turnStart - cut + 1 + len(notices)
}

func (a *Agent) record(ctx context.Context, e wisp.Event) {
	if a.opts.Events == nil {
		return
	}
	e.Time = a.opts.Now()
	e.Session = a.opts.Session
	_ = a.opts.Events.Record(context.WithoutCancel(ctx), e)
}

// messageData is model.message's data for m; the names of its tool calls
// are redacted as callData's are.
func (a *Agent) messageData(m wisp.Message) map[string]any {
	d := map[string]any{"content": m.Content}
	if len(m.ToolCalls) > 0 {
		names := make([]string, len(m.ToolCalls))
		for i, c := range m.ToolCalls {
			names[i] = a.redact(c.Name)
		}
		d["toolCalls"] = names
	}
	return d
}

// callData is tool.call's data for tc. With Redact set, the call's id,
// name and arguments are redacted, the arguments' keys too and each value
// in the light of its key, so that what the model put in a call reaches
// no event sink (the audit log, a screen) raw. With a tool that is a
// wisp.Summarizer it holds the tool's summary too.
func (a *Agent) callData(tc wisp.ToolCall) map[string]any {
	args := rawOrString(tc.Arguments)
	if a.opts.Redact != nil {
		switch v := args.(type) {
		case json.RawMessage:
			if b, err := jsonredact.Redact(v, a.opts.Redact); err == nil {
				args = json.RawMessage(b)
			} else {
				args = a.opts.Redact(string(v))
			}
		case string:
			args = a.opts.Redact(v)
		}
	}
	data := map[string]any{"id": a.redact(tc.ID), "name": a.redact(tc.Name), "arguments": args}
	if a.opts.Tools != nil {
		// What a face shows of the call: never the words of a question
		// before the desk has taken it (wisp.Summarizer).
		if s, ok := a.opts.Tools.Summary(tc.Name, tc.Arguments); ok {
			data["summary"] = a.redact(s)
		}
	}
	return data
}

// redact is Options.Redact, or s as it is when none is set.
func (a *Agent) redact(s string) string {
	if a.opts.Redact == nil {
		return s
	}
	return a.opts.Redact(s)
}

// rawOrString keeps arguments that are JSON as JSON in the event, and
// anything else as a string.
func rawOrString(b json.RawMessage) any {
	if len(b) == 0 {
		return map[string]any{}
	}
	if json.Valid(b) {
		return b
	}
	return string(b)
}

func randomID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
