package inquiry_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry"
	"github.com/wisp-agent/wisp/policy/secrets"
	"github.com/wisp-agent/wisp/wisptest"
)

// Whatever the person types, what the model gets holds no credential the
// rules can see, stays within the answer limit, and is valid UTF-8 when the
// answer was.
func FuzzAnswer(f *testing.F) {
	f.Add("./wisp.json", false)
	f.Add("use AKIAFAKEKEYEXAMPLE77 and ghp_FAKE0test1EXAMPLE2not3real4Token5w6x", false)
	f.Add(strings.Repeat("é", 1200)+"AKIAFAKEKEYEXAMPLE77", false)
	f.Add("password=FakePass-EXAMPLE-123", true)
	f.Add("AKIA\u200bFAKEKEYEXAMPLE77", false)
	f.Add("\x1b[B\x1b[B", true)
	f.Add("foo", true)
	f.Add(" A ", true)
	f.Add("main\x1b[A", false)
	f.Fuzz(func(t *testing.T, answer string, choice bool) {
		var options []string
		if choice {
			options = []string{"a", "b"}
		}
		// A face that passes on what was typed as it is: the desk holds it
		// to the rule a face should have applied.
		typed := wisptest.Says(answer).Answer
		d := inquiry.NewDesk(wisp.InquirerFunc(func(context.Context, wisp.Question) (wisp.Answer, error) { return typed, nil }), nil)
		s, err := d.Ask(context.Background(), inquiry.Request{Thread: "t", Turn: 1, Text: "Which?", Options: options})
		if errors.Is(err, inquiry.ErrBadAnswer) {
			// What the question does not take is never passed on.
			if _, ferr := (wisp.Question{Text: "Which?", Options: options}).Fit(typed); ferr == nil {
				t.Errorf("Ask(%q) refused an answer that fits: %v", answer, err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if s.Answer.Outcome == wisp.OutcomeAnswered && (choice || wisp.CheckTyped(s.Answer.Text) != nil) {
			t.Errorf("Ask(%q) passed on typed text %q, on a choice or with control characters", answer, s.Answer.Text)
		}
		if m := secrets.Scan(s.Answer.Text); len(m) > 0 {
			t.Errorf("answer %q reached the model with a credential (%s) in %q", answer, m[0].Rule, s.Answer.Text)
		}
		if len(s.Answer.Text) > inquiry.MaxAnswerBytes {
			t.Errorf("answer is %d bytes, over the limit", len(s.Answer.Text))
		}
		if utf8.ValidString(answer) && !utf8.ValidString(s.Line) {
			t.Errorf("line %q is not valid UTF-8", s.Line)
		}
	})
}
