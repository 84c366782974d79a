package inquiry

import (
	"fmt"
	"strconv"
	"time"
)

// The fixed lines the model reads. They are a contract: each has a test
// that fails if it changes. Lines that take values are built by the
// functions below, from these parts.
const (
	// LineChoseNone is what the model gets when the person chose none of
	// the options.
	LineChoseNone = "the person chose none of these options"
	// LineDeclined is what the model gets when the person declined.
	LineDeclined = "the person declined to answer. Do not ask this again; say in your reply what you needed"
	// LineNoPerson is what the model gets when no person can answer
	// (wisp respond, --yes).
	LineNoPerson = "no person can answer here; say in your reply what you need"

	// ErrLineWaiting refuses a second question while one waits.
	ErrLineWaiting = "error: a question is already waiting for the person; wait for its answer before you ask again, and say in your reply what you still need"
	// ErrLinePerTurn refuses a third question in a turn.
	ErrLinePerTurn = "error: you have asked 2 questions this turn; say in your reply what you still need, and stop."
	// ErrLineRepeat refuses the same question twice in a turn.
	ErrLineRepeat = "error: you asked this question already this turn; use the answer you got and do not ask it again"
	// ErrLineSecret refuses a question that asks for a secret.
	ErrLineSecret = "error: ask does not ask for secrets; tell the person what is needed and where to set it"

	// fromPerson follows a free-text answer so the model knows whose words
	// they are.
	fromPerson = "(from the person)"
	// cutNote follows an answer that was longer than MaxAnswerBytes.
	cutNote = "(the answer was longer and was cut to 2,000 bytes)"
)

// LineAnswered is what the model gets for a free-text answer:
// answer: <text> (from the person).
func LineAnswered(text string, cut bool) string {
	s := "answer: " + text + " " + fromPerson
	if cut {
		s += " " + cutNote
	}
	return s
}

// LineChose is what the model gets when the person chose an option.
func LineChose(option string) string { return "chose: " + option }

// LineTimedOut is what the model gets when the deadline passed:
// no answer within 5 min. Do not guess what the person would say. Say in
// your reply what you need, and stop
func LineTimedOut(wait time.Duration) string {
	return "no answer within " + Wait(wait) + ". Do not guess what the person would say. Say in your reply what you need, and stop"
}

// LineParked is what the model gets when a question waits beyond the turn.
func LineParked(question, id string) string {
	return "waiting for the person: " + strconv.Quote(question) + " (question " + id + "). Their answer reaches you as a note on a later turn. Do not guess it."
}

// LineLate is the notice a thread's model reads when a parked question
// settles after its turn: line is what Ask would have returned.
//
//	[wisp: your question "Which config?" (question a1b2c3d4), which waited beyond its turn: chose: ./wisp.json]
func LineLate(question, id, line string) string {
	return "[wisp: your question " + strconv.Quote(question) + " (question " + id + "), which waited beyond its turn: " + line + "]"
}

// Wait writes a deadline the way the outcome lines speak of it: "5 min",
// "90 s", "2 h".
func Wait(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d >= time.Hour && d%time.Hour == 0:
		return fmt.Sprintf("%d h", d/time.Hour)
	case d >= time.Minute && d%time.Minute == 0:
		return fmt.Sprintf("%d min", d/time.Minute)
	default:
		return fmt.Sprintf("%d s", d/time.Second)
	}
}
