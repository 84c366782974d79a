package mcpface

import (
	"context"
	"errors"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/escape"
	"github.com/wisp-agent/wisp/policy/outofband"
)

// ReasonCallerGone is why a request is refused when the call that asked
// went away, or the server closed, before anyone answered.
const ReasonCallerGone = "no one answered before the call that asked went away"

// ReasonOutOfBandOff is why every request is refused when
// approval.outOfBand is off, or there is no approvals folder.
const ReasonOutOfBandOff = "no person can approve here: approval.outOfBand is off"

var errCallerGone = errors.New(ReasonCallerGone)

// Approve asks the person's approval for r. Nothing in the MCP
// conversation approves anything: with Options.OutOfBand
// (approval.outOfBand) on, r is filed in Options.Approvals for wisp
// approvals at a terminal, announced to the client ("wisp: approval
// needed: … — wisp approvals approve ID"), put to the client's dialog
// when Options.Elicitation and the client allow, and waits up to the hold
// for the first answer (see outofband.Approver); silence refuses. A
// request never outlives the call that asked: when the client goes away,
// or the server closes, it is refused at once (ReasonCallerGone) and
// withdrawn. With OutOfBand off, or without an approvals folder, every
// request is refused at once (ReasonOutOfBandOff).
func (f *Face) Approve(ctx context.Context, r wisp.ApprovalRequest) (wisp.Decision, error) {
	if f.approver == nil {
		return wisp.Decision{Reason: ReasonOutOfBandOff, Provenance: wisp.FromUnattended}, nil
	}
	sess := SessionFrom(ctx)
	if sess == nil {
		return f.approver.Approve(ctx, r)
	}
	waitCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-sess.Gone():
			cancel(errCallerGone)
		case <-done:
		}
	}()
	d, err := f.approver.Approve(waitCtx, r)
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(waitCtx), errCallerGone) {
		return wisp.Decision{Reason: ReasonCallerGone, Provenance: wisp.FromUnattended}, nil
	}
	return d, err
}

// announceApproval tells the waiting caller about req and puts it to the
// client's dialog; the dialog is withdrawn when the request ends (ctx is
// done by then).
func (f *Face) announceApproval(ctx context.Context, req outofband.Request) {
	sess := SessionFrom(ctx)
	if sess == nil {
		return
	}
	sess.Notify("wisp: approval needed: " + escape.Terminal(req.Command) + " — wisp approvals approve " + req.ID + " (or deny " + req.ID + ")")
	if !f.dialogs(sess) {
		return
	}
	sess.Elicit(ctx, Form{Kind: KindApproval, ID: req.ID, Params: approvalParams(req)},
		func(ctx context.Context, reply *mcp.ElicitationResult) string { return f.decideReply(ctx, req, reply) })
}

// The dialog's choices for an approval request.
const (
	choiceOnce    = "once"
	choiceSession = "session"
	choiceDeny    = "deny"
)

// approvalParams is the form the client shows for req: what is asked,
// escaped, with its diff if it has one, and a choice of the scopes it
// offers and deny.
func approvalParams(req outofband.Request) mcp.ElicitationParams {
	var b strings.Builder
	b.WriteString("wisp's model asks your approval to run: " + escape.Terminal(req.Command) + "\n")
	for line := range strings.SplitSeq(req.Text, "\n") {
		b.WriteString("  " + escape.Terminal(line) + "\n")
	}
	b.WriteString(diffText(req.Diff))
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

// decideReply files the dialog's decision on req, bound to its digest.
// It returns a line for the client when the decision was not used.
func (f *Face) decideReply(ctx context.Context, req outofband.Request, reply *mcp.ElicitationResult) string {
	if reply == nil {
		return ""
	}
	d := outofband.Decision{ID: req.ID, Digest: req.Digest, From: outofband.FromElicitation}
	switch reply.Action {
	case mcp.ElicitationResponseActionAccept:
		m, _ := reply.Content.(map[string]any)
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
	err := f.opts.Approvals.Decide(ctx, d)
	switch {
	case err == nil:
		if f.opts.Approvals.Witness == nil { // a Witness recorded it already
			f.record(ctx, wisp.Event{Session: req.Session, Thread: req.Thread, Turn: req.Turn,
				Source: wisp.SourcePerson, Approval: req.ID,
				Data: wisp.ApprovalAnsweredData{ID: req.ID, Command: req.Command, Scope: d.Scope.String(), From: d.From}})
		}
		return ""
	case errors.Is(err, outofband.ErrDecided), errors.Is(err, outofband.ErrWithdrawn), errors.Is(err, outofband.ErrNoRequest), errors.Is(err, outofband.ErrStale):
		return "wisp: the dialog's answer was not used: " + err.Error()
	case errors.Is(err, outofband.ErrUnrecorded):
		f.opts.Logger.Error("recording the dialog's decision", "id", req.ID, "error", err)
		return "wisp: the dialog's answer was not used: the audit log could not record it; answer at a terminal: wisp approvals approve " + req.ID
	default:
		f.opts.Logger.Error("filing the dialog's decision", "id", req.ID, "error", err)
		return "wisp: the dialog's answer could not be filed; answer at a terminal: wisp approvals approve " + req.ID
	}
}
