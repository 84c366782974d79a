package jsonl_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/jsonl"
	"github.com/wisp-agent/wisp/inquiry/pending"
	"github.com/wisp-agent/wisp/inquiry/unattended"
	"github.com/wisp-agent/wisp/internal/version"
	"github.com/wisp-agent/wisp/policy/secrets/secretstest"
)

// peer is the client of a Session: it reads every line the session
// writes and sends lines through a pipe.
type peer struct {
	t    *testing.T
	s    *jsonl.Session
	seen chan string
	in   *io.PipeWriter
	done chan error
}

// Write receives one line from the session.
func (p *peer) Write(b []byte) (int, error) {
	p.seen <- strings.TrimSuffix(string(b), "\n")
	return len(b), nil
}

// newPeer starts a session on conv with opts; build runs before Serve,
// given the session (to wire a conversation to it).
func newPeer(t *testing.T, opts *jsonl.SessionOptions, serve func(*jsonl.Session) (jsonl.Conversation, *jsonl.ServeOptions)) *peer {
	t.Helper()
	p := &peer{t: t, seen: make(chan string, 1000), done: make(chan error, 1)}
	p.s = jsonl.NewSession(p, opts)
	conv, sopts := serve(p.s)
	pr, pw := io.Pipe()
	p.in = pw
	go func() { p.done <- p.s.Serve(t.Context(), pr, conv, sopts) }()
	t.Cleanup(func() { pw.Close() })
	return p
}

func (p *peer) send(lines ...string) {
	p.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(p.in, l+"\n"); err != nil {
			p.t.Fatalf("sending %s: %v", l, err)
		}
	}
}

func (p *peer) next() string {
	p.t.Helper()
	select {
	case l := <-p.seen:
		return l
	case <-time.After(20 * time.Second):
		p.t.Fatal("the session wrote no line")
		return ""
	}
}

// expect reads the next lines and checks them.
func (p *peer) expect(want ...string) {
	p.t.Helper()
	var got []string
	for range want {
		got = append(got, p.next())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		p.t.Errorf("lines (-want +got):\n%s", diff)
	}
}

// end closes the input and returns what Serve returned.
func (p *peer) end() error {
	p.t.Helper()
	p.in.Close()
	select {
	case err := <-p.done:
		return err
	case <-time.After(20 * time.Second):
		p.t.Fatal("Serve did not return")
		return nil
	}
}

// echo is a conversation whose turns show their events through the
// session: "wait" waits until the turn is stopped, "fail" fails, "early"
// ends before it starts; any other input is echoed back, as a model that
// streams ("stream …") or does not.
type echo struct {
	s    *jsonl.Session
	mu   sync.Mutex
	turn int
}

func (c *echo) Thread() string { return "t-1" }

func (c *echo) Respond(ctx context.Context, input string) (wisp.Reply, error) {
	if input == "early" {
		return wisp.Reply{}, errors.New("the thread cannot be read")
	}
	c.mu.Lock()
	c.turn++
	n := c.turn
	c.mu.Unlock()
	record := func(d wisp.EventData) {
		_ = c.s.Record(ctx, wisp.Event{Thread: "t-1", Turn: n, Data: d})
	}
	record(wisp.TurnStartedData{Input: input})
	switch input {
	case "wait":
		<-ctx.Done()
		return wisp.Reply{Thread: "t-1", Turn: n}, context.Cause(ctx)
	case "fail":
		return wisp.Reply{Thread: "t-1", Turn: n}, errors.New("model: the script\nhas no message left")
	}
	if text, ok := strings.CutPrefix(input, "stream "); ok {
		c.s.Delta("t-1", wisp.ChatDelta{Thinking: "hm"})
		c.s.Delta("t-1", wisp.ChatDelta{Content: text})
		record(wisp.ModelMessageData{Content: text})
		return wisp.Reply{Thread: "t-1", Turn: n, Text: text}, nil
	}
	summary := "a question"
	record(wisp.ModelMessageData{Content: "asking", ToolCalls: []string{"ask"}})
	record(wisp.ToolCallData{ID: "call_1", Name: "ask", Arguments: json.RawMessage(`{}`), Summary: &summary})
	record(wisp.ToolResultData{ID: "call_1", Name: "ask", Content: "chose: b"})
	record(wisp.ModelMessageData{Content: input})
	return wisp.Reply{Thread: "t-1", Turn: n, Text: input, Flags: []string{"f"}}, nil
}

func serveEcho(hello jsonl.Hello, parked jsonl.Parked) func(*jsonl.Session) (jsonl.Conversation, *jsonl.ServeOptions) {
	return func(s *jsonl.Session) (jsonl.Conversation, *jsonl.ServeOptions) {
		opts := &jsonl.ServeOptions{Hello: hello, Parked: parked}
		if parked == nil {
			opts.Parked = nil // no typed nil
		}
		return &echo{s: s}, opts
	}
}

var testHello = jsonl.Hello{Wisp: "v1.2.3", Session: "s-1", Thread: "t-1", Model: "script:x", Tools: []string{"ask"}}

// A hello that does not name wisp's version is given the one the build
// recorded: the line wisp --version prints.
func TestSessionHelloVersion(t *testing.T) {
	hello := testHello
	hello.Wisp = ""
	p := newPeer(t, nil, serveEcho(hello, nil))
	var got struct{ Wisp string }
	if err := json.Unmarshal([]byte(p.next()), &got); err != nil {
		t.Fatal(err)
	}
	if got.Wisp != version.String() {
		t.Errorf("hello's wisp = %q, want %q", got.Wisp, version.String())
	}
	if err := p.end(); err != nil {
		t.Errorf("Serve = %v, want nil", err)
	}
}

// A session: hello, a turn's lines and its end, one turn at a time, a
// cancel that stops the running turn, and bye when the input ends.
func TestSessionTurns(t *testing.T) {
	var log bytes.Buffer
	p := newPeer(t, &jsonl.SessionOptions{Log: &log}, serveEcho(testHello, nil))
	p.expect(`{"type":"hello","protocol":"wisp-chat","version":1,"wisp":"v1.2.3","session":"s-1","thread":"t-1","model":"script:x","tools":["ask"],"accepts":["message","choose","approve","deny","cancel"],"choices":["question","card","approval"],"maxLine":65536}`)

	p.send(`{"type":"message","text":"ok"}`)
	p.expect(
		`{"type":"turn","thread":"t-1","turn":1,"text":"ok"}`,
		`{"type":"delta","text":"asking"}`,
		`{"type":"tool","phase":"call","id":"call_1","name":"ask","summary":"a question"}`,
		`{"type":"tool","phase":"result","id":"call_1","name":"ask","text":"chose: b","isError":false}`,
		`{"type":"delta","text":"ok"}`,
		`{"type":"end","thread":"t-1","turn":1,"reply":"ok","flags":["f"]}`,
	)

	p.send(`{"type":"message","text":"stream streamed"}`)
	p.expect(
		`{"type":"turn","thread":"t-1","turn":2,"text":"stream streamed"}`,
		`{"type":"delta","thinking":"hm"}`,
		`{"type":"delta","text":"streamed"}`,
		`{"type":"end","thread":"t-1","turn":2,"reply":"streamed"}`,
	)

	p.send(`{"type":"message","text":"wait"}`)
	p.expect(`{"type":"turn","thread":"t-1","turn":3,"text":"wait"}`)
	p.send(`{"type":"message","text":"again"}`)
	p.expect(`{"type":"error","error":"a turn is running; wait for its end line, or send cancel","line":4}`)
	p.send(`{"type":"cancel"}`)
	p.expect(`{"type":"end","thread":"t-1","turn":3,"error":"the person stopped the turn","stopped":true}`)

	if err := p.end(); err != nil {
		t.Errorf("Serve = %v, want nil", err)
	}
	p.expect(`{"type":"bye"}`)
	if log.Len() != 0 {
		t.Errorf("log = %q, want nothing", log.String())
	}
}

// A turn that fails, or ends before it starts, ends with its end line and
// a line on the log; Serve then returns ErrTurnFailed.
func TestSessionFailedTurn(t *testing.T) {
	var log bytes.Buffer
	p := newPeer(t, &jsonl.SessionOptions{Log: &log}, serveEcho(testHello, nil))
	p.next()
	p.send(`{"type":"message","text":"fail"}`)
	p.expect(
		`{"type":"turn","thread":"t-1","turn":1,"text":"fail"}`,
		`{"type":"end","thread":"t-1","turn":1,"error":"model: the script has no message left"}`,
	)
	p.send(`{"type":"message","text":"early"}`)
	p.expect(`{"type":"end","thread":"t-1","error":"the thread cannot be read"}`)
	if err := p.end(); !errors.Is(err, jsonl.ErrTurnFailed) {
		t.Errorf("Serve = %v, want %v", err, jsonl.ErrTurnFailed)
	}
	p.expect(`{"type":"bye"}`)
	want := "wisp: model: the script has no message left\nwisp: the thread cannot be read\n"
	if log.String() != want {
		t.Errorf("log = %q, want %q", log.String(), want)
	}
}

// A session that cannot start writes one error line, its credentials
// replaced by markers, and no hello.
func TestSessionFail(t *testing.T) {
	var out bytes.Buffer
	s := jsonl.NewSession(&out, nil)
	token, _ := secretstest.Generate("github-pat", rand.New(rand.NewPCG(1, 2)))
	cause := errors.New("no model\nnamed " + token.Text)
	if err := s.Fail(cause); err != cause {
		t.Errorf("Fail = %v, want %v", err, cause)
	}
	got := out.String()
	if !strings.HasPrefix(got, `{"type":"error","error":"no model named [REDACTED:github-pat#1]"}`) || strings.Count(got, "\n") != 1 {
		t.Errorf("Fail wrote %q, want one error line with the token redacted", got)
	}
}

// Unattended: hello offers no choices, questions end with no person, and
// nobody approves.
func TestSessionUnattended(t *testing.T) {
	p := newPeer(t, &jsonl.SessionOptions{Unattended: true}, serveEcho(testHello, nil))
	var hello jsonl.Hello
	if err := json.Unmarshal([]byte(p.next()), &hello); err != nil {
		t.Fatal(err)
	}
	if hello.Choices == nil || len(hello.Choices) != 0 {
		t.Errorf("hello's choices = %#v, want []", hello.Choices)
	}
	if _, ok := p.s.Inquirer().(unattended.Face); !ok {
		t.Errorf("Inquirer = %T, want unattended.Face", p.s.Inquirer())
	}
	if a := p.s.Approver(); a != nil {
		t.Errorf("Approver = %T, want none", a)
	}
	if err := p.end(); err != nil {
		t.Errorf("Serve = %v", err)
	}
}

// Ctrl-C stops the running turn, as cancel does; with no turn running it
// ends the session, with bye and no error.
func TestSessionInterrupts(t *testing.T) {
	var mu sync.Mutex
	var handle func()
	released := make(chan struct{})
	take := func(h func()) func() {
		mu.Lock()
		defer mu.Unlock()
		handle = h
		return func() { close(released) }
	}
	ctrlC := func() {
		mu.Lock()
		defer mu.Unlock()
		handle()
	}
	p := newPeer(t, &jsonl.SessionOptions{TakeInterrupts: take}, serveEcho(testHello, nil))
	p.next()
	p.send(`{"type":"message","text":"wait"}`)
	p.expect(`{"type":"turn","thread":"t-1","turn":1,"text":"wait"}`)
	ctrlC()
	p.expect(`{"type":"end","thread":"t-1","turn":1,"error":"the person stopped the turn","stopped":true}`)
	ctrlC()
	p.expect(`{"type":"bye"}`)
	select {
	case err := <-p.done:
		if err != nil {
			t.Errorf("Serve = %v, want nil", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Ctrl-C with no turn running did not end the session")
	}
	<-released
}

// parked is a Parked of questions kept in memory; Answer waits until the
// test lets it end.
type parked struct {
	mu      sync.Mutex
	qs      []wisp.Question
	told    map[string]bool
	answers []string
	finish  chan error
}

func (p *parked) Waiting() ([]wisp.Question, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, q := range p.qs {
		p.told[q.ID] = true
	}
	return p.qs, nil
}

func (p *parked) Fresh() ([]wisp.Question, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []wisp.Question
	for _, q := range p.qs {
		if !p.told[q.ID] {
			p.told[q.ID] = true
			out = append(out, q)
		}
	}
	return out, nil
}

func (p *parked) Check(id string, decline bool) (wisp.Question, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, q := range p.qs {
		if q.ID == id {
			p.told[id] = true
			return q, nil
		}
	}
	return wisp.Question{}, fmt.Errorf("no question %s is waiting", id)
}

func (p *parked) Answer(ctx context.Context, id string, decline bool) error {
	p.mu.Lock()
	p.answers = append(p.answers, fmt.Sprintf("%s %v", id, decline))
	p.mu.Unlock()
	return <-p.finish
}

// release lets the answer being filed end with err.
func (p *parked) release(t *testing.T, err error) {
	t.Helper()
	select {
	case p.finish <- err:
	case <-time.After(20 * time.Second):
		t.Fatal("no answer was being filed")
	}
}

// Questions lines: notes of the questions not told yet at the start and
// before each turn, list, and an answer filed on a goroutine of its own
// that ends with a note when nothing was filed; a question put to the
// client already is refused.
func TestSessionParkedQuestions(t *testing.T) {
	pk := &parked{told: map[string]bool{}, finish: make(chan error),
		qs: []wisp.Question{{ID: "a1b2c3d4", Thread: "t-9", Text: "Which branch?"}}}
	p := newPeer(t, &jsonl.SessionOptions{Terminal: "/dev/tty"}, serveEcho(testHello, pk))
	if h := p.next(); !strings.Contains(h, `"accepts":["message","choose","approve","deny","cancel","questions"]`) {
		t.Errorf("hello = %s, want questions accepted", h)
	}
	note := `{"type":"note","kind":"question","thread":"t-9","id":"a1b2c3d4","text":"a question waits for you (a1b2c3d4): \"Which branch?\"; answer it with wisp questions answer a1b2c3d4"}`
	p.expect(note)

	pk.mu.Lock()
	pk.qs = append(pk.qs, wisp.Question{ID: "0badcafe", Thread: "t-8", Text: "Which port?"})
	pk.mu.Unlock()
	p.send(`{"type":"message","text":"ok"}`)
	p.expect(`{"type":"note","kind":"question","thread":"t-8","id":"0badcafe","text":"a question waits for you (0badcafe): \"Which port?\"; answer it with wisp questions answer 0badcafe"}`)
	for p.next() != `{"type":"end","thread":"t-1","turn":1,"reply":"ok","flags":["f"]}` {
	}

	p.send(`{"type":"questions","action":"list"}`)
	p.expect(note, `{"type":"note","kind":"question","thread":"t-8","id":"0badcafe","text":"a question waits for you (0badcafe): \"Which port?\"; answer it with wisp questions answer 0badcafe"}`)

	p.send(`{"type":"questions","action":"answer","id":"nope0000"}`)
	p.expect(`{"type":"error","error":"no question nope0000 is waiting","line":3}`)
	p.send(`{"type":"questions","action":"answer","id":"a1b2c3d4"}`)
	p.send(`{"type":"questions","action":"decline","id":"a1b2c3d4"}`)
	p.expect(`{"type":"error","error":"question a1b2c3d4 is put to you already; answer its choice line","line":5}`)
	pk.release(t, errors.New("stopped; nothing was filed\nfor question a1b2c3d4"))
	p.expect(`{"type":"note","kind":"question","thread":"t-9","id":"a1b2c3d4","text":"stopped; nothing was filed for question a1b2c3d4"}`)
	p.send(`{"type":"questions","action":"decline","id":"a1b2c3d4"}`)
	// The session waits for the answer being filed before bye.
	p.in.Close()
	pk.release(t, nil)
	if err := <-p.done; err != nil {
		t.Errorf("Serve = %v", err)
	}
	p.expect(`{"type":"bye"}`)
	pk.mu.Lock()
	defer pk.mu.Unlock()
	if diff := cmp.Diff([]string{"a1b2c3d4 false", "a1b2c3d4 true"}, pk.answers); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
}

// Without Parked, questions lines are refused and hello does not accept
// them.
func TestSessionWithoutParked(t *testing.T) {
	p := newPeer(t, nil, serveEcho(testHello, nil))
	if h := p.next(); strings.Contains(h, "questions") {
		t.Errorf("hello = %s, want questions not accepted", h)
	}
	p.send(`{"type":"questions","action":"list"}`)
	if l := p.next(); !strings.Contains(l, "this session does not take questions lines") {
		t.Errorf("a questions line got %s, want it refused", l)
	}
	p.end()
}

// Only a person answers a parked question: not Unattended, and not
// without a terminal.
func TestSessionRefuseParked(t *testing.T) {
	tests := []struct {
		opts jsonl.SessionOptions
		want string
	}{
		{jsonl.SessionOptions{Terminal: "/dev/tty"}, ""},
		{jsonl.SessionOptions{Unattended: true, Terminal: "/dev/tty"}, "questions answer needs a person, and this chat runs with --yes, where nobody is asked anything; run wisp questions answer a1b2c3d4 in a terminal"},
		{jsonl.SessionOptions{}, "questions answer runs only where a person is, so that nothing but a person may answer a question: this wisp chat --json has no terminal; run wisp-tui in a terminal, or wisp questions answer a1b2c3d4"},
	}
	for _, tc := range tests {
		err := jsonl.NewSession(io.Discard, &tc.opts).RefuseParked("questions answer", "a1b2c3d4")
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("RefuseParked with %+v = %q, want %q", tc.opts, got, tc.want)
		}
	}
}

// commander runs the person's commands: "fail" fails.
type commander struct{}

func (commander) Command(ctx context.Context, name string, args []string) (string, error) {
	if name == "fail" {
		return "", errors.New("config: unknown key\nfoo")
	}
	return name + " " + strings.Join(args, " ") + "\n", nil
}

// Command lines run the person's commands, told in notes of kind command;
// without Commands, hello does not accept them.
func TestSessionCommands(t *testing.T) {
	p := newPeer(t, nil, func(s *jsonl.Session) (jsonl.Conversation, *jsonl.ServeOptions) {
		return &echo{s: s}, &jsonl.ServeOptions{Hello: testHello, Commands: commander{}}
	})
	if h := p.next(); !strings.Contains(h, `"accepts":["message","choose","approve","deny","cancel","command"]`) {
		t.Errorf("hello = %s, want command lines accepted", h)
	}
	p.send(`{"type":"command","name":"models","args":["list"]}`, `{"type":"command","name":"fail"}`)
	p.expect(
		`{"type":"note","kind":"command","text":"models list"}`,
		`{"type":"note","kind":"command","text":"config: unknown key foo"}`,
	)
	if err := p.end(); err != nil {
		t.Errorf("Serve = %v", err)
	}

	q := newPeer(t, nil, serveEcho(testHello, nil))
	if h := q.next(); strings.Contains(h, "command") {
		t.Errorf("hello = %s, want command lines not accepted", h)
	}
	q.send(`{"type":"command","name":"models"}`)
	q.expect(`{"type":"note","kind":"command","text":"this session does not take command lines (its hello does not accept them); run wisp models in a terminal"}`)
	q.end()
}

// Questions wires a store's parked questions to the session: refused with
// no person (Unattended, or no terminal), else put to the client and
// filed through the store, which records who answered.
func TestSessionQuestions(t *testing.T) {
	store := pending.Store{Dir: filepath.Join(t.TempDir(), "pending"), NewID: func() string { return "a1b2c3d4" }}
	if _, err := store.File(t.Context(), wisp.Question{Thread: "t-9", Text: "Which branch?", Options: []string{"main", "dev"}}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		opts jsonl.SessionOptions
		want string
	}{
		{"unattended", jsonl.SessionOptions{Unattended: true, Terminal: "/dev/pts/9"}, "questions answer needs a person, and this chat runs with --yes, where nobody is asked anything; run wisp questions answer a1b2c3d4 in a terminal"},
		{"no terminal", jsonl.SessionOptions{}, "questions answer runs only where a person is, so that nothing but a person may answer a question: this wisp chat --json has no terminal; run wisp-tui in a terminal, or wisp questions answer a1b2c3d4"},
		{"no record of who answers", jsonl.SessionOptions{Terminal: "/dev/pts/9"}, "questions answer a1b2c3d4: " + pending.ErrNoWitness.Error()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := jsonl.NewSession(io.Discard, &tc.opts).Questions(store)
			if a.From != pending.FromTUI || a.Terminal != tc.opts.Terminal || a.Commands != "questions" {
				t.Errorf("Questions = from %q at %q by %q; want from %q at %q by questions", a.From, a.Terminal, a.Commands, pending.FromTUI, tc.opts.Terminal)
			}
			if _, err := a.Check("a1b2c3d4", false); err == nil || err.Error() != tc.want {
				t.Errorf("Check(a1b2c3d4) = %v, want %q", err, tc.want)
			}
		})
	}
}

// The tools the settings took out are said on the log before hello.
func TestSessionDropped(t *testing.T) {
	var log bytes.Buffer
	p := newPeer(t, &jsonl.SessionOptions{Log: &log}, func(s *jsonl.Session) (jsonl.Conversation, *jsonl.ServeOptions) {
		return &echo{s: s}, &jsonl.ServeOptions{Dropped: []string{"ask", "models"}}
	})
	p.next() // hello
	if want := "wisp: ask is disabled by tools.disabled and was left out\nwisp: models is disabled by tools.disabled and was left out\n"; log.String() != want {
		t.Errorf("log = %q, want %q", log.String(), want)
	}
	if err := p.end(); err != nil {
		t.Fatal(err)
	}
}

// The person's /questions words become the questions line, read as every
// face reads them.
func TestQuestionsLine(t *testing.T) {
	got, err := jsonl.QuestionsLine([]string{"decline", "a1b2c3d4"})
	if want := (jsonl.Questions{Action: jsonl.ActionDecline, ID: "a1b2c3d4"}); err != nil || got != want {
		t.Errorf("QuestionsLine(decline a1b2c3d4) = %+v, %v; want %+v", got, err, want)
	}
	if got, err := jsonl.QuestionsLine(nil); err != nil || got.Action != jsonl.ActionList {
		t.Errorf("QuestionsLine() = %+v, %v; want the list", got, err)
	}
	if _, err := jsonl.QuestionsLine([]string{"answer"}); err == nil {
		t.Error("QuestionsLine(answer) = nil error, want what the command takes")
	}
}

// What a tool call prints as it runs goes out as a tool line of phase
// output, as it came: the command's text, redacted before it got here.
func TestSessionToolOutput(t *testing.T) {
	var out bytes.Buffer
	s := jsonl.NewSession(&out, nil)
	s.ToolOutput(wisp.ToolOutput{Thread: "t-1", CallID: "call_3", Tool: "run_command", Stream: "stderr", Text: "warning: \x1b[31mred\x1b[0m\n"})
	want := `{"type":"tool","phase":"output","id":"call_3","name":"run_command","stream":"stderr","text":"warning: \u001b[31mred\u001b[0m\n"}` + "\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("line (-want +got):\n%s", diff)
	}
}
