package pending

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry"
	"github.com/wisp-agent/wisp/inquiry/escape"
	"github.com/wisp-agent/wisp/policy/secrets"
)

// ErrNoPerson: an Answerer has no face to put a question to, so nobody
// can answer here.
var ErrNoPerson = errors.New("no person can answer a parked question here")

// ErrNoWitness: an Answerer's Store has no Witness to record who answers,
// so no answer is filed: a thread that keeps a record takes only answers
// recorded.
var ErrNoWitness = errors.New("nothing records who answers a parked question here, so no answer is filed")

// An Answerer puts parked questions to a person and files their answers,
// with the rules every face that answers them shares: wisp questions at a
// terminal, /questions in a plain chat, the questions lines of wisp chat
// --json. It looks a question up, refuses where no person can answer,
// shows it through Face, makes the typed text fit what the folder files,
// and files the answer through Store, whose Witness records who answered
// before the file appears. What each face shows around the question (a
// heading, a note that the answer is not private) is its own, in Show and
// Say.
//
// An Answerer also tells which waiting questions the person has not been
// told of yet (Fresh), so that a chat notes each one once.
//
// Set the fields before the first call and do not change them after; an
// Answerer's methods may then be called from several goroutines.
type Answerer struct {
	// Store is the pending folder. It must have a Witness (the audit
	// log), which records who answers before the answer's file appears;
	// without one every answer and decline is refused (ErrNoWitness).
	Store Store
	// Face shows a question and reads the person's answer. nil: every
	// answer and decline is refused (ErrNoPerson), after Refuse.
	Face wisp.Inquirer
	// From names the face in the answer file: FromTerminal, FromChat or
	// FromTUI.
	From string
	// Terminal names the terminal the person answers at, such as
	// /dev/pts/3, for the record of who answered.
	Terminal string
	// Refuse, when set, is asked once the ID and the question have been
	// checked whether verb ("questions answer", "/questions decline") on
	// question id may go on here: an error, which says why no person can
	// answer here, refuses it.
	Refuse func(verb, id string) error
	// Commands is how the person runs these commands, for the lines that
	// say what to do next: "wisp questions", "/questions" or "questions".
	Commands string
	// Flush, when set, drops what was typed before a question is shown,
	// so that keys pressed earlier cannot answer it.
	Flush func()
	// Show, when set, shows q before it is put to the person (a heading,
	// where the answer goes); on a decline, which puts nothing through
	// Face, it shows the question declined too.
	Show func(q Question, decline bool)
	// Say tells the person one line about q: what was filed, an answer cut
	// or holding a credential. nil: nothing is told.
	Say func(q wisp.Question, line string)

	mu      sync.Mutex
	told    map[string]bool // the questions the person has been told of
	lastErr string          // what Fresh said last of a folder it cannot read
}

// Waiting returns the questions that wait for an answer, oldest first, and
// marks each told.
func (a *Answerer) Waiting() ([]wisp.Question, error) {
	qs, err := a.Store.List()
	if err != nil {
		return nil, err
	}
	out := make([]wisp.Question, len(qs))
	for i, q := range qs {
		a.Tell(q.ID)
		out[i] = q.asked()
	}
	return out, nil
}

// Fresh returns the waiting questions the person has not been told of,
// and marks them told. A folder that cannot be read is an error once: the
// same error again returns no questions and no error.
func (a *Answerer) Fresh() ([]wisp.Question, error) {
	qs, err := a.Store.List()
	a.mu.Lock()
	defer a.mu.Unlock()
	if err != nil {
		if msg := err.Error(); msg != a.lastErr {
			a.lastErr = msg
			return nil, err
		}
		return nil, nil
	}
	a.lastErr = ""
	var out []wisp.Question
	for _, q := range qs {
		if !a.told[q.ID] {
			a.tellLocked(q.ID)
			out = append(out, q.asked())
		}
	}
	return out, nil
}

// Tell marks question id told, so that Fresh does not return it.
func (a *Answerer) Tell(id string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.tellLocked(id)
}

func (a *Answerer) tellLocked(id string) {
	if a.told == nil {
		a.told = map[string]bool{}
	}
	a.told[id] = true
}

// Check returns question id as it waits, and marks it told; or why it
// cannot be answered (or declined) here: not an ID (ErrBadID), not waiting,
// already answered (the first answer wins), no person (Refuse,
// ErrNoPerson), or no record of who answers (ErrNoWitness).
func (a *Answerer) Check(id string, decline bool) (wisp.Question, error) {
	q, err := a.lookup(id, decline)
	if err != nil {
		return wisp.Question{}, err
	}
	a.Tell(q.ID)
	return q.asked(), nil
}

// lookup returns the waiting question id, or why it cannot be answered
// here.
func (a *Answerer) lookup(id string, decline bool) (Question, error) {
	q, err := a.Store.Get(id)
	switch {
	case errors.Is(err, ErrAnswered):
		return Question{}, fmt.Errorf("%w; the first answer wins", err)
	case err != nil:
		return Question{}, err
	}
	verb := strings.TrimPrefix(a.Commands, "wisp ") + " answer"
	if decline {
		verb = strings.TrimPrefix(a.Commands, "wisp ") + " decline"
	}
	if a.Refuse != nil {
		if err := a.Refuse(verb, q.ID); err != nil {
			return Question{}, err
		}
	}
	switch {
	case a.Face == nil:
		return Question{}, fmt.Errorf("%s %s: %w", verb, q.ID, ErrNoPerson)
	case a.Store.Witness == nil:
		return Question{}, fmt.Errorf("%s %s: %w", verb, q.ID, ErrNoWitness)
	}
	return q, nil
}

// Answer puts question id to the person and files their answer, or a
// declined answer when decline is set. Nothing is filed when the person
// stops (ctx ends, or the face returns wisp.ErrInterrupted), the input
// ends, or the question's deadline passes: the error says so. An answer
// to a question answered, withdrawn or filed again meanwhile is refused.
func (a *Answerer) Answer(ctx context.Context, id string, decline bool) error {
	q, err := a.lookup(id, decline)
	if err != nil {
		return err
	}
	a.Tell(q.ID)
	if a.Show != nil {
		a.Show(q, decline)
	}
	ans := Answer{ID: q.ID, Digest: q.Digest, Outcome: wisp.OutcomeDeclined, From: a.From, Terminal: a.Terminal}
	if !decline {
		got, err := a.ask(ctx, q)
		if err != nil {
			return err
		}
		ans.Outcome, ans.Text = got.Outcome, got.Text
		if ans.Outcome == wisp.OutcomeAnswered {
			ans.Text = a.fit(q, ans.Text)
		}
	}

	// Filing waits for the folder's lock; ctx may still stop it. The
	// store's Witness records inquiry.answered before the answer appears.
	switch err := a.Store.Answer(ctx, ans); {
	case errors.Is(err, ErrStale):
		return fmt.Errorf("question %s was filed again while you answered, so your answer to what you were shown was not filed; run %s answer %s to see it as it is now", q.ID, a.Commands, q.ID)
	case errors.Is(err, ErrAnswered):
		return fmt.Errorf("%w; the first answer wins, so yours was not filed", err)
	case errors.Is(err, ErrWithdrawn), errors.Is(err, ErrNoQuestion):
		return fmt.Errorf("%w; your answer was not filed", err)
	case err != nil:
		return err
	}
	a.say(q, fmt.Sprintf("question %s: %s; the thread that asked gets it", q.ID, filedSummary(ans)))
	return nil
}

// ask shows q through the face and reads the answer. It returns an error
// when no answer is to be filed.
func (a *Answerer) ask(ctx context.Context, q Question) (wisp.Answer, error) {
	if !q.Deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, q.Deadline)
		defer cancel()
	}
	if a.Flush != nil {
		a.Flush()
	}
	got, err := a.Face.Ask(ctx, q.asked())
	switch {
	case errors.Is(err, wisp.ErrInterrupted), errors.Is(err, context.Canceled):
		return wisp.Answer{}, fmt.Errorf("stopped; nothing was filed for question %s (%s answer %s asks again)", q.ID, a.Commands, q.ID)
	case errors.Is(err, context.DeadlineExceeded):
		return wisp.Answer{}, fmt.Errorf("question %s reached its deadline; nothing was filed, and the thread that asked has given up on it", q.ID)
	case err != nil:
		return wisp.Answer{}, err
	case got.Outcome == wisp.OutcomeNoPerson:
		return wisp.Answer{}, fmt.Errorf("the input ended; nothing was filed for question %s (%s answer %s asks again)", q.ID, a.Commands, q.ID)
	}
	return got, nil
}

// fit makes typed text fit what the folder files: valid UTF-8 of at most
// MaxAnswerBytes. It tells the person when the text was cut, and when a
// credential in it will not be passed on.
func (a *Answerer) fit(q Question, s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) > MaxAnswerBytes {
		n := len(s)
		s = cutUTF8(s, MaxAnswerBytes)
		a.say(q, fmt.Sprintf("! wisp: your answer was %d bytes; its first %d bytes were filed, and the model gets at most 2,000", n, len(s)))
	}
	if _, found := secrets.NewRedactor().Redact(s); len(found) > 0 {
		a.say(q, "! wisp: your answer looked like it held a credential; it is not passed on: the model and the audit log see a marker in its place")
	}
	return s
}

// say tells the person line about q.
func (a *Answerer) say(q Question, line string) {
	if a.Say != nil {
		a.Say(q.asked(), line)
	}
}

// asked is q as a face shows it.
func (q Question) asked() wisp.Question {
	return wisp.Question{
		ID: q.ID, Session: q.Session, Thread: q.Thread, Turn: q.Turn,
		Text: q.Text, Options: q.Options, Deadline: q.Deadline,
	}
}

// cutUTF8 cuts s to at most n bytes on a character boundary.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// filedSummary says what was filed, escaped for a terminal.
func filedSummary(a Answer) string {
	switch a.Outcome {
	case wisp.OutcomeChose:
		return "you chose " + escape.Terminal(a.Text)
	case wisp.OutcomeChoseNone:
		return "you chose " + inquiry.NoneOfThese
	case wisp.OutcomeAnswered:
		return "your answer was filed"
	default:
		return "you declined it"
	}
}

// The person's commands on parked questions, as every face reads them
// (ParseCommand).
const (
	CommandList    = "list"    // list the questions that wait
	CommandAnswer  = "answer"  // answer question ID
	CommandDecline = "decline" // decline question ID
)

// ParseCommand reads the person's words after /questions (or wisp
// questions): nothing or list lists the questions that wait; answer ID
// and decline ID answer and decline one. It returns the command
// (CommandList, CommandAnswer, CommandDecline) and the ID, or an error
// that says what the command takes.
func ParseCommand(args []string) (command, id string, err error) {
	switch {
	case len(args) == 0 || len(args) == 1 && args[0] == CommandList:
		return CommandList, "", nil
	case len(args) == 2 && (args[0] == CommandAnswer || args[0] == CommandDecline):
		return args[0], args[1], nil
	}
	return "", "", errors.New("/questions takes list, answer ID or decline ID")
}
