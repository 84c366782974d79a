package mcpface

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry"
)

// The card readCard's tests read: a single choice with a recommended
// option, a multi-select that takes "something else", a single choice
// that takes it, and free text.
var readQs = []wisp.CardQuestion{
	{Text: "Which environment?", Options: []wisp.Option{{Label: "staging", Recommended: true}, {Label: "production"}}},
	{Text: "Which regions?", Multi: true, Other: true, Options: []wisp.Option{{Label: "eu-west-1"}, {Label: "us-east-1"}}},
	{Text: "How should it roll out?", Other: true, Options: []wisp.Option{{Label: "all at once"}, {Label: "canary"}}},
	{Text: "Anything it must not touch?"},
}

func TestReadCard(t *testing.T) {
	declined := wisp.CardAnswer{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson}
	chose := func(text string, labels ...string) wisp.CardAnswer {
		return wisp.CardAnswer{Outcome: wisp.OutcomeChose, Chosen: labels, Text: text, Provenance: wisp.FromPerson}
	}
	typed := func(text string) wisp.CardAnswer {
		return wisp.CardAnswer{Outcome: wisp.OutcomeAnswered, Text: text, Provenance: wisp.FromPerson}
	}
	tests := []struct {
		name    string
		content string
		want    []wisp.CardAnswer
		why     string
	}{
		{"every question", `{"q1":"production","q2":["us-east-1","eu-west-1"],"q2_other":"ap-south-1","q3_other":"blue-green","q4":"the audit tables"}`,
			[]wisp.CardAnswer{chose("", "production"), chose("ap-south-1", "us-east-1", "eu-west-1"), typed("blue-green"), typed("the audit tables")}, ""},
		{"nothing", `{}`, []wisp.CardAnswer{declined, declined, declined, declined}, ""},
		{"no content", `null`, []wisp.CardAnswer{declined, declined, declined, declined}, ""},
		{"blanks decline", `{"q1":" ","q2":[],"q3_other":"  ","q4":"\t"}`, []wisp.CardAnswer{declined, declined, declined, declined}, ""},
		{"a label spelt otherwise", `{"q1":" PRODUCTION ","q2":["EU-west-1","eu-west-1"]}`,
			[]wisp.CardAnswer{chose("", "production"), chose("", "eu-west-1"), declined, declined}, ""},
		{"text trimmed", `{"q4":"  keep the logs \n"}`, []wisp.CardAnswer{declined, declined, declined, typed("keep the logs")}, ""},

		{"not an object", `"production"`, nil, "the form's content is not an object"},
		{"a field it did not ask for", `{"q5":"x"}`, nil, "the form holds a field the card did not ask for"},
		{"something else where none is taken", `{"q1_other":"x"}`, nil, "the form holds a field the card did not ask for"},
		{"an option not offered", `{"q1":"/etc/passwd"}`, nil, "question 1: that is none of its options"},
		{"text in the options' field", `{"q3":"blue-green"}`, nil, "question 3: that is none of its options; give your own answer in its something else field"},
		{"several on a single choice", `{"q1":["staging","production"]}`, nil, "question 1: it takes one option"},
		{"an option and text on a single choice", `{"q3":"canary","q3_other":"blue-green"}`, nil, "question 3: it takes one answer: an option or your own text, not both"},
		{"a number", `{"q1":2}`, nil, "question 1: its answer is not an option"},
		{"a list of numbers", `{"q2":[1]}`, nil, "question 2: its answer is not an option"},
		{"text that is not a string", `{"q4":true}`, nil, "question 4: its answer is not text"},
		{"arrow keys", `{"q4":"main\u001b[A"}`, nil, "question 4: control characters, such as an arrow key or Esc, are never taken as typed text"},
		{"arrow keys in something else", `{"q2_other":"\u001b[B"}`, nil, "question 2: control characters, such as an arrow key or Esc, are never taken as typed text"},
		{"too long", `{"q4":"` + strings.Repeat("é", inquiry.MaxAnswerBytes+1) + `"}`, nil, "question 4: its text is longer than 2000 characters"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var content any
			if err := json.Unmarshal([]byte(tc.content), &content); err != nil {
				t.Fatal(err)
			}
			got, why := readCard(readQs, content)
			if why != tc.why {
				t.Errorf("readCard(%s) says %q, want %q", tc.content, why, tc.why)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("readCard(%s) answers (-want +got):\n%s", tc.content, diff)
			}
		})
	}
}

// FuzzReadCard: whatever a client sends, readCard either refuses it with
// one line that quotes nothing of it, or returns one answer a question,
// each the person's, that the desk takes: labels the question offers,
// one at most on a single choice, and text a person typed.
func FuzzReadCard(f *testing.F) {
	for _, seed := range []string{
		`{"q1":"production","q2":["us-east-1"],"q2_other":"ap-south-1","q3_other":"blue-green","q4":"x"}`,
		`{}`, `null`, `[]`, `"q1"`, `{"q1":["staging","production"]}`, `{"q3":"canary","q3_other":"x"}`,
		`{"q4":"\u001b[A"}`, `{"q2":[null]}`, `{"q1":{"a":1}}`, `{"q9":1}`, `{"q1":"STAGING "}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var content any
		if json.Unmarshal([]byte(raw), &content) != nil {
			return
		}
		got, why := readCard(readQs, content)
		if why != "" {
			if got != nil {
				t.Errorf("readCard(%s) refused (%q) and answered %+v", raw, why, got)
			}
			if strings.ContainsAny(why, "\n\r") || wisp.CheckTyped(why) != nil {
				t.Errorf("readCard(%s) refused with %q, not one clean line", raw, why)
			}
			return
		}
		if len(got) != len(readQs) {
			t.Fatalf("readCard(%s) = %d answers, want %d", raw, len(got), len(readQs))
		}
		for i, a := range got {
			q := readQs[i]
			if a.Provenance != wisp.FromPerson {
				t.Errorf("answer %d %+v is not the person's", i+1, a)
			}
			for _, c := range a.Chosen {
				if !slices.ContainsFunc(q.Options, func(o wisp.Option) bool { return o.Label == c }) {
					t.Errorf("answer %d chose %q, which question %d does not offer", i+1, c, i+1)
				}
			}
			n := len(a.Chosen)
			if a.Text != "" {
				n++
			}
			if !q.Multi && n > 1 {
				t.Errorf("answer %d %+v gives %d answers to a single choice", i+1, a, n)
			}
			if a.Text != "" && (!q.Other && len(q.Options) > 0 || wisp.CheckTyped(a.Text) != nil || !utf8.ValidString(a.Text)) {
				t.Errorf("answer %d passes on text %q question %d does not take", i+1, a.Text, i+1)
			}
		}
	})
}
