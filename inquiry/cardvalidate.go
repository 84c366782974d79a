package inquiry

import (
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/policy/secrets"
)

// The limits of an ask_user card, besides those of a question
// (MaxQuestionChars, MinOptions, MaxOptions, MaxOptionChars). Characters
// are Unicode code points.
const (
	// MaxCardQuestions is how many questions one card may ask; a secret
	// question is alone on its card.
	MaxCardQuestions = 4
	// MaxHeaderChars bounds a question's header, the short label shown as
	// a chip.
	MaxHeaderChars = 12
	// MaxDescriptionChars bounds an option's description.
	MaxDescriptionChars = 200
	// CardTimeout is how long a card waits for the person, and the most
	// it may: the model may shorten it, never extend it.
	CardTimeout = 300 * time.Second
	// MinCardTimeout is the shortest wait the model may ask for.
	MinCardTimeout = 10 * time.Second
	// SecretNamePattern is what a secret's name must match: an
	// environment variable's name, such as GH_TOKEN.
	SecretNamePattern = `^[A-Z][A-Z0-9_]{0,63}$`
)

var secretName = regexp.MustCompile(SecretNamePattern)

// validateCard checks a card's questions and timeout against the limits
// and returns the questions trimmed, in new slices, and the wait. It does
// not apply the secret rule or the thread rules; AskCard does.
func validateCard(questions []wisp.CardQuestion, timeout time.Duration) ([]wisp.CardQuestion, time.Duration, error) {
	switch {
	case timeout == 0:
		timeout = CardTimeout
	case timeout < MinCardTimeout || timeout > CardTimeout:
		return nil, 0, invalid("timeout_seconds must be %d to %d; leave it out to wait the full %d", int(MinCardTimeout/time.Second), int(CardTimeout/time.Second), int(CardTimeout/time.Second))
	}
	switch n := len(questions); {
	case n == 0:
		return nil, 0, invalid("the call asks nothing; send 1 to %d questions, or one secret alone", MaxCardQuestions)
	case n > MaxCardQuestions:
		return nil, 0, invalid("ask 1 to %d questions in a call (got %d); ask the rest once you have the answers", MaxCardQuestions, n)
	}
	out := make([]wisp.CardQuestion, len(questions))
	for i, q := range questions {
		if q.Secret != "" && len(questions) > 1 {
			return nil, 0, &ValidationError{Line: ErrLineSecretAlone}
		}
		v, err := validateCardQuestion(i+1, q)
		if err != nil {
			return nil, 0, err
		}
		for j := range i {
			if sameQuestion(out[j].Text, v.Text) {
				return nil, 0, invalid("questions %d and %d are the same; ask each question once", j+1, i+1)
			}
		}
		out[i] = v
	}
	return out, timeout, nil
}

// validateCardQuestion checks question n (1-based) of a card.
func validateCardQuestion(n int, q wisp.CardQuestion) (wisp.CardQuestion, error) {
	v := wisp.CardQuestion{
		Text:   strings.TrimSpace(q.Text),
		Header: strings.TrimSpace(q.Header),
		Multi:  q.Multi,
		Other:  q.Other,
		Secret: q.Secret,
	}
	switch c := utf8.RuneCountInString(v.Text); {
	case c == 0:
		return v, invalid("question %d is empty; each question must be 1 to %d characters", n, MaxQuestionChars)
	case c > MaxQuestionChars:
		return v, invalid("question %d is %d characters; each question must be 1 to %d, one paragraph", n, c, MaxQuestionChars)
	case hasLineBreak(v.Text):
		return v, invalid("question %d must be one paragraph, without line breaks", n)
	}
	switch c := utf8.RuneCountInString(v.Header); {
	case c > MaxHeaderChars:
		return v, invalid("the header of question %d is %d characters; a header is at most %d, a word or two", n, c, MaxHeaderChars)
	case hasLineBreak(v.Header):
		return v, invalid("the header of question %d has a line break; a header is one line", n)
	}
	if v.Secret != "" {
		switch {
		case !secretName.MatchString(v.Secret):
			return v, invalid("%q cannot name a secret: use a capital letter, then up to 63 capital letters, digits or _, like GH_TOKEN", cutRunes(v.Secret, MaxOptionChars))
		case secrets.Reserved(v.Secret):
			return v, invalid("%s cannot name a secret: in a command's environment it changes how commands run; choose a name of the secret's own, like GH_TOKEN", v.Secret)
		case len(q.Options) > 0 || q.Multi || q.Other:
			return v, invalid("a secret question takes no options, multiSelect or allowOther; send only its name and question")
		}
		return v, nil
	}
	if len(q.Options) == 0 {
		switch {
		case q.Multi:
			return v, invalid("question %d has no options, so it takes free text and multiSelect does not apply; give %d to %d options or leave multiSelect out", n, MinOptions, MaxOptions)
		case q.Other:
			return v, invalid("question %d has no options, so it takes free text already; give %d to %d options or leave allowOther out", n, MinOptions, MaxOptions)
		}
		return v, nil
	}
	if c := len(q.Options); c < MinOptions || c > MaxOptions {
		return v, invalid("question %d has %d options; give %d to %d, or none for a free-text answer", n, c, MinOptions, MaxOptions)
	}
	v.Options = make([]wisp.Option, len(q.Options))
	recommended := 0
	for i, o := range q.Options {
		o.Label = strings.TrimSpace(o.Label)
		o.Description = strings.TrimSpace(o.Description)
		switch c := utf8.RuneCountInString(o.Label); {
		case c == 0:
			return v, invalid("option %d of question %d has an empty label; each label must be 1 to %d characters", i+1, n, MaxOptionChars)
		case c > MaxOptionChars:
			return v, invalid("the label of option %d of question %d is %d characters; each label must be 1 to %d", i+1, n, c, MaxOptionChars)
		case hasLineBreak(o.Label):
			return v, invalid("the label of option %d of question %d has a line break; each label is one line", i+1, n)
		}
		switch c := utf8.RuneCountInString(o.Description); {
		case c > MaxDescriptionChars:
			return v, invalid("the description of option %d of question %d is %d characters; say the trade-off in at most %d", i+1, n, c, MaxDescriptionChars)
		case hasLineBreak(o.Description):
			return v, invalid("the description of option %d of question %d has a line break; each description is one line", i+1, n)
		}
		for j := range i {
			if strings.EqualFold(v.Options[j].Label, o.Label) {
				return v, invalid("options %d and %d of question %d have the same label; each label must be different", j+1, i+1, n)
			}
		}
		if o.Recommended {
			recommended++
		}
		v.Options[i] = o
	}
	if recommended > 1 {
		return v, invalid("question %d marks %d options recommended; mark one, or none to fall back to the first", n, recommended)
	}
	return v, nil
}
