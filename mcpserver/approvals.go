package mcpserver

import (
	"context"
	"errors"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/escape"
	"github.com/wisp-agent/wisp/policy/outofband"
)

// Approver returns how the model's requests for the person's approval
// are answered while wisp serves MCP. Nothing in the MCP conversation
// approves anything: with Options.OutOfBand (approval.outOfBand) on, a
// request is filed in Options.Approvals for wisp approvals at a terminal,
// announced to the client ("wisp: approval needed: … — wisp approvals
// approve ID"), put to the client's dialog when Options.Elicitation
// allows, and waits up to Options.Hold for the first answer; silence
// refuses. With it off, or without an approvals folder, every request is
// refused at once: no person can approve here.
func (s *Server) Approver() wisp.Approver {
	if !s.opts.OutOfBand || s.opts.Approvals.Dir == "" {
		return wisp.ApproverFunc(func(context.Context, wisp.ApprovalRequest) (wisp.Decision, error) {
			return wisp.Decision{Reason: "no person can approve here: approval.outOfBand is off", Provenance: wisp.FromUnattended}, nil
		})
	}
	inner := outofband.NewApprover(s.opts.Approvals, &outofband.ApproverOptions{
		Hold:     s.opts.Hold,
		After:    s.opts.After,
		Announce: s.announceApproval,
	})
	return wisp.ApproverFunc(func(ctx context.Context, req wisp.ApprovalRequest) (wisp.Decision, error) {
		r := runFrom(ctx)
		if r == nil {
			return inner.Approve(ctx, req)
		}
		// A request never outlives its caller: when the call goes away, or
		// the server closes, it is refused at once (and withdrawn).
		waitCtx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			select {
			case <-r.park:
				cancel(errCallerGone)
			case <-stop:
			}
		}()
		d, err := inner.Approve(waitCtx, req)
		if err != nil && ctx.Err() == nil && errors.Is(context.Cause(waitCtx), errCallerGone) {
			return wisp.Decision{Reason: ReasonCallerGone, Provenance: wisp.FromUnattended}, nil
		}
		return d, err
	})
}

// ReasonCallerGone is why a request is refused when the respond call
// that asked went away, or the server closed, before anyone answered.
const ReasonCallerGone = "no one answered before the call that asked went away"

var errCallerGone = errors.New(ReasonCallerGone)

// announceApproval tells the waiting caller about a request and puts it
// to the client's dialog; the dialog is withdrawn when the request ends
// (ctx is done by then).
func (s *Server) announceApproval(ctx context.Context, req outofband.Request) {
	r := runFrom(ctx)
	if r == nil {
		return
	}
	s.tell(r, "wisp: approval needed: "+escape.Terminal(req.Command)+" — wisp approvals approve "+req.ID+" (or deny "+req.ID+")")
	s.putToDialog(r, elicitation{
		kind:   kindApproval,
		id:     req.ID,
		params: approvalParams(req),
		file: func(ctx context.Context, res *mcp.ElicitationResult) string {
			return s.decideElicited(ctx, req, res)
		},
	}, ctx.Done())
}

// The dialog's choices for an approval request.
const (
	choiceOnce    = "once"
	choiceSession = "session"
	choiceDeny    = "deny"
)

// approvalParams is the form the client shows for req: what is asked,
// escaped, and a choice of the scopes it offers and deny.
func approvalParams(req outofband.Request) mcp.ElicitationParams {
	var b strings.Builder
	b.WriteString("wisp's model asks your approval to run: " + escape.Terminal(req.Command) + "\n")
	for line := range strings.SplitSeq(req.Text, "\n") {
		b.WriteString("  " + escape.Terminal(line) + "\n")
	}
	b.WriteString("\nUnanswered, it is refused. You can also answer at a terminal: wisp approvals approve " + req.ID + " or wisp approvals deny " + req.ID)
	var choices []any
	if req.Offers(wisp.ScopeOnce) {
		choices = append(choices, map[string]any{"const": choiceOnce, "title": "approve once"})
	}
	if req.Offers(wisp.ScopeSession) {
		choices = append(choices, map[string]any{"const": choiceSession, "title": "approve for this session"})
	}
	choices = append(choices, map[string]any{"const": choiceDeny, "title": "deny"})
	return mcp.ElicitationParams{
		Mode:    mcp.ElicitationModeForm,
		Message: b.String(),
		RequestedSchema: map[string]any{
			"type":       "object",
			"properties": map[string]any{"decision": map[string]any{"type": "string", "title": "Your decision", "oneOf": choices}},
			"required":   []string{"decision"},
		},
	}
}

// decideElicited files the dialog's decision on req, bound to its digest.
// It returns a line for the client when the decision was not used.
func (s *Server) decideElicited(ctx context.Context, req outofband.Request, res *mcp.ElicitationResult) string {
	if res == nil {
		return ""
	}
	d := outofband.Decision{ID: req.ID, Digest: req.Digest, From: outofband.FromElicitation}
	switch res.Action {
	case mcp.ElicitationResponseActionAccept:
		m, _ := res.Content.(map[string]any)
		choice, _ := m["decision"].(string)
		switch {
		case len(m) != 1:
			return "wisp: the dialog's answer to approval request " + req.ID + " was not one it takes; unanswered, it is refused"
		case choice == choiceDeny:
			d.Scope = wisp.ScopeNone
		case choice == choiceOnce && req.Offers(wisp.ScopeOnce):
			d.Scope = wisp.ScopeOnce
		case choice == choiceSession && req.Offers(wisp.ScopeSession):
			d.Scope = wisp.ScopeSession
		default:
			return "wisp: the dialog's answer to approval request " + req.ID + " is not one it offers; unanswered, it is refused"
		}
	case mcp.ElicitationResponseActionDecline:
		d.Scope = wisp.ScopeNone
	default: // dismissed: the request still waits for wisp approvals until its hold ends
		return ""
	}
	err := s.opts.Approvals.Decide(ctx, d)
	switch {
	case err == nil:
		if s.opts.Approvals.Witness == nil { // a Witness recorded it already
			s.record(ctx, wisp.Event{Session: req.Session, Thread: req.Thread, Turn: req.Turn,
				Source: wisp.SourcePerson, Approval: req.ID,
				Data: wisp.ApprovalAnsweredData{ID: req.ID, Command: req.Command, Scope: d.Scope.String(), From: d.From}})
		}
		return ""
	case errors.Is(err, outofband.ErrDecided), errors.Is(err, outofband.ErrWithdrawn), errors.Is(err, outofband.ErrNoRequest), errors.Is(err, outofband.ErrStale):
		return "wisp: the dialog's answer was not used: " + err.Error()
	case errors.Is(err, outofband.ErrUnrecorded):
		s.opts.Logger.Error("recording the dialog's decision", "id", req.ID, "error", err)
		return "wisp: the dialog's answer was not used: the audit log could not record it; answer at a terminal: wisp approvals approve " + req.ID
	default:
		s.opts.Logger.Error("filing the dialog's decision", "id", req.ID, "error", err)
		return "wisp: the dialog's answer could not be filed; answer at a terminal: wisp approvals approve " + req.ID
	}
}
