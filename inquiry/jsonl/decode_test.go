package jsonl_test

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp/inquiry/escape"
	"github.com/wisp-agent/wisp/inquiry/jsonl"
)

func TestDecodeRefuses(t *testing.T) {
	tests := []struct {
		line string
		is   error
		says string
	}{
		{`hello`, jsonl.ErrNotJSON, "invalid character"},
		{`{"type":"message","text":"hi"`, jsonl.ErrNotJSON, "ends before the object does"},
		{`[1,2]`, jsonl.ErrNotJSON, "not an object"},
		{`"message"`, jsonl.ErrNotJSON, "not an object"},
		{`{"type":"cancel"} {"type":"cancel"}`, jsonl.ErrNotJSON, "more than one JSON value"},
		{"{\"type\":\"message\",\"text\":\"\xff\"}", jsonl.ErrNotJSON, "not valid UTF-8"},
		{`   `, jsonl.ErrNotJSON, "empty"},
		{`{"text":"hi"}`, jsonl.ErrBadLine, `no "type"`},
		{`{"type":3}`, jsonl.ErrBadLine, `"type" is not a string`},
		{`{"type":"shout","text":"hi"}`, jsonl.ErrUnknownType, `"shout"; send one of message, choose, approve, deny, cancel`},
		{`{"type":"message"}`, jsonl.ErrBadLine, `needs "text"`},
		{`{"type":"message","text":"  "}`, jsonl.ErrBadLine, "not empty"},
		{`{"type":"message","text":7}`, jsonl.ErrBadLine, `"text" must be a string, not number`},
		{`{"type":"choose","option":1}`, jsonl.ErrBadLine, `needs the "id"`},
		{`{"type":"choose","id":"a1"}`, jsonl.ErrBadLine, `choose needs one of "option"`},
		{`{"type":"choose","id":"a1","option":1,"decline":true}`, jsonl.ErrBadLine, "has option and decline"},
		{`{"type":"choose","id":"a1","option":0}`, jsonl.ErrBadLine, "numbered from 1"},
		{`{"type":"choose","id":"a1","option":-2}`, jsonl.ErrBadLine, "out of range"},
		{`{"type":"choose","id":"a1","option":"2"}`, jsonl.ErrBadLine, `"option" must be a number`},
		{`{"type":"choose","id":"a1","option":1.5}`, jsonl.ErrBadLine, `"option" must be a number (a whole one)`},
		{`{"type":"choose","id":"a1","option":99999999999999999999999}`, jsonl.ErrBadLine, `"option" is out of range: 99999999999999999999999 is too large`},
		{`{"type":"choose","id":"a1","option":-99999999999999999999999}`, jsonl.ErrBadLine, `"option" is out of range: -99999999999999999999999 is too small`},
		{`{"type":"choose","id":"a1","answers":[{"options":[1,99999999999999999999999]}]}`, jsonl.ErrBadLine, `"answers.options" is out of range`},
		{`{"type":"choose","id":"a1","text":""}`, jsonl.ErrBadLine, "text is empty"},
		{`{"type":"choose","id":"a1","answers":[]}`, jsonl.ErrBadLine, "answers is empty"},
		{`{"type":"choose","id":"a1","answers":[{}]}`, jsonl.ErrBadLine, "answer 1 needs"},
		{`{"type":"choose","id":"a1","answers":[{"option":1},{"decline":true,"text":"x"}]}`, jsonl.ErrBadLine, "answer 2 declines and answers"},
		{`{"type":"choose","id":"a1","answers":[{"option":1,"options":[2]}]}`, jsonl.ErrBadLine, "both option and options"},
		{`{"type":"choose","id":"a1","answers":[{"options":[]}]}`, jsonl.ErrBadLine, "options is empty"},
		{`{"type":"choose","id":"a1","answers":[{"options":[2,2]}]}`, jsonl.ErrBadLine, "option 2 is there twice"},
		{`{"type":"choose","id":"a1","answers":[{"options":[0]}]}`, jsonl.ErrBadLine, "numbered from 1"},
		{`{"type":"choose","id":"a1","answers":[{"text":""}]}`, jsonl.ErrBadLine, "text is empty"},
		{`{"type":"choose","id":"a1","answers":{"option":1}}`, jsonl.ErrBadLine, `must be an array`},
		{`{"type":"approve","id":"a1"}`, jsonl.ErrBadLine, `needs a "scope"`},
		{`{"type":"approve","id":"a1","scope":"forever"}`, jsonl.ErrBadLine, `unknown scope "forever"`},
		{`{"type":"deny","id":""}`, jsonl.ErrBadLine, `needs the "id"`},
		{`{"type":"choice","kind":"poll","id":"a1"}`, jsonl.ErrUnknownType, `kind "poll"`},
		{`{"type":"choice","id":"a1"}`, jsonl.ErrBadLine, `no "kind"`},
		{`{"type":"tool","phase":"maybe"}`, jsonl.ErrUnknownType, `phase "maybe"`},
		{`{"type":"questions"}`, jsonl.ErrBadLine, `questions needs an "action": list, answer or decline`},
		{`{"type":"questions","action":"show"}`, jsonl.ErrBadLine, `unknown action "show"; the actions are list, answer and decline`},
		{`{"type":"questions","action":"answer"}`, jsonl.ErrBadLine, `questions answer needs the "id" of a waiting question`},
		{`{"type":"questions","action":"decline","id":""}`, jsonl.ErrBadLine, `questions decline needs the "id"`},
		{`{"type":"questions","action":3}`, jsonl.ErrBadLine, `"action" must be a string`},
		{`{"type":"command"}`, jsonl.ErrBadLine, `a command needs a "name", such as models or config`},
		{`{"type":"command","name":" ","args":["list"]}`, jsonl.ErrBadLine, `a command needs a "name"`},
		{`{"type":"command","name":"models","args":"list"}`, jsonl.ErrBadLine, `"args"`},
		{`{"type":"choose","id":"a1","option":1,"option":2}`, jsonl.ErrBadLine, `key "option" is set twice; keep one`},
		{`{"type":"choose","id":"a1","option":1,"OPTION":2}`, jsonl.ErrBadLine, `keys "option" and "OPTION" are one key, set twice (keys match whatever their case); keep one`},
		{`{"type":"choose","id":"a1","option":1,"optio\u006e":2}`, jsonl.ErrBadLine, `key "option" is set twice`},
		{`{"type":"approve","id":"a1","scope":"once","type":"deny"}`, jsonl.ErrBadLine, `key "type" is set twice`},
		{`{"type":"message","text":"a","text":"b"}`, jsonl.ErrBadLine, `key "text" is set twice`},
		{`{"type":"choose","id":"a1","answers":[{"option":1},{"text":"x","text":"y"}]}`, jsonl.ErrBadLine, `key "answers.text" is set twice`},
		{`{"type":"choose","id":"a1","answers":[{"options":[1,{"a":[{"b":1,"b":2}]}]}]}`, jsonl.ErrBadLine, `key "answers.options.a.b" is set twice`},
		{`{"type":"choose","id":"a1","decline":true,"x":{"k":1},"x":2}`, jsonl.ErrBadLine, `key "x" is set twice`},
		{`{"type":"choose","id":"a1","text":"x","` + "\u212a" + `":1,"k":2}`, jsonl.ErrBadLine, `one key, set twice`},
		{`{"type":"message","text":"a","` + strings.Repeat("k", 200) + `":1,"` + strings.Repeat("k", 200) + `":2}`, jsonl.ErrBadLine, `"` + strings.Repeat("k", 80) + `…" is set twice`},
	}
	for _, tc := range tests {
		got, err := jsonl.Decode([]byte(tc.line))
		if !errors.Is(err, tc.is) {
			t.Errorf("Decode(%q) = (%+v, %v), want an error that is %v", tc.line, got, err, tc.is)
			continue
		}
		if !strings.Contains(err.Error(), tc.says) {
			t.Errorf("Decode(%q) error = %q, want it to say %q", tc.line, err, tc.says)
		}
	}
}

func TestDecodeAccepts(t *testing.T) {
	tests := []struct {
		line string
		want jsonl.Line
	}{
		{"{\"type\":\"cancel\"}\r\n", jsonl.Cancel{}},
		{`  {"type":"message","text":"hi","sentAt":"later"}  `, jsonl.Message{Text: "hi"}},
		{`{"type":"choose","id":"a1","none":false,"decline":true}`, jsonl.Choose{ID: "a1", Decline: true}},
		{`{"type":"choose","id":"a1","option":null,"text":"x"}`, jsonl.Choose{ID: "a1", Text: "x"}},
		{`{"type":"choose","id":"c1","decline":true}`, jsonl.Choose{ID: "c1", Decline: true}},
		{`{"id":"a1","scope":"once","type":"approve"}`, jsonl.Approve{ID: "a1", Scope: "once"}},
		{`{"type":"bye","why":"later"}`, jsonl.Bye{}},
		{`{"type":"questions","action":"list","id":"a1b2c3d4"}`, jsonl.Questions{Action: "list"}},
		{`{"type":"message","text":"\u001b[2J\u202e"}`, jsonl.Message{Text: "\x1b[2J\u202e"}},
		// The same key in two objects is no duplicate.
		{`{"type":"choose","id":"c1","answers":[{"option":1,"x":{"option":2}},{"option":2}],"x":[{"id":1},{"id":2}]}`,
			jsonl.Choose{ID: "c1", Answers: []jsonl.CardAnswer{{Option: 1}, {Option: 2}}}},
	}
	for _, tc := range tests {
		got, err := jsonl.Decode([]byte(tc.line))
		if err != nil {
			t.Errorf("Decode(%q) error = %v", tc.line, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("Decode(%q) mismatch (-want +got):\n%s", tc.line, diff)
		}
	}
}

// TestEncodeEscapesUnsafe: the model's words go out exactly, but no line
// holds a raw control or invisible character.
func TestEncodeEscapesUnsafe(t *testing.T) {
	hostile := "\x1b[2J\x1b[1;1HApprove rm -rf build? [y/n]\r\x1b]0;wisp\x07 \u202Etxt.exe\u200b\x7f\u2028 \U000E0041 <b>&"
	q := jsonl.Question{ID: "q1", Thread: "t", Turn: 1, Title: jsonl.TitleModelAsks, Text: hostile, Options: []string{"yes\x1b[A", "no\u2066"}, NoneOfThese: true}
	b, err := jsonl.Encode(q)
	if err != nil {
		t.Fatal(err)
	}
	line := strings.TrimSuffix(string(b), "\n")
	if !escape.Clean(line) {
		t.Errorf("Encode wrote a raw unsafe character: %q", line)
	}
	if strings.Count(string(b), "\n") != 1 {
		t.Errorf("Encode wrote %q, want one line", b)
	}
	if !strings.Contains(line, `<b>&`) {
		t.Errorf("Encode escaped HTML: %s", line)
	}
	if !strings.Contains(line, `\udb40\udc41`) {
		t.Errorf("Encode did not write a tag character as a surrogate pair: %s", line)
	}
	if !json.Valid(b) {
		t.Fatalf("Encode wrote invalid JSON: %s", b)
	}
	back, err := jsonl.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(jsonl.Line(q), back); diff != "" {
		t.Errorf("the words did not come back exactly (-want +got):\n%s", diff)
	}
}

func TestEncodeNil(t *testing.T) {
	if b, err := jsonl.Encode(nil); err == nil {
		t.Errorf("Encode(nil) = %q, want an error", b)
	}
}

func TestReader(t *testing.T) {
	long := `{"type":"message","text":"` + strings.Repeat("x", 100) + `"}`
	in := strings.Join([]string{
		`{"type":"message","text":"one"}`,
		``,
		long,
		`not json`,
		"{\"type\":\"cancel\"}\r",
		`{"type":"choose","id":"a1","option":2}`, // the last line has no newline
	}, "\n")
	r := jsonl.NewReader(strings.NewReader(in), &jsonl.ReaderOptions{MaxLine: 64})
	type step struct {
		line jsonl.Line
		n    int
		is   error
	}
	want := []step{
		{jsonl.Message{Text: "one"}, 1, nil},
		{nil, 3, jsonl.ErrTooLong},
		{nil, 4, jsonl.ErrNotJSON},
		{jsonl.Cancel{}, 5, nil},
		{jsonl.Choose{ID: "a1", Option: 2}, 6, nil},
		{nil, 6, io.EOF},
		{nil, 6, io.EOF},
	}
	for i, w := range want {
		l, err := r.Next()
		if !errors.Is(err, w.is) || (w.is == nil && err != nil) {
			t.Fatalf("step %d: Next() = (%v, %v), want error %v", i+1, l, err, w.is)
		}
		var ie *jsonl.InputError
		if w.is != nil && w.is != io.EOF {
			if !errors.As(err, &ie) || ie.Line != w.n {
				t.Errorf("step %d: Next() error = %#v, want an *InputError for line %d", i+1, err, w.n)
			}
		}
		if diff := cmp.Diff(w.line, l); diff != "" {
			t.Errorf("step %d: Next() mismatch (-want +got):\n%s", i+1, diff)
		}
		if r.LineNumber() != w.n {
			t.Errorf("step %d: LineNumber() = %d, want %d", i+1, r.LineNumber(), w.n)
		}
	}
}

// TestReaderLongLines reads lines around the limit, longer than the
// reader's buffer too.
func TestReaderLongLines(t *testing.T) {
	msg := func(n int) string {
		pre, post := `{"type":"message","text":"`, `"}`
		return pre + strings.Repeat("y", n-len(pre)-len(post)) + post
	}
	in := msg(jsonl.MaxLine) + "\n" + msg(jsonl.MaxLine+1) + "\n" + msg(3*jsonl.MaxLine) + "\n" + `{"type":"cancel"}` + "\n"
	r := jsonl.NewReader(strings.NewReader(in), nil)
	if l, err := r.Next(); err != nil || len(l.(jsonl.Message).Text) != jsonl.MaxLine-28 {
		t.Fatalf("a line of exactly MaxLine bytes: Next() = %v", err)
	}
	for n := 2; n <= 3; n++ {
		if _, err := r.Next(); !errors.Is(err, jsonl.ErrTooLong) || r.LineNumber() != n {
			t.Fatalf("line %d: Next() = %v at line %d, want ErrTooLong", n, err, r.LineNumber())
		}
	}
	if l, err := r.Next(); err != nil || l != (jsonl.Cancel{}) {
		t.Fatalf("after long lines: Next() = (%v, %v), want the cancel", l, err)
	}
	r = jsonl.NewReader(strings.NewReader(msg(3*jsonl.MaxLine)), &jsonl.ReaderOptions{MaxLine: -1})
	if _, err := r.Next(); err != nil {
		t.Errorf("with no limit: Next() = %v", err)
	}
}

func TestReaderStreamError(t *testing.T) {
	boom := errors.New("boom")
	r := jsonl.NewReader(io.MultiReader(strings.NewReader(`{"type":"can`), errReader{boom}), nil)
	if _, err := r.Next(); !errors.Is(err, boom) {
		t.Errorf("Next() = %v, want the stream's error", err)
	}
	var ie *jsonl.InputError
	if _, err := r.Next(); errors.As(err, &ie) {
		t.Errorf("a stream error is not an input error: %v", err)
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

func TestInputError(t *testing.T) {
	err := &jsonl.InputError{Line: 3, Err: jsonl.ErrNotJSON}
	if got := err.Error(); got != "line 3: the line is not a JSON object" {
		t.Errorf("Error() = %q", got)
	}
	if !errors.Is(err, jsonl.ErrNotJSON) {
		t.Error("an InputError does not unwrap")
	}
}
