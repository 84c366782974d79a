package wisp

import (
	"bytes"
	"encoding/json"
)

// The payload types of wisp's events, one for each kind of event.
//
// Each marshals to the JSON object the audit log records (docs/audit.md),
// with the keys in byte order, as the log has always written them: the
// fields are in the order of their keys, so a new field goes where its key
// sorts. A key absent from a record is a field at its zero value, unless
// its doc says otherwise. testdata/events pins each kind's keys.

// TurnStartedData is the payload of KindTurnStarted: a turn began with
// the person's input.
type TurnStartedData struct {
	Input string `json:"input"`
}

// ModelMessageData is the payload of KindModelMessage: one step's message
// from the model.
type ModelMessageData struct {
	Content string `json:"content"`
	// ToolCalls are the names of the tools the message calls, in order.
	ToolCalls []string `json:"toolCalls,omitempty"`
}

// ToolCallData is the payload of KindToolCall: the model calls a tool.
type ToolCallData struct {
	// Arguments are the call's arguments as the model sent them: JSON, or
	// a JSON string when what it sent is not JSON (ToolArguments); nil,
	// on record as {}, when it sent none.
	Arguments json.RawMessage `json:"arguments"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	// Summary is what the tool says the call does, when the tool is a
	// Summarizer; nil when it is not (a summary may be empty).
	Summary *string `json:"summary,omitempty"`
}

// MarshalJSON writes d, with arguments {} when there are none.
func (d ToolCallData) MarshalJSON() ([]byte, error) {
	type plain ToolCallData
	p := plain(d)
	if len(p.Arguments) == 0 {
		p.Arguments = json.RawMessage("{}")
	}
	return marshalJSON(p)
}

// Shown is what a face shows of the call after the tool's name: the
// tool's summary when it gives one, which never holds the words of a
// question (Summarizer), or else the arguments as the model sent them.
func (d ToolCallData) Shown() string {
	switch {
	case d.Summary != nil:
		return *d.Summary
	case len(d.Arguments) == 0:
		return ""
	}
	var s string
	if json.Unmarshal(d.Arguments, &s) == nil {
		return s // arguments that were not JSON
	}
	return string(d.Arguments)
}

// ToolArguments returns arguments as ToolCallData holds them: JSON as it
// is, anything else as a JSON string, and none as nil.
func ToolArguments(arguments json.RawMessage) json.RawMessage {
	switch {
	case len(arguments) == 0:
		return nil
	case json.Valid(arguments):
		return arguments
	}
	b, _ := marshalJSON(string(arguments)) // a string always marshals
	return b
}

// ToolResultData is the payload of KindToolResult: what a tool call gave
// back. A call that ended the turn has Error and no Content.
type ToolResultData struct {
	// Content is the result the model reads; on record when Error is
	// empty, even when it is empty itself.
	Content string `json:"content"`
	// Error says why the call ended the turn; empty when it did not.
	Error string `json:"error,omitempty"`
	ID    string `json:"id"`
	// IsError reports a result that tells the model the call failed.
	IsError bool   `json:"isError,omitempty"`
	Name    string `json:"name"`
}

// MarshalJSON writes d with content and isError, or with error when the
// call ended the turn.
func (d ToolResultData) MarshalJSON() ([]byte, error) {
	if d.Error != "" {
		return marshalJSON(struct {
			Error string `json:"error"`
			ID    string `json:"id"`
			Name  string `json:"name"`
		}{d.Error, d.ID, d.Name})
	}
	type plain ToolResultData
	return marshalJSON(plain(d))
}

// InquiryRequestedData is the payload of KindInquiryRequested: a question
// (Question, Options) or an ask_user card (Kind, Questions) is put to the
// person.
type InquiryRequestedData struct {
	// Deadline is when the question ends unanswered, in RFC 3339 to the
	// second, UTC; empty when it has none. A card always has one.
	Deadline string `json:"deadline,omitempty"`
	ID       string `json:"id"`
	// Kind is "ask_user" for a card, empty for a question.
	Kind string `json:"kind,omitempty"`
	// Options are the question's options; nil for free text. Non-nil,
	// they are on record even when empty.
	Options []string `json:"options,omitzero"`
	// Question is the question's text; empty for a card.
	Question  string                `json:"question,omitempty"`
	Questions []CardQuestionRequest `json:"questions,omitempty"`
}

// CardQuestionRequest is one question of a card in InquiryRequestedData.
type CardQuestionRequest struct {
	// AllowOther and MultiSelect are on record when the question has
	// options, and only then.
	AllowOther  bool               `json:"allowOther"`
	Header      string             `json:"header,omitempty"`
	MultiSelect bool               `json:"multiSelect"`
	Options     []CardOptionRecord `json:"options,omitempty"`
	Question    string             `json:"question"`
	// Secret names the secret the question asks for; empty for any other.
	Secret string `json:"secret,omitempty"`
}

// MarshalJSON writes q, with allowOther and multiSelect when it has
// options.
func (q CardQuestionRequest) MarshalJSON() ([]byte, error) {
	if len(q.Options) > 0 {
		type plain CardQuestionRequest
		return marshalJSON(plain(q))
	}
	return marshalJSON(struct {
		Header   string `json:"header,omitempty"`
		Question string `json:"question"`
		Secret   string `json:"secret,omitempty"`
	}{q.Header, q.Question, q.Secret})
}

// CardOptionRecord is one option of a card's question in
// InquiryRequestedData.
type CardOptionRecord struct {
	Description string `json:"description,omitempty"`
	Label       string `json:"label"`
	Recommended bool   `json:"recommended,omitempty"`
}

// InquiryParkedData is the payload of KindInquiryParked: under wisp mcp,
// the hold of a question ended without an answer and the turn went on.
type InquiryParkedData struct {
	Deadline string   `json:"deadline,omitempty"`
	ID       string   `json:"id"`
	Options  []string `json:"options,omitzero"`
	Question string   `json:"question"`
}

// InquirySettledData is the payload of KindInquirySettled: how a question
// or a card ended. A question has Question, Outcome and Provenance; a card
// Kind and Questions; one the turn stopped (Outcome "stopped") only its
// ID, Kind for a card, and Error.
type InquirySettledData struct {
	// Answer is the answer in full, credentials replaced by markers.
	Answer string `json:"answer,omitempty"`
	// Cut reports that the model got only the first MaxAnswerBytes.
	Cut bool `json:"cut,omitempty"`
	// Error says why the question was stopped, or why a late answer was
	// no answer.
	Error string `json:"error,omitempty"`
	// FileSHA256 is the SHA-256 of the answer's file, for an answer taken
	// from a parked question's file.
	FileSHA256 string `json:"fileSHA256,omitempty"`
	ID         string `json:"id"`
	// Kind is "ask_user" for a card.
	Kind string `json:"kind,omitempty"`
	// Outcome is Outcome.String(), or "stopped".
	Outcome string `json:"outcome,omitempty"`
	// Provenance is Provenance.String().
	Provenance string                `json:"provenance,omitempty"`
	Question   string                `json:"question,omitempty"`
	Questions  []CardQuestionSettled `json:"questions,omitempty"`
	// Redacted are the markers that replaced credentials in the answer.
	Redacted []string `json:"redacted,omitempty"`
}

// CardQuestionSettled is how one question of a card ended, in
// InquirySettledData. A secret's value is never on record: only its name
// and the reference the vault gave.
type CardQuestionSettled struct {
	Answer     string   `json:"answer,omitempty"`
	Chosen     []string `json:"chosen,omitempty"`
	Cut        bool     `json:"cut,omitempty"`
	Error      string   `json:"error,omitempty"`
	Fallback   bool     `json:"fallback,omitempty"`
	Outcome    string   `json:"outcome"`
	Provenance string   `json:"provenance"`
	Question   string   `json:"question"`
	Redacted   []string `json:"redacted,omitempty"`
	Ref        string   `json:"ref,omitempty"`
	Secret     string   `json:"secret,omitempty"`
}

// InquiryAnsweredData is the payload of KindInquiryAnswered: the person
// answered a parked question, recorded by the process they answered in
// before the answer's file appears.
type InquiryAnsweredData struct {
	Answer     string `json:"answer,omitempty"`
	FileSHA256 string `json:"fileSHA256,omitempty"`
	// From is where the answer was given: "terminal", "chat", "tui",
	// "elicitation".
	From    string `json:"from"`
	ID      string `json:"id"`
	Outcome string `json:"outcome"`
	// PID is the answering process's.
	PID      int    `json:"pid,omitempty"`
	Question string `json:"question"`
	// Terminal is the terminal an answer was typed at, such as /dev/pts/3.
	Terminal string `json:"terminal,omitempty"`
	// UID is the answering process's user ID; nil where the system has
	// none.
	UID *int `json:"uid,omitempty"`
}

// InquiryRefusedData is the payload of KindInquiryRefused: an answer on
// file that no inquiry.answered record gave, refused and removed.
type InquiryRefusedData struct {
	Answer     string `json:"answer,omitempty"`
	FileSHA256 string `json:"fileSHA256"`
	From       string `json:"from"`
	ID         string `json:"id"`
	Outcome    string `json:"outcome"`
	Question   string `json:"question"`
	Reason     string `json:"reason"`
}

// VerificationFlaggedData is the payload of KindVerificationFlag: a reply
// claims what the turn does not show.
type VerificationFlaggedData struct {
	// Claim is the words of the reply that made the claim.
	Claim string `json:"claim"`
	Flag  string `json:"flag"`
}

// NoticeData is the payload of KindNotice: a notice posted to a thread,
// wisp's word to the model (the end of a pull).
type NoticeData struct {
	Text string `json:"text"`
}

// CondensedData is the payload of KindCondensed: a thread's oldest turns
// were dropped.
type CondensedData struct {
	Dropped int `json:"dropped"`
	Facts   int `json:"facts"`
	Kept    int `json:"kept"`
	// Reason is "messages", "context" or "size".
	Reason string `json:"reason"`
}

// TurnEndedData is the payload of KindTurnEnded: the steps a turn took,
// or the error it ended with.
type TurnEndedData struct {
	Error string `json:"error,omitempty"`
	// Interrupted reports that the person stopped the turn; on record
	// whenever Error is.
	Interrupted bool `json:"interrupted"`
	// Steps is on record when Error is empty, and only then.
	Steps int `json:"steps"`
}

// MarshalJSON writes d with steps, or with error and interrupted.
func (d TurnEndedData) MarshalJSON() ([]byte, error) {
	if d.Error != "" {
		return marshalJSON(struct {
			Error       string `json:"error"`
			Interrupted bool   `json:"interrupted"`
		}{d.Error, d.Interrupted})
	}
	return marshalJSON(struct {
		Steps int `json:"steps"`
	}{d.Steps})
}

// ClassifierVerdictData is the payload of KindClassifierVerdict: how the
// classifier rated a command.
type ClassifierVerdictData struct {
	Command string `json:"command"`
	Rating  string `json:"rating"`
	Reason  string `json:"reason"`
}

// ApprovalRequestedData is the payload of KindApprovalRequested: an
// approval request is put to the person.
type ApprovalRequestedData struct {
	Command  string `json:"command"`
	Deadline string `json:"deadline,omitempty"`
	// Diff is the request's diff (ApprovalRequest.Diff), when it has one.
	Diff    string `json:"diff,omitempty"`
	ID      string `json:"id"`
	Kind    string `json:"kind"`
	Pattern string `json:"pattern"`
	Rating  string `json:"rating"`
	// Scopes are the answers the request allows, by Scope.String().
	Scopes []string `json:"scopes"`
	Text   string   `json:"text"`
}

// ApprovalDecidedData is the payload of KindApprovalDecided: how an
// approval request ended.
type ApprovalDecidedData struct {
	ApprovalID string `json:"approvalID"`
	// Covered reports an earlier answer that covered the request.
	Covered bool `json:"covered,omitempty"`
	// Decision is "approved" or "refused".
	Decision string `json:"decision"`
	// DowngradedFrom is the person's answer when it was wider than the
	// request allows and was narrowed to Scope.
	DowngradedFrom string `json:"downgradedFrom,omitempty"`
	FileSHA256     string `json:"fileSHA256,omitempty"`
	Reason         string `json:"reason,omitempty"`
	Scope          string `json:"scope"`
}

// ApprovalAnsweredData is the payload of KindApprovalAnswered: the person
// answered a request another process waits on, recorded by the process
// they answered in before the decision's file appears.
type ApprovalAnsweredData struct {
	Command    string `json:"command"`
	FileSHA256 string `json:"fileSHA256,omitempty"`
	From       string `json:"from"`
	ID         string `json:"id"`
	PID        int    `json:"pid,omitempty"`
	// Scope is the person's answer as given: "once", "session", or "none"
	// for a denial.
	Scope    string `json:"scope"`
	Terminal string `json:"terminal,omitempty"`
	UID      *int   `json:"uid,omitempty"`
}

// ApprovalRefusedData is the payload of KindApprovalRefused: a decision
// on file that no approval.answered record gave, refused and removed.
type ApprovalRefusedData struct {
	Command    string `json:"command"`
	FileSHA256 string `json:"fileSHA256"`
	From       string `json:"from"`
	ID         string `json:"id"`
	Reason     string `json:"reason"`
	Scope      string `json:"scope"`
}

// ApprovalRevokedData is the payload of KindApprovalRevoked: the person
// revoked an answer of scope project or always that the gate kept, so it
// covers nothing from now on.
type ApprovalRevokedData struct {
	// ApprovalID is the kept answer's: the approval.decided that kept it.
	ApprovalID string `json:"approvalID"`
	Pattern    string `json:"pattern"`
	// Project is the workspace a project answer held in; empty for one
	// of always.
	Project string `json:"project,omitempty"`
	// Scope is "project" or "always".
	Scope string `json:"scope"`
}

// ConfigChangeData is the payload of KindConfigChange: a security setting
// changes. A list's change names one item Added or Removed; any other
// setting's has its value From and To.
type ConfigChangeData struct {
	Added string `json:"added,omitempty"`
	// From and To are on record when neither Added nor Removed is set,
	// and only then.
	From    string `json:"from"`
	Key     string `json:"key"`
	Removed string `json:"removed,omitempty"`
	To      string `json:"to"`
}

// MarshalJSON writes d with the item added or removed, or with from and
// to.
func (d ConfigChangeData) MarshalJSON() ([]byte, error) {
	if d.Added != "" || d.Removed != "" {
		return marshalJSON(struct {
			Added   string `json:"added,omitempty"`
			Key     string `json:"key"`
			Removed string `json:"removed,omitempty"`
		}{d.Added, d.Key, d.Removed})
	}
	type plain ConfigChangeData
	return marshalJSON(plain(d))
}

// ModelVerifiedData is the payload of KindModelVerified: a model was
// checked.
type ModelVerifiedData struct {
	Capabilities []string `json:"capabilities"`
	Findings     []string `json:"findings"`
	Name         string   `json:"name"`
	OK           bool     `json:"ok"`
}

// ModelPublisherData is the payload of KindModelPublisher: the person
// trusts a publisher (Trusted), or a pull of one not trusted goes ahead
// this once (Repo), the publisher staying untrusted.
type ModelPublisherData struct {
	Publisher string `json:"publisher"`
	Repo      string `json:"repo,omitempty"`
	Trusted   bool   `json:"trusted"`
}

// ModelPullData is the payload of KindModelPull: a pull ended.
type ModelPullData struct {
	Bytes  int64  `json:"bytes"`
	Commit string `json:"commit"`
	Error  string `json:"error,omitempty"`
	// Files is how many files the pull fetched, Of how many the model has.
	Files int    `json:"files"`
	Name  string `json:"name"`
	Of    int    `json:"of"`
	// Outcome is "finished", "failed" or "cancelled".
	Outcome string `json:"outcome"`
	Repo    string `json:"repo"`
}

// CommandStartedData is the payload of KindCommandStarted: a shell
// command line the model asked for starts (run_command), under the
// approval ApprovalID, in the sandbox Mode.
type CommandStartedData struct {
	// ApprovalID is the approval the command runs under: the id of
	// approval.decided.
	ApprovalID string `json:"approvalID"`
	// Command is the command line as the model sent it.
	Command string `json:"command"`
	// Cwd is the folder it runs in, relative to the workspace: "." for
	// the workspace itself.
	Cwd string `json:"cwd"`
	// Env names the variables the call set from the session's secrets,
	// each with the reference it was given ("GH_TOKEN=session:GH_TOKEN");
	// never a value.
	Env []string `json:"env,omitempty"`
	// ID is the tool call's id.
	ID string `json:"id"`
	// Mode is the sandbox the command runs in: "read-only",
	// "workspace-write", or "off" when it runs unconfined.
	Mode string `json:"mode"`
	// Network reports that the sandbox lets the command reach the
	// network.
	Network bool `json:"network"`
	// TimeoutSeconds is how long the command may run before it is
	// ended.
	TimeoutSeconds int `json:"timeoutSeconds"`
}

// CommandEndedData is the payload of KindCommandEnded: how a command that
// started ended. Its output is not on record; the tool's result, which
// the model reads, carries it (tool.result).
type CommandEndedData struct {
	ApprovalID string `json:"approvalID"`
	// Bytes is how much the command wrote, both streams together,
	// whether or not it was all kept.
	Bytes int64 `json:"bytes"`
	// Cut reports that output was cut: only its head and tail were kept.
	Cut bool `json:"cut,omitempty"`
	// Denied are what the sandbox refused the command, as the sandbox
	// reports them (a write outside the workspace, a connection).
	Denied []string `json:"denied,omitempty"`
	// DurationMS is how long the command ran, in milliseconds.
	DurationMS int64 `json:"durationMS"`
	// Error says why the command could not run, or why it was stopped.
	Error string `json:"error,omitempty"`
	// ExitCode is the command's exit status; -1 when a signal ended it
	// or it never ran.
	ExitCode int    `json:"exitCode"`
	ID       string `json:"id"`
	Mode     string `json:"mode"`
	// Outcome is "exited", "signalled", "timed-out", "cancelled" (the
	// turn was stopped) or "failed" (it could not be run).
	Outcome string `json:"outcome"`
	// Signal names the signal that ended it, such as "killed".
	Signal string `json:"signal,omitempty"`
}

// EventKind returns KindTurnStarted.
func (TurnStartedData) EventKind() string { return KindTurnStarted }

// EventKind returns KindModelMessage.
func (ModelMessageData) EventKind() string { return KindModelMessage }

// EventKind returns KindToolCall.
func (ToolCallData) EventKind() string { return KindToolCall }

// EventKind returns KindToolResult.
func (ToolResultData) EventKind() string { return KindToolResult }

// EventKind returns KindInquiryRequested.
func (InquiryRequestedData) EventKind() string { return KindInquiryRequested }

// EventKind returns KindInquiryParked.
func (InquiryParkedData) EventKind() string { return KindInquiryParked }

// EventKind returns KindInquirySettled.
func (InquirySettledData) EventKind() string { return KindInquirySettled }

// EventKind returns KindInquiryAnswered.
func (InquiryAnsweredData) EventKind() string { return KindInquiryAnswered }

// EventKind returns KindInquiryRefused.
func (InquiryRefusedData) EventKind() string { return KindInquiryRefused }

// EventKind returns KindVerificationFlag.
func (VerificationFlaggedData) EventKind() string { return KindVerificationFlag }

// EventKind returns KindNotice.
func (NoticeData) EventKind() string { return KindNotice }

// EventKind returns KindCondensed.
func (CondensedData) EventKind() string { return KindCondensed }

// EventKind returns KindTurnEnded.
func (TurnEndedData) EventKind() string { return KindTurnEnded }

// EventKind returns KindClassifierVerdict.
func (ClassifierVerdictData) EventKind() string { return KindClassifierVerdict }

// EventKind returns KindApprovalRequested.
func (ApprovalRequestedData) EventKind() string { return KindApprovalRequested }

// EventKind returns KindApprovalDecided.
func (ApprovalDecidedData) EventKind() string { return KindApprovalDecided }

// EventKind returns KindApprovalAnswered.
func (ApprovalAnsweredData) EventKind() string { return KindApprovalAnswered }

// EventKind returns KindApprovalRefused.
func (ApprovalRefusedData) EventKind() string { return KindApprovalRefused }

// EventKind returns KindApprovalRevoked.
func (ApprovalRevokedData) EventKind() string { return KindApprovalRevoked }

// EventKind returns KindConfigChange.
func (ConfigChangeData) EventKind() string { return KindConfigChange }

// EventKind returns KindModelVerified.
func (ModelVerifiedData) EventKind() string { return KindModelVerified }

// EventKind returns KindModelPublisher.
func (ModelPublisherData) EventKind() string { return KindModelPublisher }

// EventKind returns KindModelPull.
func (ModelPullData) EventKind() string { return KindModelPull }

// EventKind returns KindCommandStarted.
func (CommandStartedData) EventKind() string { return KindCommandStarted }

// EventKind returns KindCommandEnded.
func (CommandEndedData) EventKind() string { return KindCommandEnded }

// marshalJSON is json.Marshal without HTML escaping, as the audit log
// writes: <, > and & stay as they are.
func marshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
