package inquiry

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/wisp-agent/wisp"
)

// The limits of a question. Characters are Unicode code points.
const (
	MaxQuestionChars = 300
	MinOptions       = 2
	MaxOptions       = 6
	MaxOptionChars   = 80
	MaxAnswerBytes   = 2000
	MaxFactNameChars = 80
	// QuestionsPerTurn is how many questions one turn may ask.
	QuestionsPerTurn = 2
	// NoneOfThese is the choice faces add after the options.
	NoneOfThese = wisp.NoneOfThese
)

// A ValidationError says what is wrong with a question, in a line the
// model can act on.
type ValidationError struct{ Line string }

// Error returns the line the model reads.
func (e *ValidationError) Error() string { return e.Line }

func invalid(format string, args ...any) error {
	return &ValidationError{Line: "error: " + fmt.Sprintf(format, args...)}
}

// Validate checks a question and its options against the limits and
// returns them trimmed. It does not apply the secret rule or the per-turn
// limits; the Desk does.
func Validate(question string, options []string) (string, []string, error) {
	q := strings.TrimSpace(question)
	n := utf8.RuneCountInString(q)
	switch {
	case n == 0:
		return "", nil, invalid("question is empty; ask one question of 1 to %d characters", MaxQuestionChars)
	case n > MaxQuestionChars:
		return "", nil, invalid("question is %d characters; it must be 1 to %d, one paragraph", n, MaxQuestionChars)
	case hasLineBreak(q):
		return "", nil, invalid("question must be one paragraph, without line breaks")
	}
	if options == nil {
		return q, nil, nil
	}
	if len(options) < MinOptions || len(options) > MaxOptions {
		return "", nil, invalid("options must be %d to %d when given (got %d); leave options out for a free-text answer", MinOptions, MaxOptions, len(options))
	}
	out := make([]string, len(options))
	for i, o := range options {
		o = strings.TrimSpace(o)
		n := utf8.RuneCountInString(o)
		switch {
		case n == 0:
			return "", nil, invalid("option %d is empty; each option must be 1 to %d characters", i+1, MaxOptionChars)
		case n > MaxOptionChars:
			return "", nil, invalid("option %d is %d characters; each option must be 1 to %d", i+1, n, MaxOptionChars)
		case hasLineBreak(o):
			return "", nil, invalid("option %d has a line break; each option must be one line", i+1)
		case strings.EqualFold(o, NoneOfThese):
			return "", nil, invalid("option %d is %q, which wisp adds itself; leave it out", i+1, NoneOfThese)
		}
		for j := range i {
			if strings.EqualFold(out[j], o) {
				return "", nil, invalid("options %d and %d are the same; each option must be different", j+1, i+1)
			}
		}
		out[i] = o
	}
	return q, out, nil
}

func hasLineBreak(s string) bool {
	return strings.ContainsAny(s, "\n\r\v\f\u0085\u2028\u2029")
}

// sameQuestion reports whether two questions are the same for the rule
// that refuses a question asked twice in a turn: equal but for case and
// white space.
func sameQuestion(a, b string) bool {
	return strings.EqualFold(strings.Join(strings.Fields(a), " "), strings.Join(strings.Fields(b), " "))
}

// cutRunes cuts s to at most n runes, ending with "…" when it was cut.
func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// cutBytes cuts s to at most n bytes on a rune boundary, and never inside
// a redaction marker.
func cutBytes(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	s = s[:i]
	if open := strings.LastIndex(s, "[REDACTED:"); open >= 0 && !strings.Contains(s[open:], "]") {
		s = s[:open]
	}
	return s, true
}
