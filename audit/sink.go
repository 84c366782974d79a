package audit

import (
	"context"

	"github.com/wisp-agent/wisp"
)

var (
	_ wisp.EventSink = (*Log)(nil)
	_ wisp.Witness   = Witness{}
)

// Record appends e to the log as an Entry, so that a Log serves as a
// wisp.EventSink. Like Append, it is not cancelled by ctx.
func (l *Log) Record(ctx context.Context, e wisp.Event) error {
	_, err := l.Append(ctx, Entry{
		Kind: e.Kind(), Session: e.Session, Thread: e.Thread, Turn: e.Turn,
		Source: e.Source, Approval: e.Approval, Data: e.Data,
	})
	return err
}

// A Witness is a log as the wisp.Witness of who answers what was parked
// for a person (a question, an approval request): it records events in
// Log, and vouches for an answer when the log holds the record of it
// being given (Find).
type Witness struct {
	// Log is where the records go, and the log that is searched.
	Log *Log
	// Session, when set, is the session the records are written in;
	// empty: each event's own.
	Session string
}

// Record appends e to the log, in w.Session when that is set.
func (w Witness) Record(ctx context.Context, e wisp.Event) error {
	if w.Session != "" {
		e.Session = w.Session
	}
	return w.Log.Record(ctx, e)
}

// Vouched reports whether the log holds a record of kind (such as
// inquiry.answered) for the file of answer id whose SHA-256 is sum.
func (w Witness) Vouched(_ context.Context, kind, id, sum string) (bool, error) {
	_, ok, err := Find(w.Log.dir, kind, map[string]string{"id": id, "fileSHA256": sum})
	return ok, err
}

// SyncDecisions is an Options.Sync for a log of wisp's events: every
// decision, answer, change and end of a turn waits for the disk. The rest
// (tool calls and results, model messages, the start of a turn, a question
// or request being asked, notices) are written at once and reach the disk
// with the next of those, so that a crash of the process loses none of
// them.
func SyncDecisions(kind string) bool {
	switch kind {
	case wisp.KindToolCall, wisp.KindToolResult, wisp.KindModelMessage, wisp.KindTurnStarted,
		wisp.KindInquiryRequested, wisp.KindClassifierVerdict, wisp.KindApprovalRequested, wisp.KindNotice, wisp.KindCondensed:
		return false
	}
	return true
}
