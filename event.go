package wisp

import (
	"context"
	"time"
)

// Event kinds recorded by this version of wisp. The names are a contract:
// audit readers filter on them.
const (
	KindToolCall          = "tool.call"
	KindToolResult        = "tool.result"
	KindInquiryRequested  = "inquiry.requested"
	KindInquirySettled    = "inquiry.settled"
	KindInquiryParked     = "inquiry.parked"   // under wisp mcp: the turn went on without the answer
	KindInquiryAnswered   = "inquiry.answered" // in the process the person answered a parked question from
	KindInquiryRefused    = "inquiry.refused"  // an answer on file that no inquiry.answered vouches for, refused
	KindVerificationFlag  = "verification.flagged"
	KindModelMessage      = "model.message"
	KindTurnStarted       = "turn.started"
	KindTurnEnded         = "turn.ended"
	KindClassifierVerdict = "classifier.verdict"
	KindApprovalRequested = "approval.requested"
	KindApprovalDecided   = "approval.decided"
	KindApprovalAnswered  = "approval.answered" // in the process the person answered an out-of-band request from
	KindApprovalRefused   = "approval.refused"  // a decision on file that no approval.answered vouches for, refused
	KindConfigChange      = "config.change"
	KindNotice            = "thread.notice"
	KindCondensed         = "thread.condensed"
)

// Sources of events: who caused what an event records.
const (
	SourceTool   = "tool"
	SourcePerson = "person"
	SourceWisp   = "wisp"
	SourceModel  = "model"
)

// An Event is one thing that happened in a session, as the audit log and
// the faces receive it. Its key names are an interface: the audit log and
// the JSON-lines protocol pin them.
type Event struct {
	Kind     string
	Time     time.Time
	Session  string
	Thread   string
	Turn     int
	Source   string
	Approval string
	// Data holds the event's details; values must marshal to a JSON object.
	Data map[string]any
}

// An EventSink receives events. Record must not keep e.Data after it
// returns. Sinks that write records of consequence (the audit log) must
// finish the write even when ctx is done; ctx may end only a long wait
// for something another process holds, such as the log's lock, and then
// Record returns an error. A Record that returns an error has not
// recorded e: whoever recorded it ends what it was doing with an error
// wrapping ErrNotRecorded, so nothing unrecorded goes on.
type EventSink interface {
	Record(ctx context.Context, e Event) error
}

// EventSinkFunc adapts a function to an EventSink.
type EventSinkFunc func(ctx context.Context, e Event) error

// Record calls f(ctx, e).
func (f EventSinkFunc) Record(ctx context.Context, e Event) error { return f(ctx, e) }

// A Witness keeps the record of who answered what another process filed
// for the person, such as a question parked under wisp mcp or an
// approval request it waits on; in wisp, the audit log. The process the
// person answers in records the answer (KindInquiryAnswered,
// KindApprovalAnswered, its data naming the answer's "id" and its file's
// SHA-256 as "fileSHA256") before the answer's file appears; the process
// that waits takes only an answer the Witness vouches for, and records
// the refusal of any other (KindInquiryRefused, KindApprovalRefused).
//
// A Witness tells an answer given through wisp from a file written there
// by anything else; it is no proof against a program that can write the
// record as well.
type Witness interface {
	EventSink
	// Vouched reports whether an event of kind was recorded whose data
	// holds "id" id and "fileSHA256" sum.
	Vouched(ctx context.Context, kind, id, sum string) (bool, error)
}
