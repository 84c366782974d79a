package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"sync"
	"time"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/conversation"
	"github.com/wisp-agent/wisp/inquiry/escape"
	"github.com/wisp-agent/wisp/inquiry/jsonl"
	"github.com/wisp-agent/wisp/inquiry/pending"
	"github.com/wisp-agent/wisp/inquiry/unattended"
)

// errTurnRunning refuses a message while a turn runs.
var errTurnRunning = errors.New("a turn is running; wait for its end line, or send cancel")

// runChatJSON is wisp chat --json: the protocol of package inquiry/jsonl
// on stdin and stdout (docs/jsonl.md), diagnostics on stderr. Each
// message line runs a turn on the session's thread while the next lines
// are read, so that a choose, approve, deny or cancel reaches the turn;
// the end of stdin ends the session once the running turn has ended.
// With yes nobody is asked anything, as in wisp chat --yes.
func runChatJSON(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, env environ, model string, named []string, yes bool) error {
	ctx, endSession := context.WithCancelCause(ctx)
	defer endSession(nil)
	s := &jsonSession{stderr: stderr}
	parked := &jsonQuestions{}
	commands := &jsonCommands{}
	face := jsonl.NewFace(stdout, &jsonl.Options{Message: s.message, Cancel: func() { s.cancel() }, Questions: parked.handle, Command: commands.run})
	s.face = face
	disp := &jsonDisplay{face: face}
	var asker wisp.Inquirer = face
	var approver wisp.Approver = face
	choices := []string{jsonl.KindQuestion, jsonl.KindCard, jsonl.KindApproval}
	if yes {
		asker, approver, choices = unattended.Face{}, nil, []string{}
	}
	conv, err := newConversation(ctx, env, convOptions{
		model: model, named: named, face: asker, approve: approver, notify: face,
		display: disp, onDelta: disp.delta,
	})
	if err != nil {
		// No session: the one line says why, and so does stderr.
		_ = face.Send(jsonl.Error{Error: errorLine(err)})
		return err
	}
	defer conv.Close()
	s.conv, s.ctx, commands.conv = conv, ctx, conv
	for _, name := range conv.Tools().Dropped() {
		fmt.Fprintf(stderr, "wisp: %s is disabled by tools.disabled and was left out\n", name)
	}
	if err := face.Hello(jsonl.Hello{Wisp: wispVersion(), Session: conv.Session(), Thread: conv.Thread(),
		Model: conv.ModelName(), Tools: conv.Tools().Names(), Choices: choices}); err != nil {
		return err
	}
	s.parked = newParkedNotes(conv, face, stderr)
	s.parked.note()
	parked.setUp(ctx, env, conv, face, s.parked, yes)

	// Ctrl-C stops the running turn, as a cancel line does; with no turn
	// running it ends the session.
	release := env.ctrlC.take(func() {
		if !s.cancel() {
			endSession(wisp.ErrInterrupted)
		}
	})
	defer release()

	serveErr := face.Serve(ctx, stdin)
	s.turns.Wait()
	parked.wait()
	_ = face.Send(jsonl.Bye{})
	switch {
	case serveErr != nil && !errors.Is(serveErr, wisp.ErrInterrupted):
		return serveErr
	case s.failed:
		return exitError{code: 1}
	}
	return nil
}

// jsonSession runs the turns of wisp chat --json, one at a time.
type jsonSession struct {
	face   *jsonl.Face
	conv   turnRunner
	ctx    context.Context // the session's; a turn's context derives from it
	stderr io.Writer
	parked *parkedNotes

	mu      sync.Mutex // held while a turn starts or ends, so its lines keep their order
	stop    context.CancelCauseFunc
	running bool
	failed  bool
	turns   sync.WaitGroup
}

// turnRunner runs turns on one thread: a conversation.Conversation.
type turnRunner interface {
	Respond(ctx context.Context, input string) (wisp.Reply, error)
	Thread() string
}

// message starts a turn on text, or refuses it while one runs.
func (s *jsonSession) message(text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running {
		return errTurnRunning
	}
	if s.ctx.Err() != nil {
		return errors.New("the session is ending; it takes no more messages")
	}
	s.parked.note()
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
			fmt.Fprintf(s.stderr, "wisp: %s\n", escape.Terminal(end.Error))
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
func endLine(thread string, reply wisp.Reply, err error) jsonl.End {
	end := jsonl.End{Thread: thread, Turn: reply.Turn, Reply: reply.Text, Flags: reply.Flags}
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
func (s *jsonSession) cancel() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stop == nil {
		return false
	}
	s.stop(wisp.ErrInterrupted)
	return true
}

// jsonDisplay turns a turn's events and streamed pieces into turn, delta
// and tool lines.
type jsonDisplay struct {
	face *jsonl.Face

	mu       sync.Mutex
	streamed bool // the model step streamed text
}

func (d *jsonDisplay) delta(thread string, c wisp.ChatDelta) {
	if c.Content == "" && c.Thinking == "" {
		return
	}
	d.mu.Lock()
	if c.Content != "" {
		d.streamed = true
	}
	d.mu.Unlock()
	_ = d.face.Send(jsonl.Delta{Text: c.Content, Thinking: c.Thinking})
}

// Record writes the lines of e. A line that cannot be written is no
// failure of the event's: the audit log has it, and the session's end
// comes from its input.
func (d *jsonDisplay) Record(ctx context.Context, e wisp.Event) error {
	switch data := e.Data.(type) {
	case wisp.TurnStartedData:
		d.mu.Lock()
		d.streamed = false
		d.mu.Unlock()
		_ = d.face.Send(jsonl.Turn{Thread: e.Thread, Turn: e.Turn, Text: data.Input})
	case wisp.ModelMessageData:
		// A model that does not stream: its step's text goes out whole,
		// so the deltas always carry every word the model wrote.
		d.mu.Lock()
		streamed := d.streamed
		d.streamed = false
		d.mu.Unlock()
		if data.Content != "" && !streamed {
			_ = d.face.Send(jsonl.Delta{Text: data.Content})
		}
	case wisp.ToolCallData:
		_ = d.face.Send(jsonl.ToolCall{ID: data.ID, Name: data.Name, Summary: data.Shown()})
	case wisp.ToolResultData:
		text, isError := data.Content, data.IsError
		if data.Error != "" {
			text, isError = data.Error, true
		}
		_ = d.face.Send(jsonl.ToolResult{ID: data.ID, Name: data.Name, Text: text, IsError: isError})
	}
	return nil
}

// parkedNotes tells the client, once each, of the questions wisp mcp
// filed that wait for the person (answered with wisp questions answer).
type parkedNotes struct {
	face   *jsonl.Face
	stderr io.Writer
	watch  *questionWatch // nil: there is no home to look in

	mu sync.Mutex
}

func newParkedNotes(conv *conversation.Conversation, face *jsonl.Face, stderr io.Writer) *parkedNotes {
	return &parkedNotes{face: face, stderr: stderr, watch: newQuestionWatch(conv.Home().Questions(nil))}
}

// note writes a note for each waiting question not yet told. A folder
// that cannot be read is said on stderr, once.
func (p *parkedNotes) note() {
	if p == nil || p.watch == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	qs, err := p.watch.fresh()
	if err != nil {
		fmt.Fprintf(p.stderr, "wisp: %s\n", escape.Terminal(errorLine(err)))
		return
	}
	for _, q := range qs {
		_ = p.face.Send(jsonl.Note{Kind: jsonl.NoteQuestion, ID: q.ID, Thread: q.Thread, Text: waitingNote(q)})
	}
}

// tell marks question id told, so that no note tells of it again.
func (p *parkedNotes) tell(id string) {
	if p == nil || p.watch == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.watch.tell(id)
}

// jsonQuestions is chat --json's questions lines: the questions wisp mcp
// parked, listed in notes, put to the client as choices marked parked and
// answered there, or declined, as /questions does in a plain chat. Only a
// chat --json with a person at a terminal answers them: not under --yes,
// and not without a controlling terminal (a program that runs wisp with
// pipes and no terminal, such as a sandboxed command, is no person
// there; wisp-tui runs it in the person's terminal).
type jsonQuestions struct {
	ctx      context.Context // the session's
	face     *jsonl.Face
	notes    *parkedNotes
	answerer *parkedAnswerer

	mu     sync.Mutex
	asking map[string]bool // the questions put to the client, until filed
	runs   sync.WaitGroup
}

// setUp wires the handler once the conversation has started; until then
// (there are no lines before hello) it refuses nothing it is given.
func (j *jsonQuestions) setUp(ctx context.Context, env environ, conv *conversation.Conversation, face *jsonl.Face, notes *parkedNotes, yes bool) {
	p := &parkedAnswerer{
		// Answers are recorded in the chat's session and taken only
		// when recorded.
		store:  conv.Questions(),
		face:   wisp.InquirerFunc(face.AskParked),
		from:   pending.FromTUI,
		prefix: "questions",
		now:    time.Now,
		say: func(q pending.Question, line string) {
			_ = face.Send(jsonl.Note{Kind: jsonl.NoteQuestion, ID: q.ID, Thread: q.Thread, Text: line})
		},
	}
	switch {
	case yes:
		p.refuse = func(verb, id string) error {
			return fmt.Errorf("%s needs a person, and this chat runs with --yes, where nobody is asked anything; run wisp %s %s in a terminal", verb, verb, id)
		}
	case !env.controllingTerminal():
		p.refuse = func(verb, id string) error {
			return fmt.Errorf("%s runs only where a person is, so that nothing but a person may answer a question: this wisp chat --json has no terminal; run wisp-tui in a terminal, or wisp %s %s", verb, verb, id)
		}
	default:
		p.terminal = "/dev/tty" // the controlling terminal wisp-tui runs it in
	}
	j.ctx, j.face, j.notes, j.answerer, j.asking = ctx, face, notes, p, map[string]bool{}
}

// handle acts on one questions line. What cannot be done is refused at
// once (an error line); an answer or a decline is filed by a goroutine of
// its own, which ends with a note saying what was filed, or why nothing
// was.
func (j *jsonQuestions) handle(l jsonl.Questions) error {
	if j.answerer == nil {
		return errors.New("the session has not started")
	}
	if l.Action == jsonl.ActionList {
		return j.list()
	}
	decline := l.Action == jsonl.ActionDecline
	q, err := j.answerer.lookup(l.ID, decline)
	if err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.asking[q.ID] {
		return fmt.Errorf("question %s is put to you already; answer its choice line", q.ID)
	}
	j.asking[q.ID] = true
	j.notes.tell(q.ID)
	j.runs.Add(1)
	go func() {
		defer j.runs.Done()
		if err := j.answerer.answerQuestion(j.ctx, q, decline); err != nil {
			_ = j.face.Send(jsonl.Note{Kind: jsonl.NoteQuestion, ID: q.ID, Thread: q.Thread, Text: oneLine(err.Error())})
		}
		j.mu.Lock()
		delete(j.asking, q.ID)
		j.mu.Unlock()
	}()
	return nil
}

// list tells of each waiting question in a note, or that none waits.
func (j *jsonQuestions) list() error {
	qs, err := j.answerer.store.List()
	if err != nil {
		return err
	}
	if len(qs) == 0 {
		return j.face.Send(jsonl.Note{Kind: jsonl.NoteQuestion, Text: noneWaiting})
	}
	for _, q := range qs {
		j.notes.tell(q.ID)
		_ = j.face.Send(jsonl.Note{Kind: jsonl.NoteQuestion, ID: q.ID, Thread: q.Thread, Text: waitingNote(q)})
	}
	return nil
}

// wait waits for the answers being filed. Once the client's input has
// ended, a question still put to it ends with nothing filed.
func (j *jsonQuestions) wait() { j.runs.Wait() }

// waitingNote is the note that tells of a waiting question.
func waitingNote(q pending.Question) string {
	return fmt.Sprintf(`a question waits for you (%s): "%s"; answer it with wisp questions answer %s`, q.ID, q.Text, q.ID)
}

// wispVersion is the version wisp was built as, for Hello.
func wispVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}
