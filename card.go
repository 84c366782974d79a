package wisp

import "time"

// A Card is the questions of one ask_user call, put to the person at
// once: 1 to 4 questions, or one secret question alone. Like a Question,
// its words are the model's, unescaped: a face that prints them must
// escape them and label them as the model's, never as an approval.
type Card struct {
	// ID names the card within the process.
	ID string
	// Session, Thread and Turn say where the card was asked.
	Session string
	Thread  string
	Turn    int
	// Questions are the card's questions, in the model's order.
	Questions []CardQuestion
	// Deadline is when the card ends; the questions still unanswered then
	// fall back to their defaults (a secret question is declined). A card
	// always has one: 300 s at most.
	Deadline time.Time
}

// A CardQuestion is one question of a Card: a choice of options (one, or
// several with Multi), free text (no Options), or a secret (Secret set).
type CardQuestion struct {
	// Text is the question: one paragraph, 1 to 300 characters.
	Text string
	// Header is a short label for the question, up to 12 characters,
	// shown as a chip or a title; it may be empty.
	Header string
	// Options are the choices, 2 to 6, most applicable first, because
	// that is the order a fallback follows; nil for free text and secrets.
	Options []Option
	// Multi lets the person choose more than one option.
	Multi bool
	// Other offers a free-text "something else" answer besides the
	// options.
	Other bool
	// Secret, when set, names the credential the question collects, such
	// as GH_TOKEN: the face reads the answer without echoing it, and the
	// value is stored for the session, never shown to the model. A secret
	// question is alone on its card and has no options.
	Secret string
}

// An Option is one choice of a CardQuestion.
type Option struct {
	// Label is the choice as the person sees and picks it: 1 to 80
	// characters, different from the question's other labels.
	Label string
	// Description says the choice's trade-off in a short phrase, up to 200
	// characters; it may be empty.
	Description string
	// Recommended marks the option a fallback picks; at most one option of
	// a question has it. When none has, the fallback is the first.
	Recommended bool
}

// A CardAnswer is how one question of a card ended, as a face reports it.
// Faces apply no rule of their own: the inquiry desk checks the choice
// against the options, scans and cuts text, stores secrets, and decides
// fallbacks.
type CardAnswer struct {
	// Outcome is OutcomeChose (Chosen holds the labels), OutcomeAnswered
	// (Text holds the typed text: a free-text answer, the "something
	// else" text, or a secret's value) or OutcomeDeclined. The zero
	// CardAnswer says nothing of the person's (its Provenance is
	// FromUnknown): the question falls back.
	Outcome Outcome
	// Chosen are the labels chosen, verbatim: one, or several for Multi.
	Chosen []string
	// Text is what the person typed.
	Text string
	// Provenance says who answered; a face with a person sets FromPerson.
	// The zero value, FromUnknown, is never the person's: the question
	// falls back as if nobody had answered.
	Provenance Provenance
}
