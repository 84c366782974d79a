package wisp_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
)

var (
	choiceQ = wisp.Question{Text: "Which config?", Options: []string{"~/.wisp/config.json", "./wisp.json"}}
	freeQ   = wisp.Question{Text: "Which branch?"}
)

const (
	takesChoice = "this question takes a number from 1 to 3 (3 is none of these), or nothing to decline"
	takesText   = "this question takes a line of text, or nothing to decline"
	controls    = "control characters, such as an arrow key or Esc, are never taken as typed text; "
)

func TestTakes(t *testing.T) {
	if got := choiceQ.Takes(); got != takesChoice {
		t.Errorf("Takes() of a choice = %q, want %q", got, takesChoice)
	}
	if got := freeQ.Takes(); got != takesText {
		t.Errorf("Takes() of free text = %q, want %q", got, takesText)
	}
}

// A line typed at a face that numbers the options: a choice takes a
// number, none of these' number, an option's own words, or nothing; text
// only where the question takes text; control characters never.
func TestTyped(t *testing.T) {
	person := func(o wisp.Outcome, text string) wisp.Answer {
		return wisp.Answer{Outcome: o, Text: text, Provenance: wisp.FromPerson}
	}
	tests := []struct {
		name   string
		q      wisp.Question
		line   string
		want   wisp.Answer
		misfit string
	}{
		{"a number", choiceQ, "2", person(wisp.OutcomeChose, "./wisp.json"), ""},
		{"a number with spaces", choiceQ, "  1 ", person(wisp.OutcomeChose, "~/.wisp/config.json"), ""},
		{"a plus sign", choiceQ, "+1", person(wisp.OutcomeChose, "~/.wisp/config.json"), ""},
		{"none of these' number", choiceQ, "3", person(wisp.OutcomeChoseNone, ""), ""},
		{"Enter alone declines a choice", choiceQ, "", person(wisp.OutcomeDeclined, ""), ""},
		{"blanks decline", choiceQ, " \t ", person(wisp.OutcomeDeclined, ""), ""},
		{"an option's words", choiceQ, " ./WISP.json ", person(wisp.OutcomeChose, "./wisp.json"), ""},
		{"none of these' words", choiceQ, "None of these", person(wisp.OutcomeChoseNone, ""), ""},
		{"zero", choiceQ, "0", wisp.Answer{}, "no option has that number; " + takesChoice},
		{"past none of these", choiceQ, "4", wisp.Answer{}, "no option has that number; " + takesChoice},
		{"negative", choiceQ, "-1", wisp.Answer{}, "no option has that number; " + takesChoice},
		{"a number too large for an int", choiceQ, "99999999999999999999999", wisp.Answer{}, "no option has that number; " + takesChoice},
		{"text on a choice", choiceQ, "foo", wisp.Answer{}, "that is none of the options; " + takesChoice},
		{"two numbers on a choice", choiceQ, "1 2", wisp.Answer{}, "that is none of the options; " + takesChoice},
		{"arrow keys on a choice", choiceQ, "\x1b[B\x1b[B", wisp.Answer{}, controls + takesChoice},
		{"an arrow key after a number", choiceQ, "2\x1b[A", wisp.Answer{}, controls + takesChoice},
		{"free text", freeQ, "release/2.4", person(wisp.OutcomeAnswered, "release/2.4"), ""},
		{"free text is trimmed", freeQ, "  release/2.4\t", person(wisp.OutcomeAnswered, "release/2.4"), ""},
		{"a number on free text is text", freeQ, "42", person(wisp.OutcomeAnswered, "42"), ""},
		{"non-ASCII text", freeQ, "branche-été ✓", person(wisp.OutcomeAnswered, "branche-été ✓"), ""},
		{"Enter alone declines free text", freeQ, "", person(wisp.OutcomeDeclined, ""), ""},
		{"arrow keys on free text", freeQ, "\x1b[D\x1b[Dmain", wisp.Answer{}, controls + takesText},
		{"Esc alone", freeQ, "\x1b", wisp.Answer{}, controls + takesText},
		{"a tab within", freeQ, "main\tdev", wisp.Answer{}, controls + takesText},
		{"a C1 control", freeQ, "\u009b2J", wisp.Answer{}, controls + takesText},
		{"DEL", freeQ, "main\x7f", wisp.Answer{}, controls + takesText},
		{"NUL", freeQ, "ma\x00in", wisp.Answer{}, controls + takesText},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.q.Typed(tc.line)
			if tc.misfit != "" {
				var m *wisp.MisfitError
				if !errors.As(err, &m) || m.Line != tc.misfit {
					t.Fatalf("Typed(%q) = (%+v, %v), want the misfit %q", tc.line, got, err, tc.misfit)
				}
				return
			}
			if err != nil {
				t.Fatalf("Typed(%q) error = %v", tc.line, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Typed(%q) (-want +got):\n%s", tc.line, diff)
			}
		})
	}
}

// Fit holds every face's answer to the same rule, and keeps the face's
// provenance.
func TestFit(t *testing.T) {
	tests := []struct {
		name   string
		q      wisp.Question
		a      wisp.Answer
		want   wisp.Answer
		misfit bool
	}{
		{"a choice", choiceQ, wisp.Answer{Outcome: wisp.OutcomeChose, Text: "./wisp.json", Provenance: wisp.FromPerson},
			wisp.Answer{Outcome: wisp.OutcomeChose, Text: "./wisp.json", Provenance: wisp.FromPerson}, false},
		{"a choice spelt otherwise", choiceQ, wisp.Answer{Outcome: wisp.OutcomeChose, Text: " ./WISP.JSON", Provenance: wisp.FromPerson},
			wisp.Answer{Outcome: wisp.OutcomeChose, Text: "./wisp.json", Provenance: wisp.FromPerson}, false},
		{"a choice not offered", choiceQ, wisp.Answer{Outcome: wisp.OutcomeChose, Text: "/etc/wisp.json"}, wisp.Answer{}, true},
		{"a blank choice declines", choiceQ, wisp.Answer{Outcome: wisp.OutcomeChose, Text: " "},
			wisp.Answer{Outcome: wisp.OutcomeDeclined}, false},
		{"none of these keeps no text", choiceQ, wisp.Answer{Outcome: wisp.OutcomeChoseNone, Text: "x", Provenance: wisp.FromPerson},
			wisp.Answer{Outcome: wisp.OutcomeChoseNone, Provenance: wisp.FromPerson}, false},
		{"none of these on free text", freeQ, wisp.Answer{Outcome: wisp.OutcomeChoseNone}, wisp.Answer{}, true},
		{"a choice on free text", freeQ, wisp.Answer{Outcome: wisp.OutcomeChose, Text: "main"}, wisp.Answer{}, true},
		{"text on a choice", choiceQ, wisp.Answer{Outcome: wisp.OutcomeAnswered, Text: "the one in /etc"}, wisp.Answer{}, true},
		{"an option's text with a control character is not typed", choiceQ,
			wisp.Answer{Outcome: wisp.OutcomeAnswered, Text: "./wisp.json\x1b[A"}, wisp.Answer{}, true},
		{"a chosen option may hold the model's control characters", wisp.Question{Options: []string{"yes\x1b[A", "no"}},
			wisp.Answer{Outcome: wisp.OutcomeChose, Text: "yes\x1b[A", Provenance: wisp.FromPerson},
			wisp.Answer{Outcome: wisp.OutcomeChose, Text: "yes\x1b[A", Provenance: wisp.FromPerson}, false},
		{"a decline passes", choiceQ, wisp.Answer{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson},
			wisp.Answer{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson}, false},
		{"no person passes", freeQ, wisp.Answer{Outcome: wisp.OutcomeNoPerson, Provenance: wisp.FromUnattended},
			wisp.Answer{Outcome: wisp.OutcomeNoPerson, Provenance: wisp.FromUnattended}, false},
		{"provenance is kept, even unknown", freeQ, wisp.Answer{Outcome: wisp.OutcomeAnswered, Text: "main"},
			wisp.Answer{Outcome: wisp.OutcomeAnswered, Text: "main"}, false},
		{"an outcome no face gives", freeQ, wisp.Answer{Outcome: wisp.Outcome(-1), Text: "main"}, wisp.Answer{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.q.Fit(tc.a)
			var m *wisp.MisfitError
			switch {
			case tc.misfit && !errors.As(err, &m):
				t.Fatalf("Fit(%+v) = (%+v, %v), want a *MisfitError", tc.a, got, err)
			case tc.misfit && !strings.HasSuffix(m.Line, tc.q.Takes()):
				t.Errorf("Fit(%+v) misfit %q does not end saying what the question takes", tc.a, m.Line)
			case !tc.misfit && err != nil:
				t.Fatalf("Fit(%+v) error = %v", tc.a, err)
			case !tc.misfit:
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("Fit(%+v) (-want +got):\n%s", tc.a, diff)
				}
			}
		})
	}
}

// Whatever is typed, an answer Typed takes fits its question: on a choice
// it is an option, none of these or a decline; typed text holds no
// control character; and a misfit says what the question takes without
// quoting what was typed.
func FuzzTyped(f *testing.F) {
	for _, s := range []string{"", "1", "3", "4", "-0", "+2", "foo", "./WISP.json", "none of these", "\x1b[B\x1b[B",
		"2\x1b[A", "main\tdev", "\u009b", "\xff\xfe", "99999999999999999999", " 2 ", "é"} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, line string, choice bool) {
		q := freeQ
		if choice {
			q = choiceQ
		}
		a, err := q.Typed(line)
		if err != nil {
			var m *wisp.MisfitError
			if !errors.As(err, &m) {
				t.Fatalf("Typed(%q) error = %v, want a *MisfitError", line, err)
			}
			// One of the fixed lines: it never quotes what was typed.
			why, _ := strings.CutSuffix(m.Line, "; "+q.Takes())
			switch why {
			case "no option has that number", "that is none of the options", strings.TrimSuffix(controls, "; "):
			default:
				t.Errorf("Typed(%q) misfit = %q, want a fixed line that says what the question takes", line, m.Line)
			}
			return
		}
		if a.Provenance != wisp.FromPerson {
			t.Errorf("Typed(%q) provenance = %v, want person", line, a.Provenance)
		}
		switch a.Outcome {
		case wisp.OutcomeDeclined, wisp.OutcomeChoseNone:
			if a.Text != "" {
				t.Errorf("Typed(%q) = %+v, text on a %v", line, a, a.Outcome)
			}
		case wisp.OutcomeChose:
			if !choice || (a.Text != q.Options[0] && a.Text != q.Options[1]) {
				t.Errorf("Typed(%q) = %+v, a choice the question does not offer", line, a)
			}
		case wisp.OutcomeAnswered:
			if choice || wisp.CheckTyped(a.Text) != nil || a.Text == "" {
				t.Errorf("Typed(%q) = %+v, typed text the question does not take", line, a)
			}
		default:
			t.Errorf("Typed(%q) = %+v", line, a)
		}
		if again, err := q.Fit(a); err != nil || !cmp.Equal(again, a) {
			t.Errorf("Fit(Typed(%q)) = (%+v, %v), want the same answer", line, again, err)
		}
	})
}
