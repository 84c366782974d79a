package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/jsonl"
	"github.com/wisp-agent/wisp/inquiry/pending"
)

// inProcessChat is wisp chat --json run in this process, so that the
// test says whether wisp has a terminal.
type inProcessChat struct {
	t      *testing.T
	in     *io.PipeWriter
	lines  chan jsonl.Line
	stderr *lockedBuffer
	code   chan int
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func startInProcessChat(t *testing.T, env environ, args ...string) *inProcessChat {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &inProcessChat{t: t, in: inW, lines: make(chan jsonl.Line, 100), stderr: &lockedBuffer{}, code: make(chan int, 1)}
	go func() {
		c.code <- run(context.Background(), append([]string{"chat", "--json"}, args...), inR, outW, c.stderr, env)
		outW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			l, err := jsonl.Decode(sc.Bytes())
			if err != nil {
				t.Errorf("wisp wrote a line that is not the protocol's (%v): %q", err, sc.Text())
				continue
			}
			c.lines <- l
		}
		close(c.lines)
	}()
	t.Cleanup(func() { inW.Close() })
	return c
}

func (c *inProcessChat) send(raw ...string) {
	c.t.Helper()
	for _, r := range raw {
		if _, err := io.WriteString(c.in, r+"\n"); err != nil {
			c.t.Fatal(err)
		}
	}
}

func (c *inProcessChat) next() jsonl.Line {
	c.t.Helper()
	select {
	case l, ok := <-c.lines:
		if !ok {
			c.t.Fatalf("wisp ended; stderr: %s", c.stderr.String())
		}
		return l
	case <-time.After(20 * time.Second):
		c.t.Fatalf("wisp wrote no line in 20 s; stderr: %s", c.stderr.String())
		return nil
	}
}

func (c *inProcessChat) expect(want ...jsonl.Line) {
	c.t.Helper()
	var got []jsonl.Line
	for range want {
		got = append(got, c.next())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		c.t.Errorf("wisp's lines mismatch (-want +got):\n%s", diff)
	}
}

func (c *inProcessChat) refused(raw string, line int, says string) {
	c.t.Helper()
	c.send(raw)
	l := c.next()
	if e, ok := l.(jsonl.Error); !ok || e.Line != line || !strings.Contains(e.Error, says) {
		c.t.Errorf("%s (line %d): wisp wrote %+v, want an error line %d saying %q", raw, line, l, line, says)
	}
}

// exit closes wisp's input and returns its exit status, after its bye.
func (c *inProcessChat) exit() int {
	c.t.Helper()
	c.in.Close()
	for l := range c.lines {
		if _, ok := l.(jsonl.Bye); !ok {
			c.t.Errorf("after the input closed, wisp wrote %+v", l)
		}
	}
	return <-c.code
}

// parkTwo files two questions wisp mcp parked on thread t-mcp: a choice
// (a1b2c3d4) and free text (b2c3d4e5).
func parkTwo(t *testing.T, home string) pending.Store {
	t.Helper()
	ids := []string{"a1b2c3d4", "b2c3d4e5"}
	store := pending.Store{Dir: filepath.Join(home, "pending"), NewID: func() string { id := ids[0]; ids = ids[1:]; return id }}
	for _, q := range []wisp.Question{
		{Session: "s-mcp", Thread: "t-mcp", Turn: 3, Text: "Which config did you mean?", Options: []string{"~/.wisp/config.json", "./wisp.json"}},
		{Session: "s-mcp", Thread: "t-mcp", Turn: 4, Text: "Which branch?"},
	} {
		if _, err := store.File(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	return store
}

const (
	waitingA = `a question waits for you (a1b2c3d4): "Which config did you mean?"; answer it with wisp questions answer a1b2c3d4`
	waitingB = `a question waits for you (b2c3d4e5): "Which branch?"; answer it with wisp questions answer b2c3d4e5`
)

// TestChatJSONAnswersParkedQuestions: a chat --json with a person at a
// terminal (as wisp-tui runs it) lists the questions wisp mcp parked,
// puts one to the client as a choice marked parked, files the answer
// (from tui) and says so; a decline is filed at once; the rules of wisp
// questions hold (an ID, the first answer wins, one choice at a time).
func TestChatJSONAnswersParkedQuestions(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	store := parkTwo(t, home)
	env := testEnv(home)
	env.hasTerminal = func() bool { return true }
	c := startInProcessChat(t, env, "--model", "script:"+writeScript(t, dir, `{"content":"ok"}`))

	hello, ok := c.next().(jsonl.Hello)
	if !ok || !strings.Contains(strings.Join(hello.Accepts, " "), "questions") {
		t.Fatalf("hello = %+v, want it to accept questions lines", hello)
	}
	c.expect(
		jsonl.Note{Kind: "question", ID: "a1b2c3d4", Thread: "t-mcp", Text: waitingA},
		jsonl.Note{Kind: "question", ID: "b2c3d4e5", Thread: "t-mcp", Text: waitingB},
	)
	c.send(`{"type":"questions","action":"list"}`)
	c.expect(
		jsonl.Note{Kind: "question", ID: "a1b2c3d4", Thread: "t-mcp", Text: waitingA},
		jsonl.Note{Kind: "question", ID: "b2c3d4e5", Thread: "t-mcp", Text: waitingB},
	)
	c.send(`{"type":"questions","action":"answer","id":"a1b2c3d4"}`)
	q, ok := c.next().(jsonl.Question)
	if !ok {
		t.Fatalf("wisp wrote %+v, want the parked question", q)
	}
	q.Deadline = time.Time{}
	want := jsonl.Question{ID: "a1b2c3d4", Thread: "t-mcp", Turn: 3, Title: jsonl.TitleModelAsks, Text: "Which config did you mean?",
		Options: []string{"~/.wisp/config.json", "./wisp.json"}, NoneOfThese: true, Parked: true}
	if diff := cmp.Diff(want, q); diff != "" {
		t.Errorf("the parked question's line (-want +got):\n%s", diff)
	}
	c.refused(`{"type":"questions","action":"answer","id":"a1b2c3d4"}`, 3, "question a1b2c3d4 is put to you already; answer its choice line")
	c.send(`{"type":"choose","id":"a1b2c3d4","option":2}`)
	c.expect(
		jsonl.Settled{ID: "a1b2c3d4", Outcome: jsonl.OutcomeChose},
		jsonl.Note{Kind: "question", ID: "a1b2c3d4", Thread: "t-mcp", Text: "question a1b2c3d4: you chose ./wisp.json; the thread that asked gets it"},
	)
	c.send(`{"type":"questions","action":"decline","id":"b2c3d4e5"}`)
	c.expect(jsonl.Note{Kind: "question", ID: "b2c3d4e5", Thread: "t-mcp", Text: "question b2c3d4e5: you declined it; the thread that asked gets it"})
	c.refused(`{"type":"questions","action":"answer","id":"a1b2c3d4"}`, 6, "question a1b2c3d4 was already answered from tui; the first answer wins")
	c.refused(`{"type":"questions","action":"answer","id":"a1b2"}`, 7, `"a1b2" is not a question ID`)
	c.refused(`{"type":"questions","action":"decline","id":"12345678"}`, 8, "no question 12345678 is waiting")
	c.send(`{"type":"questions","action":"list"}`)
	c.expect(jsonl.Note{Kind: "question", Text: "no questions are waiting"})
	if code := c.exit(); code != 0 {
		t.Errorf("exit %d; stderr: %s", code, c.stderr.String())
	}

	for id, want := range map[string]pending.Answer{
		"a1b2c3d4": {Outcome: wisp.OutcomeChose, Text: "./wisp.json", From: pending.FromTUI},
		"b2c3d4e5": {Outcome: wisp.OutcomeDeclined, From: pending.FromTUI},
	} {
		a, ok, err := store.Answered(id)
		if err != nil || !ok || a.Outcome != want.Outcome || a.Text != want.Text || a.From != want.From {
			t.Errorf("Answered(%s) = %+v, %v, %v; want %+v", id, a, ok, err, want)
		}
	}
	recs, _ := answerRecords(t, home, wisp.KindInquiryAnswered)
	var froms []string
	for _, r := range recs {
		froms = append(froms, r.Data["id"].(string)+" "+r.Data["outcome"].(string)+" "+r.Data["from"].(string)+" "+r.Source)
	}
	if diff := cmp.Diff([]string{"a1b2c3d4 chose tui person", "b2c3d4e5 declined tui person"}, froms); diff != "" {
		t.Errorf("inquiry.answered records (-want +got):\n%s", diff)
	}
}

// TestChatJSONParkedQuestionsNeedAPerson: without a terminal, or with
// --yes, chat --json lists parked questions but answers none; nothing is
// filed.
func TestChatJSONParkedQuestionsNeedAPerson(t *testing.T) {
	tests := []struct {
		name     string
		terminal bool
		args     []string
		says     string
	}{
		{"no terminal", false, nil, "questions answer runs only where a person is, so that nothing but a person may answer a question: this wisp chat --json has no terminal; run wisp-tui in a terminal, or wisp questions answer a1b2c3d4"},
		{"--yes", true, []string{"--yes"}, "questions decline needs a person, and this chat runs with --yes, where nobody is asked anything; run wisp questions decline a1b2c3d4 in a terminal"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			home := filepath.Join(dir, "home")
			store := parkTwo(t, home)
			env := testEnv(home)
			env.hasTerminal = func() bool { return tc.terminal }
			c := startInProcessChat(t, env, append([]string{"--model", "script:" + writeScript(t, dir, `{"content":"ok"}`)}, tc.args...)...)
			c.next() // hello
			c.next() // the notes of the two questions
			c.next()
			action := "answer"
			if tc.args != nil {
				action = "decline"
			}
			c.refused(`{"type":"questions","action":"`+action+`","id":"a1b2c3d4"}`, 1, tc.says)
			c.send(`{"type":"questions","action":"list"}`)
			c.expect(
				jsonl.Note{Kind: "question", ID: "a1b2c3d4", Thread: "t-mcp", Text: waitingA},
				jsonl.Note{Kind: "question", ID: "b2c3d4e5", Thread: "t-mcp", Text: waitingB},
			)
			if code := c.exit(); code != 0 {
				t.Errorf("exit %d", code)
			}
			if _, ok, err := store.Answered("a1b2c3d4"); ok || err != nil {
				t.Errorf("Answered = %v, %v; want nothing filed", ok, err)
			}
		})
	}
}

// TestChatJSONParkedQuestionAtClose: a parked question put to the client
// when its input ends files nothing, and says so before bye.
func TestChatJSONParkedQuestionAtClose(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	store := parkTwo(t, home)
	env := testEnv(home)
	env.hasTerminal = func() bool { return true }
	c := startInProcessChat(t, env, "--model", "script:"+writeScript(t, dir, `{"content":"ok"}`))
	c.next()
	c.next()
	c.next()
	c.send(`{"type":"questions","action":"answer","id":"b2c3d4e5"}`)
	if q, ok := c.next().(jsonl.Question); !ok || !q.Parked || !q.AcceptsText {
		t.Fatalf("wisp wrote %+v, want the parked free-text question", q)
	}
	c.in.Close()
	c.expect(
		jsonl.Settled{ID: "b2c3d4e5", Outcome: jsonl.OutcomeClosed},
		jsonl.Note{Kind: "question", ID: "b2c3d4e5", Thread: "t-mcp",
			Text: "the input ended; nothing was filed for question b2c3d4e5 (questions answer b2c3d4e5 asks again)"},
		jsonl.Bye{},
	)
	if code := <-c.code; code != 0 {
		t.Errorf("exit %d", code)
	}
	if _, ok, err := store.Answered("b2c3d4e5"); ok || err != nil {
		t.Errorf("Answered = %v, %v; want nothing filed", ok, err)
	}
}
