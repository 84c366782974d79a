package outofband

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/internal/spool"
	"github.com/wisp-agent/wisp/policy"
)

// DefaultHold is how long Approve waits for a decision when
// ApproverOptions.Hold is zero.
const DefaultHold = 60 * time.Second

// whyCancelled is the withdrawal's reason when the asking turn ends
// before anyone answers.
const whyCancelled = "the turn that asked ended"

// ApproverOptions configure an Approver. A nil *ApproverOptions or a zero
// field means the default given beside the field.
type ApproverOptions struct {
	// Hold is the longest a request waits for a decision; 0 means
	// DefaultHold, 60 s. The request's own Deadline and ctx may end the
	// wait sooner.
	Hold time.Duration
	// Announce, if not nil, is called once for each request, after it is
	// filed and before the wait: wisp mcp tells the client with it, and
	// puts the request to the client's dialog, whose answer comes back
	// through Store.Decide with From FromElicitation. Announce must return
	// promptly: work that waits, such as the dialog, belongs in a
	// goroutine of its own that ends when ctx is done, which it is by the
	// time Approve returns.
	Announce func(ctx context.Context, r Request)
	// After makes the clock injectable: it returns a channel that
	// delivers once d has passed. nil means time.After. The Store's Now
	// tells the time the wait is measured from. Approve calls After
	// before it files the request, so by the time the request can be
	// seen in the Store its hold has begun.
	After func(d time.Duration) <-chan time.Time
}

// An Approver is a wisp.Approver for a face with no person in it, such
// as wisp mcp: it files each request in a Store for the person to decide
// from elsewhere (wisp approvals at a terminal, or the MCP client's
// dialog) and waits for the first decision.
//
// It fails closed: silence, a cancelled turn and any error refuse. An
// Approver is safe for concurrent use; each request is filed and waited
// for on its own.
type Approver struct {
	store Store
	opts  ApproverOptions
}

var _ wisp.Approver = (*Approver)(nil)

// NewApprover returns an Approver that files requests in s.
func NewApprover(s Store, opts *ApproverOptions) *Approver {
	a := &Approver{store: s}
	if opts != nil {
		a.opts = *opts
	}
	if a.opts.Hold <= 0 {
		a.opts.Hold = DefaultHold
	}
	if a.opts.After == nil {
		a.opts.After = time.After
	}
	return a
}

// Approve files r under its own ID (which must be a valid approval ID,
// as policy.Gate draws them), with a deadline of Hold from now or r's own
// Deadline if that comes first; calls Announce; and waits for the first
// of:
//
//   - a decision: it is returned with Provenance wisp.FromPerson, its
//     Scope as decided (ScopeNone, with policy.ReasonDeclined, for a
//     denial) and the SHA-256 of its file, and the request's files are
//     removed. With a Witness on the Store, only a decision it vouches
//     for counts: any other is refused and the wait goes on;
//   - the deadline: the request is withdrawn, and Approve refuses with
//     Provenance wisp.FromTimeout and the reason policy.ReasonTimedOut
//     gives ("no answer within 1 min"). A decision filed before the
//     withdrawal still wins;
//   - ctx done: the request is withdrawn and Approve returns
//     context.Cause(ctx) and no approval;
//   - an error from the Store (the request cannot be filed, or its files
//     cannot be trusted): Approve returns it and no approval. A request
//     file damaged while it waits gives ErrMalformed, in a line that
//     names no path.
//
// A withdrawn request stays in the folder, refused, for 10 minutes, so
// that a late answer hears why (Store.Sweep, which Approve runs when it
// ends, clears it after). Approve starts one goroutine, which has ended
// by the time it returns.
func (a *Approver) Approve(ctx context.Context, r wisp.ApprovalRequest) (wisp.Decision, error) {
	if err := ctx.Err(); err != nil {
		return wisp.Decision{}, context.Cause(ctx)
	}
	wait := a.opts.Hold
	if !r.Deadline.IsZero() {
		wait = min(wait, r.Deadline.Sub(a.store.now()))
	}
	if wait <= 0 {
		return refusedSilence(0), nil
	}
	r.Deadline = a.store.now().Add(wait)
	// The hold starts before the request is filed: whoever sees the
	// request filed knows its hold runs, and the hold never outlasts the
	// request's deadline.
	timer := a.opts.After(wait)
	filed, err := a.store.File(ctx, r)
	if err != nil {
		return wisp.Decision{}, err
	}
	// Clear what earlier requests left, once this one has ended.
	defer func() {
		tidy, stop := tidyContext(ctx)
		defer stop()
		a.store.Sweep(tidy)
	}()

	waitCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	if a.opts.Announce != nil {
		a.opts.Announce(waitCtx, filed)
	}
	type result struct {
		d   Decision
		err error
	}
	done := make(chan result, 1)
	go func() {
		d, err := a.store.Wait(waitCtx, filed.ID)
		done <- result{d, err}
	}()

	select {
	case res := <-done:
		switch {
		case ctx.Err() != nil:
			return a.cancelled(ctx, filed.ID)
		case errors.Is(res.err, ErrMalformed):
			// Said without the file's path: the reason reaches the model.
			return wisp.Decision{}, spool.Line(ErrMalformed, fmt.Sprintf("approval request %s cannot be read back (its file is damaged)", filed.ID))
		case res.err != nil:
			return wisp.Decision{}, res.err
		}
		return a.take(ctx, res.d), nil
	case <-timer:
		cancel()
		<-done
		if d, ok := a.withdraw(ctx, filed.ID, policy.ReasonTimedOut(wait)); ok {
			return a.take(ctx, d), nil
		}
		return refusedSilence(wait), nil
	case <-ctx.Done():
		cancel()
		<-done
		return a.cancelled(ctx, filed.ID)
	}
}

// tidyTimeout bounds the changes Approve makes after the wait (withdraw,
// settle, sweep), which must outlast a cancelled turn but never hang one
// on a lock.
const tidyTimeout = 5 * time.Second

// tidyContext is ctx without its cancellation, bounded by tidyTimeout.
func tidyContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), tidyTimeout)
}

// cancelled withdraws the request id after its turn ended, settles it if
// a decision came first (it is of no use now), and returns ctx's cause.
func (a *Approver) cancelled(ctx context.Context, id string) (wisp.Decision, error) {
	if _, ok := a.withdraw(ctx, id, whyCancelled); ok {
		tidy, stop := tidyContext(ctx)
		defer stop()
		a.store.Settle(tidy, id)
	}
	return wisp.Decision{}, context.Cause(ctx)
}

// withdraw withdraws the request id, saying why; when a decision won
// first, it returns that decision and ok.
func (a *Approver) withdraw(ctx context.Context, id, why string) (Decision, bool) {
	tidy, stop := tidyContext(ctx)
	defer stop()
	err := a.store.Withdraw(tidy, id, why)
	if !errors.Is(err, ErrDecided) {
		return Decision{}, false
	}
	d, ok, err := a.store.Decided(id)
	return d, ok && err == nil
}

// take turns the person's decision into the gate's, and settles the
// request. A failed Settle leaves files that Sweep removes later; the
// decision stands.
func (a *Approver) take(ctx context.Context, d Decision) wisp.Decision {
	tidy, stop := tidyContext(ctx)
	defer stop()
	a.store.Settle(tidy, d.ID)
	if d.Scope == wisp.ScopeNone {
		return wisp.Decision{Reason: policy.ReasonDeclined, Provenance: wisp.FromPerson, FileSHA256: d.FileSHA256}
	}
	return wisp.Decision{Scope: d.Scope, Provenance: wisp.FromPerson, FileSHA256: d.FileSHA256}
}

// refusedSilence is the refusal of a request nobody answered within wait.
func refusedSilence(wait time.Duration) wisp.Decision {
	return wisp.Decision{Reason: policy.ReasonTimedOut(wait), Provenance: wisp.FromTimeout}
}
