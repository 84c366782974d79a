package mcpserver

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/wisp-agent/wisp/inquiry/mcpface"
	"github.com/wisp-agent/wisp/inquiry/pending"
)

// A session is the client a turn answers to, as the face sees it
// (mcpface.Session): the run of the turn and the server that reaches the
// client.
type session struct {
	s *Server
	r *run
}

var _ mcpface.Session = session{}

// Forms reports whether the client's dialog can take a form now: a call
// reaches the client, and the client declared form elicitation.
func (t session) Forms() bool {
	ctx, _ := t.r.reach()
	return ctx != nil && canElicit(ctx)
}

// Notify tells the client msg (see Server.tell).
func (t session) Notify(msg string) { t.s.tell(t.r, msg) }

// Gone is closed once no call waits for the turn.
func (t session) Gone() <-chan struct{} { return t.r.park }

// Parked keeps q for the call's result.
func (t session) Parked(q pending.Question) {
	t.r.mu.Lock()
	t.r.parked = append(t.r.parked, q)
	t.r.mu.Unlock()
}

// Answered keeps id to settle once the thread is saved.
func (t session) Answered(id string) {
	t.r.mu.Lock()
	t.r.settle = append(t.r.settle, id)
	t.r.mu.Unlock()
}

// Elicit puts form to the client's dialog. On a 2026-07-28 connection the
// waiting call returns it as an input request and the client's retry
// brings the reply (resume); on an older one an elicitation/create
// request goes out now, withdrawn when ctx ends or the server closes, and
// its reply is given to answer when it comes.
func (t session) Elicit(ctx context.Context, form mcpface.Form, answer func(context.Context, *mcp.ElicitationResult) string) {
	s, r := t.s, t.r
	call, _ := r.reach()
	if call == nil || !canElicit(call) {
		return
	}
	e := elicitation{form: form, answer: answer, nonce: newNonce(), withdrawn: ctx}
	r.mu.Lock()
	r.elicited[e.key()] = e
	r.mu.Unlock()
	if server.IsModernRequest(call) {
		select {
		case r.inputs <- e:
		default: // one thing waits at a time; never block the turn
		}
		return
	}
	dctx, cancel := context.WithCancel(context.WithoutCancel(call))
	stop := context.AfterFunc(ctx, cancel)
	dialog := e.key() + ":" + e.nonce // a card put again has a dialog of its own
	s.mu.Lock()
	s.dialogs[dialog] = cancel
	s.mu.Unlock()
	go func() {
		defer func() {
			stop()
			s.mu.Lock()
			delete(s.dialogs, dialog)
			s.mu.Unlock()
			cancel()
		}()
		res, err := s.mcp.RequestElicitation(dctx, mcp.ElicitationRequest{
			Request: mcp.Request{Method: string(mcp.MethodElicitationCreate)},
			Params:  form.Params,
		})
		if err != nil {
			if dctx.Err() == nil {
				s.opts.Logger.Info("the client's dialog failed", "kind", form.Kind, "id", form.ID, "error", err)
			}
			return
		}
		if line := answer(dctx, res); line != "" {
			_ = s.Notify(dctx, line)
		}
	}()
}

// canElicit reports whether the client declared the elicitation
// capability, in either protocol era: per request from 2026-07-28, at
// initialize before. mcp-go does not check it.
func canElicit(ctx context.Context) bool {
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		return info.ClientCapabilities != nil && formMode(info.ClientCapabilities.Elicitation)
	}
	if s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
		return formMode(s.GetClientCapabilities().Elicitation)
	}
	return false
}

// formMode reports whether an elicitation capability covers form mode:
// it names form, or names no mode at all (as clients before 2025-11-25
// declare it).
func formMode(c *mcp.ElicitationCapability) bool {
	return c != nil && (c.Form != nil || c.URL == nil)
}

// tell sends the client a notification: now, through the call that
// waits, or with the retry a 2026-07-28 client owes; with no way to reach
// the client it is dropped (the pending folder and the audit log keep
// what it says).
func (s *Server) tell(r *run, msg string) {
	switch ctx, waiting := r.reach(); {
	case waiting:
		_ = s.Notify(ctx, msg)
	case ctx != nil:
		r.queue(msg)
	}
}
