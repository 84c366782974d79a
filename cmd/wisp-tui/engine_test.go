package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp/inquiry/jsonl"
)

// The test binary plays other programs when WISP_TUI_TEST_AS says so: a
// fake wisp that speaks the protocol (fake-wisp, fake-wisp-fails), or
// wisp-tui itself (wisp-tui, for the tmux tests), whose engine then plays
// WISP_TUI_TEST_ENGINE. The real wisp, for the tests that run it, is built
// once for the whole run (buildWisp) and removed at its end.
func TestMain(m *testing.M) {
	switch os.Getenv("WISP_TUI_TEST_AS") {
	case "fake-wisp":
		os.Exit(fakeWisp())
	case "fake-wisp-fails":
		fmt.Fprintln(os.Stderr, "wisp: no model given; pass --model")
		os.Exit(2)
	case "wisp-tui":
		os.Setenv("WISP_TUI_TEST_AS", os.Getenv("WISP_TUI_TEST_ENGINE"))
		main()
		os.Exit(0)
	}
	code := m.Run()
	removeBuilt()
	os.Exit(code)
}

// fakeWisp speaks wisp chat --json on stdin and stdout: a message asks a
// question, an answer ends the turn with a streamed reply, cancel stops
// it, and the end of the input says bye.
func fakeWisp() int {
	out := json.NewEncoder(os.Stdout)
	w := func(v map[string]any) { out.Encode(v) }
	w(map[string]any{"type": "hello", "protocol": "wisp-chat", "version": 1, "thread": "t-f",
		"model": strings.Join(os.Args[1:], " "), "tools": []string{"ask"}})
	fmt.Fprintln(os.Stderr, "wisp: fake engine ready")
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		var in struct {
			Type   string `json:"type"`
			Text   string `json:"text"`
			ID     string `json:"id"`
			Option int    `json:"option"`
		}
		if err := json.Unmarshal(sc.Bytes(), &in); err != nil {
			w(map[string]any{"type": "error", "error": err.Error()})
			continue
		}
		switch in.Type {
		case "message":
			w(map[string]any{"type": "turn", "thread": "t-f", "turn": 1, "text": in.Text})
			w(map[string]any{"type": "tool", "phase": "call", "id": "call_1", "name": "ask", "summary": "Which one?"})
			w(map[string]any{"type": "choice", "kind": "question", "id": "q1", "thread": "t-f", "turn": 1,
				"title": "the model asks", "text": "Which one?", "options": []string{"a", "b"}, "noneOfThese": true})
		case "choose":
			w(map[string]any{"type": "settled", "id": in.ID, "outcome": "chose"})
			w(map[string]any{"type": "tool", "phase": "result", "id": "call_1", "name": "ask", "text": fmt.Sprintf("chose: option %d", in.Option)})
			w(map[string]any{"type": "delta", "text": "Using "})
			w(map[string]any{"type": "delta", "text": "it."})
			w(map[string]any{"type": "end", "thread": "t-f", "turn": 1, "reply": "Using it."})
		case "cancel":
			w(map[string]any{"type": "end", "thread": "t-f", "turn": 1, "error": "stopped", "stopped": true})
		default:
			w(map[string]any{"type": "error", "error": "unknown type " + in.Type})
		}
	}
	w(map[string]any{"type": "bye"})
	return 0
}

// startFake runs the test binary as a fake wisp.
func startFake(t *testing.T, as string, args ...string) *engine {
	t.Helper()
	t.Setenv("WISP_TUI_TEST_AS", as)
	t.Setenv("GORACE", quickRaceExit())
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e, err := startEngine(self, args)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Stop(5 * time.Second) })
	return e
}

// quickRaceExit is GORACE for a child that is this test binary: under
// -race a program sleeps a second as it exits, unless told not to.
func quickRaceExit() string {
	return strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
}

// collect reads the engine's messages until one satisfies stop.
func collect(t *testing.T, e *engine, stop func(tea.Msg) bool) []tea.Msg {
	t.Helper()
	var got []tea.Msg
	timeout := time.After(10 * time.Second)
	for {
		select {
		case m, ok := <-e.msgs:
			if !ok {
				t.Fatalf("the engine's messages ended after %v", got)
			}
			got = append(got, m)
			if stop(m) {
				return got
			}
		case <-timeout:
			t.Fatalf("timed out; got %v", got)
		}
	}
}

// summary writes a message as a short string to compare.
func summary(m tea.Msg) string {
	switch m := m.(type) {
	case lineMsg:
		switch l := m.line.(type) {
		case jsonl.Turn:
			return "turn " + l.Text
		case jsonl.Question:
			return "question " + l.Text
		case jsonl.ToolResult:
			return "result " + l.Text
		case jsonl.Delta:
			return "delta " + l.Text
		}
		return fmt.Sprintf("%T", m.line)
	case stderrMsg:
		return "stderr " + m.text
	case endedMsg:
		return fmt.Sprintf("ended %v", m.err)
	}
	return fmt.Sprintf("%T", m)
}

// is reports whether a message carries a line of type T.
func is[T jsonl.Line](m tea.Msg) bool {
	l, ok := m.(lineMsg)
	if !ok {
		return false
	}
	_, ok = l.line.(T)
	return ok
}

func TestEngine(t *testing.T) {
	e := startFake(t, "fake-wisp", "chat", "--json", "--model", "script:x.jsonl")
	msgs := collect(t, e, is[jsonl.Hello])
	hello := msgs[len(msgs)-1].(lineMsg).line.(jsonl.Hello)
	if hello.Model != "chat --json --model script:x.jsonl" || hello.Version != 1 {
		t.Errorf("hello = %+v; want the arguments passed on", hello)
	}
	if err := e.Send(jsonl.Message{Text: "Go"}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range collect(t, e, is[jsonl.Question]) {
		got = append(got, summary(m))
	}
	if err := e.Send(jsonl.Choose{ID: "q1", Option: 2}); err != nil {
		t.Fatal(err)
	}
	for _, m := range collect(t, e, is[jsonl.End]) {
		got = append(got, summary(m))
	}
	if err := e.CloseInput(); err != nil {
		t.Fatal(err)
	}
	for _, m := range collect(t, e, func(m tea.Msg) bool { _, ok := m.(endedMsg); return ok }) {
		got = append(got, summary(m))
	}
	// Standard error and standard output are read apart, so the stderr
	// line may come anywhere before the end: take it out to compare.
	var stderr []string
	var lines []string
	for _, s := range got {
		if strings.HasPrefix(s, "stderr ") {
			stderr = append(stderr, s)
		} else {
			lines = append(lines, s)
		}
	}
	want := []string{"turn Go", "jsonl.ToolCall", "question Which one?", "jsonl.Settled", "result chose: option 2", "delta Using ", "delta it.", "jsonl.End", "jsonl.Bye", "ended <nil>"}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if len(stderr) > 1 || (len(stderr) == 1 && stderr[0] != "stderr wisp: fake engine ready") {
		t.Errorf("stderr messages %q", stderr)
	}
	if err := e.Send(jsonl.Cancel{}); err != errInputClosed {
		t.Errorf("Send after CloseInput = %v, want errInputClosed", err)
	}
	if err := e.Stop(time.Second); err != nil {
		t.Errorf("Stop = %v, want nil (exit status 0)", err)
	}
	if _, ok := <-e.msgs; ok {
		t.Error("the message channel is still open after the end")
	}
}

func TestEngineFails(t *testing.T) {
	e := startFake(t, "fake-wisp-fails")
	msgs := collect(t, e, func(m tea.Msg) bool { _, ok := m.(endedMsg); return ok })
	ended := msgs[len(msgs)-1].(endedMsg)
	var ee *exec.ExitError
	if !errors.As(ended.err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("ended with %v, want exit status 2", ended.err)
	}
	if got := e.lastStderr(); !cmp.Equal(got, []string{"wisp: no model given; pass --model"}) {
		t.Errorf("lastStderr = %q", got)
	}
}

// TestEngineModel runs the model on the fake wisp through the engine's
// messages, as the program would, with no terminal.
func TestEngineModel(t *testing.T) {
	e := startFake(t, "fake-wisp", "chat", "--json")
	clk := &clock{time.Now()}
	m := newModel(e, modelOptions{next: e.next, now: clk.now, plain: true, width: 80, height: 30})
	// step runs the command chain until the model has taken a message
	// that satisfies stop.
	step := func(cmd tea.Cmd, stop func(tea.Msg) bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
			if cmd == nil {
				t.Fatal("no command to wait on")
			}
			msg := cmd()
			_, cmd = m.Update(msg)
			if stop(msg) {
				return
			}
		}
		t.Fatal("timed out")
	}
	step(m.Init(), is[jsonl.Hello])
	for _, k := range keyMsgs("Go") {
		m.Update(k)
	}
	if _, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeyEnter}); cmd != nil {
		t.Fatal("Enter returned a command")
	}
	step(m.next(), is[jsonl.Question])
	clk.t = clk.t.Add(time.Second)
	m.Update(tea.KeyPressMsg{Code: '2', Text: "2"})
	step(m.next(), is[jsonl.End])
	if got := m.conversation(); !strings.Contains(got, "↳ chose: option 2\nUsing it.") {
		t.Errorf("conversation:\n%s", got)
	}
	m.Update(tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl})
	step(m.next(), func(msg tea.Msg) bool { _, ok := msg.(endedMsg); return ok })
	if !m.ended || m.endErr != nil {
		t.Errorf("ended %v, err %v; want a clean end", m.ended, m.endErr)
	}
}
