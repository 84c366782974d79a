package inquiry

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/policy/secrets"
)

// Options configure a Desk. A nil *Options or a zero field means the
// default given beside the field.
type Options struct {
	// Session names the session in events and questions.
	Session string
	// Timeout is how long an ask question waits for the person; 0 (the
	// default) waits for ever. It is inquiry.timeoutSeconds, read when the
	// conversation starts. An ask_user card waits CardTimeout at most,
	// whatever Timeout says.
	Timeout time.Duration
	// Events receives inquiry.requested and inquiry.settled; nil drops them.
	Events wisp.EventSink
	// Redactor replaces credential-shaped values in answers. nil: a new
	// Redactor for this desk. Share one per session so a value keeps its
	// number everywhere the session records it.
	Redactor *secrets.Redactor
	// Vault keeps the values of ask_user's secret questions for the
	// session; nil: secret questions are refused (ErrLineNoVault).
	Vault Vault
	// Now and NewID make time and question ids injectable; nil: the clock
	// and 32 random bits in hex.
	Now   func() time.Time
	NewID func() string
}

// A Desk puts the model's questions to a person through a face and
// enforces the question contract: validation, the secret rule, one question
// waiting per thread, two per turn, no repeats, a declined question never
// asked again, deadlines, answer scanning and cutting, the outcome lines,
// audit events and facts. It serves the ask tool (Ask) and the ask_user
// tool (AskCard) under the same thread rules.
//
// A Desk is safe for concurrent use. Faces only show and read; every rule
// lives here.
type Desk struct {
	face wisp.Inquirer
	opts Options

	mu      sync.Mutex
	threads map[string]*threadState
}

type threadState struct {
	waiting bool
	turn    int
	calls   int      // ask and ask_user calls that reached the face this turn
	asked   []string // questions put to the person this turn

	// declined are the questions the person declined in the thread, and
	// secretsDeclined the names of the secrets they declined to give: a
	// declined question is final. Kept for the desk's life; the thread
	// keeps them beyond it as facts (Request.Facts).
	declined        []string
	secretsDeclined []string
}

// NewDesk returns a desk that asks through face.
func NewDesk(face wisp.Inquirer, opts *Options) *Desk {
	d := &Desk{face: face, threads: make(map[string]*threadState)}
	if opts != nil {
		d.opts = *opts
	}
	if d.opts.Redactor == nil {
		d.opts.Redactor = secrets.NewRedactor()
	}
	if d.opts.Now == nil {
		d.opts.Now = time.Now
	}
	if d.opts.NewID == nil {
		d.opts.NewID = randomID
	}
	return d
}

// A Parker is a face whose questions can wait beyond the turn that asked
// them, such as wisp mcp's. Its Ask answers wisp.OutcomeParked when the
// turn goes on without the answer; the desk then gives the model
// LineParked, records inquiry.parked, and keeps the thread from asking
// again while the question waits. The answer reaches a later turn through
// Resume.
type Parker interface {
	wisp.Inquirer
	// Waiting reports whether a question parked on thread still waits
	// for the person.
	Waiting(ctx context.Context, thread string) (bool, error)
	// Settled is called once the desk has recorded how a question the
	// face answered within its turn settled, so the face can forget it.
	Settled(ctx context.Context, q wisp.Question)
}

// A Request is a question as the model asked it.
type Request struct {
	Thread  string
	Turn    int
	Text    string
	Options []string // nil for free text
	// Facts are the thread's facts (wisp.Call.Facts). A question the
	// person declined is kept there as a fact (DeclinedFact), so that a
	// desk in another process, or after a restart, refuses it too.
	Facts []wisp.Fact
}

// Settled is how a question ended, ready for the model.
type Settled struct {
	// Line is what the model reads.
	Line string
	// Refused is set when the question never reached the person; Line
	// then starts with "error: ".
	Refused bool
	// Question is the question as it was put to the person (zero when
	// refused).
	Question wisp.Question
	// Answer is the answer after scanning and cutting: Text carries
	// markers in place of credentials.
	Answer wisp.Answer
	// Fact is the fact the answer became, if any. Its ID is left for the
	// thread to assign.
	Fact *wisp.Fact
	// Redacted lists the markers that replaced credentials in the answer,
	// each once.
	Redacted []string
	// Cut reports that the answer was longer than MaxAnswerBytes.
	Cut bool

	verbatim string // the whole answer with markers applied, for the audit
	misfit   string // why a late answer was no answer, for the audit
}

// Ask validates r, puts it to the person and settles it.
//
// Refusals (a bad question, a secret, a limit) are returned as a Settled
// with Refused set and a nil error: the model reads them and goes on. Ask
// returns an error only when the turn cannot go on: ctx was cancelled, the
// person stopped the turn (wisp.ErrInterrupted), the face failed, or the
// question or its end could not be recorded (wisp.ErrNotRecorded; a
// question that is not on record is not asked).
func (d *Desk) Ask(ctx context.Context, r Request) (Settled, error) {
	text, options, err := Validate(r.Text, r.Options)
	if err != nil {
		return refused(err.Error()), nil
	}
	if _, ok := secrets.AsksForSecret(strings.Join(append([]string{text}, options...), "\n")); ok {
		return refused(ErrLineSecret), nil
	}
	parker, _ := d.face.(Parker)
	if line, err := d.parked(ctx, r.Thread); err != nil {
		return Settled{}, err
	} else if line != "" {
		return refused(line), nil
	}
	st, line := d.admit(r.Thread, r.Turn, text, r.Facts)
	if line != "" {
		return refused(line), nil
	}
	defer d.release(st)

	q := wisp.Question{
		ID:      d.opts.NewID(),
		Session: d.opts.Session,
		Thread:  r.Thread,
		Turn:    r.Turn,
		Text:    text,
		Options: options,
	}
	askCtx := ctx
	if d.opts.Timeout > 0 {
		q.Deadline = d.opts.Now().Add(d.opts.Timeout)
		var cancel context.CancelFunc
		askCtx, cancel = context.WithTimeout(ctx, d.opts.Timeout)
		defer cancel()
	}
	if err := d.record(ctx, wisp.Event{
		Thread: r.Thread, Turn: r.Turn, Source: wisp.SourceTool, Data: requestedData(q),
	}); err != nil {
		return Settled{}, err // a question that is not on record is not asked
	}

	a, err := d.face.Ask(askCtx, q)
	if err != nil {
		switch {
		case ctx.Err() == nil && errors.Is(askCtx.Err(), context.DeadlineExceeded):
			a = wisp.Answer{Outcome: wisp.OutcomeTimedOut, Provenance: wisp.FromTimeout}
		default:
			if rerr := d.record(ctx, wisp.Event{
				Thread: r.Thread, Turn: r.Turn, Source: wisp.SourceWisp,
				Data: wisp.InquirySettledData{ID: q.ID, Outcome: OutcomeStopped, Error: err.Error()},
			}); rerr != nil {
				return Settled{}, rerr
			}
			if errors.Is(err, wisp.ErrInterrupted) {
				return Settled{}, wisp.ErrInterrupted
			}
			if ctx.Err() != nil {
				return Settled{}, context.Cause(ctx)
			}
			return Settled{}, fmt.Errorf("asking the person: %w", err)
		}
	}
	if a.Outcome == wisp.OutcomeParked && parker != nil {
		if err := d.record(ctx, wisp.Event{
			Thread: r.Thread, Turn: r.Turn, Source: wisp.SourceWisp,
			Data: wisp.InquiryParkedData{ID: q.ID, Question: q.Text, Options: q.Options, Deadline: deadline(q.Deadline)},
		}); err != nil {
			return Settled{}, err
		}
		return Settled{Line: LineParked(q.Text, q.ID), Question: q, Answer: wisp.Answer{Outcome: wisp.OutcomeParked}}, nil
	}
	a, err = take(q, a)
	if err != nil {
		// The face passed on what the question does not take: it should
		// have asked again. Nothing of it is the person's answer.
		if rerr := d.record(ctx, wisp.Event{
			Thread: r.Thread, Turn: r.Turn, Source: wisp.SourceWisp,
			Data: wisp.InquirySettledData{ID: q.ID, Outcome: OutcomeStopped, Error: err.Error()},
		}); rerr != nil {
			return Settled{}, rerr
		}
		return Settled{}, fmt.Errorf("asking the person: %w: %w", err, ErrBadAnswer)
	}
	s := d.settle(ctx, q, a)
	d.noteDeclined(q.Thread, s.Answer, q.Text)
	if err := d.recordSettled(ctx, q, s); err != nil {
		return Settled{}, err
	}
	if parker != nil {
		parker.Settled(context.WithoutCancel(ctx), q)
	}
	return s, nil
}

// Resume settles a question that was parked, with the answer that arrived
// after its turn: the rules of Ask apply (an option typed as text is a
// choice, a blank answer a decline, an answer that is not the person's or
// does not fit the question is no answer, credentials become markers,
// long answers are cut), inquiry.settled is recorded on q's thread at
// turn, and Line is the notice the model reads on that turn (LineLate).
func (d *Desk) Resume(ctx context.Context, q wisp.Question, a wisp.Answer, turn int) Settled {
	a, err := take(q, a)
	var misfit string
	if err != nil {
		// No face can ask again now: what does not fit is nobody's answer.
		a, misfit = wisp.Answer{Outcome: wisp.OutcomeNoPerson, Provenance: wisp.FromUnknown, FileSHA256: a.FileSHA256}, err.Error()
	}
	s := d.settle(ctx, q, a)
	s.misfit = misfit
	d.noteDeclined(q.Thread, s.Answer, q.Text)
	if s.Fact != nil {
		s.Fact.Turn = turn
	}
	q.Turn = turn
	_ = d.recordSettled(ctx, q, s) // the answer stays on file until a kept turn holds it
	s.Line = LineLate(s.Question.Text, s.Question.ID, s.Line)
	return s
}

// parked returns ErrLineWaiting when a question the face parked on
// thread still waits, and "" when none does or the face parks nothing.
func (d *Desk) parked(ctx context.Context, thread string) (string, error) {
	parker, ok := d.face.(Parker)
	if !ok {
		return "", nil
	}
	waiting, err := parker.Waiting(ctx, thread)
	if err != nil {
		return "", fmt.Errorf("looking for a question that waits: %w", err)
	}
	if waiting {
		return ErrLineWaiting, nil
	}
	return "", nil
}

// recordSettled records inquiry.settled for q.
func (d *Desk) recordSettled(ctx context.Context, q wisp.Question, s Settled) error {
	source := wisp.SourceWisp
	if s.Answer.Provenance == wisp.FromPerson {
		source = wisp.SourcePerson
	}
	return d.record(ctx, wisp.Event{
		Thread: q.Thread, Turn: q.Turn, Source: source, Data: settledData(q, s),
	})
}

// settle turns an answer the desk has taken (take) into what the model
// gets: credentials become markers, long answers are cut.
func (d *Desk) settle(ctx context.Context, q wisp.Question, a wisp.Answer) Settled {
	s := d.settleAnswer(ctx, q, a)
	// The file the answer was taken from, whatever the rules made of it.
	s.Answer.FileSHA256 = a.FileSHA256
	return s
}

// settleAnswer is settle's work on the answer's outcome and text.
func (d *Desk) settleAnswer(ctx context.Context, q wisp.Question, a wisp.Answer) Settled {
	s := Settled{Question: q, Answer: a}
	switch a.Outcome {
	case wisp.OutcomeAnswered, wisp.OutcomeChose:
		text, findings := d.opts.Redactor.Redact(a.Text)
		for _, f := range findings {
			if !slices.Contains(s.Redacted, f.Marker) {
				s.Redacted = append(s.Redacted, f.Marker)
			}
		}
		s.verbatim = text
		text, s.Cut = cutBytes(text, MaxAnswerBytes)
		s.Answer.Text = text
		if a.Outcome == wisp.OutcomeChose {
			s.Line = LineChose(text)
		} else {
			s.Line = LineAnswered(text, s.Cut)
		}
		s.Fact = &wisp.Fact{Subject: "answer", Name: cutRunes(q.Text, MaxFactNameChars), Value: text, Source: wisp.SourcePerson, Turn: q.Turn}
		d.tell(ctx, q, s)
	case wisp.OutcomeChoseNone:
		s.Line = LineChoseNone
		s.Fact = &wisp.Fact{Subject: "answer", Name: cutRunes(q.Text, MaxFactNameChars), Value: NoneOfThese, Source: wisp.SourcePerson, Turn: q.Turn}
	case wisp.OutcomeTimedOut:
		s.Line = LineTimedOut(d.opts.Timeout)
	case wisp.OutcomeNoPerson:
		s.Line = LineNoPerson
	default:
		s.Answer = wisp.Answer{Outcome: wisp.OutcomeDeclined, Provenance: a.Provenance}
		s.Line = LineDeclined
		if a.Provenance == wisp.FromPerson {
			s.Fact = declinedFact(q.Text, q.Turn)
		}
	}
	return s
}

// declinedFact is the fact a question the person declined leaves on its
// thread. It is named by the whole question, uncut, so that only the same
// question matches it.
func declinedFact(text string, turn int) *wisp.Fact {
	return &wisp.Fact{Subject: SubjectDeclined, Name: text, Value: FactDeclined, Source: wisp.SourcePerson, Turn: turn}
}

// declinedIn reports whether facts hold the person's decline of the
// question text.
func declinedIn(facts []wisp.Fact, text string) bool {
	return slices.ContainsFunc(facts, func(f wisp.Fact) bool {
		return f.Subject == SubjectDeclined && f.Source == wisp.SourcePerson && f.Value == FactDeclined && sameQuestion(f.Name, text)
	})
}

// secretDeclinedIn reports whether facts hold the person's refusal to
// give the secret name.
func secretDeclinedIn(facts []wisp.Fact, name string) bool {
	return slices.ContainsFunc(facts, func(f wisp.Fact) bool {
		return f.Subject == SubjectDeclined && f.Source == wisp.SourcePerson && f.Value == FactSecretDeclined && f.Name == name
	})
}

// take applies the rules that make every face's answer alike: only the
// person answers, declines or chooses (any other provenance, the zero one
// included, is no answer), and what the person gave must fit the question
// (wisp.Question.Fit: an option typed as text is that choice, a blank
// answer a decline, text on a choice or with control characters no
// answer). A misfit is returned as the error; the face should have asked
// again.
func take(q wisp.Question, a wisp.Answer) (wisp.Answer, error) {
	got, err := takeAnswer(q, a)
	// The file the answer was taken from, whatever the rules made of it.
	got.FileSHA256 = a.FileSHA256
	return got, err
}

// takeAnswer is take's work on the answer's outcome, provenance and text.
func takeAnswer(q wisp.Question, a wisp.Answer) (wisp.Answer, error) {
	switch a.Outcome {
	case wisp.OutcomeTimedOut:
		return wisp.Answer{Outcome: wisp.OutcomeTimedOut, Provenance: wisp.FromTimeout}, nil
	case wisp.OutcomeNoPerson, wisp.OutcomeParked:
		// Only a Parker can deliver a parked answer later (Ask handles it
		// before taking); from any other face it is no answer.
		return wisp.Answer{Outcome: wisp.OutcomeNoPerson, Provenance: wisp.FromUnattended}, nil
	}
	switch a.Provenance {
	case wisp.FromPerson:
	case wisp.FromTimeout:
		return wisp.Answer{Outcome: wisp.OutcomeTimedOut, Provenance: wisp.FromTimeout}, nil
	default:
		return wisp.Answer{Outcome: wisp.OutcomeNoPerson, Provenance: a.Provenance}, nil
	}
	return q.Fit(a)
}

// tell lets the person know what was not passed on, when the face can.
func (d *Desk) tell(ctx context.Context, q wisp.Question, s Settled) {
	n, ok := d.face.(wisp.Notifier)
	if !ok {
		return
	}
	if len(s.Redacted) > 0 {
		_ = n.Notify(ctx, wisp.Notice{Kind: wisp.NoticeRedacted, Thread: q.Thread, Text: fmt.Sprintf(
			"your answer looked like it held a credential; it was not passed on: the model sees %s", strings.Join(s.Redacted, ", "))})
	}
	if s.Cut {
		_ = n.Notify(ctx, wisp.Notice{Kind: wisp.NoticeCut, Thread: q.Thread, Text: fmt.Sprintf(
			"your answer was longer than %d bytes; the model got its first %d bytes", MaxAnswerBytes, len(s.Answer.Text))})
	}
}

// admit applies the thread rules: one question waiting, two a turn, no
// repeats, a declined question never again (declined before this desk's
// eyes, or kept among the thread's facts). It marks the thread as
// waiting, or returns the refusal line.
func (d *Desk) admit(thread string, turn int, text string, facts []wisp.Fact) (*threadState, string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	st := d.thread(thread, turn)
	switch {
	case st.waiting:
		return nil, ErrLineWaiting
	case st.calls >= QuestionsPerTurn:
		return nil, ErrLinePerTurn
	case slices.ContainsFunc(st.asked, func(a string) bool { return sameQuestion(a, text) }):
		return nil, ErrLineRepeat
	case slices.ContainsFunc(st.declined, func(a string) bool { return sameQuestion(a, text) }), declinedIn(facts, text):
		return nil, ErrLineDeclinedBefore
	}
	st.calls++
	st.asked = append(st.asked, text)
	st.waiting = true
	return st, ""
}

// thread returns the state of thread at turn, starting the turn's counts
// afresh when turn is new. d.mu must be held.
func (d *Desk) thread(thread string, turn int) *threadState {
	st := d.threads[thread]
	if st == nil {
		st = &threadState{}
		d.threads[thread] = st
	}
	if st.turn != turn {
		st.turn, st.calls, st.asked = turn, 0, nil
	}
	return st
}

// noteDeclined remembers a question the person declined, so that the
// thread never asks it again.
func (d *Desk) noteDeclined(thread string, a wisp.Answer, text string) {
	if a.Outcome != wisp.OutcomeDeclined || a.Provenance != wisp.FromPerson {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	st := d.threads[thread]
	if st == nil {
		st = &threadState{turn: -1}
		d.threads[thread] = st
	}
	st.declined = append(st.declined, text)
}

func (d *Desk) release(st *threadState) {
	d.mu.Lock()
	st.waiting = false
	d.mu.Unlock()
}

// record hands e to Options.Events. Audit is lossless: a cancelled turn
// still records how its question ended (the log waits out other writers
// whatever ctx says). An event that could not be recorded is an error
// wrapping wisp.ErrNotRecorded, which ends the turn.
func (d *Desk) record(ctx context.Context, e wisp.Event) error {
	if d.opts.Events == nil {
		return nil
	}
	e.Time = d.opts.Now()
	e.Session = d.opts.Session
	return wisp.Record(ctx, d.opts.Events, e)
}

func refused(line string) Settled { return Settled{Line: line, Refused: true} }

// OutcomeStopped is the outcome inquiry.settled records for a question
// or card whose turn stopped before it was settled.
const OutcomeStopped = "stopped"

// requestedData is inquiry.requested's data for q.
func requestedData(q wisp.Question) wisp.InquiryRequestedData {
	return wisp.InquiryRequestedData{ID: q.ID, Question: q.Text, Options: q.Options, Deadline: deadline(q.Deadline)}
}

// deadline is t as a record gives a deadline: RFC 3339 to the second, in
// UTC; "" for none.
func deadline(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func settledData(q wisp.Question, s Settled) wisp.InquirySettledData {
	answer := s.verbatim
	if answer == "" {
		answer = s.Answer.Text
	}
	return wisp.InquirySettledData{
		ID:         q.ID,
		Question:   q.Text,
		Outcome:    s.Answer.Outcome.String(),
		Provenance: s.Answer.Provenance.String(),
		Answer:     answer,
		Redacted:   s.Redacted,
		Cut:        s.Cut,
		Error:      s.misfit,
		FileSHA256: s.Answer.FileSHA256,
	}
}

func randomID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
