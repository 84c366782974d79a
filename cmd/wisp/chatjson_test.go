package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/inquiry/jsonl"
)

// jsonPeer is a front end driving the real wisp chat --json as a
// subprocess: it writes client lines to its stdin and reads its stdout,
// where every line must be one of the protocol's, valid by its schema.
type jsonPeer struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	schema *jsonschema.Schema

	lines  chan jsonl.Line
	mu     sync.Mutex
	raw    []string // every stdout line, as written
	stderr bytes.Buffer
	done   chan struct{} // closed when stdout has ended
}

// startChatJSON runs wisp chat --json with args, on a home of its own.
func startChatJSON(t *testing.T, home string, args ...string) *jsonPeer {
	t.Helper()
	bin, err := exec.LookPath("wisp")
	if err != nil {
		t.Fatal("the wisp test command is not on PATH:", err)
	}
	cmd := exec.Command(bin, append([]string{"chat", "--json"}, args...)...)
	cmd.Env = append(os.Environ(), "WISP_HOME="+home, "OLLAMA_HOST=127.0.0.1:1")
	p := &jsonPeer{t: t, cmd: cmd, schema: protocolSchema(t), lines: make(chan jsonl.Line, 1000), done: make(chan struct{})}
	p.stdin, _ = cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = &p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			p.mu.Lock()
			p.raw = append(p.raw, line)
			p.mu.Unlock()
			l, err := jsonl.Decode(sc.Bytes())
			if err != nil {
				t.Errorf("stdout holds a line that is not the protocol's (%v): %q", err, line)
				continue
			}
			v, _ := jsonschema.UnmarshalJSON(strings.NewReader(line))
			if err := p.schema.Validate(v); err != nil {
				t.Errorf("stdout line %q does not fit the schema: %v", line, err)
			}
			p.lines <- l
		}
	}()
	return p
}

func protocolSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(jsonl.Schema()))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("mem://schema.json", doc); err != nil {
		t.Fatal(err)
	}
	return c.MustCompile("mem://schema.json")
}

// send writes raw client lines.
func (p *jsonPeer) send(raw ...string) {
	p.t.Helper()
	for _, r := range raw {
		if _, err := io.WriteString(p.stdin, r+"\n"); err != nil {
			p.t.Fatalf("writing %.80q: %v", r, err)
		}
	}
}

// next returns wisp's next line.
func (p *jsonPeer) next() jsonl.Line {
	p.t.Helper()
	select {
	case l := <-p.lines:
		return l
	case <-time.After(20 * time.Second):
		p.mu.Lock()
		defer p.mu.Unlock()
		p.t.Fatalf("wisp wrote no line in 20 s; so far:\n%s\nstderr: %s", strings.Join(p.raw, "\n"), p.stderr.String())
		return nil
	}
}

// ids are the fields that hold ids and times wisp makes up; expect
// compares everything else.
var ids = cmp.Options{
	cmpopts.IgnoreFields(jsonl.Question{}, "ID", "Thread", "Deadline"),
	cmpopts.IgnoreFields(jsonl.Card{}, "ID", "Thread", "Deadline"),
	cmpopts.IgnoreFields(jsonl.Approval{}, "ID", "Thread", "Deadline"),
	cmpopts.IgnoreFields(jsonl.Settled{}, "ID"),
	cmpopts.IgnoreFields(jsonl.ToolCall{}, "ID"),
	cmpopts.IgnoreFields(jsonl.ToolResult{}, "ID"),
	cmpopts.IgnoreFields(jsonl.Turn{}, "Thread"),
	cmpopts.IgnoreFields(jsonl.End{}, "Thread"),
}

// expect reads wisp's next lines and compares them with want, ids aside.
// It returns what it read.
func (p *jsonPeer) expect(want ...jsonl.Line) []jsonl.Line {
	p.t.Helper()
	var got []jsonl.Line
	for range want {
		got = append(got, p.next())
	}
	if diff := cmp.Diff(want, got, ids); diff != "" {
		p.t.Errorf("wisp's lines mismatch (-want +got):\n%s", diff)
	}
	return got
}

// refused sends a bad line and checks the error line that answers it.
func (p *jsonPeer) refused(raw string, line int, says string) {
	p.t.Helper()
	p.send(raw)
	l := p.next()
	e, ok := l.(jsonl.Error)
	if !ok || e.Line != line || !strings.Contains(e.Error, says) {
		p.t.Errorf("%.80q (line %d): wisp wrote %+v, want an error line %d saying %q", raw, line, l, line, says)
	}
}

// exit closes stdin and waits for wisp to end, returning its exit code.
func (p *jsonPeer) exit() int {
	p.t.Helper()
	p.stdin.Close()
	return p.wait()
}

func (p *jsonPeer) wait() int {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		p.t.Fatal("wisp did not end in 20 s")
	}
	err := p.cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		p.t.Fatal(err)
	}
	return 0
}

// choiceID returns the id of a choice line.
func choiceID(t *testing.T, l jsonl.Line) string {
	t.Helper()
	c, ok := l.(jsonl.Choice)
	if !ok {
		t.Fatalf("%+v is not a choice", l)
	}
	return c.ChoiceID()
}

// writeScript writes a scripted model's steps and returns its path.
func writeScript(t *testing.T, dir string, steps ...string) string {
	t.Helper()
	path := filepath.Join(dir, "model.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(steps, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

const askQ1 = `{"content":"","tool_calls":[{"id":"call_q1","name":"ask","arguments":{"question":"Which config did you mean?","options":["~/.wisp/config.json","./wisp.json"]}}]}`

// TestChatJSONSession drives a whole session of wisp chat --json as a
// front end does: a question answered by option, one by free text, one
// declined, a card, an approval, a cancelled turn, a question waiting
// when stdin closes, and every kind of bad line, each answered with an
// error line while the session goes on.
func TestChatJSONSession(t *testing.T) {
	dir := t.TempDir()
	script := writeScript(t, dir,
		askQ1,
		`{"content":"Replacing ./wisp.json with the new defaults."}`,
		`{"content":"","tool_calls":[{"id":"call_q2","name":"ask","arguments":{"question":"What is the name of the staging branch?"}}]}`,
		`{"content":"Deploying release/2.4 to staging."}`,
		`{"content":"Let me check one thing.","tool_calls":[{"id":"call_q3","name":"ask","arguments":{"question":"Should I keep the old config as a backup?","options":["yes","no"]}}]}`,
		`{"content":"I will leave the backup question to you."}`,
		`{"content":"","tool_calls":[{"id":"call_c1","name":"ask_user","arguments":{"questions":[{"question":"Which environment should the migration run against?","header":"Env","options":[{"label":"staging","description":"safe to break","recommended":true},{"label":"production","description":"real data"}]},{"question":"Which checks should run first?","header":"Checks","multiSelect":true,"options":[{"label":"unit tests","recommended":true},{"label":"integration tests"},{"label":"lint"}]}]}}]}`,
		`{"content":"Running unit tests and lint against production."}`,
		`{"content":"","tool_calls":[{"id":"call_a1","name":"request_approval","arguments":{"action":"drop the table sessions_old in staging","reason":"the migration replaces it"}}]}`,
		`{"content":"Dropped sessions_old."}`,
		`{"content":"","tool_calls":[{"id":"call_q4","name":"ask","arguments":{"question":"Which region?","options":["eu-west-1","us-east-1"]}}]}`,
		`{"content":"","tool_calls":[{"id":"call_q5","name":"ask","arguments":{"question":"Shall I open the pull request now?","options":["yes","not yet"]}}]}`,
		`{"content":"I will not open it without your word."}`,
	)
	p := startChatJSON(t, filepath.Join(dir, "home"), "--model", "script:"+script,
		"--tool", "ask", "--tool", "ask_user", "--tool", "request_approval")

	hello, ok := p.next().(jsonl.Hello)
	if !ok {
		t.Fatalf("the first line is not hello")
	}
	want := jsonl.Hello{Protocol: "wisp-chat", Version: 1, Wisp: hello.Wisp, Session: hello.Session, Thread: hello.Thread,
		Model: "script:" + script, Tools: []string{"ask", "ask_user", "request_approval"},
		Accepts: []string{"message", "choose", "approve", "deny", "cancel", "questions", "command"}, Choices: []string{"question", "card", "approval"}, MaxLine: 65536}
	if diff := cmp.Diff(want, hello); diff != "" || hello.Session == "" || !strings.HasPrefix(hello.Thread, "t-") || hello.Wisp == "" {
		t.Errorf("hello mismatch (-want +got):\n%s", diff)
	}
	n := 0 // the client's lines so far
	send := func(raw string) { n++; p.send(raw) }
	refused := func(raw, says string) { n++; p.refused(raw, n, says) }

	// Bad lines before any turn.
	refused(`not json`, "the line is not a JSON object: invalid character 'o' in literal null")
	refused(`{"type":"shout","text":"hi"}`, `unknown line type "shout"; send one of message, choose, approve, deny, cancel`)
	refused(`{"type":"message","text":"`+strings.Repeat("x", 70000)+`"}`, "the line is too long: it holds more than 65536 bytes")
	refused(`{"type":"choose","id":"nope","option":1}`, `no such choice: no choice has the id "nope"`)
	refused(`{"type":"hello"}`, "hello is a line wisp writes, not one it reads")
	refused(`{"type":"message"}`, `a message needs "text"`)

	// A question answered by option, with bad answers first.
	send(`{"type":"message","text":"Replace the config with the new defaults."}`)
	got := p.expect(
		jsonl.Turn{Turn: 1, Text: "Replace the config with the new defaults."},
		jsonl.ToolCall{Name: "ask", Summary: "a question"},
		jsonl.Question{Turn: 1, Title: "the model asks", Text: "Which config did you mean?",
			Options: []string{"~/.wisp/config.json", "./wisp.json"}, NoneOfThese: true},
	)
	q1 := choiceID(t, got[2])
	refused(`{"type":"message","text":"and another thing"}`, "a turn is running; wait for its end line, or send cancel")
	refused(`{"type":"choose","id":"`+q1+`","option":3}`, "option 3 is out of range: choice "+q1+" has options 1 to 2")
	refused(`{"type":"choose","id":"`+q1+`","option":0}`, "option 0 is out of range: options are numbered from 1")
	refused(`{"type":"choose","id":"`+q1+`","text":"the second one"}`, "choice "+q1+" does not take text")
	refused(`{"type":"approve","id":"`+q1+`","scope":"once"}`, "is a question (the model asks), not an approval; answer it with choose")
	send(`{"type":"choose","id":"` + q1 + `","option":2}`)
	p.expect(
		jsonl.Settled{Outcome: "chose"},
		jsonl.ToolResult{Name: "ask", Text: "chose: ./wisp.json"},
		jsonl.Delta{Text: "Replacing ./wisp.json with the new defaults."},
		jsonl.End{Turn: 1, Reply: "Replacing ./wisp.json with the new defaults."},
	)
	refused(`{"type":"choose","id":"`+q1+`","option":1}`, "the choice has already settled: choice "+q1+" settled already (chose)")

	// Free text.
	send(`{"type":"message","text":"Deploy it."}`)
	got = p.expect(
		jsonl.Turn{Turn: 2, Text: "Deploy it."},
		jsonl.ToolCall{Name: "ask", Summary: "a question"},
		jsonl.Question{Turn: 2, Title: "the model asks", Text: "What is the name of the staging branch?", AcceptsText: true},
	)
	q2 := choiceID(t, got[2])
	refused(`{"type":"choose","id":"`+q2+`","none":true}`, "does not offer none of these; send text, decline")
	send(`{"type":"choose","id":"` + q2 + `","text":"release/2.4"}`)
	p.expect(
		jsonl.Settled{Outcome: "answered"},
		jsonl.ToolResult{Name: "ask", Text: "answer: release/2.4 (from the person)"},
		jsonl.Delta{Text: "Deploying release/2.4 to staging."},
		jsonl.End{Turn: 2, Reply: "Deploying release/2.4 to staging."},
	)

	// Declined; the text that came with the call streams before it.
	send(`{"type":"message","text":"Go on."}`)
	got = p.expect(
		jsonl.Turn{Turn: 3, Text: "Go on."},
		jsonl.Delta{Text: "Let me check one thing."},
		jsonl.ToolCall{Name: "ask", Summary: "a question"},
		jsonl.Question{Turn: 3, Title: "the model asks", Text: "Should I keep the old config as a backup?", Options: []string{"yes", "no"}, NoneOfThese: true},
	)
	send(`{"type":"choose","id":"` + choiceID(t, got[3]) + `","decline":true}`)
	p.expect(
		jsonl.Settled{Outcome: "declined"},
		jsonl.ToolResult{Name: "ask", Text: "the person declined to answer. Do not ask this again; say in your reply what you needed"},
		jsonl.Delta{Text: "I will leave the backup question to you."},
		jsonl.End{Turn: 3, Reply: "I will leave the backup question to you."},
	)

	// A card.
	send(`{"type":"message","text":"Run the migration."}`)
	got = p.expect(
		jsonl.Turn{Turn: 4, Text: "Run the migration."},
		jsonl.ToolCall{Name: "ask_user", Summary: "2 questions"},
		jsonl.Card{Turn: 4, Title: "the model asks", Questions: []jsonl.CardQuestion{
			{Text: "Which environment should the migration run against?", Header: "Env", Options: []jsonl.CardOption{
				{Label: "staging", Description: "safe to break", Recommended: true}, {Label: "production", Description: "real data"}}},
			{Text: "Which checks should run first?", Header: "Checks", MultiSelect: true, Options: []jsonl.CardOption{
				{Label: "unit tests", Recommended: true}, {Label: "integration tests"}, {Label: "lint"}}},
		}},
	)
	c1 := choiceID(t, got[2])
	if got[2].(jsonl.Card).Deadline.IsZero() {
		t.Error("a card went out without its deadline")
	}
	refused(`{"type":"choose","id":"`+c1+`","answers":[{"option":2}]}`, "card "+c1+" has 2 questions, and the line has 1 answer;")
	refused(`{"type":"choose","id":"`+c1+`","answers":[{"options":[1,2]},{"options":[1]}]}`, "question 1: it is a single choice; send option, not options")
	refused(`{"type":"choose","id":"`+c1+`","answers":[{"option":2},{"options":[1,4]}]}`, "question 2: option 4 is out of range")
	send(`{"type":"choose","id":"` + c1 + `","answers":[{"option":2},{"options":[3,1]}]}`)
	p.expect(
		jsonl.Settled{Outcome: "answered"},
		jsonl.ToolResult{Name: "ask_user", Text: "1 (Env): chose: production (from the person)\n2 (Checks): chose: unit tests, lint (from the person)"},
		jsonl.Delta{Text: "Running unit tests and lint against production."},
		jsonl.End{Turn: 4, Reply: "Running unit tests and lint against production."},
	)

	// An approval: never a question, and answered only by approve or deny.
	send(`{"type":"message","text":"Clean up."}`)
	got = p.expect(
		jsonl.Turn{Turn: 5, Text: "Clean up."},
		jsonl.ToolCall{Name: "request_approval", Summary: "an action"},
	)
	a, ok := p.next().(jsonl.Approval)
	if !ok || a.Title != "wisp asks your approval" || a.Command != "drop the table sessions_old in staging" ||
		!cmp.Equal(a.Scopes, []string{"once"}) || !strings.Contains(a.Text, "the migration replaces it") {
		t.Fatalf("the approval line is %+v", a)
	}
	refused(`{"type":"choose","id":"`+a.ID+`","option":1}`, "choice "+a.ID+" is an approval (wisp asks your approval), not a question; answer it with approve or deny")
	refused(`{"type":"approve","id":"`+a.ID+`","scope":"forever"}`, `unknown scope "forever"`)
	// Wider than the approval offers: narrowed to once, not refused, and
	// recorded as downgradedFrom (checked in the audit log below).
	send(`{"type":"approve","id":"` + a.ID + `","scope":"session"}`)
	got = p.expect(jsonl.Settled{Outcome: "approved"})
	if r, ok := p.next().(jsonl.ToolResult); !ok || r.IsError || r.Name != "request_approval" || !strings.Contains(r.Text, "approved") {
		t.Errorf("the approval's result is %+v", r)
	}
	p.expect(
		jsonl.Delta{Text: "Dropped sessions_old."},
		jsonl.End{Turn: 5, Reply: "Dropped sessions_old."},
	)

	// A cancel while the question waits: it settles cancelled, the turn
	// ends stopped, and a later cancel with no turn running is no error.
	send(`{"type":"message","text":"Deploy everywhere."}`)
	got = p.expect(
		jsonl.Turn{Turn: 6, Text: "Deploy everywhere."},
		jsonl.ToolCall{Name: "ask", Summary: "a question"},
		jsonl.Question{Turn: 6, Title: "the model asks", Text: "Which region?", Options: []string{"eu-west-1", "us-east-1"}, NoneOfThese: true},
	)
	send(`{"type":"cancel"}`)
	p.expect(
		jsonl.Settled{Outcome: "cancelled"},
		jsonl.ToolResult{Name: "ask", Text: "the person stopped the turn", IsError: true},
		jsonl.End{Turn: 6, Error: "the person stopped the turn", Stopped: true},
	)
	send(`{"type":"cancel"}`)

	// stdin closes while a question waits: no person can answer it, which
	// is never the person's decline; the turn ends, then bye.
	send(`{"type":"message","text":"Open the pull request."}`)
	got = p.expect(
		jsonl.Turn{Turn: 7, Text: "Open the pull request."},
		jsonl.ToolCall{Name: "ask", Summary: "a question"},
		jsonl.Question{Turn: 7, Title: "the model asks", Text: "Shall I open the pull request now?", Options: []string{"yes", "not yet"}, NoneOfThese: true},
	)
	p.stdin.Close()
	p.expect(
		jsonl.Settled{Outcome: "closed"},
		jsonl.ToolResult{Name: "ask", Text: "no person can answer here; say in your reply what you need"},
		jsonl.Delta{Text: "I will not open it without your word."},
		jsonl.End{Turn: 7, Reply: "I will not open it without your word."},
		jsonl.Bye{},
	)
	if code := p.wait(); code != 0 {
		t.Errorf("wisp chat --json exited %d; stderr: %s", code, p.stderr.String())
	}
	if s := p.stderr.String(); s != "" {
		t.Errorf("stderr = %q, want nothing", s)
	}
	select {
	case l := <-p.lines:
		t.Errorf("wisp wrote %+v after bye", l)
	default:
	}

	// The audit log has it all: who answered what, and the stopped turn.
	home := filepath.Join(dir, "home")
	out := runWispOut(t, home, "audit", "--kind", "inquiry.settled")
	for _, s := range []string{`"outcome":"chose"`, `"answer":"release/2.4"`, `"outcome":"declined"`, `"kind":"ask_user"`, `"outcome":"stopped"`} {
		if !strings.Contains(out, s) {
			t.Errorf("the audit log's inquiry.settled records lack %s:\n%s", s, out)
		}
	}
	if out := runWispOut(t, home, "audit", "--kind", "approval.decided"); !strings.Contains(out, "source=person") || !strings.Contains(out, `"decision":"approved"`) ||
		!strings.Contains(out, `"downgradedFrom":"session"`) || !strings.Contains(out, `"scope":"once"`) {
		t.Errorf("approval.decided, want it approved by the person, once, downgraded from session:\n%s", out)
	}
}

// runWispOut runs the wisp test command and returns its stdout.
func runWispOut(t *testing.T, home string, args ...string) string {
	t.Helper()
	bin, err := exec.LookPath("wisp")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "WISP_HOME="+home)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("wisp %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}

// TestChatJSONCardAndApprovalAtClose: when stdin closes while a question
// waits, it and a card asked after end with no person to answer them:
// the model is told so (never that the person declined), the card's
// choice falls back marked unattended, and the audit says unattended, not
// person. An approval asked after is refused.
func TestChatJSONCardAndApprovalAtClose(t *testing.T) {
	dir := t.TempDir()
	script := writeScript(t, dir,
		`{"content":"","tool_calls":[{"name":"ask","arguments":{"question":"Shall I migrate now?","options":["yes","not yet"]}}]}`,
		`{"content":"","tool_calls":[{"name":"ask_user","arguments":{"questions":[{"question":"Which environment?","options":[{"label":"staging","recommended":true},{"label":"production"}]},{"question":"Anything the migration must not touch?"}]}},{"name":"request_approval","arguments":{"action":"restart the staging database","reason":"the migration needs it"}}]}`,
		`{"content":"Nothing was chosen, and nothing was approved."}`,
	)
	home := filepath.Join(dir, "home")
	p := startChatJSON(t, home, "--model", "script:"+script, "--tool", "ask", "--tool", "ask_user", "--tool", "request_approval")
	p.next() // hello
	p.send(`{"type":"message","text":"Migrate."}`)
	p.expect(jsonl.Turn{Turn: 1, Text: "Migrate."}, jsonl.ToolCall{Name: "ask", Summary: "a question"})
	if _, ok := p.next().(jsonl.Question); !ok {
		t.Fatal("no question")
	}
	p.stdin.Close()
	p.expect(
		jsonl.Settled{Outcome: "closed"},
		jsonl.ToolResult{Name: "ask", Text: "no person can answer here; say in your reply what you need"},
		jsonl.ToolCall{Name: "ask_user", Summary: "2 questions"},
	)
	if _, ok := p.next().(jsonl.Card); !ok {
		t.Fatal("no card")
	}
	p.expect(
		jsonl.Settled{Outcome: "closed"},
		jsonl.ToolResult{Name: "ask_user", Text: "1: fallback: staging (the recommended option; no person can answer here, so the person did not choose it)\n" +
			"2: no person can answer here; this question has no default. Do not guess what the person would say"},
		jsonl.ToolCall{Name: "request_approval", Summary: "an action"},
	)
	if _, ok := p.next().(jsonl.Approval); !ok {
		t.Fatal("no approval")
	}
	p.expect(jsonl.Settled{Outcome: "refused"})
	if r, ok := p.next().(jsonl.ToolResult); !ok || !r.IsError || !strings.Contains(r.Text, jsonl.ReasonClosed) {
		t.Errorf("the refused approval's result is %+v", r)
	}
	p.expect(
		jsonl.Delta{Text: "Nothing was chosen, and nothing was approved."},
		jsonl.End{Turn: 1, Reply: "Nothing was chosen, and nothing was approved."},
		jsonl.Bye{},
	)
	if code := p.wait(); code != 0 {
		t.Errorf("exit %d; stderr %s", code, p.stderr.String())
	}

	out := runWispOut(t, home, "audit", "--kind", "inquiry.settled")
	if n := strings.Count(out, `"provenance":"unattended"`); n != 3 || strings.Contains(out, "source=person") ||
		strings.Contains(out, `"provenance":"person"`) || strings.Contains(out, `"declined"`) {
		t.Errorf("inquiry.settled at the end of stdin: want 3 answers of provenance unattended, none of the person's, none declined:\n%s", out)
	}
}

// TestChatJSONInterrupt: Ctrl-C stops a running turn as cancel does, and
// with no turn running ends the session with bye.
func TestChatJSONInterrupt(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT to send on Windows")
	}
	dir := t.TempDir()
	script := writeScript(t, dir, askQ1, `{"content":"unused"}`)
	p := startChatJSON(t, filepath.Join(dir, "home"), "--model", "script:"+script, "--tool", "ask")
	p.next() // hello
	p.send(`{"type":"message","text":"Replace the config."}`)
	p.expect(jsonl.Turn{Turn: 1, Text: "Replace the config."}, jsonl.ToolCall{Name: "ask", Summary: "a question"})
	if _, ok := p.next().(jsonl.Question); !ok {
		t.Fatal("no question")
	}
	p.cmd.Process.Signal(os.Interrupt)
	p.expect(
		jsonl.Settled{Outcome: "cancelled"},
		jsonl.ToolResult{Name: "ask", Text: "the person stopped the turn", IsError: true},
		jsonl.End{Turn: 1, Error: "the person stopped the turn", Stopped: true},
	)
	p.cmd.Process.Signal(os.Interrupt)
	p.expect(jsonl.Bye{})
	if code := p.wait(); code != 0 {
		t.Errorf("exit %d after Ctrl-C at rest; stderr %s", code, p.stderr.String())
	}
}

// TestChatJSONFailedTurn: a turn the model cannot finish ends with an
// error line of its own; the session goes on, and wisp exits 1 at the end.
func TestChatJSONFailedTurn(t *testing.T) {
	dir := t.TempDir()
	script := writeScript(t, dir, `{"content":"hi"}`)
	p := startChatJSON(t, filepath.Join(dir, "home"), "--model", "script:"+script)
	p.next() // hello
	p.send(`{"type":"message","text":"one"}`)
	p.expect(jsonl.Turn{Turn: 1, Text: "one"}, jsonl.Delta{Text: "hi"}, jsonl.End{Turn: 1, Reply: "hi"})
	p.send(`{"type":"message","text":"two"}`)
	p.next() // turn 2
	end, ok := p.next().(jsonl.End)
	if !ok || end.Stopped || !strings.Contains(end.Error, "the script has no message left") {
		t.Errorf("a failed turn ended with %+v", end)
	}
	p.send(`{"type":"message","text":"three"}`)
	p.next() // turn 3: the session went on
	p.next()
	if code := p.exit(); code != 1 {
		t.Errorf("exit %d, want 1 after a failed turn", code)
	}
	if !strings.Contains(p.stderr.String(), "the script has no message left") {
		t.Errorf("stderr %q does not say why the turn failed", p.stderr.String())
	}
}

// TestChatJSONNotes: what wisp tells the person arrives as notes: a
// credential in an answer that was not passed on, and a reply the
// verification pass flagged (in the end line's flags too).
func TestChatJSONNotes(t *testing.T) {
	dir := t.TempDir()
	script := writeScript(t, dir,
		`{"content":"","tool_calls":[{"name":"ask","arguments":{"question":"Which key should the deploy use?"}}]}`,
		`{"content":"Using the key you gave."}`,
		`{"content":"As you chose, I deployed to staging."}`,
	)
	p := startChatJSON(t, filepath.Join(dir, "home"), "--model", "script:"+script, "--tool", "ask")
	hello := p.next().(jsonl.Hello)
	p.send(`{"type":"message","text":"Deploy."}`)
	got := p.expect(
		jsonl.Turn{Turn: 1, Text: "Deploy."},
		jsonl.ToolCall{Name: "ask", Summary: "a question"},
		jsonl.Question{Turn: 1, Title: "the model asks", Text: "Which key should the deploy use?", AcceptsText: true},
	)
	p.send(`{"type":"choose","id":"` + choiceID(t, got[2]) + `","text":"AKIAIOSFODNN7EXAMPLE"}`)
	p.expect(
		jsonl.Settled{Outcome: "answered"},
		jsonl.Note{Kind: "redacted", Thread: hello.Thread,
			Text: "your answer looked like it held a credential; it was not passed on: the model sees [REDACTED:aws-access-key#1]"},
		jsonl.ToolResult{Name: "ask", Text: "answer: [REDACTED:aws-access-key#1] (from the person)"},
		jsonl.Delta{Text: "Using the key you gave."},
		jsonl.End{Turn: 1, Reply: "Using the key you gave."},
	)
	p.send(`{"type":"message","text":"Again."}`)
	p.expect(
		jsonl.Turn{Turn: 2, Text: "Again."},
		jsonl.Delta{Text: "As you chose, I deployed to staging."},
		jsonl.Note{Kind: "flag", Thread: hello.Thread,
			Text: `the reply says the person chose or confirmed something, but no question was answered in this turn ("As you chose")`},
		jsonl.End{Turn: 2, Reply: "As you chose, I deployed to staging.",
			Flags: []string{"the reply says the person chose or confirmed something, but no question was answered in this turn"}},
	)
	if code := p.exit(); code != 0 {
		t.Errorf("exit %d", code)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range p.raw {
		if strings.Contains(l, "AKIAIOSFODNN7EXAMPLE") {
			t.Errorf("wisp wrote the credential back: %s", l)
		}
	}
}

// TestChatJSONCancelRightAfterMessage: a cancel sent right behind its
// message stops the turn, and every end line is well formed: it has the
// turn's number, from 1, and the turn line with that number came before
// it, each turn one after the last.
func TestChatJSONCancelRightAfterMessage(t *testing.T) {
	dir := t.TempDir()
	steps := make([]string, 60)
	for i := range steps {
		steps[i] = `{"content":"ok"}`
	}
	script := writeScript(t, dir, steps...)
	p := startChatJSON(t, filepath.Join(dir, "home"), "--model", "script:"+script)
	p.next() // hello
	last := 0
	for i := range 20 {
		p.send(`{"type":"message","text":"go"}`, `{"type":"cancel"}`)
		started := 0
		for {
			l := p.next()
			if tl, ok := l.(jsonl.Turn); ok {
				if started != 0 {
					t.Fatalf("round %d: a second turn line (%d) before the end of turn %d", i+1, tl.Turn, started)
				}
				started = tl.Turn
				continue
			}
			end, ok := l.(jsonl.End)
			if !ok {
				continue
			}
			switch {
			case end.Turn < 1:
				t.Errorf("round %d: an end line with turn %d: %+v", i+1, end.Turn, end)
			case started == 0:
				t.Errorf("round %d: the end of turn %d came with no turn line", i+1, end.Turn)
			case end.Turn != started:
				t.Errorf("round %d: turn %d started and turn %d ended", i+1, started, end.Turn)
			case end.Turn != last+1:
				t.Errorf("round %d: turn %d followed turn %d", i+1, end.Turn, last)
			}
			if end.Error != "" && !end.Stopped {
				t.Errorf("round %d: the turn failed: %+v", i+1, end)
			}
			last = end.Turn
			break
		}
	}
	if code := p.exit(); code != 0 {
		t.Errorf("exit %d; stderr %s", code, p.stderr.String())
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range p.raw {
		if strings.Contains(l, `"type":"end"`) && !strings.Contains(l, `"turn":`) {
			t.Errorf("an end line without its turn: %s", l)
		}
	}
}

// failingStore is a thread store that cannot be read.
type failingStore struct{}

func (failingStore) Load(string) (agent.ThreadState, bool, error) {
	return agent.ThreadState{}, false, errors.New("the thread cannot be read")
}
func (failingStore) Save(string, agent.ThreadState) error { return nil }

// agentTurns runs an agent's turns on one thread.
type agentTurns struct {
	thread string
	agent  *agent.Agent
}

func (a agentTurns) Respond(ctx context.Context, input string) (wisp.Reply, error) {
	return a.agent.Respond(ctx, a.thread, input)
}

func (a agentTurns) Thread() string { return a.thread }

// TestChatJSONTurnThatNeverStarted: a turn that ends before it starts (no
// turn line) ends with an end line that has no turn number, never turn 0,
// says why on stderr, and counts as a failure.
func TestChatJSONTurnThatNeverStarted(t *testing.T) {
	var out, stderr bytes.Buffer
	s := jsonl.NewSession(&out, &jsonl.SessionOptions{Log: &stderr})
	conv := agentTurns{thread: "t-1", agent: agent.New(nil, &agent.Options{Store: failingStore{}})}
	err := s.Serve(context.Background(), strings.NewReader(`{"type":"message","text":"hello"}`+"\n"), conv, &jsonl.ServeOptions{Hello: jsonl.Hello{Thread: "t-1"}})
	if !errors.Is(err, jsonl.ErrTurnFailed) {
		t.Errorf("Serve = %v, want %v", err, jsonl.ErrTurnFailed)
	}
	// The agent may say more around the store's error; the shape is fixed.
	lines := strings.SplitAfter(out.String(), "\n")
	if len(lines) != 4 || lines[3] != "" {
		t.Fatalf("wisp wrote %q, want hello, one end line and bye", out.String())
	}
	got := lines[1]
	if !strings.HasPrefix(got, `{"type":"end","thread":"t-1","error":"`) || !strings.HasSuffix(got, `the thread cannot be read"}`+"\n") {
		t.Errorf("wisp wrote %q, want one end line with no turn, saying the thread cannot be read", got)
	}
	if !strings.Contains(stderr.String(), "the thread cannot be read") {
		t.Errorf("stderr = %q, want the failure said", stderr.String())
	}
}
