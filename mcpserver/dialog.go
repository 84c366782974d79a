package mcpserver

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

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

// putToDialog puts e to the client's dialog when inquiry.elicitation is
// on and the client declared it can show one. On a 2026-07-28 connection
// the waiting call returns it as an input request and the client's retry
// brings the answer (resume); on an older one an elicitation/create
// request goes out now and its answer is filed when it comes. The
// request is withdrawn when until is closed (nil: when the server
// closes, or another face answers first).
func (s *Server) putToDialog(r *run, e elicitation, until <-chan struct{}) {
	ctx, _ := r.reach()
	if !s.opts.Elicitation || ctx == nil || !canElicit(ctx) {
		return
	}
	e.nonce = newNonce()
	r.mu.Lock()
	r.elicited[e.key()] = e
	r.mu.Unlock()
	if server.IsModernRequest(ctx) {
		select {
		case r.inputs <- e:
		default: // one thing waits at a time; never block the turn
		}
		return
	}
	dctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.mu.Lock()
	s.dialogs[e.key()] = cancel
	s.mu.Unlock()
	if until != nil {
		stop := context.AfterFunc(dctx, func() {})
		go func() {
			select {
			case <-until:
				cancel()
			case <-dctx.Done():
			}
			stop()
		}()
	}
	go func() {
		defer func() {
			s.mu.Lock()
			delete(s.dialogs, e.key())
			s.mu.Unlock()
			cancel()
		}()
		res, err := s.mcp.RequestElicitation(dctx, mcp.ElicitationRequest{
			Request: mcp.Request{Method: string(mcp.MethodElicitationCreate)},
			Params:  e.params,
		})
		if err != nil {
			if dctx.Err() == nil {
				s.opts.Logger.Info("the client's dialog failed", "kind", e.kind, "id", e.id, "error", err)
			}
			return
		}
		if line := e.file(dctx, res); line != "" {
			_ = s.Notify(dctx, line)
		}
	}()
}
