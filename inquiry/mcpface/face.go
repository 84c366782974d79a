package mcpface

import (
	"context"
	"log/slog"
	"time"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry"
	"github.com/wisp-agent/wisp/inquiry/pending"
	"github.com/wisp-agent/wisp/policy/outofband"
)

// DefaultHold is how long a turn holds for the person: for the answer to
// a question before it parks, for a card before it falls back, for a
// decision before the request is refused.
const DefaultHold = 60 * time.Second

// Options configure a Face. A zero field means the default given beside
// it.
type Options struct {
	// Pending is where questions are filed ($WISP_HOME/pending). A zero
	// Dir: every question gets "no person can answer here". Give it a
	// Witness (wisp mcp gives the audit log): an answer in the client's
	// dialog is then recorded as inquiry.answered through it before it is
	// filed, and an answer on file is taken only when the Witness vouches
	// for it.
	Pending pending.Store
	// Approvals is where approval requests are filed ($WISP_HOME/approvals).
	// Give it a Witness, as Pending.
	Approvals outofband.Store
	// OutOfBand is approval.outOfBand: let a request wait for wisp
	// approvals (and the client's dialog, with Elicitation). Off, or with
	// a zero Approvals.Dir, every request is refused at once.
	OutOfBand bool
	// Elicitation is inquiry.elicitation: put questions, cards and
	// approval requests to the client's own dialog when it declared it
	// can show a form. Off, a card falls back at once.
	Elicitation bool
	// Hold is how long a turn holds for the person (DefaultHold).
	Hold time.Duration
	// After is the clock the hold runs on; nil means time.After. Tests
	// pass a channel they close.
	After func(time.Duration) <-chan time.Time
	// Now tells the time (a question's deadline is checked against it);
	// nil means time.Now.
	Now func() time.Time
	// Events receives inquiry.answered and approval.answered when the
	// person answers in the client's dialog, once the answer is filed,
	// for a Pending or Approvals store without a Witness (with one, the
	// Witness records them). nil drops them.
	Events wisp.EventSink
	// Logger receives what goes wrong on the way to or from the client's
	// dialog; nil discards it.
	Logger *slog.Logger
}

// A Face is how the model's questions, ask_user cards and approval
// requests reach the person while wisp serves MCP. Build conversations
// with it: it is a wisp.Inquirer, a wisp.CardInquirer, an inquiry.Parker
// and a wisp.Approver. Nothing in the MCP conversation answers for the
// person:
//
//   - A question is filed in the pending folder (Options.Pending), where
//     wisp questions answer ID at a terminal, or a plain wisp chat, can
//     answer it, and announced to the client by one notification, "wisp:
//     the model asks: … — wisp questions answer ID". With
//     Options.Elicitation on and a client that takes forms, it is also
//     put to the client's dialog. The first answer from any face wins.
//     The turn holds for Options.Hold (60 s); then it parks the question:
//     the model reads inquiry.LineParked, and the answer reaches the
//     thread's next turn.
//   - A card goes to the client's dialog as one form, with the same
//     setting, the same capability and the same hold; nobody answers it
//     elsewhere, so a card the client cannot show falls back at once, and
//     one nobody answers within the hold falls back then. A secret never
//     goes through MCP: its card is declined at once.
//   - An approval request is filed in the approvals folder
//     (Options.Approvals) for wisp approvals at a terminal, announced, put
//     to the dialog when allowed, and waits up to the hold; silence
//     refuses.
//
// Outside a turn that answers to a client (no Session in the context),
// nothing reaches a person: questions get "no person can answer here",
// cards fall back, and requests go to the approvals folder alone.
//
// A Face is safe for concurrent use.
type Face struct {
	opts     Options
	approver *outofband.Approver
}

var (
	_ wisp.Inquirer      = (*Face)(nil)
	_ wisp.CardInquirer  = (*Face)(nil)
	_ inquiry.Parker     = (*Face)(nil)
	_ inquiry.CardHolder = (*Face)(nil)
	_ wisp.Approver      = (*Face)(nil)
)

// New returns a face with opts (nil: the defaults, with no folders:
// nothing reaches a person).
func New(opts *Options) *Face {
	f := &Face{}
	if opts != nil {
		f.opts = *opts
	}
	if f.opts.Hold <= 0 {
		f.opts.Hold = DefaultHold
	}
	if f.opts.After == nil {
		f.opts.After = time.After
	}
	if f.opts.Now == nil {
		f.opts.Now = time.Now
	}
	if f.opts.Logger == nil {
		f.opts.Logger = slog.New(slog.DiscardHandler)
	}
	if f.opts.OutOfBand && f.opts.Approvals.Dir != "" {
		f.approver = outofband.NewApprover(f.opts.Approvals, &outofband.ApproverOptions{
			Hold:     f.opts.Hold,
			After:    f.opts.After,
			Announce: f.announceApproval,
		})
	}
	return f
}

// record hands e to Options.Events; a lost record is logged, never fatal
// to the answer it records.
func (f *Face) record(ctx context.Context, e wisp.Event) {
	e.Time = f.opts.Now()
	if err := wisp.Record(context.WithoutCancel(ctx), f.opts.Events, e); err != nil {
		f.opts.Logger.Error("recording an event", "kind", e.Kind(), "error", err)
	}
}

// dialogs puts forms to sess's dialog when the settings and the client
// allow: it reports whether they do.
func (f *Face) dialogs(sess Session) bool {
	return f.opts.Elicitation && sess.Forms()
}
