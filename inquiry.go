package wisp

import "time"

// A Question is what the model asks the person, as a face receives it.
//
// Text and Options are the model's words, unescaped: a face that prints to
// a terminal must escape them (package inquiry/escape) and label them as the
// model's. A face must never show a question as an approval or offer an
// approval's keys.
type Question struct {
	// ID names the question within the process, for faces that file or
	// announce it.
	ID string
	// Session, Thread and Turn say where the question was asked.
	Session string
	Thread  string
	Turn    int
	// Text is the question: one paragraph, 1 to 300 characters.
	Text string
	// Options are the choices, 2 to 6, all different; nil for free text.
	// Faces add "none of these" themselves; it is never among Options.
	Options []string
	// Deadline is when the question ends unanswered; zero means the
	// question waits for as long as the person takes.
	Deadline time.Time
}

// FreeText reports whether the question takes free text rather than a choice.
func (q Question) FreeText() bool { return len(q.Options) == 0 }

// Outcome is how a question ended.
type Outcome int

// The outcomes. The zero Outcome is OutcomeDeclined: a face that returns a
// zero Answer has not passed anything on.
const (
	// OutcomeDeclined: the person chose not to answer.
	OutcomeDeclined Outcome = iota
	// OutcomeAnswered: the person typed an answer (Answer.Text).
	OutcomeAnswered
	// OutcomeChose: the person chose one of the options (Answer.Text).
	OutcomeChose
	// OutcomeChoseNone: the person chose none of the options.
	OutcomeChoseNone
	// OutcomeTimedOut: the deadline passed with no answer.
	OutcomeTimedOut
	// OutcomeNoPerson: no person can answer on this face.
	OutcomeNoPerson
	// OutcomeParked: the question waits for the person beyond this turn;
	// the answer arrives on a later turn.
	OutcomeParked
)

var outcomeNames = [...]string{
	OutcomeDeclined:  "declined",
	OutcomeAnswered:  "answered",
	OutcomeChose:     "chose",
	OutcomeChoseNone: "chose-none",
	OutcomeTimedOut:  "timed-out",
	OutcomeNoPerson:  "no-person",
	OutcomeParked:    "parked",
}

// String returns the outcome's name as the audit log and JSON lines spell it.
func (o Outcome) String() string {
	if o >= 0 && int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return "unknown"
}

// Provenance says where an answer came from.
type Provenance int

// The provenances. The zero Provenance is FromUnknown, which is never
// trusted: a face that does not say who answered has not spoken for the
// person, so its answer is not the person's and its approval approves
// nothing. A face sets FromPerson only for what a person did in it.
const (
	// FromUnknown: nobody is known to have answered. An answer from
	// unknown is no answer of the person's, and an approval from unknown
	// is refused.
	FromUnknown Provenance = iota
	// FromPerson: a person answered, declined or chose, in a face.
	FromPerson
	// FromTimeout: the deadline passed; nobody answered.
	FromTimeout
	// FromUnattended: the face has no person (wisp respond, --yes).
	FromUnattended
	// FromDefault: a default stood in for the person.
	FromDefault
)

var provenanceNames = [...]string{
	FromUnknown:    "unknown",
	FromPerson:     "person",
	FromTimeout:    "timeout",
	FromUnattended: "unattended",
	FromDefault:    "default",
}

// String returns the provenance's name as the audit log spells it; the
// zero value, and any value out of range, is "unknown".
func (p Provenance) String() string {
	if p >= 0 && int(p) < len(provenanceNames) {
		return provenanceNames[p]
	}
	return "unknown"
}

// An Answer is how a question ended, as a face reports it.
//
// A face sets Outcome, Provenance (FromPerson for what the person did;
// the zero value, FromUnknown, is never taken as the person's) and, for
// OutcomeAnswered and OutcomeChose, Text: the typed text or the chosen
// option, verbatim. The inquiry desk checks that the answer fits the
// question, then scans, cuts and records it; faces apply no rule of their
// own.
type Answer struct {
	Outcome    Outcome
	Text       string
	Provenance Provenance
	// FileSHA256 is set on an answer taken from a file another process
	// filed (a parked question answered with wisp questions, or in an MCP
	// client's dialog): the SHA-256, in lower-case hex, of that file,
	// which the inquiry.answered record of who answered carries too (see
	// Witness). inquiry.settled records it. Empty for an answer given in
	// the face that asked.
	FileSHA256 string
}

// A Notice is something wisp tells the person: that part of an answer was
// not passed on, that a reply claims an answer that was never given. A
// face shows each by its Kind; one it does not know, as plain text.
type Notice struct {
	Kind   string // one of the Notice kinds below
	Thread string
	Text   string // plain text; faces escape it like any other text they show
}

// The kinds of a Notice.
const (
	NoticeRedacted        = "redacted"         // part of the person's answer looked like a credential and was not passed on
	NoticeCut             = "cut"              // the person's answer or input was longer than wisp passes on, and was cut
	NoticeSecret          = "secret"           // a secret the person gave was not stored
	NoticeUnverifiedClaim = "unverified-claim" // the reply claims an answer the turn does not show
	NoticeWaiting         = "waiting"          // the turn waits for its thread, or for the audit log, which another process holds
	NoticePull            = "pull"             // a background model pull ended
	NoticeSandbox         = "sandbox"          // commands cannot be confined here, so every one is asked and runs with all the person's rights
)

// A Fact is something the thread has learned and keeps when it is
// condensed, such as the person's answer to a question.
type Fact struct {
	ID      string // "c4": unique within the thread
	Subject string // "answer"; "declined" for a question the person declined
	Name    string // the question (an answer's cut to 80 characters)
	Value   string // the answer as the model got it (markers applied)
	Source  string // "person"
	Turn    int
}

// String renders the fact as the model reads it:
// c4 answer "Which config did you mean?" = ./wisp.json
func (f Fact) String() string {
	return f.ID + " " + f.Subject + " " + quote(f.Name) + " = " + f.Value
}

// quote writes s between double quotes, escaping only quotes and
// backslashes so the text stays readable to the model.
func quote(s string) string {
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' || s[i] == '\\' {
			b = append(b, '\\')
		}
		b = append(b, s[i])
	}
	return string(append(b, '"'))
}
