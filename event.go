package wisp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Event kinds recorded by this version of wisp. The names are a contract:
// audit readers filter on them. Each kind has its payload type, named
// beside it, whose JSON keys are a contract too (docs/audit.md).
const (
	KindTurnStarted       = "turn.started"         // TurnStartedData
	KindModelMessage      = "model.message"        // ModelMessageData
	KindToolCall          = "tool.call"            // ToolCallData
	KindToolResult        = "tool.result"          // ToolResultData
	KindInquiryRequested  = "inquiry.requested"    // InquiryRequestedData
	KindInquirySettled    = "inquiry.settled"      // InquirySettledData
	KindInquiryParked     = "inquiry.parked"       // InquiryParkedData: under wisp mcp, the turn went on without the answer
	KindInquiryAnswered   = "inquiry.answered"     // InquiryAnsweredData: in the process the person answered a parked question from
	KindInquiryRefused    = "inquiry.refused"      // InquiryRefusedData: an answer on file that no inquiry.answered vouches for, refused
	KindVerificationFlag  = "verification.flagged" // VerificationFlaggedData
	KindNotice            = "thread.notice"        // NoticeData: wisp's word to the model, posted to a thread
	KindCondensed         = "thread.condensed"     // CondensedData
	KindTurnEnded         = "turn.ended"           // TurnEndedData
	KindClassifierVerdict = "classifier.verdict"   // ClassifierVerdictData
	KindApprovalRequested = "approval.requested"   // ApprovalRequestedData
	KindApprovalDecided   = "approval.decided"     // ApprovalDecidedData
	KindApprovalAnswered  = "approval.answered"    // ApprovalAnsweredData: in the process the person answered an out-of-band request from
	KindApprovalRefused   = "approval.refused"     // ApprovalRefusedData: a decision on file that no approval.answered vouches for, refused
	KindApprovalRevoked   = "approval.revoked"     // ApprovalRevokedData: the person revoked a kept answer of project or always
	KindConfigChange      = "config.change"        // ConfigChangeData
	KindModelVerified     = "model.verified"       // ModelVerifiedData
	KindModelPublisher    = "model.publisher"      // ModelPublisherData
	KindModelPull         = "model.pull"           // ModelPullData
	KindCommandStarted    = "command.started"      // CommandStartedData: a command the model asked for starts, under its approval
	KindCommandEnded      = "command.ended"        // CommandEndedData
)

// Sources of events: who caused what an event records.
const (
	SourceTool   = "tool"
	SourcePerson = "person"
	SourceWisp   = "wisp"
	SourceModel  = "model"
)

// An Event is one thing that happened in a session, as the audit log and
// the faces receive it. What happened is Data, whose type says the kind;
// its key names are an interface, which the audit log and the JSON-lines
// protocol pin.
type Event struct {
	Time     time.Time
	Session  string
	Thread   string
	Turn     int
	Source   string
	Approval string
	// Data holds the event's details: one of the *Data types of this
	// package, such as ToolCallData, or a type of the program's own.
	Data EventData
}

// Kind returns the kind of e, which its Data says; "" when it has none.
func (e Event) Kind() string {
	if e.Data == nil {
		return ""
	}
	return e.Data.EventKind()
}

// EventData is the payload of an Event: one of this package's *Data
// types, each of one kind (KindToolCall's is ToolCallData, and so on),
// which marshal to JSON objects with their keys in byte order, as the
// audit log writes them. Their strings hold what happened as it was
// said; a sink that writes them (the audit log) redacts every one, keys
// and values, as it does any string.
//
// A program that records events of its own gives each kind a type of its
// own that implements EventData and marshals to a JSON object.
type EventData interface {
	// EventKind returns the kind of event the payload belongs to, such as
	// KindToolCall.
	EventKind() string
}

// An EventSink receives events; a face that shows them switches on the
// type of e.Data. Record must not change what e.Data holds: its slices are
// the recorder's. Sinks that write records of consequence (the audit log)
// must finish the write even when ctx is done; ctx may end only a long
// wait for something another process holds, such as the log's lock, and
// then Record returns an error. A Record that returns an error has not
// recorded e: whoever recorded it ends what it was doing with an error
// wrapping ErrNotRecorded (Record), so nothing unrecorded goes on.
type EventSink interface {
	Record(ctx context.Context, e Event) error
}

// EventSinkFunc adapts a function to an EventSink.
type EventSinkFunc func(ctx context.Context, e Event) error

// Record calls f(ctx, e).
func (f EventSinkFunc) Record(ctx context.Context, e Event) error { return f(ctx, e) }

// Record hands e to sink, the one way wisp's packages record an event. A
// nil sink records nothing and returns nil. When the sink fails, Record
// returns an error wrapping ErrNotRecorded, its message on one line; the
// caller ends what it was doing with it, so nothing unrecorded goes on.
func Record(ctx context.Context, sink EventSink, e Event) error {
	if sink == nil {
		return nil
	}
	err := sink.Record(ctx, e)
	if err == nil || errors.Is(err, ErrNotRecorded) {
		return err
	}
	return fmt.Errorf("%w: %s", ErrNotRecorded, strings.Join(strings.Fields(err.Error()), " "))
}

// A Witness keeps the record of who answered what another process filed
// for the person, such as a question parked under wisp mcp or an
// approval request it waits on; in wisp, the audit log. The process the
// person answers in records the answer (InquiryAnsweredData,
// ApprovalAnsweredData, naming the answer's ID and its file's SHA-256)
// before the answer's file appears; the process that waits takes only an
// answer the Witness vouches for, and records the refusal of any other
// (InquiryRefusedData, ApprovalRefusedData).
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
