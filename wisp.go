package wisp

import (
	"context"
	"encoding/json"
)

// This file holds the interfaces of wisp, the contracts its packages
// implement and consume; the value types they speak in are beside it:
// reply.go (with Mail, what an Inbox brings a thread), tool.go, inquiry.go,
// card.go, approval.go, model.go, models.go, and event.go with EventSink and
// Witness, the sinks of events.
//
// Agent, Inquirer, Approver and Model have a Func adapter each; Tool,
// which has four methods, has ToolFunc, a struct. Summarizer, Guarded,
// CardInquirer and Notifier are abilities a Tool or a face may add,
// found by type assertion, so they have none.

// An Agent answers a person's input on a thread, running as many model
// steps and tool calls as the turn needs.
type Agent interface {
	Respond(ctx context.Context, thread, input string) (Reply, error)
}

// AgentFunc adapts a function to an Agent.
type AgentFunc func(ctx context.Context, thread, input string) (Reply, error)

// Respond calls f(ctx, thread, input).
func (f AgentFunc) Respond(ctx context.Context, thread, input string) (Reply, error) {
	return f(ctx, thread, input)
}

// An Inbox holds mail for threads: what arrived for a thread while no
// turn ran, such as the answer to a question that waited beyond its turn.
// The agent calls Take at the start of a turn, after the thread is loaded,
// and posts the mail as notices, in order, before the person's input; it
// calls Delivered with the same mail once the thread has been saved with
// it, whatever the turn's end, so the Inbox can forget it. A crash between
// the two delivers the mail again on the next turn rather than losing it.
//
// An error from Take ends the turn before the model is asked. Inboxes must
// be safe for concurrent use.
type Inbox interface {
	Take(ctx context.Context, thread string, turn int) ([]Mail, error)
	Delivered(ctx context.Context, thread string, mail []Mail)
}

// A Tool is something the model can call.
//
// Arguments are validated against Schema before Call runs, so Call may
// assume they have the schema's shape. A tool that fails in a way the model
// can act on returns a Result with IsError set and a line that says what
// was wrong and what to send instead; Call returns an error only when the
// turn cannot go on (a face, policy, transport or context failure).
type Tool interface {
	// Name is how the model calls the tool: lower-case letters, digits, _.
	Name() string
	// Description is what the model reads about the tool.
	Description() string
	// Schema is the JSON Schema of the arguments.
	Schema() json.RawMessage
	// Call runs the tool.
	Call(ctx context.Context, c Call) (Result, error)
}

// ToolFunc adapts a function to a Tool. A Tool has four methods, not one,
// so its adapter is a struct: Spec is what the model reads (the name, the
// description and the JSON Schema of the arguments), Func runs the call.
// To write no schema by hand, build the tool with tools.New, from a Go
// function and its argument type: it infers the schema from the type.
type ToolFunc struct {
	Spec ToolSpec
	Func func(ctx context.Context, c Call) (Result, error)
}

// Name returns t.Spec.Name.
func (t ToolFunc) Name() string { return t.Spec.Name }

// Description returns t.Spec.Description.
func (t ToolFunc) Description() string { return t.Spec.Description }

// Schema returns t.Spec.Schema.
func (t ToolFunc) Schema() json.RawMessage { return t.Spec.Schema }

// Call calls t.Func(ctx, c).
func (t ToolFunc) Call(ctx context.Context, c Call) (Result, error) { return t.Func(ctx, c) }

// A Summarizer is a Tool that says in a few words what a call of it does,
// for the trace of tool calls a face shows as each call starts (wisp
// chat's "⚙ ask a question"). The agent records the summary with the call,
// as tool.call's "summary", and a face shows it in place of the arguments.
//
// A tool that asks the person something summarises without the words it
// asks with: the question and its options reach the person only in the
// face's frame for them, once the inquiry desk has taken them, so a
// question the desk refuses is never shown, and the model's words never
// stand on a line of wisp's own.
type Summarizer interface {
	// Summary returns the summary of a call with these arguments, which
	// have not been checked against the tool's schema.
	Summary(arguments json.RawMessage) string
}

// A Guarded is a Tool that says what a call of it would do before the
// call runs, as the command the approval gate judges. The agent sends
// every call through one guard: it asks the tool's Action, puts it to
// the gate (the classifier, then the person, unless the rating is below
// approval.threshold), and runs the call only once it is approved, with
// the approval in Call.Approval; a refused call does not run, and the
// model reads "error: not approved: <reason>". So no tool can forget to
// ask.
//
// A tool that is not a Guarded is judged by its name: its calls are asked
// about as the command NAME, which no rule knows, so each is dangerous and
// asked. A tool whose calls change nothing (ask, ask_user) says so with an
// Action whose NoApproval is set.
type Guarded interface {
	// Action says what the call would do. The call's arguments have
	// passed the tool's schema. An error ends the turn, as Call's does: a
	// call the tool will refuse (a name that names nothing) needs no
	// approval, and its Call says what was wrong.
	Action(ctx context.Context, c Call) (Action, error)
}

// An Inquirer is a face that can put a question to a person.
//
// Ask blocks until the person answers, declines or stops, or until ctx is
// done. When ctx is done Ask must return promptly with ctx's error (or its
// cause): the desk turns a passed deadline into OutcomeTimedOut and any
// other cancellation into the end of the turn. A face fails closed: a
// read error or a cancelled read is never an answer. Ask returns
// ErrInterrupted when the person asks to stop the turn (Ctrl-C).
//
// Implementations must be safe for use by one question at a time; the desk
// never asks two questions of one face at once on the same thread.
type Inquirer interface {
	Ask(ctx context.Context, q Question) (Answer, error)
}

// InquirerFunc adapts a function to an Inquirer.
type InquirerFunc func(ctx context.Context, q Question) (Answer, error)

// Ask calls f(ctx, q).
func (f InquirerFunc) Ask(ctx context.Context, q Question) (Answer, error) { return f(ctx, q) }

// A CardInquirer is a face that can show a whole card and read its
// answers, one CardAnswer for each question, in order.
//
// As with Ask, when ctx is done (the card's deadline, or the end of the
// turn) AskCard returns promptly with ctx's error or its cause; the
// answers it returns with that error, for the questions the person had
// finished, are kept, and the rest fall back. AskCard returns
// ErrInterrupted when the person asks to stop the turn.
//
// A face that is not a CardInquirer cannot render a card: the desk falls
// every question back to its default at once, marked as an unattended
// fallback.
type CardInquirer interface {
	AskCard(ctx context.Context, c Card) ([]CardAnswer, error)
}

// A Notifier is a face that can also tell the person things. The desk and
// the agent use it when the face implements it.
type Notifier interface {
	Notify(ctx context.Context, n Notice) error
}

// An Approver is a face that can ask a person's permission. Like an
// Inquirer it fails closed: a cancelled, timed-out or unreadable request is
// never an approval.
type Approver interface {
	Approve(ctx context.Context, r ApprovalRequest) (Decision, error)
}

// ApproverFunc adapts a function to an Approver.
type ApproverFunc func(ctx context.Context, r ApprovalRequest) (Decision, error)

// Approve calls f(ctx, r).
func (f ApproverFunc) Approve(ctx context.Context, r ApprovalRequest) (Decision, error) {
	return f(ctx, r)
}

// A Model is one chat backend.
//
// Chat sends the request and returns the model's message. If stream is not
// nil, Chat may call it with pieces of the content as they arrive, from the
// calling goroutine, before it returns. Chat must return promptly with
// ctx's error when ctx is done.
type Model interface {
	Chat(ctx context.Context, req ChatRequest, stream func(ChatDelta)) (ChatResponse, error)
}

// ModelFunc adapts a function to a Model.
type ModelFunc func(ctx context.Context, req ChatRequest, stream func(ChatDelta)) (ChatResponse, error)

// Chat calls f(ctx, req, stream).
func (f ModelFunc) Chat(ctx context.Context, req ChatRequest, stream func(ChatDelta)) (ChatResponse, error) {
	return f(ctx, req, stream)
}

// ModelActions is the one place for model rules, for the person and, with
// approval, for the model. A change taken by ActorModel goes ahead only
// under the person's approval of exactly that change, which the models
// tool's guard gives before the call runs and passes on in the context
// (models.WithApproval); without it nothing changes. Trust is refused
// unless the actor is the person.
type ModelActions interface {
	List(ctx context.Context, page int) (Listing, error)
	Show(ctx context.Context, name string) (ModelInfo, error)
	Pull(ctx context.Context, repo string, by Actor) (PullStarted, error)
	Enable(ctx context.Context, name string, by Actor) (Change, error)
	Disable(ctx context.Context, name string, by Actor) (Change, error)
	Check(ctx context.Context, name string, by Actor) (Change, error)
	Trust(ctx context.Context, publisher string, by Actor) error
}
