package inquiry

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/wisp-agent/wisp"
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

	// SubjectDeclined is the subject of the fact a question, or a secret,
	// the person declined leaves on its thread, so that the thread never
	// asks it again, whichever process runs its next turn.
	SubjectDeclined = "declined"
	// FactDeclined is the value of the fact a declined question leaves,
	// named by the question:
	//	c3 declined "Which config did you mean?" = the person declined to answer
	FactDeclined = "the person declined to answer"
	// FactSecretDeclined is the value of the fact a secret the person
	// declined to give leaves, named by the secret:
	//	c4 declined "GH_TOKEN" = the person declined to give this secret
	FactSecretDeclined = "the person declined to give this secret"

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

// The fixed lines of ask_user cards. A card's result is one line per
// question, "1 (Env): " (its number, and its header when it has one)
// followed by the question's line; the lines that take values are built
// by the functions below.
const (
	// ErrLineDeclinedBefore refuses an ask question the person declined
	// earlier in the thread.
	ErrLineDeclinedBefore = "error: the person already declined this question in this thread, and a declined question is final. Do not ask it again; say in your reply what you needed"
	// ErrLineCardPerTurn refuses an ask_user call after two calls that
	// asked the person in the turn.
	ErrLineCardPerTurn = "error: you have asked the person twice this turn (each ask or ask_user call counts once); say in your reply what you still need, and stop."
	// ErrLineSecretAlone refuses a card that mixes a secret question with
	// others.
	ErrLineSecretAlone = "error: a secret question must be alone in its call; ask the other questions in a call of their own"
	// ErrLineNoVault refuses a secret question in a session that cannot
	// keep secrets.
	ErrLineNoVault = "error: this session cannot keep secrets; tell the person what is needed and where to set it"

	// fallbackNote ends a fallback's line so that it never reads as the
	// person's choice.
	fallbackNote = "so the person did not choose it"
	// noDefaultNote follows an unanswered free-text question.
	noDefaultNote = "this question has no default. Do not guess what the person would say"
	// ownDecision ends a declined secret's line.
	ownDecision = "Going on without it is your own decision, so say so in your reply"
)

// ErrLineCardSecret refuses a card whose question n asks for a credential
// other than through a secret question.
func ErrLineCardSecret(n int) string {
	return fmt.Sprintf(`error: question %d asks for a secret; collect a credential only with a secret question, alone in its call: {"secret": {"name": "GH_TOKEN", "question": "…"}}`, n)
}

// ErrLineCardRepeat refuses a card whose question n was asked already in
// the turn.
func ErrLineCardRepeat(n int) string {
	return fmt.Sprintf("error: question %d was asked already this turn; use the answer you got and do not ask it again", n)
}

// ErrLineCardDeclinedBefore refuses a card whose question n the person
// declined earlier in the thread.
func ErrLineCardDeclinedBefore(n int) string {
	return fmt.Sprintf("error: the person already declined question %d in this thread, and a declined question is final. Do not ask it again; ask the others without it, or say in your reply what you needed", n)
}

// ErrLineSecretDeclinedBefore refuses a secret question for a secret the
// person declined to give earlier in the thread.
func ErrLineSecretDeclinedBefore(name string) string {
	return "error: the person already declined to give " + name + " in this thread, and a declined question is final. Do not ask for it again. " + ownDecision
}

// LineCardQuestion prefixes question n's line with its number and, when it
// has one, its header: "1 (Env): chose: staging (from the person)".
func LineCardQuestion(n int, header, line string) string {
	if header == "" {
		return strconv.Itoa(n) + ": " + line
	}
	return strconv.Itoa(n) + " (" + header + "): " + line
}

// LineCardAnswer is the line of a card question the person answered: the
// options chosen, their own text ("something else", or free text), or
// both on a multi-select question.
//
//	chose: eu-west-1, us-east-1 (from the person)
//	answer: keep the old bucket (from the person)
//	chose: eu-west-1; answer: and my laptop (from the person)
func LineCardAnswer(chosen []string, text string, cut bool) string {
	if len(chosen) == 0 {
		return LineAnswered(text, cut)
	}
	s := "chose: " + strings.Join(chosen, ", ")
	if text != "" {
		s += "; answer: " + text
	}
	s += " " + fromPerson
	if cut {
		s += " " + cutNote
	}
	return s
}

// LineFallback is the line of a choice nobody answered: the option the
// model marked recommended, or else the first, with who stood in for the
// person (wisp.FromTimeout after wait, or wisp.FromUnattended).
//
//	fallback: staging (the recommended option; no answer within 5 min, so the person did not choose it)
//	fallback: staging (the first option; no person can answer here, so the person did not choose it)
func LineFallback(label string, recommended bool, p wisp.Provenance, wait time.Duration) string {
	which := "the first option"
	if recommended {
		which = "the recommended option"
	}
	return "fallback: " + label + " (" + which + "; " + nobody(p, wait) + ", " + fallbackNote + ")"
}

// LineNoDefault is the line of a free-text question nobody answered.
//
//	no answer within 5 min; this question has no default. Do not guess what the person would say
func LineNoDefault(p wisp.Provenance, wait time.Duration) string {
	return nobody(p, wait) + "; " + noDefaultNote
}

// LineSecretStored is the line of a secret the person gave: the model
// gets its reference, never its value.
//
//	stored: session:GH_TOKEN (from the person). You never see the value; give the reference to the tools that need it
func LineSecretStored(ref string) string {
	return "stored: " + ref + " " + fromPerson + ". You never see the value; give the reference to the tools that need it"
}

// LineSecretDeclined is the line of a secret question that ended without
// a value: the person declined (wisp.FromPerson), the wait ended
// (wisp.FromTimeout) or no person could answer (wisp.FromUnattended). A
// secret has no default.
//
//	the person declined to give GH_TOKEN. Do not ask for it again. Going on without it is your own decision, so say so in your reply
//	no answer within 5 min, so GH_TOKEN is declined: a secret has no default. Going on without it is your own decision, so say so in your reply
func LineSecretDeclined(name string, p wisp.Provenance, wait time.Duration) string {
	if p == wisp.FromPerson {
		return "the person declined to give " + name + ". Do not ask for it again. " + ownDecision
	}
	return nobody(p, wait) + ", so " + name + " is declined: a secret has no default. " + ownDecision
}

// LineSecretNotStored is the line of a secret the person gave that the
// session's vault refused, with the vault's reason.
//
//	GH_TOKEN was not stored: the secret GH_TOKEN is too short: a secret is 4 bytes at least. Going on without it is your own decision, so say so in your reply
func LineSecretNotStored(name, reason string) string {
	return name + " was not stored: " + reason + ". " + ownDecision
}

// nobody says who stood in for the person.
func nobody(p wisp.Provenance, wait time.Duration) string {
	if p == wisp.FromTimeout {
		return "no answer within " + Wait(wait)
	}
	return "no person can answer here"
}
