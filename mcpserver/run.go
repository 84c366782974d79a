package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/mcpface"
	"github.com/wisp-agent/wisp/inquiry/pending"
)

// A run is one turn on a thread, running apart from the respond call that
// started it: a question can make the call return (to put the question to
// a 2026-07-28 client as an input request) and the call that carries the
// answer attach to the same turn; a client that goes away leaves the turn
// to park its question and end.
type run struct {
	thread string

	done  chan struct{} // closed when the turn has ended
	reply wisp.Reply
	err   error

	// park is closed when no caller waits any more: a question waiting
	// then parks at once, and so does any the turn asks later.
	park     chan struct{}
	parkOnce sync.Once

	// inputs carries questions to put to the caller as input requests;
	// the waiting call returns them.
	inputs chan elicitation

	mu       sync.Mutex
	caller   context.Context        // the respond call waiting on the turn; nil while none does
	last     context.Context        // the last call that waited, for the protocol it speaks
	queued   []string               // notifications for the client's retry, while none waits
	elicited map[string]elicitation // what was put to the caller's dialog, by key
	parked   []pending.Question     // questions the turn parked
	retry    bool                   // an input request went out; the client's retry collects the result
	settle   []string               // questions answered within the turn, forgotten once the thread is saved
}

// An elicitation is a form put to the client's dialog, and what takes
// its reply.
type elicitation struct {
	form mcpface.Form
	// answer takes the dialog's reply (where the faces meet: the pending
	// or approvals folder, or the card's wait) and returns a line for the
	// client when the answer was not used.
	answer func(ctx context.Context, reply *mcp.ElicitationResult) string
	nonce  string // in the request state, so only the call that got it can answer
	// withdrawn is done once the face no longer waits for the reply; a
	// form not yet sent then is not sent.
	withdrawn context.Context
}

// key names e in run.elicited.
func (e elicitation) key() string { return e.form.Kind + ":" + e.form.ID }

func newRun(thread string) *run {
	return &run{
		thread:   thread,
		done:     make(chan struct{}),
		park:     make(chan struct{}),
		inputs:   make(chan elicitation, 1),
		elicited: make(map[string]elicitation),
	}
}

// parkNow makes the turn park whatever it waits for.
func (r *run) parkNow() { r.parkOnce.Do(func() { close(r.park) }) }

// attach makes ctx the call that waits on the turn; detach undoes it.
func (r *run) attach(ctx context.Context) {
	r.mu.Lock()
	r.caller, r.last = ctx, ctx
	r.mu.Unlock()
}

// reach returns the context to reach the client through: the waiting
// call's, or, while a 2026-07-28 client's retry is awaited, the last
// call's (its protocol and capabilities; what it is sent waits for the
// retry). waiting reports that a call waits now; ctx is nil when the
// client cannot be reached.
func (r *run) reach() (ctx context.Context, waiting bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.caller != nil {
		return r.caller, true
	}
	if r.retry {
		return r.last, false
	}
	return nil, false
}

// queue keeps a notification for the client's retry.
func (r *run) queue(msg string) {
	r.mu.Lock()
	r.queued = append(r.queued, msg)
	r.mu.Unlock()
}

// takeQueued returns and forgets the queued notifications.
func (r *run) takeQueued() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	q := r.queued
	r.queued = nil
	return q
}

func (r *run) detach() {
	r.mu.Lock()
	r.caller = nil
	r.mu.Unlock()
}

// runKey carries the run in the turn's context, for the notifier.
type runKey struct{}

func runFrom(ctx context.Context) *run {
	r, _ := ctx.Value(runKey{}).(*run)
	return r
}

// sessionKey carries the MCP session of the call that started the turn.
type sessionKey struct{}

// turnContext is the context a turn runs in: it outlives the call that
// started it (the turn parks rather than stops when the caller goes), and
// carries the run, the face's session and the calling MCP session.
func (s *Server) turnContext(call context.Context, r *run) context.Context {
	ctx := context.WithoutCancel(call)
	ctx = context.WithValue(ctx, runKey{}, r)
	ctx = mcpface.WithSession(ctx, session{s: s, r: r})
	if cs := server.ClientSessionFromContext(call); cs != nil {
		ctx = context.WithValue(ctx, sessionKey{}, cs)
	}
	return ctx
}

func newNonce() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
