package main

import (
	"errors"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/wisp-agent/wisp/inquiry/jsonl"
)

// fakeEngine records the lines the model writes, exactly as they would
// reach wisp.
type fakeEngine struct {
	lines  []string
	closed bool
	fail   error // Send returns it when set
}

func (f *fakeEngine) Send(l jsonl.Line) error {
	if f.fail != nil {
		return f.fail
	}
	b, err := jsonl.Encode(l)
	if err != nil {
		return err
	}
	f.lines = append(f.lines, strings.TrimSuffix(string(b), "\n"))
	return nil
}

func (f *fakeEngine) CloseInput() error {
	if f.closed {
		return errors.New("closed twice")
	}
	f.closed = true
	return nil
}

// clock is a time the test moves.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// harness is a model on a fake engine, drawn without colours in 80x30.
type harness struct {
	t   *testing.T
	m   *model
	eng *fakeEngine
	clk *clock
	cmd tea.Cmd // the last command Update returned
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	h := &harness{t: t, eng: &fakeEngine{}, clk: &clock{time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)}}
	h.m = newModel(h.eng, modelOptions{now: h.clk.now, plain: true, width: 80, height: 30})
	return h
}

// wire feeds protocol lines, as wisp writes them, one JSON object a line.
func (h *harness) wire(lines ...string) *harness {
	h.t.Helper()
	for _, s := range lines {
		l, err := jsonl.Decode([]byte(s))
		if err != nil {
			h.t.Fatalf("jsonl.Decode(%q): %v", s, err)
		}
		h.send(lineMsg{line: l})
	}
	return h
}

func (h *harness) send(msgs ...tea.Msg) *harness {
	for _, msg := range msgs {
		_, h.cmd = h.m.Update(msg)
	}
	return h
}

// wait moves the clock past the dialog's guard.
func (h *harness) wait() *harness {
	h.clk.t = h.clk.t.Add(time.Second)
	return h
}

// keys presses keys by name ("down", "enter", "esc", "ctrl+c", "space",
// "1") or, for any other string, types its characters.
func (h *harness) keys(names ...string) *harness {
	for _, n := range names {
		for _, k := range keyMsgs(n) {
			h.send(k)
		}
	}
	return h
}

func keyMsgs(name string) []tea.KeyPressMsg {
	special := map[string]tea.KeyPressMsg{
		"enter":     {Code: tea.KeyEnter},
		"esc":       {Code: tea.KeyEscape},
		"up":        {Code: tea.KeyUp},
		"down":      {Code: tea.KeyDown},
		"tab":       {Code: tea.KeyTab},
		"backspace": {Code: tea.KeyBackspace},
		"pgup":      {Code: tea.KeyPgUp},
		"space":     {Code: tea.KeySpace, Text: " "},
		"ctrl+c":    {Code: 'c', Mod: tea.ModCtrl},
		"ctrl+d":    {Code: 'd', Mod: tea.ModCtrl},
	}
	if k, ok := special[name]; ok {
		return []tea.KeyPressMsg{k}
	}
	var out []tea.KeyPressMsg
	for _, r := range name {
		out = append(out, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	return out
}

// screen is what the model draws now.
func (h *harness) screen() string {
	return h.m.View().Content
}

// Protocol lines the tests use.
const (
	hello    = `{"type":"hello","protocol":"wisp-chat","version":1,"wisp":"dev","session":"s-1","thread":"t-1","model":"script:ask.jsonl","tools":["ask"],"accepts":["message","choose","approve","deny","cancel"],"choices":["question","card","approval"],"maxLine":65536}`
	turn1    = `{"type":"turn","thread":"t-1","turn":1,"text":"Replace the config with the new defaults."}`
	askCall  = `{"type":"tool","phase":"call","id":"call_1","name":"ask","summary":"Which config did you mean?"}`
	question = `{"type":"choice","kind":"question","id":"q1","thread":"t-1","turn":1,"title":"the model asks","text":"Which config did you mean?","options":["~/.wisp/config.json","./wisp.json"],"noneOfThese":true,"acceptsText":false}`
	freeText = `{"type":"choice","kind":"question","id":"q2","thread":"t-1","turn":1,"title":"the model asks","text":"What is the branch called?","acceptsText":true}`
	approval = `{"type":"choice","kind":"approval","id":"a1","thread":"t-1","turn":1,"title":"wisp asks your approval","command":"models enable ollama:qwen3:4b","text":"turns ollama:qwen3:4b on in config.json","scopes":["once","session"]}`
	pullAppr = `{"type":"choice","kind":"approval","id":"a2","thread":"t-1","turn":1,"title":"wisp asks your approval","command":"models pull mlx-community/Qwen3-4B-4bit","text":"downloads 2.3 GB","scopes":["once"]}`
	card     = `{"type":"choice","kind":"card","id":"c1","thread":"t-1","turn":1,"title":"the model asks","questions":[` +
		`{"text":"Which environment should the migration run against?","header":"Env","options":[{"label":"staging","description":"safe to break; data is a week old","recommended":true},{"label":"production","description":"real data; needs a maintenance window"}],"multiSelect":false,"acceptsText":false},` +
		`{"text":"Which checks should run first?","header":"Checks","options":[{"label":"unit tests","description":"fast; catch most regressions","recommended":true},{"label":"integration tests","description":"slow; need the database"},{"label":"lint"}],"multiSelect":true,"acceptsText":true}]}`
	secretCard = `{"type":"choice","kind":"card","id":"c2","thread":"t-1","turn":1,"title":"the model asks","questions":[{"text":"The token for the deploy","secret":"GH_TOKEN","acceptsText":true}]}`
	end1       = `{"type":"end","thread":"t-1","turn":1,"reply":"Done."}`
)
