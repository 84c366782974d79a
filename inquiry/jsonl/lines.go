package jsonl

import (
	"time"

	"github.com/wisp-agent/wisp/inquiry/pending"
)

// The protocol's fixed values, as Hello announces them.
const (
	// Protocol names the protocol in Hello.
	Protocol = "wisp-chat"
	// Version is the protocol's version. Additions keep it; see the
	// package documentation.
	Version = 1
	// MaxLine is the most bytes a line from the client may hold, the
	// newline excluded. A longer line is refused with an Error line; its
	// rest is skipped and the session goes on. Lines wisp writes have no
	// such bound: a tool's result may be long.
	MaxLine = 64 << 10
)

// The line types, the value of every line's "type".
const (
	// wisp to the client.
	TypeHello   = "hello"
	TypeTurn    = "turn"
	TypeDelta   = "delta"
	TypeTool    = "tool"
	TypeNote    = "note"
	TypeChoice  = "choice"
	TypeSettled = "settled"
	TypeEnd     = "end"
	TypeError   = "error"
	TypeBye     = "bye"

	// The client to wisp.
	TypeMessage = "message"
	TypeChoose  = "choose"
	TypeApprove = "approve"
	TypeDeny    = "deny"
	TypeCancel  = "cancel"
	// TypeQuestions is read only by a session that announces it in
	// Hello.Accepts (one that can put parked questions to the client).
	TypeQuestions = "questions"
	// TypeCommand is read only by a session that announces it in
	// Hello.Accepts (one that runs the person's commands).
	TypeCommand = "command"
)

// The actions of a Questions line, as wisp questions and chat's
// /questions name them.
const (
	ActionList    = "list"    // tell of each waiting question in a note
	ActionAnswer  = "answer"  // put question ID to the client as a choice
	ActionDecline = "decline" // decline question ID at once
)

// The kinds of a choice line.
const (
	KindQuestion = "question" // the model's question (ask): Question
	KindCard     = "card"     // the model's card of questions (ask_user): Card
	KindApproval = "approval" // wisp's own request for approval (the gate): Approval
)

// The phases of a tool line.
const (
	PhaseCall   = "call"   // ToolCall
	PhaseOutput = "output" // ToolOutput
	PhaseResult = "result" // ToolResult
)

// The titles of choices. A question or a card is always "the model asks";
// an approval is always "wisp asks your approval": neither can pass for
// the other.
const (
	TitleModelAsks = "the model asks"
	TitleApproval  = "wisp asks your approval"
)

// The outcomes of a Settled line.
const (
	OutcomeAnswered  = "answered"   // a question answered with text, or a card answered
	OutcomeChose     = "chose"      // a question the client answered with an option
	OutcomeChoseNone = "chose-none" // a question the client answered with none of these
	OutcomeDeclined  = "declined"   // a question or card the client declined
	OutcomeTimedOut  = "timed-out"  // the deadline passed
	OutcomeCancelled = "cancelled"  // the turn was cancelled or stopped while the choice waited
	OutcomeApproved  = "approved"   // an approval the client approved
	OutcomeRefused   = "refused"    // an approval the client denied, or refused because its input ended
	OutcomeClosed    = "closed"     // a question or card that ended because the client's input did: no person answered it
)

// The kinds of a Note, besides any other kind a later wisp may add (show
// those as plain notes).
const (
	NoteRedacted = "redacted" // part of the person's answer looked like a credential and was not passed on
	NoteCut      = "cut"      // the person's answer was too long and was cut
	NoteFlag     = "flag"     // the verification pass flagged the reply (a claim the turn cannot back)
	NotePull     = "pull"     // a background model pull ended
	NoteQuestion = "question" // a question filed by wisp mcp waits for the person
	NoteCommand  = "command"  // what one of the person's commands said, or why it failed
	NoteSecret   = "secret"   // a secret the person gave was not stored
	NoteWaiting  = "waiting"  // the turn waits for its thread, or for the audit log, which another process holds
	NoteSandbox  = "sandbox"  // commands cannot be confined here, so every one is asked and runs with all the person's rights
)

// A Line is one message of the protocol, in either direction. Its
// LineType is the line's "type". The types of this package are the only
// Lines; Encode writes them and Decode reads them.
type Line interface {
	LineType() string
}

// A Choice is a choice line: Question, Card or Approval.
type Choice interface {
	Line
	// ChoiceKind is the line's "kind".
	ChoiceKind() string
	// ChoiceID is the id an answer names.
	ChoiceID() string
}

// Hello is always the first line wisp writes: it names the protocol and
// its version and says what this wisp can do.
//
//	{"type":"hello","protocol":"wisp-chat","version":1,"wisp":"v0.9.0","session":"5f2a9c1e",…}
type Hello struct {
	Protocol string `json:"protocol"` // Protocol
	Version  int    `json:"version"`  // Version
	Wisp     string `json:"wisp"`     // wisp's own version
	Session  string `json:"session"`
	Thread   string `json:"thread"` // the thread the session's turns run on
	Model    string `json:"model"`
	// Tools are the tools the model has in this session, such as "ask".
	Tools []string `json:"tools"`
	// Accepts are the line types wisp reads from the client.
	Accepts []string `json:"accepts"`
	// Choices are the kinds of choice this wisp may put to the client.
	Choices []string `json:"choices"`
	// MaxLine is the most bytes a line from the client may hold.
	MaxLine int `json:"maxLine"`
}

// Turn says that a turn starts, on the person's message.
//
//	{"type":"turn","thread":"t-5f2a9c1e","turn":1,"text":"Replace the config."}
type Turn struct {
	Thread string `json:"thread"`
	Turn   int    `json:"turn"`
	Text   string `json:"text"` // the person's message as the turn got it
}

// Delta is a piece of the model's reply as it streams: Text, or Thinking
// for its reasoning. Both are the model's words, unescaped.
//
//	{"type":"delta","text":"Replacing ./wisp.json"}
type Delta struct {
	Text     string `json:"text,omitempty"`
	Thinking string `json:"thinking,omitempty"`
}

// ToolCall says the model called a tool (a tool line of phase "call").
//
//	{"type":"tool","phase":"call","id":"call_1","name":"ask","summary":"Which config did you mean?"}
type ToolCall struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Summary string `json:"summary"` // the call in short, never the words of a question: "a question", "2 questions"
}

// ToolOutput is what a tool call prints as it runs, such as a command's
// output, redacted (a tool line of phase "output"): whole lines of one
// Stream, "stdout" or "stderr", in the order they came, between the
// call's ToolCall and its ToolResult. The text is the command's,
// unescaped. A client shows it as it comes; the ToolResult that follows
// holds what the model reads, the output among it.
//
//	{"type":"tool","phase":"output","id":"call_1","name":"run_command","stream":"stdout","text":"ok  \tgithub.com/wisp-agent/wisp/policy\t0.4s\n"}
type ToolOutput struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Stream string `json:"stream"`
	Text   string `json:"text"`
}

// ToolResult is what a tool call gave the model (a tool line of phase
// "result").
//
//	{"type":"tool","phase":"result","id":"call_1","name":"ask","text":"chose: ./wisp.json","isError":false}
type ToolResult struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Text    string `json:"text"`
	IsError bool   `json:"isError"`
}

// Note is something wisp tells the person: a credential not passed on, a
// flagged reply, the end of a pull, a question that waits. Kind is one of
// the Note constants or a kind a later wisp adds.
//
//	{"type":"note","kind":"flag","thread":"t-5f2a9c1e","text":"…"}
type Note struct {
	Kind   string `json:"kind"`
	Thread string `json:"thread,omitempty"`
	// ID names what the note is about, when it is about one thing, such as
	// the id of a question filed by wisp mcp.
	ID   string `json:"id,omitempty"`
	Text string `json:"text"`
}

// Question is the model's question (the ask tool), a choice line of kind
// "question". A choice has Options and NoneOfThese; free text has no
// Options and AcceptsText. Answer it with Choose.
//
//	{"type":"choice","kind":"question","id":"a1b2c3d4","thread":"t-5f2a9c1e","turn":1,"title":"the model asks","text":"Which config did you mean?","options":["~/.wisp/config.json","./wisp.json"],"noneOfThese":true,"acceptsText":false}
type Question struct {
	ID     string `json:"id"`
	Thread string `json:"thread"`
	Turn   int    `json:"turn"`
	Title  string `json:"title"` // TitleModelAsks
	Text   string `json:"text"`  // the model's question, unescaped
	// Options are the choices, numbered from 1 in answers; nil for free
	// text.
	Options []string `json:"options,omitempty"`
	// NoneOfThese offers "none of these" besides the options.
	NoneOfThese bool `json:"noneOfThese,omitempty"`
	// AcceptsText says the answer may be text.
	AcceptsText bool `json:"acceptsText"`
	// Deadline is when the question ends unanswered; zero (omitted) when
	// it waits for as long as the person takes.
	Deadline time.Time `json:"deadline,omitzero"`
	// Parked marks a question wisp mcp parked on its Thread, put to the
	// client because the person asked for it (a Questions line with
	// action answer): the answer goes to that thread, which the agent
	// that called wisp mcp can read. Declining it is final there too.
	Parked bool `json:"parked,omitempty"`
}

// Card is the model's card of questions (the ask_user tool), a choice line
// of kind "card": 1 to 4 questions, or one secret question alone. Answer
// it with Choose and one CardAnswer a question, in order.
type Card struct {
	ID        string         `json:"id"`
	Thread    string         `json:"thread"`
	Turn      int            `json:"turn"`
	Title     string         `json:"title"` // TitleModelAsks
	Questions []CardQuestion `json:"questions"`
	// Deadline is when the card ends; the questions unanswered then fall
	// back to their defaults, and a secret is declined.
	Deadline time.Time `json:"deadline,omitzero"`
}

// CardQuestion is one question of a Card.
type CardQuestion struct {
	Text   string `json:"text"`
	Header string `json:"header,omitempty"` // a short label, up to 12 characters
	// Options are the choices, numbered from 1 in answers, most applicable
	// first; nil for free text and secrets.
	Options     []CardOption `json:"options,omitempty"`
	MultiSelect bool         `json:"multiSelect"`
	// AcceptsText says the answer may be text: free text, a "something
	// else" besides the options, or a secret's value.
	AcceptsText bool `json:"acceptsText"`
	// Secret names the credential a secret question collects, such as
	// GH_TOKEN; the client reads its value without showing it.
	Secret string `json:"secret,omitempty"`
}

// CardOption is one option of a CardQuestion.
type CardOption struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
	Recommended bool   `json:"recommended,omitempty"` // the option a fallback picks
}

// Approval is wisp's own request for the person's approval (the gate), a
// choice line of kind "approval": never a question, and never answered by
// Choose. Answer it with Approve and one of its Scopes, or Deny.
//
//	{"type":"choice","kind":"approval","id":"e5f6a7b8","thread":"t-5f2a9c1e","turn":1,"title":"wisp asks your approval","command":"models enable ollama:qwen3:4b","text":"…","scopes":["once","session"]}
type Approval struct {
	ID     string `json:"id"`
	Thread string `json:"thread"`
	Turn   int    `json:"turn"`
	Title  string `json:"title"` // TitleApproval
	// Command is what is asked, as the classifier judged it; parts of it
	// may come from the model.
	Command string `json:"command"`
	// Text says what the person needs to know.
	Text string `json:"text"`
	// Diff, when present, is the change to a file the request would
	// allow, as a unified diff (wisp.ApprovalRequest.Diff): lines from
	// the file and the model, to be escaped as the rest; a client may
	// colour its lines that start with "-" and "+".
	Diff string `json:"diff,omitempty"`
	// Scopes are the answers Approve may give, narrowest first: "once",
	// "session", "project", "always".
	Scopes []string `json:"scopes"`
	// Deadline is when the request ends refused; zero (omitted) when it
	// waits for as long as the person takes.
	Deadline time.Time `json:"deadline,omitzero"`
}

// Settled says a choice ended, by the client's answer or otherwise (a
// deadline, a cancel, the end of the input): close its picker. Outcome is
// one of the Outcome constants.
//
//	{"type":"settled","id":"a1b2c3d4","outcome":"chose"}
type Settled struct {
	ID      string `json:"id"`
	Outcome string `json:"outcome"`
}

// End says a turn ended: with the model's Reply, or with Error when it
// failed or was stopped (Stopped: by a cancel or Ctrl-C). Flags are the
// verification pass's findings about the reply. Turn is the turn's number,
// as its Turn line said; it is 0, and the line has no "turn", when the
// turn ended before it started (no Turn line came for it).
//
//	{"type":"end","thread":"t-5f2a9c1e","turn":1,"reply":"Replacing ./wisp.json with the new defaults."}
//	{"type":"end","thread":"t-5f2a9c1e","turn":2,"error":"the person stopped the turn","stopped":true}
//	{"type":"end","thread":"t-5f2a9c1e","error":"the person stopped the turn","stopped":true}
type End struct {
	Thread  string   `json:"thread"`
	Turn    int      `json:"turn,omitzero"`
	Reply   string   `json:"reply"` // written only when Error is empty, and then always
	Flags   []string `json:"flags,omitempty"`
	Error   string   `json:"error,omitempty"`
	Stopped bool     `json:"stopped,omitempty"`
}

// Error says what was wrong with a line the client sent, and how to mend
// it (Line is the line's number, from 1), or reports a failure that is
// about no line. Nothing changed; the session goes on.
//
//	{"type":"error","error":"the answer does not fit the choice: option 4 is out of range: choice a1b2c3d4 has options 1 to 2; send option 1 to 2, none, decline","line":3}
type Error struct {
	Error string `json:"error"`
	Line  int    `json:"line,omitzero"`
}

// Bye is the last line wisp writes, when the session ends.
type Bye struct{}

// Message is the person's message: it starts a turn. While a turn runs it
// is refused with an Error line: wait for End, or send Cancel.
//
//	{"type":"message","text":"Replace the config with the new defaults."}
type Message struct {
	Text string `json:"text"`
}

// Choose answers a Question or a Card by its id.
//
// For a question, exactly one of: Option (from 1), Text (where
// AcceptsText), None (none of these, where NoneOfThese) or Decline. For
// a card, Answers: one CardAnswer a question, in order.
//
//	{"type":"choose","id":"a1b2c3d4","option":2}
type Choose struct {
	ID      string       `json:"id"`
	Option  int          `json:"option,omitempty"`
	Text    string       `json:"text,omitempty"`
	None    bool         `json:"none,omitempty"`
	Decline bool         `json:"decline,omitempty"`
	Answers []CardAnswer `json:"answers,omitempty"`
}

// CardAnswer answers one question of a card: Decline alone, or Option
// (from 1) on a single choice, Options on a multi-select one, and Text
// where the question AcceptsText (free text, something else, a secret's
// value). Text besides options is allowed on a multi-select question that
// accepts text.
type CardAnswer struct {
	Option  int    `json:"option,omitempty"`
	Options []int  `json:"options,omitempty"`
	Text    string `json:"text,omitempty"`
	Decline bool   `json:"decline,omitempty"`
}

// Approve approves an Approval by its id, as far as Scope: one of the
// request's scopes, or a wider one, which the gate narrows to the widest
// the request offers and records as downgradedFrom.
//
//	{"type":"approve","id":"e5f6a7b8","scope":"once"}
type Approve struct {
	ID    string `json:"id"`
	Scope string `json:"scope"`
}

// Deny refuses an Approval by its id.
type Deny struct {
	ID string `json:"id"`
}

// Cancel stops the running turn: a choice that waits settles "cancelled",
// and the turn ends stopped.
type Cancel struct{}

// Questions is the person's word about the questions wisp mcp parked for
// them, as /questions is in a plain chat: Action list tells of each one
// that waits in a note of kind "question" (or a note that none does);
// answer puts question ID to the client as a Question with Parked set,
// answered with Choose like any question; decline declines question ID
// at once. Each answer and decline ends with a note of kind "question"
// saying what was filed. Only a session whose Hello.Accepts names
// "questions" reads it.
//
//	{"type":"questions","action":"answer","id":"a1b2c3d4"}
type Questions struct {
	Action string `json:"action"`
	ID     string `json:"id,omitempty"`
}

// QuestionsLine is the questions line for the person's words after
// /questions, read as every face reads them (pending.ParseCommand):
// nothing or list, answer ID, decline ID. An error says what the command
// takes.
func QuestionsLine(args []string) (Questions, error) {
	command, id, err := pending.ParseCommand(args)
	if err != nil {
		return Questions{}, err
	}
	return Questions{Action: command, ID: id}, nil
}

// Command is one of the person's commands, as a plain chat takes it after
// "/": Name "models" and Args ["enable", "ollama:qwen3:4b"] are /models
// enable ollama:qwen3:4b, the person's own action through the same rules
// as everywhere. It runs while the session reads on, and what it said
// (or why it failed) comes as one note of kind "command", its lines in
// Text. Only a session whose Hello.Accepts names "command" reads it.
//
//	{"type":"command","name":"models","args":["list"]}
type Command struct {
	Name string   `json:"name"`
	Args []string `json:"args,omitempty"`
}

// LineType returns "hello".
func (Hello) LineType() string { return TypeHello }

// LineType returns "turn".
func (Turn) LineType() string { return TypeTurn }

// LineType returns "delta".
func (Delta) LineType() string { return TypeDelta }

// LineType returns "tool".
func (ToolCall) LineType() string { return TypeTool }

// LineType returns "tool".
func (ToolOutput) LineType() string { return TypeTool }

// LineType returns "tool".
func (ToolResult) LineType() string { return TypeTool }

// LineType returns "note".
func (Note) LineType() string { return TypeNote }

// LineType returns "command".
func (Command) LineType() string { return TypeCommand }

// LineType returns "choice".
func (Question) LineType() string { return TypeChoice }

// LineType returns "choice".
func (Card) LineType() string { return TypeChoice }

// LineType returns "choice".
func (Approval) LineType() string { return TypeChoice }

// LineType returns "settled".
func (Settled) LineType() string { return TypeSettled }

// LineType returns "end".
func (End) LineType() string { return TypeEnd }

// LineType returns "error".
func (Error) LineType() string { return TypeError }

// LineType returns "bye".
func (Bye) LineType() string { return TypeBye }

// LineType returns "message".
func (Message) LineType() string { return TypeMessage }

// LineType returns "choose".
func (Choose) LineType() string { return TypeChoose }

// LineType returns "approve".
func (Approve) LineType() string { return TypeApprove }

// LineType returns "deny".
func (Deny) LineType() string { return TypeDeny }

// LineType returns "cancel".
func (Cancel) LineType() string { return TypeCancel }

// LineType returns "questions".
func (Questions) LineType() string { return TypeQuestions }

// ChoiceKind returns "question".
func (Question) ChoiceKind() string { return KindQuestion }

// ChoiceKind returns "card".
func (Card) ChoiceKind() string { return KindCard }

// ChoiceKind returns "approval".
func (Approval) ChoiceKind() string { return KindApproval }

// ChoiceID returns q.ID.
func (q Question) ChoiceID() string { return q.ID }

// ChoiceID returns c.ID.
func (c Card) ChoiceID() string { return c.ID }

// ChoiceID returns a.ID.
func (a Approval) ChoiceID() string { return a.ID }
