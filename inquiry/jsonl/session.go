package jsonl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/escape"
	"github.com/wisp-agent/wisp/inquiry/pending"
	"github.com/wisp-agent/wisp/inquiry/unattended"
	"github.com/wisp-agent/wisp/internal/version"
	"github.com/wisp-agent/wisp/policy/secrets"
)

// ErrTurnFailed: a turn of the session failed (its End line says why,
// and so does SessionOptions.Log). Serve returns it once the session has
// ended, so that the program exits with a failure.
var ErrTurnFailed = errors.New("a turn of the session failed")

// errTurnRunning refuses a message while a turn runs.
var errTurnRunning = errors.New("a turn is running; wait for its end line, or send cancel")

// A Conversation runs a session's turns, one at a time, on one thread:
// a conversation.Conversation is one.
type Conversation interface {
	// Respond runs one turn on the person's input. Its reply's Turn is 0
	// when the turn ended before it started.
	Respond(ctx context.Context, input string) (wisp.Reply, error)
	// Thread names the thread every turn runs on.
	Thread() string
}

// Parked are the questions wisp mcp parked for the person, as a session
// lists them and puts them to the client: a *pending.Answerer whose Face
// is the session's AskParked is one. Its methods may be called from
// several goroutines.
type Parked interface {
	// Waiting returns the questions that wait, and marks each told.
	Waiting() ([]wisp.Question, error)
	// Fresh returns the waiting questions not told yet, and marks them
	// told; an error that is the same as the last one is not returned
	// again.
	Fresh() ([]wisp.Question, error)
	// Check returns question id, and marks it told; or why it cannot be
	// answered (or declined) here.
	Check(id string, decline bool) (wisp.Question, error)
	// Answer puts question id to the person and files the answer, or a
	// decline; the error says why nothing was filed.
	Answer(ctx context.Context, id string, decline bool) error
}

// A Commander runs the person's commands by name (command lines: models,
// config): a conversation.Conversation is one. What it returns, or its
// error, is told the client in a note of kind command.
type Commander interface {
	Command(ctx context.Context, name string, args []string) (string, error)
}

// SessionOptions configure a Session. A nil *SessionOptions is the zero
// value: a person is asked, and nobody may answer a parked question.
type SessionOptions struct {
	// Unattended: nobody is asked anything (wisp chat --yes). Hello
	// offers no choices, the Inquirer ends every question with no person,
	// there is no Approver (every approval is refused), and answering a
	// parked question is refused.
	Unattended bool
	// Terminal names the controlling terminal a person answers parked
	// questions at (wisp-tui runs wisp in the person's terminal). "":
	// there is none, as for a program that starts wisp with pipes in a
	// session of its own, so answering a parked question is refused.
	Terminal string
	// Log receives the session's diagnostics, one line each, starting
	// "wisp: ": a turn that failed, a folder of parked questions that
	// cannot be read. nil: they are dropped.
	Log io.Writer
	// TakeInterrupts, when set, is called once Hello is written with the
	// session's handler of the person's Ctrl-C: it stops the running
	// turn, as a cancel line does, and with no turn running it ends the
	// session. Serve calls the release it returns as it ends.
	TakeInterrupts func(handle func()) (release func())
}

// ServeOptions are what Serve needs of the conversation besides its
// turns. A nil *ServeOptions is the zero value.
type ServeOptions struct {
	// Hello is the first line. Serve fills in the protocol's fields as
	// Face.Hello does, Wisp (wisp's version as the build recorded it,
	// as wisp --version prints it), Choices (none when Unattended) and
	// Accepts (questions only with Parked).
	Hello Hello
	// Parked are the questions the client lists and answers with
	// questions lines, and notes of those it has not been told of, at the
	// start and before each turn. nil: questions lines are refused.
	Parked Parked
	// Commands runs the person's command lines, one at a time while the
	// session reads on (Options.Command). nil: hello does not accept
	// command lines, and one that comes is told it is not taken.
	Commands Commander
	// Dropped are the tools the settings took out (tools.disabled), each
	// said on SessionOptions.Log before hello.
	Dropped []string
}

// A Session is the wisp side of one wisp chat --json session: hello, then
// each message line runs a turn (turn, delta and tool lines, the turn's
// choices, its end line) while the next lines are read, so that a choose,
// approve, deny or cancel reaches the turn; command lines run the
// person's commands and questions lines list and answer the questions
// wisp mcp parked, both while a turn runs too; the end of the input ends the
// session once the running turn has ended, and bye is the last line. It
// is docs/jsonl.md's protocol over the Face, for a conversation it knows
// only by its turns.
//
// Build the conversation with the Session's Inquirer, Approver and
// Notifier, and with the Session as its event sink and Delta as its
// stream of replies; then call Serve.
type Session struct {
	opts SessionOptions
	face *Face

	conv     Conversation
	parked   Parked
	commands Commander
	ctx      context.Context // the session's; a turn's context derives from it

	mu      sync.Mutex // held while a turn starts or ends, so its lines keep their order
	stop    context.CancelCauseFunc
	running bool
	failed  bool
	turns   sync.WaitGroup

	dmu      sync.Mutex
	streamed bool // the model step streamed text

	nmu sync.Mutex // held while notes of parked questions are written

	qmu    sync.Mutex
	asking map[string]bool // the parked questions put to the client, until filed
	runs   sync.WaitGroup
}

var _ wisp.EventSink = (*Session)(nil)

// NewSession returns a session that writes its lines to w.
func NewSession(w io.Writer, opts *SessionOptions) *Session {
	s := &Session{asking: map[string]bool{}}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.Log == nil {
		s.opts.Log = io.Discard
	}
	s.face = NewFace(w, &Options{Message: s.message, Cancel: func() { s.cancel() }, Questions: s.questions, Command: s.command})
	return s
}

// Face returns the session's face, which writes its lines.
func (s *Session) Face() *Face { return s.face }

// Inquirer returns what puts the model's questions and cards to the
// client: the face, or inquiry/unattended's when Unattended.
func (s *Session) Inquirer() wisp.Inquirer {
	if s.opts.Unattended {
		return unattended.Face{}
	}
	return s.face
}

// Approver returns what asks the client's approval: the face, or nil
// (nobody can approve) when Unattended.
func (s *Session) Approver() wisp.Approver {
	if s.opts.Unattended {
		return nil
	}
	return s.face
}

// Notifier returns the face, which writes each notice as a note line.
func (s *Session) Notifier() wisp.Notifier { return s.face }

// Fail writes the one error line of a session that could not start (no
// hello comes), and returns err.
func (s *Session) Fail(err error) error {
	_ = s.face.Send(Error{Error: errorLine(err)})
	return err
}

// RefuseParked says whether verb ("questions answer", "questions decline")
// on parked question id may go on in this session: only a person answers,
// so it is refused when Unattended or with no Terminal. It is a
// pending.Answerer's Refuse.
func (s *Session) RefuseParked(verb, id string) error {
	switch {
	case s.opts.Unattended:
		return fmt.Errorf("%s needs a person, and this chat runs with --yes, where nobody is asked anything; run wisp %s %s in a terminal", verb, verb, id)
	case s.opts.Terminal == "":
		return fmt.Errorf("%s runs only where a person is, so that nothing but a person may answer a question: this wisp chat --json has no terminal; run wisp-tui in a terminal, or wisp %s %s", verb, verb, id)
	}
	return nil
}

// Questions returns the parked questions of store as the session lists
// them and puts them to the client (ServeOptions.Parked): a
// pending.Answerer whose face is the client's (AskParked), refused unless
// a person is there (RefuseParked), telling the client what was filed
// (SayParked), with SessionOptions.Terminal as where the person answers.
// Answers are filed through store, whose Witness records them first (a
// conversation's Questions are recorded in its session).
func (s *Session) Questions(store pending.Store) *pending.Answerer {
	return &pending.Answerer{
		Store: store, Face: wisp.InquirerFunc(s.face.AskParked), From: pending.FromTUI,
		Terminal: s.opts.Terminal, Refuse: s.RefuseParked, Commands: "questions", Say: s.SayParked,
	}
}

// SayParked tells the client line about parked question q, in a note of
// kind question. It is a pending.Answerer's Say.
func (s *Session) SayParked(q wisp.Question, line string) {
	_ = s.face.Send(Note{Kind: NoteQuestion, ID: q.ID, Thread: q.Thread, Text: line})
}

// Serve runs the session: it writes hello, reads the client's lines from
// r until r ends, ctx ends or the person's Ctrl-C ends the session, waits
// for the running turn and the parked answers being filed, and writes
// bye. It returns ErrTurnFailed when a turn failed, and an error reading
// r; a session that Ctrl-C ended returns nil.
func (s *Session) Serve(ctx context.Context, r io.Reader, conv Conversation, opts *ServeOptions) error {
	var o ServeOptions
	if opts != nil {
		o = *opts
	}
	ctx, endSession := context.WithCancelCause(ctx)
	defer endSession(nil)
	s.mu.Lock()
	s.conv, s.parked, s.commands, s.ctx = conv, o.Parked, o.Commands, ctx
	s.mu.Unlock()

	for _, name := range o.Dropped {
		fmt.Fprintf(s.opts.Log, "wisp: %s is disabled by tools.disabled and was left out\n", escape.Terminal(name))
	}
	if err := s.face.Hello(s.hello(o.Hello)); err != nil {
		return err
	}
	s.noteParked()
	if s.opts.TakeInterrupts != nil {
		release := s.opts.TakeInterrupts(func() {
			if !s.cancel() {
				endSession(wisp.ErrInterrupted)
			}
		})
		defer release()
	}

	serveErr := s.face.Serve(ctx, r)
	s.turns.Wait()
	s.runs.Wait()
	_ = s.face.Send(Bye{})
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case serveErr != nil && !errors.Is(serveErr, wisp.ErrInterrupted):
		return serveErr
	case s.failed:
		return ErrTurnFailed
	}
	return nil
}

// hello is h with the session's own fields filled in.
func (s *Session) hello(h Hello) Hello {
	if h.Wisp == "" {
		h.Wisp = version.String()
	}
	if h.Choices == nil && s.opts.Unattended {
		h.Choices = []string{}
	}
	if h.Accepts == nil {
		h.Accepts = slices.Clone(clientTypes)
		if s.parked != nil {
			h.Accepts = append(h.Accepts, TypeQuestions)
		}
		if s.commands != nil {
			h.Accepts = append(h.Accepts, TypeCommand)
		}
	}
	return h
}

// command runs one of the person's commands: what it said, or why it
// failed in one line with any credential replaced by its marker.
func (s *Session) command(ctx context.Context, c Command) (string, error) {
	if s.commands == nil {
		return "", fmt.Errorf("this session does not take command lines (its hello does not accept them); run wisp %s in a terminal", c.Name)
	}
	text, err := s.commands.Command(ctx, c.Name, c.Args)
	if err != nil {
		return "", errors.New(errorLine(err))
	}
	return text, nil
}

// message starts a turn on text, or refuses it while one runs.
func (s *Session) message(text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running {
		return errTurnRunning
	}
	if s.ctx == nil || s.ctx.Err() != nil {
		return errors.New("the session is ending; it takes no more messages")
	}
	s.noteParked()
	turnCtx, stop := context.WithCancelCause(s.ctx)
	s.running, s.stop = true, stop
	s.turns.Add(1)
	go func() {
		defer s.turns.Done()
		reply, err := s.conv.Respond(turnCtx, text)
		stop(nil)
		end := endLine(s.conv.Thread(), reply, err)
		failed := end.Error != "" && !end.Stopped
		if failed {
			fmt.Fprintf(s.opts.Log, "wisp: %s\n", escape.Terminal(end.Error))
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		s.running, s.stop = false, nil
		if failed {
			s.failed = true
		}
		_ = s.face.Send(end)
	}()
	return nil
}

// endLine is the end line of a turn that Respond ended with reply and
// err. A reply with no turn number (0) is a turn that ended before it
// started, so no turn line came for it: its end line has no turn either,
// never a made-up turn 0, and it cannot have succeeded.
func endLine(thread string, reply wisp.Reply, err error) End {
	end := End{Thread: thread, Turn: reply.Turn, Reply: reply.Text, Flags: reply.Flags}
	if reply.Turn < 1 {
		end.Turn, end.Flags = 0, nil
		if err == nil {
			err = errors.New("the turn did not start")
		}
	}
	switch {
	case errors.Is(err, wisp.ErrInterrupted):
		end.Reply, end.Error, end.Stopped = "", wisp.ErrInterrupted.Error(), true
	case err != nil:
		end.Reply, end.Error = "", errorLine(err)
	}
	return end
}

// cancel stops the running turn and reports whether one was running.
func (s *Session) cancel() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stop == nil {
		return false
	}
	s.stop(wisp.ErrInterrupted)
	return true
}

// Delta writes a piece of the model's reply or reasoning as a delta line:
// a conversation's stream of replies.
func (s *Session) Delta(thread string, c wisp.ChatDelta) {
	if c.Content == "" && c.Thinking == "" {
		return
	}
	s.dmu.Lock()
	if c.Content != "" {
		s.streamed = true
	}
	s.dmu.Unlock()
	_ = s.face.Send(Delta{Text: c.Content, Thinking: c.Thinking})
}

// ToolOutput writes what a tool call prints as it runs, already
// redacted, as a tool line of phase output. The session gives it as the
// conversation's OnOutput.
func (s *Session) ToolOutput(o wisp.ToolOutput) {
	_ = s.face.Send(ToolOutput{ID: o.CallID, Name: o.Tool, Stream: o.Stream, Text: o.Text})
}

// Record writes the lines of e: turn, the text of a model that does not
// stream as a delta, and tool lines. A line that cannot be written is no
// failure of the event's: the audit log has it, and the session's end
// comes from its input.
func (s *Session) Record(ctx context.Context, e wisp.Event) error {
	switch data := e.Data.(type) {
	case wisp.TurnStartedData:
		s.dmu.Lock()
		s.streamed = false
		s.dmu.Unlock()
		_ = s.face.Send(Turn{Thread: e.Thread, Turn: e.Turn, Text: data.Input})
	case wisp.ModelMessageData:
		// A model that does not stream: its step's text goes out whole,
		// so the deltas always carry every word the model wrote.
		s.dmu.Lock()
		streamed := s.streamed
		s.streamed = false
		s.dmu.Unlock()
		if data.Content != "" && !streamed {
			_ = s.face.Send(Delta{Text: data.Content})
		}
	case wisp.ToolCallData:
		_ = s.face.Send(ToolCall{ID: data.ID, Name: data.Name, Summary: data.Shown()})
	case wisp.ToolResultData:
		text, isError := data.Content, data.IsError
		if data.Error != "" {
			text, isError = data.Error, true
		}
		_ = s.face.Send(ToolResult{ID: data.ID, Name: data.Name, Text: text, IsError: isError})
	}
	return nil
}

// noteParked writes a note for each waiting parked question not yet
// told. A folder that cannot be read is said on the log, once.
func (s *Session) noteParked() {
	if s.parked == nil {
		return
	}
	s.nmu.Lock()
	defer s.nmu.Unlock()
	qs, err := s.parked.Fresh()
	if err != nil {
		fmt.Fprintf(s.opts.Log, "wisp: %s\n", escape.Terminal(errorLine(err)))
		return
	}
	for _, q := range qs {
		_ = s.face.Send(Note{Kind: NoteQuestion, ID: q.ID, Thread: q.Thread, Text: waitingNote(q)})
	}
}

// questions acts on one questions line. What cannot be done is refused at
// once (an error line); an answer or a decline is filed by a goroutine of
// its own, which ends with a note saying what was filed, or why nothing
// was.
func (s *Session) questions(l Questions) error {
	if s.parked == nil {
		return errNoQuestions
	}
	if l.Action == ActionList {
		return s.listParked()
	}
	decline := l.Action == ActionDecline
	q, err := s.parked.Check(l.ID, decline)
	if err != nil {
		return err
	}
	s.qmu.Lock()
	defer s.qmu.Unlock()
	if s.asking[q.ID] {
		return fmt.Errorf("question %s is put to you already; answer its choice line", q.ID)
	}
	s.asking[q.ID] = true
	s.runs.Add(1)
	go func() {
		defer s.runs.Done()
		err := s.parked.Answer(s.ctx, q.ID, decline)
		// Once told what came of it, the client may ask for it again.
		s.qmu.Lock()
		delete(s.asking, q.ID)
		s.qmu.Unlock()
		if err != nil {
			_ = s.face.Send(Note{Kind: NoteQuestion, ID: q.ID, Thread: q.Thread, Text: oneLine(err.Error())})
		}
	}()
	return nil
}

// listParked tells of each waiting question in a note, or that none
// waits.
func (s *Session) listParked() error {
	qs, err := s.parked.Waiting()
	if err != nil {
		return err
	}
	if len(qs) == 0 {
		return s.face.Send(Note{Kind: NoteQuestion, Text: noneWaiting})
	}
	for _, q := range qs {
		_ = s.face.Send(Note{Kind: NoteQuestion, ID: q.ID, Thread: q.Thread, Text: waitingNote(q)})
	}
	return nil
}

// noneWaiting is the note that says no parked question waits.
const noneWaiting = "no questions are waiting"

// waitingNote is the note that tells of a waiting question.
func waitingNote(q wisp.Question) string {
	return fmt.Sprintf(`a question waits for you (%s): "%s"; answer it with wisp questions answer %s`, q.ID, q.Text, q.ID)
}

// errorLine is the line that says what went wrong: one line, with any
// credential in it replaced by its marker.
func errorLine(err error) string {
	r := secrets.NewRedactor()
	line, _ := r.Redact(err.Error())
	line, _ = r.Redact(oneLine(line))
	return line
}

// oneLine joins the lines and runs of space in s into one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
