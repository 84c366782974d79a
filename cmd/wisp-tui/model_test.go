package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/google/go-cmp/cmp"
)

// TestAnswers drives the model with wisp's lines and the person's keys and
// checks the lines written to wisp, exactly.
func TestAnswers(t *testing.T) {
	tests := []struct {
		name   string
		choice string   // the choice line (after hello, turn and the call)
		keys   []string // pressed after the guard has passed
		want   []string // the lines written to wisp
	}{
		{"arrow and Enter", question, []string{"down", "enter"},
			[]string{`{"type":"choose","id":"q1","option":2}`}},
		{"Enter on the first", question, []string{"enter"},
			[]string{`{"type":"choose","id":"q1","option":1}`}},
		{"up stops at the top", question, []string{"up", "up", "enter"},
			[]string{`{"type":"choose","id":"q1","option":1}`}},
		{"by number", question, []string{"2"},
			[]string{`{"type":"choose","id":"q1","option":2}`}},
		{"none of these by number", question, []string{"3"},
			[]string{`{"type":"choose","id":"q1","none":true}`}},
		{"none of these by arrows", question, []string{"down", "down", "down", "enter"},
			[]string{`{"type":"choose","id":"q1","none":true}`}},
		{"a number out of range does nothing", question, []string{"7", "9"}, nil},
		{"letters do not answer a choice", question, []string{"y", "n"}, nil},
		{"free text", freeText, []string{"release/2.4", "enter"},
			[]string{`{"type":"choose","id":"q2","text":"release/2.4"}`}},
		{"free text edited", freeText, []string{"mian", "backspace", "backspace", "backspace", "ain", "enter"},
			[]string{`{"type":"choose","id":"q2","text":"main"}`}},
		{"free text: Enter alone sends nothing", freeText, []string{"enter", "   ", "enter"}, nil},
		{"Esc declines", question, []string{"esc"},
			[]string{`{"type":"choose","id":"q1","decline":true}`}},
		{"Esc declines free text", freeText, []string{"half typed", "esc"},
			[]string{`{"type":"choose","id":"q2","decline":true}`}},
		{"Ctrl-C declines, a second Ctrl-C stops the turn", question, []string{"ctrl+c", "ctrl+c"},
			[]string{`{"type":"choose","id":"q1","decline":true}`, `{"type":"cancel"}`}},
		{"a third Ctrl-C sends nothing more", question, []string{"ctrl+c", "ctrl+c", "ctrl+c"},
			[]string{`{"type":"choose","id":"q1","decline":true}`, `{"type":"cancel"}`}},
		{"approve once", approval, []string{"y"},
			[]string{`{"type":"approve","id":"a1","scope":"once"}`}},
		{"approve for the session", approval, []string{"S"},
			[]string{`{"type":"approve","id":"a1","scope":"session"}`}},
		{"refuse with n", approval, []string{"n"},
			[]string{`{"type":"deny","id":"a1"}`}},
		{"Esc refuses", approval, []string{"esc"},
			[]string{`{"type":"deny","id":"a1"}`}},
		{"Ctrl-C refuses, then stops the turn", approval, []string{"ctrl+c", "ctrl+c"},
			[]string{`{"type":"deny","id":"a1"}`, `{"type":"cancel"}`}},
		{"a scope not offered is no key", pullAppr, []string{"s", "a", "p", "enter", "1"}, nil},
		{"the pull's only scope", pullAppr, []string{"s", "y"},
			[]string{`{"type":"approve","id":"a2","scope":"once"}`}},
		{"card: a number, then marks and Enter", card, []string{"1", "1", "3", "enter"},
			[]string{`{"type":"choose","id":"c1","answers":[{"option":1},{"options":[1,3]}]}`}},
		{"card: arrows, Space and Enter", card, []string{"down", "enter", "space", "down", "down", "space", "enter"},
			[]string{`{"type":"choose","id":"c1","answers":[{"option":2},{"options":[1,3]}]}`}},
		{"card: Space twice unmarks", card, []string{"1", "space", "space", "down", "enter"},
			[]string{`{"type":"choose","id":"c1","answers":[{"option":1},{"options":[2]}]}`}},
		{"card: something else by typing", card, []string{"2", "the smoke test", "enter"},
			[]string{`{"type":"choose","id":"c1","answers":[{"option":2},{"text":"the smoke test"}]}`}},
		{"card: something else by its row", card, []string{"1", "4", "smoke", "enter"},
			[]string{`{"type":"choose","id":"c1","answers":[{"option":1},{"text":"smoke"}]}`}},
		{"card: marks, then something else, go together", card, []string{"1", "1", "3", "4", "the smoke test", "enter"},
			[]string{`{"type":"choose","id":"c1","answers":[{"option":1},{"options":[1,3],"text":"the smoke test"}]}`}},
		{"card: marks, then something else by typing", card, []string{"1", "space", "smoke", "enter"},
			[]string{`{"type":"choose","id":"c1","answers":[{"option":1},{"options":[1],"text":"smoke"}]}`}},
		{"card: marks kept when the field is left", card, []string{"1", "3", "smoke", "esc", "up", "enter"},
			[]string{`{"type":"choose","id":"c1","answers":[{"option":1},{"options":[3]}]}`}},
		{"card: Esc leaves the field, then declines", card, []string{"1", "smoke", "esc", "esc"},
			[]string{`{"type":"choose","id":"c1","answers":[{"option":1},{"decline":true}]}`}},
		{"card: Esc declines the question shown", card, []string{"esc", "1", "enter"},
			[]string{`{"type":"choose","id":"c1","answers":[{"decline":true},{"options":[1]}]}`}},
		{"card: Ctrl-C declines what is left", card, []string{"2", "ctrl+c"},
			[]string{`{"type":"choose","id":"c1","answers":[{"option":2},{"decline":true}]}`}},
		{"card: Ctrl-C twice stops the turn", card, []string{"ctrl+c", "ctrl+c"},
			[]string{`{"type":"choose","id":"c1","answers":[{"decline":true},{"decline":true}]}`, `{"type":"cancel"}`}},
		{"secret", secretCard, []string{"ghp_s3cr3t value", "enter"},
			[]string{`{"type":"choose","id":"c2","answers":[{"text":"ghp_s3cr3t value"}]}`}},
		{"secret declined", secretCard, []string{"ghp_", "esc"},
			[]string{`{"type":"choose","id":"c2","answers":[{"decline":true}]}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t).wire(hello, turn1, askCall, tt.choice).wait()
			h.keys(tt.keys...)
			if diff := cmp.Diff(tt.want, h.eng.lines); diff != "" {
				t.Errorf("lines to wisp (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGuard: keys typed before the person could see the dialog do not
// answer it; Esc and Ctrl-C, which decline, always work.
func TestGuard(t *testing.T) {
	tests := []struct {
		choice string
		answer []string // keys that answer it once the guard has passed
	}{
		{question, []string{"1"}},
		{freeText, []string{"x", "enter"}},
		{approval, []string{"y"}},
		{card, []string{"1", "1", "enter"}},
	}
	for _, tt := range tests {
		h := newHarness(t).wire(hello, turn1, tt.choice)
		h.keys("y", "s", "1", "x", "enter", "space")
		if len(h.eng.lines) != 0 {
			t.Errorf("keys within the guard wrote %q, want nothing", h.eng.lines)
		}
		h.wait().keys(tt.answer...)
		if len(h.eng.lines) != 1 {
			t.Errorf("after the guard: lines %q, want one", h.eng.lines)
		}
	}
	h := newHarness(t).wire(hello, turn1, approval).keys("esc")
	if diff := cmp.Diff([]string{`{"type":"deny","id":"a1"}`}, h.eng.lines); diff != "" {
		t.Errorf("Esc within the guard (-want +got):\n%s", diff)
	}
}

// TestCtrlC covers Ctrl-C away from a dialog.
func TestCtrlC(t *testing.T) {
	t.Run("during a turn it stops the turn", func(t *testing.T) {
		h := newHarness(t).wire(hello, turn1, `{"type":"delta","text":"Working"}`).keys("ctrl+c")
		if diff := cmp.Diff([]string{`{"type":"cancel"}`}, h.eng.lines); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		h.wire(`{"type":"end","thread":"t-1","turn":1,"error":"the person stopped the turn","stopped":true}`)
		if s := h.screen(); !strings.Contains(s, "(turn stopped: the person stopped the turn)") {
			t.Errorf("screen does not say the turn stopped:\n%s", s)
		}
		if h.m.running {
			t.Error("running after end")
		}
	})
	t.Run("pressed twice as a turn ends, it does not leave", func(t *testing.T) {
		h := newHarness(t).wire(hello, turn1, question).wait().keys("ctrl+c")
		h.wire(end1).keys("ctrl+c")
		if h.eng.closed {
			t.Error("the second Ctrl-C left the session")
		}
	})
	t.Run("after a declined question the next turn starts afresh", func(t *testing.T) {
		h := newHarness(t).wire(hello, turn1, question).wait().keys("ctrl+c")
		h.wire(end1, `{"type":"turn","thread":"t-1","turn":2,"text":"again"}`, strings.Replace(question, `"q1"`, `"q3"`, 1)).wait()
		h.keys("ctrl+c")
		want := []string{`{"type":"choose","id":"q1","decline":true}`, `{"type":"choose","id":"q3","decline":true}`}
		if diff := cmp.Diff(want, h.eng.lines); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("at the prompt it clears the box, says how to leave, then leaves", func(t *testing.T) {
		h := newHarness(t).wire(hello).keys("draft", "ctrl+c")
		if h.eng.closed || h.m.input.value() != "" {
			t.Fatalf("first Ctrl-C: closed %v, box %q; want the box cleared", h.eng.closed, h.m.input.value())
		}
		h.keys("ctrl+c")
		if h.eng.closed || !strings.Contains(h.screen(), "press Ctrl-C again, or Ctrl-D, to leave") {
			t.Fatalf("Ctrl-C at the empty box: closed %v; want a hint:\n%s", h.eng.closed, h.screen())
		}
		h.keys("x", "backspace", "ctrl+c")
		if h.eng.closed {
			t.Fatal("Ctrl-C after other keys left at once")
		}
		h.keys("ctrl+c")
		if !h.eng.closed {
			t.Error("Ctrl-C twice at the empty box did not close wisp's input")
		}
		if len(h.eng.lines) != 0 {
			t.Errorf("lines %q, want none", h.eng.lines)
		}
	})
}

func TestMessages(t *testing.T) {
	h := newHarness(t).wire(hello).keys("Replace the config", "enter")
	want := []string{`{"type":"message","text":"Replace the config"}`}
	if diff := cmp.Diff(want, h.eng.lines); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	if v := h.m.input.value(); v != "" {
		t.Errorf("box after sending = %q, want empty", v)
	}
	// While a turn runs a message is kept, not sent.
	h.wire(turn1).keys("more", "enter")
	if len(h.eng.lines) != 1 || h.m.input.value() != "more" {
		t.Errorf("during a turn: lines %q, box %q; want nothing sent and the box kept", h.eng.lines, h.m.input.value())
	}
	h.wire(end1).keys("enter")
	if got := h.eng.lines[len(h.eng.lines)-1]; got != `{"type":"message","text":"more"}` {
		t.Errorf("after the turn: last line %s", got)
	}
	// JSON is JSON, not HTML: <, > and & go as they are.
	h.wire(end1).keys("a <b> & c", "enter")
	if got := h.eng.lines[len(h.eng.lines)-1]; got != `{"type":"message","text":"a <b> & c"}` {
		t.Errorf("last line %s", got)
	}
}

func TestLeave(t *testing.T) {
	h := newHarness(t).wire(hello).keys("ctrl+d")
	if !h.eng.closed {
		t.Fatal("Ctrl-D did not close wisp's input")
	}
	if h.cmd == nil {
		t.Fatal("leaving set no timer")
	}
	if s := h.screen(); !strings.Contains(s, "leaving") {
		t.Errorf("screen does not say it is leaving:\n%s", s)
	}
	h.wire(`{"type":"bye"}`).send(endedMsg{})
	if h.cmd == nil {
		t.Fatal("no quit after wisp ended")
	}
	if _, ok := h.cmd().(tea.QuitMsg); !ok {
		t.Error("the command after wisp ended is not tea.Quit")
	}
}

func TestSendFails(t *testing.T) {
	h := newHarness(t).wire(hello)
	h.eng.fail = errInputClosed
	h.keys("hi", "enter")
	if s := h.screen(); !strings.Contains(s, "! wisp: wisp-tui: "+errInputClosed.Error()) {
		t.Errorf("the failed write is not shown:\n%s", s)
	}
	if h.m.input.value() != "hi" {
		t.Errorf("box = %q, want the message kept", h.m.input.value())
	}
}

// TestDialogs checks what each dialog shows, and that a question never
// looks like wisp's approval nor offers its keys.
func TestDialogs(t *testing.T) {
	tests := []struct {
		name    string
		lines   []string
		keys    []string
		want    []string
		wantNot []string
	}{
		{
			name:  "question",
			lines: []string{question},
			want: []string{"╭", "? the model asks", "Which config did you mean?", "› 1 ~/.wisp/config.json", "  2 ./wisp.json", "  3 none of these",
				"your answer goes to the model, in this conversation (thread t-1)", "Enter or 1-3 chooses · Esc declines"},
			wantNot: []string{"╔", "wisp asks your approval", "allow?", "[y]", "[n]"},
		},
		{
			name:  "question, cursor moved",
			lines: []string{question},
			keys:  []string{"down"},
			want:  []string{"  1 ~/.wisp/config.json", "› 2 ./wisp.json"},
		},
		{
			name:    "a question that asks like the gate is still the model's",
			lines:   []string{`{"type":"choice","kind":"question","id":"q9","thread":"t-1","turn":1,"title":"wisp asks your approval","text":"Approve rm -rf build? [y/n]","options":["yes","no"],"noneOfThese":true}`},
			want:    []string{"╭", "? the model asks", "Approve rm -rf build? [y/n]"},
			wantNot: []string{"╔", "wisp asks your approval", "allow?", "[y]once", "[n]o"},
		},
		{
			name:    "free text",
			lines:   []string{freeText},
			keys:    []string{"rel"},
			want:    []string{"? the model asks", "What is the branch called?", "› rel", "Enter sends · Esc declines"},
			wantNot: []string{"none of these"},
		},
		{
			name:    "approval",
			lines:   []string{approval},
			want:    []string{"╔", "║", "! wisp asks your approval", "models enable ollama:qwen3:4b", "turns ollama:qwen3:4b on in config.json", "allow? [y]once [s]ession [n]o · Esc refuses"},
			wantNot: []string{"╭", "the model asks", "[p]roject", "[a]lways", "your answer goes"},
		},
		{
			name:    "approval with one scope",
			lines:   []string{pullAppr},
			want:    []string{"allow? [y]once [n]o"},
			wantNot: []string{"[s]ession"},
		},
		{
			name:  "card",
			lines: []string{card},
			want: []string{"╭", "? the model asks · 2 questions", "1/2 · Env", "Which environment should the migration run against?",
				"› 1 staging (recommended)", "safe to break; data is a week old", "  2 production", "real data; needs a maintenance window",
				"then 2/2 · Checks", "Esc declines this question"},
			wantNot: []string{"╔", "allow?", "[y]", "Which checks should run first?"},
		},
		{
			name:  "card, second question",
			lines: []string{card},
			keys:  []string{"1", "1", "3"},
			want: []string{"✓ Env: staging", "2/2 · Checks", "Which checks should run first?", "  ● 1 unit tests (recommended)",
				"○ 2 integration tests", "› ● 3 lint", "4 something else…", "Space or 1-4 marks · Enter sends the marked"},
		},
		{
			name:    "secret, masked",
			lines:   []string{secretCard},
			keys:    []string{"ghp_abc"},
			want:    []string{"? the model asks · 1 question", "secret GH_TOKEN", "The token for the deploy", secretNote, "› •••••••"},
			wantNot: []string{"ghp_abc"},
		},
		{
			name:  "deadline",
			lines: []string{strings.Replace(question, `"acceptsText":false`, `"acceptsText":false,"deadline":"2026-05-01T10:05:00Z"`, 1)},
			want:  []string{"ends at "},
		},
		{
			name:  "a question from an MCP thread",
			lines: []string{strings.Replace(question, `"thread":"t-1"`, `"thread":"t-81b2c3d4"`, 1)},
			want:  []string{"your answer goes to thread t-81b2c3d4", "it is not private from that agent", "wisp://threads/t-81b2c3d4"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t).wire(hello, turn1)
			h.wire(tt.lines...).wait().keys(tt.keys...)
			s := h.screen()
			flat := unwrap(s)
			for _, w := range tt.want {
				if !strings.Contains(flat, w) && !strings.Contains(s, w) {
					t.Errorf("screen lacks %q:\n%s", w, s)
				}
			}
			for _, w := range tt.wantNot {
				if strings.Contains(s, w) {
					t.Errorf("screen has %q:\n%s", w, s)
				}
			}
		})
	}
}

// unwrap joins the screen's lines inside a box border so a wrapped
// sentence can be found whole.
func unwrap(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		l = strings.TrimPrefix(strings.TrimPrefix(l, "│"), "║")
		l = strings.TrimSuffix(strings.TrimSuffix(l, "│"), "║")
		out = append(out, l)
	}
	return strings.Join(out, "\n") + "\n" + strings.Join(strings.Fields(strings.Join(out, " ")), " ")
}

func TestPaste(t *testing.T) {
	h := newHarness(t).wire(hello, turn1, secretCard).wait()
	h.send(tea.PasteMsg{Content: "ghp_token\n"}).keys("enter")
	want := []string{`{"type":"choose","id":"c2","answers":[{"text":"ghp_token"}]}`}
	if diff := cmp.Diff(want, h.eng.lines); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	h.wire(end1).send(tea.PasteMsg{Content: "two\nlines\n"}).keys("enter")
	if got := h.eng.lines[len(h.eng.lines)-1]; got != `{"type":"message","text":"two lines"}` {
		t.Errorf("pasted message: %s", got)
	}
}

// Control characters pasted into a field (an Esc, an arrow key's bytes)
// are never sent as an answer: the dialog stays open with a line saying
// so, and the edited answer goes.
func TestPastedControlsAreNoAnswer(t *testing.T) {
	h := newHarness(t).wire(hello, turn1, askCall, freeText).wait()
	h.send(tea.PasteMsg{Content: "main\x1b[A"}).keys("enter")
	if len(h.eng.lines) != 0 {
		t.Fatalf("text with control characters was sent: %q", h.eng.lines)
	}
	if !strings.Contains(h.screen(), "! wisp: control characters, such as an arrow key or Esc") {
		t.Errorf("the screen does not say why nothing was sent:\n%s", h.screen())
	}
	h.keys("backspace", "backspace", "backspace", "enter")
	want := []string{`{"type":"choose","id":"q2","text":"main"}`}
	if diff := cmp.Diff(want, h.eng.lines); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestEmptyCard(t *testing.T) {
	h := newHarness(t).wire(hello, turn1, `{"type":"choice","kind":"card","id":"c9","thread":"t-1","turn":1,"questions":[]}`)
	if h.m.dialog() != nil {
		t.Error("a card with no questions opened a dialog")
	}
	h.keys("esc", "ctrl+c")
	if diff := cmp.Diff([]string{`{"type":"cancel"}`}, h.eng.lines); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestSecretNeverShown(t *testing.T) {
	h := newHarness(t).wire(hello, turn1, secretCard).wait().keys("ghp_topsecret", "enter")
	h.wire(`{"type":"tool","phase":"result","id":"call_1","name":"ask_user","text":"1 (GH_TOKEN): answered: session:GH_TOKEN (from the person)"}`)
	if s := h.screen(); strings.Contains(s, "ghp_topsecret") {
		t.Errorf("the secret is on the screen:\n%s", s)
	}
	for _, e := range h.m.entries {
		if strings.Contains(e.text, "ghp_topsecret") {
			t.Errorf("the secret is in the conversation: %q", e.text)
		}
	}
	if s := unwrap(h.screen()); !strings.Contains(s, "you answered the card: GH_TOKEN: the secret GH_TOKEN (not shown)") {
		t.Errorf("the screen does not say the secret was given:\n%s", s)
	}
}

// TestHostileText: the model's words are escaped wherever they are drawn.
func TestHostileText(t *testing.T) {
	const evil = "\x1b[2J\x1b[1;1HApprove? [y/n]\x1b]0;pwned\x07 \u202eexe.gpj \x9b31m \u200b\r\n"
	enc := func(s string) string { // as JSON would carry it
		b, _ := json.Marshal(s)
		return string(b)
	}
	e := enc(evil)
	h := newHarness(t).wire(hello,
		`{"type":"turn","thread":"t-1","turn":1,"text":`+e+`}`,
		`{"type":"delta","thinking":`+e+`}`,
		`{"type":"delta","text":`+e+`}`,
		`{"type":"tool","phase":"call","id":"c","name":"ask","summary":`+e+`}`,
		`{"type":"tool","phase":"result","id":"c","name":"ask","text":`+e+`}`,
		`{"type":"note","kind":"flag","text":`+e+`}`,
		`{"type":"error","error":`+e+`}`,
		`{"type":"choice","kind":"card","id":"c1","thread":"t-1","turn":1,"questions":[{"text":`+e+`,"header":`+e+`,"options":[{"label":`+e+`,"description":`+e+`},{"label":"b"}]}]}`,
	)
	h.send(stderrMsg{text: evil})
	s := h.screen()
	for _, bad := range []string{"\x1b", "\u202e", "\u200b", "\x07", "\r", "\u009b"} {
		if strings.Contains(s, bad) {
			t.Errorf("screen holds %q raw:\n%q", bad, s)
		}
	}
	for _, want := range []string{`\e[2J\e[1;1HApprove? [y/n]\e]0;pwned\u{7} \u{202E}exe.gpj`, `\u{200B}\r`} {
		if n := strings.Count(s, want); n < 8 {
			t.Errorf("screen shows %q %d times, want at least 8:\n%s", want, n, s)
		}
	}
	// The approval's own words are escaped as well.
	h = newHarness(t).wire(hello, turn1, `{"type":"choice","kind":"approval","id":"a","thread":"t-1","command":`+e+`,"text":`+e+`,"scopes":["once"]}`)
	if s := h.screen(); strings.ContainsAny(s, "\x1b\u202e\u200b\x07\r") {
		t.Errorf("approval screen holds raw controls:\n%q", s)
	}
	// And with colours on, every escape sequence on the screen is a style
	// of wisp-tui's own.
	h = newHarness(t)
	h.m.st = newStyles(false)
	h.wire(hello, `{"type":"delta","text":`+e+`}`)
	if bad := foreignEscapes(h.screen()); len(bad) > 0 {
		t.Errorf("screen holds escape sequences that are not styles: %q", bad)
	}
}

// foreignEscapes returns the escape sequences in s that are not SGR
// styles.
func foreignEscapes(s string) []string {
	var bad []string
	for i := strings.IndexByte(s, 0x1b); i >= 0; i = strings.IndexByte(s, 0x1b) {
		s = s[i:]
		j := 2
		for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ';' || s[j] == ':') {
			j++
		}
		if len(s) < 2 || s[1] != '[' || j >= len(s) || s[j] != 'm' {
			bad = append(bad, s[:min(len(s), 8)])
			j = 1
		}
		s = s[j:]
	}
	return bad
}

func TestConversation(t *testing.T) {
	h := newHarness(t).wire(hello, turn1, askCall, question).wait().keys("2")
	h.wire(`{"type":"settled","id":"q1","outcome":"chose"}`,
		`{"type":"tool","phase":"result","id":"call_1","name":"ask","text":"chose: ./wisp.json"}`,
		`{"type":"delta","thinking":"They chose the local one."}`,
		`{"type":"delta","text":"I will replace "}`,
		`{"type":"delta","text":"the config you chose."}`,
		`{"type":"end","thread":"t-1","turn":1,"reply":"I will replace the config you chose.","flags":["the reply says the person chose something"]}`)
	want := strings.Join([]string{
		"› Replace the config with the new defaults.",
		"⚙ ask Which config did you mean?",
		"  you chose: ./wisp.json",
		"↳ chose: ./wisp.json",
		"(thinking) They chose the local one.",
		"I will replace the config you chose.",
		"! wisp: the reply says the person chose something",
	}, "\n")
	if got := h.m.conversation(); got != want {
		t.Errorf("conversation:\n%s\nwant:\n%s", got, want)
	}
	if !strings.Contains(h.screen(), "wisp-tui · script:ask.jsonl · tools: ask") {
		t.Errorf("status line lacks the model and tools:\n%s", h.screen())
	}
	// A flag that came as a note is not shown again from the end line.
	h = newHarness(t).wire(hello, turn1,
		`{"type":"delta","text":"You chose."}`,
		`{"type":"note","kind":"flag","thread":"t-1","text":"the reply says the person chose something (\"you chose\")"}`,
		`{"type":"end","thread":"t-1","turn":1,"reply":"You chose.","flags":["the reply says the person chose something"]}`)
	if got, want := strings.Count(h.m.conversation(), "the reply says"), 1; got != want {
		t.Errorf("the flag is shown %d times, want %d:\n%s", got, want, h.m.conversation())
	}
	// A reply that did not stream is shown once, at the end.
	h = newHarness(t).wire(hello, turn1, end1)
	if got := h.m.conversation(); !strings.HasSuffix(got, "\nDone.") {
		t.Errorf("conversation = %q, want the reply at the end", got)
	}
}

// A command's output shows as it comes, each line escaped after "│", and
// its result then shows only its first line; an approval of a command
// shows the sandbox it names.
func TestCommandOutput(t *testing.T) {
	h := newHarness(t).wire(hello, turn1,
		`{"type":"tool","phase":"call","id":"call_1","name":"run_command","summary":"go test ./..."}`,
		`{"type":"choice","kind":"approval","id":"a1","thread":"t-1","turn":1,"title":"wisp asks your approval","command":"run_command go test ./...","text":"runs in the workspace\nsandbox: workspace-write (writes only in the workspace and a private temp folder; network off)","scopes":["once","session","project","always"]}`).wait()
	if d := h.screen(); !strings.Contains(d, "sandbox: workspace-write") || !strings.Contains(d, "run_command go test ./...") {
		t.Errorf("the approval does not show the command and its sandbox:\n%s", d)
	}
	h.keys("y")
	h.wire(`{"type":"settled","id":"a1","outcome":"approved"}`,
		`{"type":"tool","phase":"output","id":"call_1","name":"run_command","stream":"stdout","text":"ok  pkg\u001b[2J\nFAIL other\n"}`,
		`{"type":"tool","phase":"result","id":"call_1","name":"run_command","text":"exit status 1 after 2s\nstdout:\nok  pkg\nFAIL other\nstderr: (none)"}`,
		`{"type":"tool","phase":"call","id":"call_2","name":"run_command","summary":"true"}`,
		`{"type":"tool","phase":"result","id":"call_2","name":"run_command","text":"exit status 0 after 1ms\nstdout: (none)"}`,
		end1)
	got := h.m.conversation()
	for _, want := range []string{
		"⚙ run_command go test ./...",
		"  │ ok  pkg\\e[2J\n  │ FAIL other\n↳ exit status 1 after 2s\n⚙ run_command true",
		"↳ exit status 0 after 1ms\n  stdout: (none)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("conversation lacks %q:\n%s", want, got)
		}
	}
}

func TestSettledElsewhere(t *testing.T) {
	h := newHarness(t).wire(hello, turn1, question, `{"type":"settled","id":"q1","outcome":"timed-out"}`)
	if h.m.dialog() != nil {
		t.Fatal("the dialog is still open")
	}
	if s := h.screen(); !strings.Contains(s, "(the question closed: no answer in time)") {
		t.Errorf("screen:\n%s", s)
	}
	h = newHarness(t).wire(hello, turn1, question, `{"type":"settled","id":"q1","outcome":"closed"}`)
	if s := unwrap(h.screen()); !strings.Contains(s, "(the question closed: wisp's input closed, so no person can answer it)") {
		t.Errorf("screen:\n%s", s)
	}
	// A settled line for a choice the person answered here adds nothing.
	h = newHarness(t).wire(hello, turn1, question).wait().keys("1")
	n := len(h.m.entries)
	h.wire(`{"type":"settled","id":"q1","outcome":"chose"}`)
	if len(h.m.entries) != n {
		t.Errorf("settled after an answer added %v", h.m.entries[n:])
	}
}

func TestQueuedDialogs(t *testing.T) {
	h := newHarness(t).wire(hello, turn1, question, approval).wait()
	if s := h.screen(); strings.Contains(s, "wisp asks your approval") {
		t.Fatalf("two dialogs at once:\n%s", s)
	}
	h.keys("1")
	// The approval's guard starts when it is shown.
	h.keys("y")
	if len(h.eng.lines) != 1 {
		t.Fatalf("a key answered the approval as it appeared: %q", h.eng.lines)
	}
	h.wait().keys("y")
	want := []string{`{"type":"choose","id":"q1","option":1}`, `{"type":"approve","id":"a1","scope":"once"}`}
	if diff := cmp.Diff(want, h.eng.lines); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestProtocolMismatch(t *testing.T) {
	h := newHarness(t).wire(`{"type":"hello","protocol":"wisp-chat","version":2}`)
	if !h.eng.closed || h.cmd == nil {
		t.Error("wisp-tui did not leave a wisp of another protocol version, with a timer")
	}
	if s := unwrap(h.screen()); !strings.Contains(s, "wisp-tui speaks wisp-chat version 1, and this wisp speaks wisp-chat version 2") {
		t.Errorf("screen:\n%s", s)
	}
}

func TestUnknownLines(t *testing.T) {
	h := newHarness(t).wire(hello)
	h.send(unknownChoiceMsg{id: "p1", kind: "poll"}, badLineMsg{text: "garbage", err: errInputClosed})
	s := unwrap(h.screen())
	for _, w := range []string{"a choice of a kind it does not know (poll) was declined", "skipped a line from wisp that is not a protocol line"} {
		if !strings.Contains(s, w) {
			t.Errorf("screen lacks %q:\n%s", w, s)
		}
	}
	if diff := cmp.Diff([]string{`{"type":"choose","id":"p1","decline":true}`}, h.eng.lines); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestScroll(t *testing.T) {
	h := newHarness(t).wire(hello)
	for range 100 {
		h.wire(`{"type":"note","kind":"flag","text":"line"}`)
	}
	h.wire(`{"type":"note","kind":"flag","text":"the last"}`)
	if !strings.Contains(h.screen(), "the last") {
		t.Fatal("the end of the conversation is not in view")
	}
	h.keys("pgup")
	h.wire(`{"type":"note","kind":"flag","text":"newer"}`)
	if strings.Contains(h.screen(), "newer") {
		t.Error("a new line scrolled the view back down after PgUp")
	}
}

func TestParseArgs(t *testing.T) {
	tests := []struct {
		args     []string
		wantWisp string
		want     []string
		err      string
	}{
		{nil, "", []string{"chat", "--json"}, ""},
		{[]string{"--model", "script:a.jsonl", "--tool", "ask", "--tool=ask_user", "--wisp", "/bin/w"}, "/bin/w",
			[]string{"chat", "--json", "--model", "script:a.jsonl", "--tool", "ask", "--tool", "ask_user"}, ""},
		{[]string{"--model=m", "--yes", "--thread", "t-1"}, "", []string{"chat", "--json", "--model", "m", "--yes", "--thread", "t-1"}, ""},
		{[]string{"--", "--wisp", "x"}, "", []string{"chat", "--json", "--wisp", "x"}, ""},
		{[]string{"--model"}, "", nil, "--model needs a value"},
		{[]string{"--wisp="}, "", nil, "--wisp needs the path"},
		{[]string{"-h"}, "", nil, "help"},
	}
	for _, tt := range tests {
		inv, err := parseArgs(tt.args)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("parseArgs(%q) error = %v, want %q", tt.args, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseArgs(%q): %v", tt.args, err)
			continue
		}
		if inv.wisp != tt.wantWisp || !cmp.Equal(inv.args, tt.want) {
			t.Errorf("parseArgs(%q) = %q %q, want %q %q", tt.args, inv.wisp, inv.args, tt.wantWisp, tt.want)
		}
	}
}

// TestSecretSettledWhileTyping: when wisp settles a secret question while
// the person types its value, the keys that follow (the rest of the
// secret) are dropped, not typed into the message box, up to and with the
// Enter or Esc that ends them; nothing of it is sent or shown.
func TestSecretSettledWhileTyping(t *testing.T) {
	for _, ender := range []string{"enter", "esc"} {
		t.Run(ender, func(t *testing.T) {
			h := newHarness(t).wire(hello, turn1, secretCard).wait().keys("ghp_first")
			h.wire(`{"type":"settled","id":"c2","outcome":"timed-out"}`, end1)
			h.keys("half_of_the_secret")
			h.send(tea.PasteMsg{Content: "pasted_rest"})
			s := unwrap(h.screen())
			for _, leak := range []string{"ghp_first", "half_of_the_secret", "pasted_rest"} {
				if strings.Contains(s, leak) {
					t.Errorf("the screen shows %q:\n%s", leak, s)
				}
			}
			for _, want := range []string{"(the question closed: no answer in time)", dropNote,
				"the secret question closed: typing is dropped until Enter or Esc"} {
				if !strings.Contains(s, want) {
					t.Errorf("the screen does not say %q:\n%s", want, s)
				}
			}
			if v := h.m.input.value(); v != "" {
				t.Errorf("the message box holds %q", v)
			}
			h.keys(ender)
			if len(h.eng.lines) != 0 {
				t.Errorf("the %s that ends the secret sent %q", ender, h.eng.lines)
			}
			// Then the box works again.
			h.keys("hello", "enter")
			if diff := cmp.Diff([]string{`{"type":"message","text":"hello"}`}, h.eng.lines); diff != "" {
				t.Errorf("lines to wisp (-want +got):\n%s", diff)
			}
			if s := unwrap(h.screen()); strings.Contains(s, "typing is dropped") {
				t.Errorf("the status line still says keys are dropped:\n%s", s)
			}
		})
	}
	// A secret question settled before anything was typed drops nothing.
	h := newHarness(t).wire(hello, turn1, secretCard, `{"type":"settled","id":"c2","outcome":"timed-out"}`, end1).keys("hi", "enter")
	if diff := cmp.Diff([]string{`{"type":"message","text":"hi"}`}, h.eng.lines); diff != "" {
		t.Errorf("lines to wisp (-want +got):\n%s", diff)
	}
}

// TestParkedQuestions: /questions lists, answers and declines the
// questions wisp mcp parked, as a plain chat's /questions does; a parked
// question comes as a picker that says where the answer goes, who can
// read it, and that declining is final; a wisp that does not take
// questions lines is not sent one.
func TestParkedQuestions(t *testing.T) {
	helloQ := strings.Replace(hello, `"cancel"]`, `"cancel","questions"]`, 1)
	waiting := `{"type":"note","kind":"question","thread":"t-mcp","id":"a1b2c3d4","text":"a question waits for you (a1b2c3d4): \"Which config did you mean?\"; answer it with wisp questions answer a1b2c3d4"}`
	parked := `{"type":"choice","kind":"question","id":"a1b2c3d4","thread":"t-mcp","turn":3,"title":"the model asks","text":"Which config did you mean?","options":["~/.wisp/config.json","./wisp.json"],"noneOfThese":true,"acceptsText":false,"parked":true}`

	h := newHarness(t).wire(helloQ, waiting)
	if s := h.screen(); !strings.Contains(s, "a question waits for you (a1b2c3d4)") || !strings.Contains(s, "/questions answer ID answers a waiting question here") {
		t.Errorf("the screen does not tell of the waiting question and /questions:\n%s", s)
	}
	h.keys("/questions", "enter", "/questions answer a1b2c3d4", "enter")
	h.wire(parked).wait()
	s := strings.Join(strings.Fields(h.screen()), " ")
	for _, want := range []string{"the model asks", "Which config did you mean?", "a question wisp mcp parked: your answer goes to thread t-mcp",
		"declining it is final there", "wisp://threads/t-mcp"} {
		if !strings.Contains(s, want) {
			t.Errorf("the parked question's dialog lacks %q:\n%s", want, s)
		}
	}
	h.keys("2")
	h.wire(`{"type":"settled","id":"a1b2c3d4","outcome":"chose"}`,
		`{"type":"note","kind":"question","thread":"t-mcp","id":"a1b2c3d4","text":"question a1b2c3d4: you chose ./wisp.json; the thread that asked gets it"}`)
	h.keys("/questions decline b2c3d4e5", "enter", "/questions list", "enter")
	want := []string{
		`{"type":"questions","action":"list"}`,
		`{"type":"questions","action":"answer","id":"a1b2c3d4"}`,
		`{"type":"choose","id":"a1b2c3d4","option":2}`,
		`{"type":"questions","action":"decline","id":"b2c3d4e5"}`,
		`{"type":"questions","action":"list"}`,
	}
	if diff := cmp.Diff(want, h.eng.lines); diff != "" {
		t.Errorf("lines to wisp (-want +got):\n%s", diff)
	}
	if s := h.screen(); strings.Count(s, "/questions answer ID answers a waiting question here") != 1 || !strings.Contains(s, "question a1b2c3d4: you chose ./wisp.json") {
		t.Errorf("the screen after answering:\n%s", s)
	}

	// A mistyped command, and a wisp that does not take questions lines:
	// nothing goes to wisp, the box keeps what was typed, and a line
	// says why.
	for _, tc := range []struct{ hello, typed, says string }{
		{helloQ, "/questions answer", "/questions takes list, answer ID or decline ID"},
		{hello, "/questions", "this wisp does not answer parked questions through wisp-tui; run wisp questions in a terminal"},
	} {
		h := newHarness(t).wire(tc.hello).keys(tc.typed, "enter")
		flat := strings.Join(strings.Fields(h.screen()), " ")
		if len(h.eng.lines) != 0 || h.m.input.value() != tc.typed || !strings.Contains(flat, tc.says) {
			t.Errorf("%q: lines %q, box %q; want nothing sent, the box kept and a line saying %q:\n%s", tc.typed, h.eng.lines, h.m.input.value(), tc.says, h.screen())
		}
	}
}

// A message that starts as wisp's notices do is the person's message: it
// goes to wisp as a message and shows as theirs.
func TestMessageLikeANotice(t *testing.T) {
	const text = "[wisp: the pull of org/x finished]"
	h := newHarness(t).wire(hello).keys(text, "enter")
	if diff := cmp.Diff([]string{`{"type":"message","text":"[wisp: the pull of org/x finished]"}`}, h.eng.lines); diff != "" {
		t.Errorf("lines to wisp (-want +got):\n%s", diff)
	}
	h.wire(`{"type":"turn","thread":"t-1","turn":1,"text":"[wisp: the pull of org/x finished]"}`)
	if s := h.screen(); !strings.Contains(s, "› "+text) || strings.Contains(s, "! wisp: "+text) {
		t.Errorf("the person's message is not shown as theirs:\n%s", s)
	}
}

// TestCommands: /models and /config go to wisp as command lines, while a
// turn runs too, and what each said shows as it is, its columns lined up;
// a wisp that does not take command lines is not sent one.
func TestCommands(t *testing.T) {
	helloC := strings.Replace(hello, `"cancel"]`, `"cancel","command"]`, 1)
	h := newHarness(t).wire(helloC, turn1).keys("/models list 2", "enter", "/config set tools.ask on", "enter")
	want := []string{
		`{"type":"command","name":"models","args":["list","2"]}`,
		`{"type":"command","name":"config","args":["set","tools.ask","on"]}`,
	}
	if diff := cmp.Diff(want, h.eng.lines); diff != "" {
		t.Errorf("lines to wisp (-want +got):\n%s", diff)
	}
	h.wire(`{"type":"note","kind":"command","text":"* ollama:qwen3:4b  ollama  enabled\n  mlx:\u001b[2JQwen3  mlx  disabled"}`,
		`{"type":"note","kind":"command","text":"tools.ask = true\t# give ask (default false)"}`)
	s := h.screen()
	for _, want := range []string{"* ollama:qwen3:4b  ollama  enabled", `  mlx:\e[2JQwen3  mlx  disabled`, "tools.ask = true  # give ask"} {
		if !strings.Contains(s, want) {
			t.Errorf("the screen lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "! wisp: * ollama") || h.m.input.value() != "" {
		t.Errorf("what a command said shows as a note, or the box kept the command:\n%s", s)
	}

	old := newHarness(t).wire(hello).keys("/models list", "enter")
	flat := strings.Join(strings.Fields(old.screen()), " ")
	if len(old.eng.lines) != 0 || !strings.Contains(flat, "this wisp does not run /models through wisp-tui; run wisp models in a terminal") {
		t.Errorf("a wisp without command lines: lines %q:\n%s", old.eng.lines, old.screen())
	}
}

// editDiff is the approval of an edit, with the diff of the change: a
// file name, a tab and an escape sequence from the model among its lines.
func editDiff(diff string) string {
	b, _ := json.Marshal(diff)
	return `{"type":"choice","kind":"approval","id":"a3","thread":"t-1","turn":1,"title":"wisp asks your approval",` +
		`"command":"edit_file replace notes.txt","text":"changes notes.txt in the workspace","diff":` + string(b) + `,"scopes":["once","session"]}`
}

// An approval of an edit shows its diff in the dialog, escaped like the
// rest of the request, its tabs as blanks.
func TestApprovalDiff(t *testing.T) {
	diff := "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,2 +1,2 @@\n keep\n-old\tline\n+new \x1b[2J\u202e line\r\n"
	h := newHarness(t).wire(hello, turn1, editDiff(diff))
	s := h.screen()
	for _, want := range []string{"! wisp asks your approval", "edit_file replace notes.txt", "--- a/notes.txt", "+++ b/notes.txt",
		"@@ -1,2 +1,2 @@", "   keep", "-old    line", `+new \e[2J\u{202E} line`, "allow? [y]once [s]ession [n]o"} {
		if !strings.Contains(s, want) {
			t.Errorf("the approval lacks %q:\n%s", want, s)
		}
	}
	if strings.ContainsAny(s, "\x1b\u202e\r\t") {
		t.Errorf("the approval holds raw controls:\n%q", s)
	}
	if strings.Contains(s, "↑ ↓ scroll") {
		t.Errorf("a diff that fits says it scrolls:\n%s", s)
	}
	// Its keys answer as ever, once the guard is past.
	h.wait().keys("y")
	if diff := cmp.Diff([]string{`{"type":"approve","id":"a3","scope":"once"}`}, h.eng.lines); diff != "" {
		t.Errorf("sent (-want +got):\n%s", diff)
	}
}

// A diff taller than the screen is cut to it, says which rows show, and
// scrolls with ↑ and ↓ within its bounds; the rest of the dialog, the
// message box and the status line stay on the screen.
func TestApprovalDiffScrolls(t *testing.T) {
	var b strings.Builder
	b.WriteString("--- a/notes.txt\n+++ b/notes.txt\n@@ -1,60 +1,60 @@\n")
	for i := range 60 {
		fmt.Fprintf(&b, "-line %d\n+line %d changed\n", i+1, i+1)
	}
	h := newHarness(t).wire(hello, turn1, editDiff(b.String())).wait()
	rows := func() string {
		t.Helper()
		s := h.screen()
		if n := lipgloss.Height(s); n > 30 {
			t.Fatalf("the screen draws %d rows, more than its 30:\n%s", n, s)
		}
		for _, want := range []string{"! wisp asks your approval", "allow? [y]once [s]ession [n]o", "the dialog above waits for you"} {
			if !strings.Contains(s, want) {
				t.Fatalf("the screen lacks %q:\n%s", want, s)
			}
		}
		m := regexp.MustCompile(`\(the diff, rows (\d+-\d+) of 123: ↑ ↓ scroll it\)`).FindStringSubmatch(s)
		if m == nil {
			t.Fatalf("the screen has no note of the rows shown:\n%s", s)
		}
		return m[1]
	}
	first := rows()
	if !strings.HasPrefix(first, "1-") || !strings.Contains(h.screen(), "--- a/notes.txt") || strings.Contains(h.screen(), "line 60 changed") {
		t.Fatalf("at first the diff shows rows %s:\n%s", first, h.screen())
	}
	h.keys("down", "down", "down")
	if got := rows(); !strings.HasPrefix(got, "4-") || strings.Contains(h.screen(), "--- a/notes.txt") {
		t.Errorf("after ↓ three times the diff shows rows %s:\n%s", got, h.screen())
	}
	for range 200 {
		h.keys("down")
	}
	if got := rows(); !strings.HasSuffix(got, "-123") || !strings.Contains(h.screen(), "+line 60 changed") {
		t.Errorf("at the end the diff shows rows %s:\n%s", got, h.screen())
	}
	h.keys("up")
	if got := rows(); strings.HasSuffix(got, "-123") {
		t.Errorf("↑ from the end still shows rows %s", got)
	}
	for range 200 {
		h.keys("up")
	}
	if got := rows(); got != first {
		t.Errorf("back at the top the diff shows rows %s, want %s", got, first)
	}
	if len(h.eng.lines) != 0 {
		t.Errorf("scrolling sent %q", h.eng.lines)
	}
}

// With colours on, removed lines are red and added ones green, and every
// escape sequence on the screen is a style of wisp-tui's own; without
// them (plain, or NO_COLOR), the diff has no colour.
func TestApprovalDiffColours(t *testing.T) {
	diff := "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old \x1b[31m\n+new \x1b]0;pwned\x07\n"
	h := newHarness(t)
	h.m.st = newStyles(false)
	h.wire(hello, turn1, editDiff(diff))
	s := h.screen()
	if bad := foreignEscapes(s); len(bad) > 0 {
		t.Errorf("screen holds escape sequences that are not styles: %q", bad)
	}
	for _, tc := range []struct{ text, sgr string }{{`-old \e[31m`, "31"}, {`+new \e]0;pwned\u{7}`, "32"}} {
		i := strings.Index(s, tc.text)
		if i < 0 {
			t.Fatalf("the screen lacks %q:\n%q", tc.text, s)
		}
		start := strings.LastIndex(s[:i], "\n") + 1
		styled := slices.ContainsFunc(sgr.FindAllStringSubmatch(s[start:i], -1), func(m []string) bool {
			return slices.Contains(strings.Split(m[1], ";"), tc.sgr)
		})
		if !styled {
			t.Errorf("the row of %q is not drawn in colour %s: %q", tc.text, tc.sgr, s[start:i])
		}
	}
	plain := newHarness(t).wire(hello, turn1, editDiff(diff)).screen()
	if coloured(plain) {
		t.Errorf("a plain screen has colour:\n%q", plain)
	}
}
