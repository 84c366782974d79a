package jsonl_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/escape"
	"github.com/wisp-agent/wisp/inquiry/jsonl"
)

// FuzzDecode feeds the line decoder anything. It must not panic; a line
// it accepts must encode as one clean line that decodes to the same
// value. The seeds (every golden line, and lines the protocol refuses)
// run in go test.
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.jsonl"))
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		``, `{}`, `null`, `[]`, `"x"`, `{"type":null}`, `{"type":"choose","id":"a","option":1e400}`,
		`{"type":"choose","id":"a","answers":[null]}`, `{"type":"choose","id":"a","answers":[{"options":null}]}`,
		`{"type":"message","text":"\ud800"}`, "{\"type\":\"message\",\"text\":\"\x1b\u202e\"}",
		`{"type":"choice","kind":"card","questions":[{"options":[{}]}],"deadline":"2026-13-01T00:00:00Z"}`,
		`{"type":"end","reply":"","error":""}`, `{"type":"hello","tools":null}`, `{"type":"cancel"}{`,
		`{"type":"approve","id":"a","scope":"once","type":"deny"}`, "\xef\xbb\xbf{\"type\":\"cancel\"}",
		`{"type":"choose","id":"a","option":1,"Option":2}`, `{"type":"choose","id":"a","answers":[{"text":"x","text":"y"}]}`,
		`{"type":"choose","id":"a","answers":[{"option":1},{"option":2}],"x":{"a":[{"b":1},{"b":2}]}}`,
		`{"type":"message","text":"a","\u212a":1,"k":2}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := jsonl.Decode(b)
		if err != nil {
			if l != nil {
				t.Errorf("Decode(%q) returned %+v with its error %v", b, l, err)
			}
			return
		}
		enc, err := jsonl.Encode(l)
		if err != nil {
			t.Fatalf("Encode(Decode(%q)) error = %v", b, err)
		}
		line := strings.TrimSuffix(string(enc), "\n")
		if strings.Contains(line, "\n") || !escape.Clean(line) {
			t.Errorf("Encode(Decode(%q)) = %q, not one clean line", b, enc)
		}
		back, err := jsonl.Decode(enc)
		if err != nil {
			t.Fatalf("Decode(Encode(Decode(%q))) = %v; encoded %q", b, err, enc)
		}
		// An empty list and none are the same on the wire.
		if diff := cmp.Diff(l, back, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("the round trip of %q changed the line (-first +second):\n%s", b, diff)
		}
	})
}

// FuzzReader reads anything as a stream of lines: no panic, line numbers
// only grow, and every error but the end is an input error or a line.
func FuzzReader(f *testing.F) {
	f.Add([]byte("{\"type\":\"cancel\"}\n\nnot json\n{\"type\":\"message\",\"text\":\"hi\"}"))
	f.Add([]byte(strings.Repeat("x", 100) + "\n{\"type\":\"cancel\"}\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := jsonl.NewReader(bytes.NewReader(b), &jsonl.ReaderOptions{MaxLine: 64})
		last := 0
		for range bytes.Count(b, []byte("\n")) + 2 {
			_, err := r.Next()
			if r.LineNumber() < last {
				t.Fatalf("the line number went back from %d to %d", last, r.LineNumber())
			}
			last = r.LineNumber()
			if err != nil {
				var ie *jsonl.InputError
				if !errorsAs(err, &ie) {
					return // the end
				}
			}
		}
	})
}

func errorsAs(err error, target **jsonl.InputError) bool {
	ie, ok := err.(*jsonl.InputError)
	if ok {
		*target = ie
	}
	return ok
}

// FuzzHandle hands the face any line while a question, a card and an
// approval wait. It must not panic, and whatever it accepts must fit the
// choice it settles: an option the question offers, one answer a card
// question, a scope the approval offers.
func FuzzHandle(f *testing.F) {
	for _, s := range []string{
		`{"type":"choose","id":"q1","option":2}`, `{"type":"choose","id":"q1","none":true}`,
		`{"type":"choose","id":"c1","answers":[{"option":1},{"options":[3,1],"text":"x"},{"text":"y"}]}`,
		`{"type":"choose","id":"c1","answers":[{"option":3},{"options":[9]},{"option":1}]}`,
		`{"type":"choose","id":"c1","decline":true}`, `{"type":"approve","id":"a1","scope":"once"}`,
		`{"type":"approve","id":"a1","scope":"always"}`, `{"type":"deny","id":"q1"}`, `{"type":"cancel"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := jsonl.Decode(b)
		if err != nil {
			return
		}
		shown := make(chan struct{}, 3)
		face := jsonl.NewFace(writerFunc(func(p []byte) (int, error) {
			if bytes.Contains(p, []byte(`"type":"choice"`)) {
				shown <- struct{}{}
			}
			return len(p), nil
		}), nil)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		qs, cs, as := make(chan asked, 1), make(chan asked, 1), make(chan asked, 1)
		go func() { a, err := face.Ask(ctx, choiceQ); qs <- asked{answer: a, err: err} }()
		go func() { a, err := face.AskCard(ctx, card); cs <- asked{cards: a, err: err} }()
		go func() { d, err := face.Approve(ctx, approval); as <- asked{decision: d, err: err} }()
		for range 3 {
			<-shown
		}
		_ = face.Handle(l)
		cancel()
		if r := <-qs; r.err == nil {
			if r.answer.Outcome == wisp.OutcomeChose && !slices.Contains(choiceQ.Options, r.answer.Text) {
				t.Errorf("%s: Ask chose %q, not an option", b, r.answer.Text)
			}
		}
		if r := <-cs; r.err == nil {
			if len(r.cards) != len(card.Questions) {
				t.Errorf("%s: AskCard gave %d answers to %d questions", b, len(r.cards), len(card.Questions))
			}
			for i, a := range r.cards {
				q := card.Questions[i]
				if len(a.Chosen) > 1 && !q.Multi {
					t.Errorf("%s: question %d chose %v on a single choice", b, i+1, a.Chosen)
				}
				for _, c := range a.Chosen {
					if !slices.ContainsFunc(q.Options, func(o wisp.Option) bool { return o.Label == c }) {
						t.Errorf("%s: question %d chose %q, not an option", b, i+1, c)
					}
				}
				if a.Text != "" && len(q.Options) > 0 && !q.Other {
					t.Errorf("%s: question %d took text %q", b, i+1, a.Text)
				}
			}
		}
		if r := <-as; r.err == nil && r.decision.Approved() && !slices.Contains(approval.Scopes, r.decision.Scope) {
			t.Errorf("%s: Approve gave the scope %v, which was not offered", b, r.decision.Scope)
		}
	})
}
