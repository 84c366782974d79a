package wisp

import (
	"strconv"
	"strings"
	"unicode"
)

// NoneOfThese is the choice every face adds after a question's options.
// It is never among Question.Options.
const NoneOfThese = "none of these"

// A MisfitError says why an answer does not fit its question, in one line
// a face shows the person before it reads again: what was wrong, and what
// the question takes (Question.Takes). The line never quotes the answer,
// which may hold a credential or a control character.
type MisfitError struct{ Line string }

// Error returns the line.
func (e *MisfitError) Error() string { return e.Line }

func misfit(why, takes string) error { return &MisfitError{Line: why + "; " + takes} }

// Takes says in one line what q takes, in words every face can show after
// its own prompt:
//
//	this question takes a number from 1 to 3 (3 is none of these), or nothing to decline
//	this question takes a line of text, or nothing to decline
func (q Question) Takes() string {
	if q.FreeText() {
		return "this question takes a line of text, or nothing to decline"
	}
	n := strconv.Itoa(len(q.Options) + 1)
	return "this question takes a number from 1 to " + n + " (" + n + " is " + NoneOfThese + "), or nothing to decline"
}

// Fit checks that a, what a face read from the person, is an answer q
// takes, and returns it as every face means it. It is the one rule of
// what an answer may be; the inquiry desk holds every face to it, and a
// face that reads what a person types calls it (or Typed) to ask again,
// with the error's line, rather than pass on what does not fit.
//
//   - A choice takes one of its options (OutcomeChose, Text the option as
//     written, or as typed: case and surrounding space aside), none of
//     these (OutcomeChoseNone, or the words typed), or a decline. Typed
//     text that names neither is no answer to it.
//   - Free text takes typed text (OutcomeAnswered), trimmed of
//     surrounding space, or a decline; none of these is no answer to it.
//   - Typed text that holds a control character within it (an arrow
//     key's or Esc's bytes, a stray Ctrl key, a line break) is never taken
//     as text: see CheckTyped. A line break or tab around it is trimmed
//     away first, as surrounding space.
//   - An answer or a choice that is blank is a decline.
//   - OutcomeDeclined, OutcomeTimedOut, OutcomeNoPerson and OutcomeParked
//     are returned as they are; they carry no answer.
//
// Fit keeps a's Provenance; who answered is the face's to say, and the
// desk's to weigh. A misfit is returned as a *MisfitError.
func (q Question) Fit(a Answer) (Answer, error) {
	switch a.Outcome {
	case OutcomeDeclined, OutcomeTimedOut, OutcomeNoPerson, OutcomeParked:
		return a, nil
	case OutcomeChoseNone:
		if q.FreeText() {
			return Answer{}, misfit("this question has no options, so "+NoneOfThese+" is no answer to it", q.Takes())
		}
		return Answer{Outcome: OutcomeChoseNone, Provenance: a.Provenance}, nil
	case OutcomeChose, OutcomeAnswered:
	default:
		return Answer{}, misfit("that is no answer a face gives", q.Takes())
	}
	t := strings.TrimSpace(a.Text)
	if t == "" {
		return Answer{Outcome: OutcomeDeclined, Provenance: a.Provenance}, nil
	}
	if a.Outcome == OutcomeAnswered {
		if err := CheckTyped(t); err != nil {
			return Answer{}, misfit(err.(*MisfitError).Line, q.Takes())
		}
	}
	for _, o := range q.Options {
		if strings.EqualFold(t, o) {
			return Answer{Outcome: OutcomeChose, Text: o, Provenance: a.Provenance}, nil
		}
	}
	switch {
	case !q.FreeText() && a.Outcome == OutcomeAnswered && strings.EqualFold(t, NoneOfThese):
		return Answer{Outcome: OutcomeChoseNone, Provenance: a.Provenance}, nil
	case !q.FreeText():
		return Answer{}, misfit("that is none of the options", q.Takes())
	case a.Outcome == OutcomeChose:
		return Answer{}, misfit("this question has no options to choose", q.Takes())
	}
	return Answer{Outcome: OutcomeAnswered, Text: t, Provenance: a.Provenance}, nil
}

// Typed reads a line the person typed at a face that numbers a choice's
// options as faces show them, 1 to n with none of these last, and returns
// their answer, marked FromPerson: on a choice a number chooses, and on
// any question blanks decline; everything else is as Fit says. A number
// that names no option, and anything else that does not fit, is a
// *MisfitError whose line the face shows before it reads again.
func (q Question) Typed(line string) (Answer, error) {
	t := strings.TrimSpace(line)
	if t == "" {
		return Answer{Outcome: OutcomeDeclined, Provenance: FromPerson}, nil
	}
	if !q.FreeText() && isNumber(t) {
		n, err := strconv.Atoi(t)
		switch {
		case err != nil || n < 1 || n > len(q.Options)+1:
			return Answer{}, misfit("no option has that number", q.Takes())
		case n == len(q.Options)+1:
			return Answer{Outcome: OutcomeChoseNone, Provenance: FromPerson}, nil
		}
		return Answer{Outcome: OutcomeChose, Text: q.Options[n-1], Provenance: FromPerson}, nil
	}
	return q.Fit(Answer{Outcome: OutcomeAnswered, Text: line, Provenance: FromPerson})
}

// CheckTyped returns a *MisfitError when s cannot be taken as text a
// person typed: it holds a control character (U+0000 to U+001F, U+007F,
// or U+0080 to U+009F), as the keys a line-reading face cannot interpret
// leave behind: the arrow keys' and Esc's sequences, Ctrl keys, a tab, a
// line break. Such text is never taken as an answer or a secret's value.
func CheckTyped(s string) error {
	for _, r := range s {
		if unicode.IsControl(r) {
			return &MisfitError{Line: "control characters, such as an arrow key or Esc, are never taken as typed text"}
		}
	}
	return nil
}

// isNumber reports whether t is an optional sign and decimal digits.
func isNumber(t string) bool {
	t = strings.TrimPrefix(strings.TrimPrefix(t, "-"), "+")
	if t == "" {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' {
			return false
		}
	}
	return true
}
