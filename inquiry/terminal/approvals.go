package terminal

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/policy/outofband"
)

// NoApprovalsWaiting is what a list says when no approval request waits.
const NoApprovalsWaiting = "no approval requests are waiting"

// Approvals are the approval requests wisp mcp waits on, at a terminal:
// wisp approvals. It lists them (and the files that are damaged), shows
// one before the person answers it, and asks the person to confirm an
// approval by typing y. Answering is an outofband.Answerer's, with its
// rules: Approvals only shows and reads.
type Approvals struct {
	store    outofband.Store
	out      io.Writer
	answerer *outofband.Answerer
	now      func() time.Time
	listing  Listing
}

// ApprovalsOptions configure Approvals. A nil *ApprovalsOptions or a zero
// field means the default given beside the field.
type ApprovalsOptions struct {
	// Now tells the time, for how long ago a request was made and when
	// it ends. nil: time.Now.
	Now func() time.Time
	// Listing is how List writes the requests: Blocks (the default),
	// Table or JSON.
	Listing Listing
}

// NewApprovals returns wisp approvals: the requests of store, answered at
// the terminal that in reads and out writes. An answer is refused unless
// in and out are both terminals (a *NoTerminalError), so that nothing but
// a person may answer; it is filed through store, whose Witness records
// who answered (with the terminal's name) before the file appears.
func NewApprovals(store outofband.Store, in *Input, out io.Writer, opts *ApprovalsOptions) *Approvals {
	a := &Approvals{store: store, out: out, now: time.Now}
	if opts != nil && opts.Now != nil {
		a.now = opts.Now
	}
	if opts != nil {
		a.listing = opts.Listing
	}
	a.answerer = &outofband.Answerer{
		Store: store, From: outofband.FromTerminal, Commands: "wisp approvals",
		Refuse: func(verb, _ string) error { return AtTerminal(verb, "an approval request", in.file, out) },
		Show: func(r outofband.Request) {
			now := a.now()
			fmt.Fprintln(out, approvalHeading(r, now))
			writeApproval(out, r, now)
		},
		Say: func(_ outofband.Request, line string) { fmt.Fprintln(out, line) },
	}
	if AtTerminal("", "", in.file, out) == nil {
		a.answerer.Terminal = terminalName(in.file)
		a.answerer.Confirm = confirmApproval(in, out)
	}
	return a
}

// List writes the requests that wait, and after them those whose file is
// damaged, with the commands that answer them, as
// ApprovalsOptions.Listing says.
func (a *Approvals) List() error {
	rs, ds, err := filed(a.store.List, a.store.Damaged)
	if err != nil {
		return err
	}
	return listApprovals(a.out, a.listing, rs, ds, a.now())
}

// Answer shows request id and files the person's answer: an approval of
// scope once they confirm it, or a denial when scope is wisp.ScopeNone,
// as outofband.Answerer.Answer does; ctx ends it, and every prompt of it.
func (a *Approvals) Answer(ctx context.Context, id string, scope wisp.Scope) error {
	return a.answerer.Answer(ctx, id, scope)
}

// confirmApproval asks the person to confirm approving a request by
// typing y, and reports whether they did. Keys typed before the prompt
// appeared are dropped first. The read ends with ctx and at the end of
// the input.
func confirmApproval(in *Input, out io.Writer) func(context.Context, outofband.Request, wisp.Scope) (bool, error) {
	return func(ctx context.Context, _ outofband.Request, scope wisp.Scope) (bool, error) {
		// Drop what was typed before the prompt appears, then show it and
		// only then start reading, so that no line typed too early can
		// answer it and a key typed after the prompt is never dropped.
		in.DropTypeAhead()
		fmt.Fprintf(out, "approve %s? type y to approve; anything else files nothing › ", scope)
		line, err := in.ReadLine(ctx)
		if err != nil {
			fmt.Fprintln(out)
			return false, err
		}
		t := strings.ToLower(strings.TrimSpace(line))
		return t == "y" || t == "yes", nil
	}
}

// approvalHeading is the line that names a request: its id, its thread
// and how long ago it was asked.
func approvalHeading(r outofband.Request, now time.Time) string {
	return askedHeading("approval", r.ID, r.Thread, now.Sub(r.Asked))
}

// writeApproval writes r as the face shows a request, escaped and
// indented under ApprovalLabel, with its diff if it has one, then what it
// offers and when it ends.
func writeApproval(w io.Writer, r outofband.Request, now time.Time) {
	var b strings.Builder
	b.WriteString(approvalFrame(r.Command, r.Text, Width(w)))
	b.WriteString(Diff(r.Diff, Width(w), false))
	b.WriteString("offers " + r.Offered())
	if !r.Deadline.IsZero() {
		b.WriteString(" · refused unanswered " + fromNow(r.Deadline.Sub(now)))
	}
	b.WriteString("\n")
	io.WriteString(w, b.String())
}

// writeApprovals lists rs, one block each, with the commands that answer
// them.
func writeApprovals(w io.Writer, rs []outofband.Request, now time.Time) {
	writeBlocks(w, rs, NoApprovalsWaiting, func(r outofband.Request) {
		fmt.Fprintln(w, approvalHeading(r, now))
		writeApproval(w, r, now)
		wider := ""
		if r.Offers(wisp.ScopeSession) {
			wider = " [--scope session]"
		}
		fmt.Fprintf(w, "approve: wisp approvals approve %s%s · deny: wisp approvals deny %s\n", r.ID, wider, r.ID)
	})
}
