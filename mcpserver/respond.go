package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/agent/threadfile"
	"github.com/wisp-agent/wisp/inquiry"
	"github.com/wisp-agent/wisp/inquiry/mcpface"
	"github.com/wisp-agent/wisp/internal/fsx"
	"github.com/wisp-agent/wisp/tools"
)

// ToolName is the name of the tool that runs a turn.
const ToolName = "respond"

// MaxPrompt bounds a prompt, in characters.
const MaxPrompt = 100000

// respondDescription is what the caller's model reads about respond.
const respondDescription = "Runs one turn of wisp's local agent on a thread: wisp's model reads the prompt " +
	"and the thread so far, may run its tools, and replies. The reply and the thread_id come back; pass the " +
	"thread_id again to continue the same conversation. Without thread_id a new thread starts; a thread_id " +
	"wisp has never seen starts a thread of that name. tools names the tools wisp's model may use on this " +
	"turn (left out: every tool the person's settings allow; an empty list: none). Any question wisp's model " +
	"asks goes to the person, never to you: if they have not answered within a minute, the turn parks it, " +
	"the result lists it under waiting, and their answer reaches the thread's next turn. Each thread is " +
	"readable as the resource " +
	"wisp://threads/{thread_id}."

// respondInput is the JSON Schema of respond's arguments.
var respondInput = json.RawMessage(`{
  "type": "object",
  "properties": {
    "prompt": {
      "type": "string",
      "minLength": 1,
      "maxLength": 100000,
      "description": "What to say to wisp's agent on this turn."
    },
    "thread_id": {
      "type": "string",
      "pattern": "^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$",
      "description": "The thread to continue, as an earlier call returned it; left out, a new thread starts."
    },
    "tools": {
      "type": "array",
      "items": {"type": "string"},
      "description": "The tools wisp's agent may use on this turn; left out, every tool the settings allow."
    }
  },
  "required": ["prompt"],
  "additionalProperties": false
}`)

// respondOutput is the JSON Schema of respond's structured result.
var respondOutput = json.RawMessage(`{
  "type": "object",
  "properties": {
    "reply": {"type": "string", "description": "wisp's reply"},
    "thread_id": {"type": "string", "description": "the thread the turn ran on"},
    "turn": {"type": "integer", "description": "the turn's number on the thread, from 1"},
    "flags": {"type": "array", "items": {"type": "string"}, "description": "claims in the reply that the turn cannot back"},
    "waiting": {
      "type": "array",
      "description": "questions wisp's model asked that wait for the person; their answers reach the thread's next turn",
      "items": {
        "type": "object",
        "properties": {"question_id": {"type": "string"}, "question": {"type": "string"}},
        "required": ["question_id", "question"]
      }
    }
  },
  "required": ["reply", "thread_id", "turn"]
}`)

// respondTool is respond's definition. It is a literal, not mcp.NewTool:
// NewTool fills in InputSchema, and a tool with both InputSchema and
// RawInputSchema fails to marshal.
func respondTool() mcp.Tool {
	return mcp.Tool{
		Name:            ToolName,
		Description:     respondDescription,
		RawInputSchema:  respondInput,
		RawOutputSchema: respondOutput,
		Annotations: mcp.ToolAnnotation{
			Title: "Ask wisp",
			// It changes the thread and its tools may change files, but
			// every command passes wisp's policy and the person's gate;
			// nothing reaches beyond the machine by itself.
			ReadOnlyHint:    mcp.ToBoolPtr(false),
			DestructiveHint: mcp.ToBoolPtr(false),
			IdempotentHint:  mcp.ToBoolPtr(false),
			OpenWorldHint:   mcp.ToBoolPtr(false),
		},
	}
}

// RespondResult is respond's structured result.
type RespondResult struct {
	Reply    string   `json:"reply"`
	ThreadID string   `json:"thread_id"`
	Turn     int      `json:"turn"`
	Flags    []string `json:"flags,omitempty"`
	// Waiting lists the questions the turn parked: they wait for the
	// person, and their answers reach the thread's next turn.
	Waiting []WaitingQuestion `json:"waiting,omitempty"`
}

// A WaitingQuestion is a question a turn parked.
type WaitingQuestion struct {
	ID       string `json:"question_id"`
	Question string `json:"question"`
}

// respondArgs are respond's arguments, checked.
type respondArgs struct {
	prompt string
	thread string   // "" for a new thread
	tools  []string // nil: every tool
}

// parseRespond checks respond's arguments; the error is a line for the
// caller.
func parseRespond(raw any) (respondArgs, error) {
	args, ok := raw.(map[string]any)
	if !ok {
		return respondArgs{}, fmt.Errorf("the arguments must be an object with prompt, and optionally thread_id and tools")
	}
	var a respondArgs
	for k := range args {
		if k != "prompt" && k != "thread_id" && k != "tools" {
			return respondArgs{}, fmt.Errorf("unknown argument %q; respond takes prompt, thread_id and tools", k)
		}
	}
	p, ok := args["prompt"].(string)
	switch n := utf8.RuneCountInString(p); {
	case !ok || n == 0:
		return respondArgs{}, fmt.Errorf("prompt is required: a string of 1 to %d characters", MaxPrompt)
	case n > MaxPrompt:
		return respondArgs{}, fmt.Errorf("prompt has %d characters; the most is %d", n, MaxPrompt)
	}
	a.prompt = p
	if v, ok := args["thread_id"]; ok && v != nil {
		id, isString := v.(string)
		if !isString || !threadfile.ValidID(id) {
			return respondArgs{}, fmt.Errorf("thread_id %s is not a thread id: %v; pass one an earlier call returned, or leave it out for a new thread", short(v), threadfile.ErrBadID)
		}
		a.thread = id
	}
	if v, ok := args["tools"]; ok && v != nil {
		list, isList := v.([]any)
		if !isList {
			return respondArgs{}, fmt.Errorf("tools must be a list of tool names")
		}
		a.tools = make([]string, 0, len(list))
		for _, item := range list {
			name, isString := item.(string)
			if !isString {
				return respondArgs{}, fmt.Errorf("tools must be a list of tool names; %s is not a name", short(item))
			}
			a.tools = append(a.tools, name)
		}
	}
	return a, nil
}

// short renders a JSON value for an error line, cut to 60 bytes.
func short(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(b)
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

// errorResult is a result the caller can read and act on: one line, with
// the wisp home written $WISP_HOME.
func (s *Server) errorResult(format string, a ...any) *mcp.CallToolResult {
	return mcp.NewToolResultError("error: " + oneLine(fsx.HideHome(fmt.Sprintf(format, a...), s.opts.Home)))
}

// conversationError is the result for an agent Conversations could not
// build. A tool name respond's tools argument gave that wisp has no tool
// of is answered in the caller's terms.
func (s *Server) conversationError(err error) *mcp.CallToolResult {
	var unknown *tools.UnknownToolError
	if errors.As(err, &unknown) && len(unknown.Known) == 0 {
		return s.errorResult("%s's tools argument names %q, but wisp has no tools here; pass tools as [] or leave it out", ToolName, unknown.Name)
	}
	if errors.As(err, &unknown) {
		return s.errorResult("%s's tools argument names %q, which is not one of wisp's tools (%s); name tools from that list, "+
			"or leave tools out for every tool the person's settings allow", ToolName, unknown.Name, strings.Join(unknown.Known, ", "))
	}
	return s.errorResult("%v", err)
}

// oneLine folds line breaks so an error stays one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

// respond runs one turn. Failures the caller can act on, and turns that
// fail, come back as error results; the handler itself never fails.
//
// The turn runs apart from the call (see run): the call waits for it to
// end, or returns an input request when the turn puts a question to a
// 2026-07-28 client's dialog; the client's retry, carrying the answer,
// comes back through resume and waits on the same turn.
func (s *Server) respond(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	args, err := parseRespond(req.GetArguments())
	if err != nil {
		return s.errorResult("%v", err), nil
	}
	if req.Params.RequestState != "" || len(req.Params.InputResponses) > 0 {
		return s.resume(ctx, req, args), nil
	}
	thread := args.thread
	if thread == "" {
		if thread, err = s.newThread(); err != nil {
			return s.errorResult("%v", err), nil
		}
	}
	if s.opts.Conversations == nil {
		return s.errorResult("this server has no agent to run turns"), nil
	}
	if s.opts.OnCall != nil {
		ctx = s.opts.OnCall(ctx, thread)
	}
	a, err := s.opts.Conversations.Agent(ctx, args.tools)
	if err != nil {
		return s.conversationError(err), nil
	}

	held, unlock, err := s.lockThread(ctx, a, thread)
	if err != nil {
		return s.errorResult("thread %s: %v", thread, err), nil
	}
	r := newRun(thread)
	r.attach(ctx)
	s.mu.Lock()
	s.runs[thread] = r
	s.mu.Unlock()
	s.turns.Add(1)
	go func() {
		defer s.turns.Done()
		defer unlock()
		r.reply, r.err = a.Respond(s.turnContext(held, r), thread, args.prompt)
		s.settleAnswered(r)
		close(r.done)
		r.mu.Lock()
		retry := r.retry
		r.mu.Unlock()
		if !retry {
			s.forget(r)
			return
		}
		// A 2026-07-28 client owes a retry to collect the result; one that
		// never comes leaves the run for retryKeep, no longer.
		time.AfterFunc(s.retryKeep, func() { s.forget(r) })
	}()
	return s.await(ctx, r), nil
}

// await waits on r for the call ctx: until the turn ends, or puts a
// question to the client as an input request, or the call is cancelled
// (the client went away): then the turn parks what it waits for and goes
// on to its end without the caller.
func (s *Server) await(ctx context.Context, r *run) *mcp.CallToolResult {
	r.attach(ctx)
	defer r.detach()
	for _, msg := range r.takeQueued() {
		_ = s.Notify(ctx, msg)
	}
	for {
		select {
		case <-r.done:
			s.forget(r)
			return s.result(r)
		case e := <-r.inputs:
			if e.withdrawn.Err() != nil {
				continue // the face no longer waits for it: a card that ended, a question answered elsewhere
			}
			r.mu.Lock()
			r.retry = true
			r.mu.Unlock()
			return server.NewInputRequestBuilder(encodeState(r.thread, e)).
				Elicit(e.form.Kind, e.form.Params).ToolResult()
		case <-ctx.Done():
			r.parkNow()
			return s.errorResult("the call was cancelled; the turn on thread %s goes on without you, and parks any question it asks", r.thread)
		}
	}
}

// resume takes a 2026-07-28 client's retry: the answer from its dialog
// to a question or approval request this server put to it. The state is
// the client's to read and echo, so it is checked against what the
// server gave: the thread, the kind, the ID and a nonce only that call
// received.
func (s *Server) resume(ctx context.Context, req mcp.CallToolRequest, args respondArgs) *mcp.CallToolResult {
	thread, kind, id, nonce, ok := decodeState(req.Params.RequestState)
	if !ok || (args.thread != "" && args.thread != thread) {
		return s.errorResult("the requestState is not one this server gave for this call; call respond again without inputResponses and requestState")
	}
	s.mu.Lock()
	r := s.runs[thread]
	s.mu.Unlock()
	var e elicitation
	var queued []string
	if r != nil {
		r.mu.Lock()
		e, ok = r.elicited[kind+":"+id]
		ok = ok && e.nonce == nonce
		if ok {
			// Only the call that got the request may collect the turn. It
			// waits on the turn from now on, in the same step: what the
			// turn says or puts to the dialog while the answer is filed
			// reaches this call, rather than no call at all.
			r.retry = false
			r.caller, r.last = ctx, ctx
			queued, r.queued = r.queued, nil
		}
		r.mu.Unlock()
	}
	if r == nil || !ok {
		switch kind {
		case mcpface.KindApproval:
			return s.errorResult("approval request %s is no longer put through this dialog (its turn ended, or the server restarted); unanswered, it was refused", id)
		case mcpface.KindCard:
			return s.errorResult("card %s is no longer put through this dialog (its turn ended, or the server restarted); its questions fell back to their defaults", id)
		}
		return s.errorResult("question %s is no longer put through this dialog (its turn ended, or the server restarted); the person can answer it at a terminal with wisp questions answer %s", id, id)
	}
	for _, msg := range queued {
		_ = s.Notify(ctx, msg)
	}
	res := server.ElicitationResponse(req.Params.InputResponses, kind)
	line := e.answer(ctx, res)
	if res == nil {
		line = "wisp: the retry carried no answer for " + kind + " " + id
	}
	if line != "" {
		_ = s.Notify(ctx, line)
	}
	return s.await(ctx, r)
}

// settleAnswered forgets the questions answered within r's turn, once
// the thread is saved with their answers; a thread that was not saved
// leaves them on file, for its next turn to take as late answers.
func (s *Server) settleAnswered(r *run) {
	r.mu.Lock()
	ids := r.settle
	r.settle = nil
	r.mu.Unlock()
	if len(ids) == 0 {
		return
	}
	if st, ok, err := s.opts.Threads.Load(r.thread); err != nil || !ok || st.Turn < r.reply.Turn {
		s.opts.Logger.Error("the thread was not saved; its answers stay on file", "thread", r.thread)
		return
	}
	for _, id := range ids {
		if err := s.opts.Pending.Settle(context.Background(), id); err != nil {
			s.opts.Logger.Error("settling a question", "id", id, "error", err)
		}
	}
}

// forget drops r from the runs once a call has taken its result.
func (s *Server) forget(r *run) {
	s.mu.Lock()
	if s.runs[r.thread] == r {
		delete(s.runs, r.thread)
	}
	s.mu.Unlock()
}

// result is the call's result once the turn has ended: the reply, the
// thread, and the waiting line of each question the turn parked.
func (s *Server) result(r *run) *mcp.CallToolResult {
	if r.err != nil {
		res := s.errorResult("%v", r.err)
		res.Content = append(res.Content, mcp.NewTextContent("thread: "+r.thread))
		return res
	}
	reply := r.reply
	out := RespondResult{Reply: reply.Text, ThreadID: reply.Thread, Turn: reply.Turn, Flags: reply.Flags}
	text := reply.Text
	r.mu.Lock()
	for _, q := range r.parked {
		out.Waiting = append(out.Waiting, WaitingQuestion{ID: q.ID, Question: q.Text})
		text += "\n\n" + inquiry.LineParked(q.Text, q.ID)
	}
	r.mu.Unlock()
	text += "\n\nthread: " + reply.Thread
	for _, f := range reply.Flags {
		text += "\nflag: " + f
	}
	return mcp.NewToolResultStructured(out, text)
}

// stateTag starts every request state this server gives.
const stateTag = "wisp1"

// encodeState is the request state of an input request: the thread, what
// was put to the dialog, and the nonce.
func encodeState(thread string, e elicitation) string {
	return stateTag + ":" + thread + ":" + e.form.Kind + ":" + e.form.ID + ":" + e.nonce
}

// decodeState reads a request state back, checking each part.
func decodeState(state string) (thread, kind, id, nonce string, ok bool) {
	p := strings.Split(state, ":")
	if len(p) != 5 || p[0] != stateTag || !threadfile.ValidID(p[1]) || !mcpface.ValidForm(p[2], p[3]) || len(p[4]) != 16 {
		return "", "", "", "", false
	}
	return p[1], p[2], p[3], p[4], true
}

// maxIDTries bounds the attempts to find an unused thread id.
const maxIDTries = 16

// newThread returns an id no saved thread has.
func (s *Server) newThread() (string, error) {
	for range maxIDTries {
		id := s.opts.NewID()
		if !threadfile.ValidID(id) {
			return "", fmt.Errorf("the new thread id %q is not a thread id: %v", id, threadfile.ErrBadID)
		}
		_, exists, err := s.opts.Threads.Load(id)
		if err != nil || exists {
			continue
		}
		if !s.busy(id) {
			return id, nil
		}
	}
	return "", fmt.Errorf("found no unused thread id in %d tries; pass a thread_id", maxIDTries)
}

// threadLock puts respond calls on one thread in the order they came, in
// this server; the agent's Hold, which each call takes next, holds the
// thread against every other agent and process.
type threadLock struct {
	token chan struct{}
	refs  int
}

// busy reports whether a respond call holds or waits for thread.
func (s *Server) busy(thread string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.threads[thread]
	return ok
}

// lockThread waits for thread's turn, or for ctx, saying so to the
// caller when it must wait, then, when a is a Holder, holds the thread
// through a under the call's ctx, so that a cancelled call stops the
// wait. held is the context the turn runs under; release gives the
// thread up.
func (s *Server) lockThread(ctx context.Context, a wisp.Agent, thread string) (held context.Context, release func(), err error) {
	unlock, err := s.queueThread(ctx, thread)
	if err != nil {
		return nil, nil, err
	}
	h, ok := a.(Holder)
	if !ok {
		return ctx, unlock, nil
	}
	held, drop, err := h.Hold(ctx, thread)
	if err != nil {
		unlock()
		return nil, nil, err
	}
	return held, func() { drop(); unlock() }, nil
}

// queueThread waits for thread's turn in this server, or for ctx. The
// returned func releases it.
func (s *Server) queueThread(ctx context.Context, thread string) (func(), error) {
	s.mu.Lock()
	l := s.threads[thread]
	if l == nil {
		l = &threadLock{token: make(chan struct{}, 1)}
		s.threads[thread] = l
	}
	l.refs++
	s.mu.Unlock()

	release := func() {
		s.mu.Lock()
		l.refs--
		if l.refs == 0 {
			delete(s.threads, thread)
		}
		s.mu.Unlock()
	}
	select {
	case l.token <- struct{}{}:
		return func() { <-l.token; release() }, nil
	default:
	}
	_ = s.Notify(ctx, "wisp: "+agent.LineBusy(thread))
	select {
	case l.token <- struct{}{}:
		return func() { <-l.token; release() }, nil
	case <-ctx.Done():
		release()
		return nil, context.Cause(ctx)
	}
}

// Notifier returns the notifier to give the agents of respond calls
// (agent.Options.Notifier, and the audit log's waiting): it tells the
// caller of the call a turn runs for that the turn waits, for its thread
// or for the audit log, as a notification (see Notify). Other notices are
// the person's, not the caller's, and go nowhere.
func (s *Server) Notifier() wisp.Notifier { return notifier{s} }

type notifier struct{ s *Server }

func (n notifier) Notify(ctx context.Context, note wisp.Notice) error {
	if note.Kind != agent.NoticeWaiting {
		return nil
	}
	if r := runFrom(ctx); r != nil {
		n.s.tell(r, "wisp: "+note.Text)
		return nil
	}
	return n.s.Notify(ctx, "wisp: "+note.Text) // the call's own context, while it holds its thread
}
