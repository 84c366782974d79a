package inquiry

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/policy/secrets"
)

// A Vault keeps the values of secret questions for the session, and gives
// back the reference the model gets instead ("session:GH_TOKEN"). The
// session's vault registers each value with the session's Redactor, so the
// value is redacted wherever it appears.
//
// Put must be safe for concurrent use. It is given the value and nothing
// else is: the desk puts it in no event, fact, line or error. The ref it
// returns is what the model, the events and the facts get, so it must
// hold no value; an empty ref is a failure that ends the turn. Its error
// is told to the model as the reason the secret was not stored, so it
// must be one line that holds no value (the desk puts a plain reason in
// its place if the line holds the value).
type Vault interface {
	Put(name, value string) (ref string, err error)
}

// VaultFunc adapts a function to a Vault.
type VaultFunc func(name, value string) (ref string, err error)

// Put calls f(name, value).
func (f VaultFunc) Put(name, value string) (string, error) { return f(name, value) }

// ErrBadAnswer reports a face whose answer does not fit its question: on
// an ask question, what wisp.Question.Fit refuses (typed text on a choice
// that names none of its options, text with control characters, none of
// these on free text); on a card, a label the question does not offer,
// several on a single choice, text where none is taken or with control
// characters, or a count of answers that is not one a question. It is a
// face failure, since the face should have asked again: the turn ends.
var ErrBadAnswer = errors.New("the face's answer does not fit the question")

// A CardHolder is a card face that shows a card for less than the
// card's timeout: wisp mcp holds the call for a minute, then the turn
// goes on. Before it puts a card, the desk asks CardHold how long this
// card will be shown under ctx, and waits no longer (0: the card's own
// timeout), so that the card's deadline, and the lines and facts of the
// questions nobody answered ("no answer within 1 min"), say how long it
// was shown.
type CardHolder interface {
	wisp.CardInquirer
	CardHold(ctx context.Context, qs []wisp.CardQuestion) time.Duration
}

// A CardRequest is an ask_user call as the model made it.
type CardRequest struct {
	Thread string
	Turn   int
	// Questions are the card's questions, 1 to MaxCardQuestions, or one
	// secret question alone.
	Questions []wisp.CardQuestion
	// Timeout is how long the card waits for the person: 0 means
	// CardTimeout, the most; otherwise MinCardTimeout to CardTimeout.
	Timeout time.Duration
	// Facts are the thread's facts (wisp.Call.Facts): a question, or a
	// secret, the person declined in the thread is refused as the desk's
	// own memory would refuse it.
	Facts []wisp.Fact
}

// CardSettled is how a card ended, ready for the model.
type CardSettled struct {
	// Line is what the model reads: one line per question, in order
	// (LineCardQuestion), or the refusal.
	Line string
	// Refused is set when the card never reached the face; Line then
	// starts with "error: ".
	Refused bool
	// Card is the card as it was put to the face (zero when refused).
	Card wisp.Card
	// Questions say how each question ended, in the card's order (nil
	// when refused).
	Questions []SettledQuestion
	// Facts are what the answers taught the thread. Their IDs are left for
	// the thread to assign.
	Facts []wisp.Fact
}

// A SettledQuestion is how one question of a card ended.
//
// The person answered when Provenance is wisp.FromPerson and Outcome is
// wisp.OutcomeChose, wisp.OutcomeAnswered or wisp.OutcomeChoseNone. A
// choice nobody answered falls back: Outcome is wisp.OutcomeChose,
// Fallback is set, Chosen holds the default and Provenance says who stood
// in (wisp.FromTimeout or wisp.FromUnattended, or wisp.FromUnknown when the
// face's answer did not say who gave it). Free text nobody answered
// is wisp.OutcomeTimedOut or wisp.OutcomeNoPerson, with no answer. A
// secret nobody gave is wisp.OutcomeDeclined whatever the provenance; a
// secret the person gave is wisp.OutcomeAnswered, with Ref set when the
// vault stored it and empty when the vault refused it (Line says why).
type SettledQuestion struct {
	Outcome    wisp.Outcome
	Provenance wisp.Provenance
	// Fallback is set when the desk chose for the person.
	Fallback bool
	// Chosen are the labels chosen, as the options spell them.
	Chosen []string
	// Text is the person's own text (free text, or "something else")
	// after scanning and cutting: markers stand in for credentials. It
	// never holds a secret's value.
	Text string
	// Ref is the reference to a secret the vault stored; the model gets
	// it instead of the value.
	Ref string
	// Redacted lists the markers that replaced credentials in Text, each
	// once; Cut reports that Text was longer than MaxAnswerBytes.
	Redacted []string
	Cut      bool
	// Line is the question's line, without its number.
	Line string

	verbatim string // Text before cutting, for the audit
	refusal  string // the vault's reason for not storing a secret
}

// AskCard validates r, puts the card to the person through the face and
// settles each question.
//
// A face that is a wisp.CardInquirer shows the card and waits at most the
// card's timeout (or the shorter hold of a CardHolder); a face that is not one cannot render it, and every
// question falls back at once, marked wisp.FromUnattended. A choice nobody
// answers falls back to its recommended option, else its first; free text
// nobody answers has no answer; a secret nobody gives is declined. When
// the face returns at the deadline with some answers, those are kept and
// the rest fall back.
//
// A card counts as one of the turn's two questions (QuestionsPerTurn),
// whatever its size, and waits like any question: one at a time on a
// thread. A question the person declined in the thread is final; asking
// it again is refused, as is a repeat within the turn.
//
// A secret question's value goes to Options.Vault and nowhere else: the
// model, the events and the facts get its reference.
//
// Refusals are returned as a CardSettled with Refused set and a nil
// error. AskCard returns an error only when the turn cannot go on: ctx was
// cancelled, the person stopped the turn (wisp.ErrInterrupted), the face
// failed (ErrBadAnswer among others), or the card or its end could not be
// recorded (wisp.ErrNotRecorded).
func (d *Desk) AskCard(ctx context.Context, r CardRequest) (CardSettled, error) {
	qs, wait, err := validateCard(r.Questions, r.Timeout)
	if err != nil {
		return refusedCard(err.Error()), nil
	}
	if qs[0].Secret != "" {
		if d.opts.Vault == nil {
			return refusedCard(ErrLineNoVault), nil
		}
	} else {
		for i, q := range qs {
			if asksForSecret(q) {
				return refusedCard(ErrLineCardSecret(i + 1)), nil
			}
		}
	}
	if line, err := d.parked(ctx, r.Thread); err != nil {
		return CardSettled{}, err
	} else if line != "" {
		return refusedCard(line), nil
	}
	st, line := d.admitCard(r.Thread, r.Turn, qs, r.Facts)
	if line != "" {
		return refusedCard(line), nil
	}
	defer d.release(st)
	if h, ok := d.face.(CardHolder); ok {
		if hold := h.CardHold(ctx, qs); hold > 0 && hold < wait {
			wait = hold
		}
	}

	card := wisp.Card{
		ID:        d.opts.NewID(),
		Session:   d.opts.Session,
		Thread:    r.Thread,
		Turn:      r.Turn,
		Questions: cloneQuestions(qs),
		Deadline:  d.opts.Now().Add(wait),
	}
	if err := d.record(ctx, wisp.Event{
		Thread: r.Thread, Turn: r.Turn, Source: wisp.SourceTool, Data: cardRequestedData(card),
	}); err != nil {
		return CardSettled{}, err // a card that is not on record is not put
	}

	answers, err := d.askFace(ctx, card, qs, wait)
	var settled []SettledQuestion
	if err == nil {
		settled, err = d.settleCard(qs, answers, wait)
	}
	if err != nil {
		if rerr := d.record(ctx, wisp.Event{
			Thread: r.Thread, Turn: r.Turn, Source: wisp.SourceWisp,
			Data: wisp.InquirySettledData{ID: card.ID, Kind: kindAskUser, Outcome: OutcomeStopped, Error: err.Error()},
		}); rerr != nil {
			return CardSettled{}, rerr
		}
		return CardSettled{}, err
	}

	s := CardSettled{Card: card, Questions: settled}
	lines := make([]string, len(qs))
	for i, q := range qs {
		sq := settled[i]
		lines[i] = LineCardQuestion(i+1, q.Header, sq.Line)
		if f := cardFact(q, sq, r.Turn, wait); f != nil {
			s.Facts = append(s.Facts, *f)
		}
		if sq.Outcome == wisp.OutcomeDeclined && sq.Provenance == wisp.FromPerson {
			d.noteCardDeclined(r.Thread, q)
		}
	}
	s.Line = strings.Join(lines, "\n")
	if err := d.recordCardSettled(ctx, card, settled); err != nil {
		return CardSettled{}, err
	}
	d.tellCard(ctx, card, settled)
	return s, nil
}

// askFace puts the card to the face and returns one answer a question.
// Questions the face did not finish come back as wisp.OutcomeTimedOut
// (the deadline passed) or wisp.OutcomeNoPerson (the face cannot render a
// card).
func (d *Desk) askFace(ctx context.Context, card wisp.Card, qs []wisp.CardQuestion, wait time.Duration) ([]wisp.CardAnswer, error) {
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	face, ok := d.face.(wisp.CardInquirer)
	if !ok {
		return fill(nil, len(qs), wisp.OutcomeNoPerson, wisp.FromUnattended), nil
	}
	askCtx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	answers, err := face.AskCard(askCtx, card)
	if err != nil {
		switch {
		case ctx.Err() == nil && errors.Is(askCtx.Err(), context.DeadlineExceeded):
			// The card's deadline: keep what the person finished.
			if len(answers) > len(qs) {
				return nil, fmt.Errorf("the face answered %d questions of a card of %d: %w", len(answers), len(qs), ErrBadAnswer)
			}
			return fill(answers, len(qs), wisp.OutcomeTimedOut, wisp.FromTimeout), nil
		case errors.Is(err, wisp.ErrInterrupted):
			return nil, wisp.ErrInterrupted
		case ctx.Err() != nil:
			return nil, context.Cause(ctx)
		default:
			return nil, fmt.Errorf("asking the person: %w", err)
		}
	}
	if len(answers) != len(qs) {
		return nil, fmt.Errorf("the face answered %d questions of a card of %d: %w", len(answers), len(qs), ErrBadAnswer)
	}
	return answers, nil
}

// fill returns answers grown to n, the questions added ending with o and p.
func fill(answers []wisp.CardAnswer, n int, o wisp.Outcome, p wisp.Provenance) []wisp.CardAnswer {
	out := make([]wisp.CardAnswer, n)
	copy(out, answers)
	for i := len(answers); i < n; i++ {
		out[i] = wisp.CardAnswer{Outcome: o, Provenance: p}
	}
	return out
}

// settleCard turns the face's answers into what the model gets.
func (d *Desk) settleCard(qs []wisp.CardQuestion, answers []wisp.CardAnswer, wait time.Duration) ([]SettledQuestion, error) {
	out := make([]SettledQuestion, len(qs))
	for i, q := range qs {
		sq, err := d.settleQuestion(q, answers[i], wait)
		if err != nil {
			return nil, fmt.Errorf("question %d: %w", i+1, err)
		}
		out[i] = sq
	}
	return out, nil
}

// settleQuestion applies the answer rules to one question of a card.
func (d *Desk) settleQuestion(q wisp.CardQuestion, a wisp.CardAnswer, wait time.Duration) (SettledQuestion, error) {
	// Only a person answers. Anything else a face reports (a timeout, no
	// person, an answer from someone else or from nobody it names) leaves
	// the question to its fallback, with the face's provenance.
	switch {
	case a.Outcome == wisp.OutcomeTimedOut:
		return unanswered(q, wisp.FromTimeout, wait), nil
	case a.Outcome == wisp.OutcomeNoPerson, a.Outcome == wisp.OutcomeParked:
		return unanswered(q, wisp.FromUnattended, wait), nil
	case a.Provenance == wisp.FromTimeout:
		return unanswered(q, wisp.FromTimeout, wait), nil
	case a.Provenance == wisp.FromUnknown:
		// A face that does not say who answered has not spoken for
		// the person; the record says so.
		return unanswered(q, wisp.FromUnknown, wait), nil
	case a.Provenance != wisp.FromPerson:
		return unanswered(q, wisp.FromUnattended, wait), nil
	}
	if q.Secret != "" {
		return d.settleSecret(q, a)
	}
	declined := SettledQuestion{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson, Line: LineDeclined}
	switch a.Outcome {
	case wisp.OutcomeChose, wisp.OutcomeAnswered:
	case wisp.OutcomeChoseNone:
		if len(q.Options) == 0 {
			return declined, nil
		}
		return SettledQuestion{Outcome: wisp.OutcomeChoseNone, Provenance: wisp.FromPerson, Line: LineChoseNone}, nil
	default:
		return declined, nil
	}
	chosen, err := labels(q, a.Chosen)
	if err != nil {
		return SettledQuestion{}, err
	}
	text := strings.TrimSpace(a.Text)
	if err := wisp.CheckTyped(text); err != nil {
		return SettledQuestion{}, fmt.Errorf("the face passed on typed text: %v: %w", err, ErrBadAnswer)
	}
	if text != "" && len(q.Options) > 0 {
		// Text that names an option is that choice.
		if i := slices.IndexFunc(q.Options, func(o wisp.Option) bool { return strings.EqualFold(o.Label, text) }); i >= 0 {
			if !slices.Contains(chosen, q.Options[i].Label) {
				chosen = append(chosen, q.Options[i].Label)
			}
			text = ""
		} else if !q.Other {
			return SettledQuestion{}, fmt.Errorf("the face passed on typed text, but the question takes none: %w", ErrBadAnswer)
		}
	}
	n := len(chosen)
	if text != "" {
		n++
	}
	switch {
	case n == 0:
		return declined, nil
	case n > 1 && !q.Multi:
		return SettledQuestion{}, fmt.Errorf("the face passed on %d answers to a single choice: %w", n, ErrBadAnswer)
	}
	sq := SettledQuestion{Outcome: wisp.OutcomeChose, Provenance: wisp.FromPerson, Chosen: order(q, chosen)}
	if text != "" {
		if len(chosen) == 0 {
			sq.Outcome = wisp.OutcomeAnswered
		}
		redacted, findings := d.opts.Redactor.Redact(text)
		for _, f := range findings {
			if !slices.Contains(sq.Redacted, f.Marker) {
				sq.Redacted = append(sq.Redacted, f.Marker)
			}
		}
		sq.verbatim = redacted
		sq.Text, sq.Cut = cutBytes(redacted, MaxAnswerBytes)
	}
	sq.Line = LineCardAnswer(sq.Chosen, sq.Text, sq.Cut)
	return sq, nil
}

// settleSecret stores the value of a secret the person gave.
func (d *Desk) settleSecret(q wisp.CardQuestion, a wisp.CardAnswer) (SettledQuestion, error) {
	declined := SettledQuestion{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson,
		Line: LineSecretDeclined(q.Secret, wisp.FromPerson, 0)}
	if a.Outcome != wisp.OutcomeAnswered && a.Outcome != wisp.OutcomeChose {
		return declined, nil
	}
	if len(a.Chosen) > 0 {
		return SettledQuestion{}, fmt.Errorf("the face chose options for a secret: %w", ErrBadAnswer)
	}
	value := strings.TrimSpace(a.Text)
	if value == "" {
		return declined, nil
	}
	if err := wisp.CheckTyped(value); err != nil {
		return SettledQuestion{}, fmt.Errorf("the face passed on a secret: %v: %w", err, ErrBadAnswer)
	}
	sq := SettledQuestion{Outcome: wisp.OutcomeAnswered, Provenance: wisp.FromPerson}
	ref, err := d.opts.Vault.Put(q.Secret, value)
	if err != nil {
		// The vault's reason is for the model; make sure it holds no
		// value, whatever the vault wrote.
		reason := strings.TrimPrefix(firstLine(err.Error()), "error: ")
		if strings.Contains(reason, value) || strings.Contains(err.Error(), value) {
			reason = "the session's vault refused it"
		}
		sq.refusal = reason
		sq.Line = LineSecretNotStored(q.Secret, reason)
		return sq, nil
	}
	if ref == "" {
		return SettledQuestion{}, fmt.Errorf("the vault gave secret %s no reference", q.Secret)
	}
	sq.Ref = ref
	sq.Line = LineSecretStored(ref)
	return sq, nil
}

// unanswered settles a question nobody answered: a choice falls back to
// its default, free text has no answer, a secret is declined.
func unanswered(q wisp.CardQuestion, p wisp.Provenance, wait time.Duration) SettledQuestion {
	switch {
	case q.Secret != "":
		return SettledQuestion{Outcome: wisp.OutcomeDeclined, Provenance: p, Line: LineSecretDeclined(q.Secret, p, wait)}
	case len(q.Options) == 0:
		o := wisp.OutcomeNoPerson
		if p == wisp.FromTimeout {
			o = wisp.OutcomeTimedOut
		}
		return SettledQuestion{Outcome: o, Provenance: p, Line: LineNoDefault(p, wait)}
	}
	i := max(0, slices.IndexFunc(q.Options, func(o wisp.Option) bool { return o.Recommended }))
	label := q.Options[i].Label
	return SettledQuestion{Outcome: wisp.OutcomeChose, Provenance: p, Fallback: true, Chosen: []string{label},
		Line: LineFallback(label, q.Options[i].Recommended, p, wait)}
}

// labels returns the options chosen, spelt as the question spells them
// (a face's label matches ignoring case and surrounding space), each once.
func labels(q wisp.CardQuestion, chosen []string) ([]string, error) {
	var out []string
	for _, c := range chosen {
		c = strings.TrimSpace(c)
		i := slices.IndexFunc(q.Options, func(o wisp.Option) bool { return strings.EqualFold(o.Label, c) })
		if i < 0 {
			return nil, fmt.Errorf("the face chose a label the question does not offer: %w", ErrBadAnswer)
		}
		if !slices.Contains(out, q.Options[i].Label) {
			out = append(out, q.Options[i].Label)
		}
	}
	return out, nil
}

// order puts chosen labels in the options' order.
func order(q wisp.CardQuestion, chosen []string) []string {
	var out []string
	for _, o := range q.Options {
		if slices.Contains(chosen, o.Label) {
			out = append(out, o.Label)
		}
	}
	return out
}

// asksForSecret applies the secret rule to what the person reads of a
// question and answers: its text, header and labels. Descriptions only
// describe a choice.
func asksForSecret(q wisp.CardQuestion) bool {
	parts := []string{q.Text, q.Header}
	for _, o := range q.Options {
		parts = append(parts, o.Label)
	}
	_, ok := secrets.AsksForSecret(strings.Join(parts, "\n"))
	return ok
}

// admitCard applies the thread rules to a card: one question waiting, two
// calls a turn, no question repeated in the turn, a declined question
// never again (declined before this desk's eyes, or kept among the
// thread's facts). It marks the thread as waiting, or returns the refusal.
func (d *Desk) admitCard(thread string, turn int, qs []wisp.CardQuestion, facts []wisp.Fact) (*threadState, string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	st := d.thread(thread, turn)
	switch {
	case st.waiting:
		return nil, ErrLineWaiting
	case st.calls >= QuestionsPerTurn:
		return nil, ErrLineCardPerTurn
	}
	for i, q := range qs {
		same := func(a string) bool { return sameQuestion(a, q.Text) }
		switch {
		case slices.ContainsFunc(st.asked, same):
			return nil, ErrLineCardRepeat(i + 1)
		case q.Secret != "" && (slices.Contains(st.secretsDeclined, q.Secret) || secretDeclinedIn(facts, q.Secret)):
			return nil, ErrLineSecretDeclinedBefore(q.Secret)
		case q.Secret == "" && (slices.ContainsFunc(st.declined, same) || declinedIn(facts, q.Text)):
			return nil, ErrLineCardDeclinedBefore(i + 1)
		}
	}
	st.calls++
	for _, q := range qs {
		st.asked = append(st.asked, q.Text)
	}
	st.waiting = true
	return st, ""
}

// noteCardDeclined remembers a card question the person declined.
func (d *Desk) noteCardDeclined(thread string, q wisp.CardQuestion) {
	if q.Secret == "" {
		d.noteDeclined(thread, wisp.Answer{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson}, q.Text)
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if st := d.threads[thread]; st != nil {
		st.secretsDeclined = append(st.secretsDeclined, q.Secret)
	}
}

// cardFact is the fact a settled question teaches the thread, if any: the
// person's answer (subject "answer", source person), a fallback (subject
// "fallback", source wisp, its value saying it was not the person's
// choice), a stored secret's reference (subject "secret", named by the
// secret), or the person's decline (subject "declined", named by the
// question, or by the secret). Free text nobody answered, a secret nobody
// gave and secrets' values make none.
func cardFact(q wisp.CardQuestion, sq SettledQuestion, turn int, wait time.Duration) *wisp.Fact {
	name := cutRunes(q.Text, MaxFactNameChars)
	byPerson := sq.Outcome == wisp.OutcomeDeclined && sq.Provenance == wisp.FromPerson
	switch {
	case sq.Ref != "":
		return &wisp.Fact{Subject: "secret", Name: q.Secret, Value: sq.Ref, Source: wisp.SourcePerson, Turn: turn}
	case q.Secret != "" && byPerson:
		return &wisp.Fact{Subject: SubjectDeclined, Name: q.Secret, Value: FactSecretDeclined, Source: wisp.SourcePerson, Turn: turn}
	case q.Secret != "":
		return nil
	case byPerson:
		return declinedFact(q.Text, turn)
	case sq.Fallback:
		return &wisp.Fact{Subject: "fallback", Name: name, Value: strings.Join(sq.Chosen, ", ") + " (" + nobody(sq.Provenance, wait) + "; not the person's choice)",
			Source: wisp.SourceWisp, Turn: turn}
	case sq.Provenance != wisp.FromPerson:
		return nil
	case sq.Outcome == wisp.OutcomeChoseNone:
		return &wisp.Fact{Subject: "answer", Name: name, Value: NoneOfThese, Source: wisp.SourcePerson, Turn: turn}
	case sq.Outcome == wisp.OutcomeChose, sq.Outcome == wisp.OutcomeAnswered:
		v := strings.Join(sq.Chosen, ", ")
		switch {
		case v == "":
			v = sq.Text
		case sq.Text != "":
			v += "; " + sq.Text
		}
		return &wisp.Fact{Subject: "answer", Name: name, Value: v, Source: wisp.SourcePerson, Turn: turn}
	}
	return nil
}

// tellCard lets the person know what was not passed on, when the face can.
func (d *Desk) tellCard(ctx context.Context, card wisp.Card, settled []SettledQuestion) {
	n, ok := d.face.(wisp.Notifier)
	if !ok {
		return
	}
	for i, sq := range settled {
		if len(sq.Redacted) > 0 {
			_ = n.Notify(ctx, wisp.Notice{Kind: wisp.NoticeRedacted, Thread: card.Thread, Text: fmt.Sprintf(
				"your answer to question %d looked like it held a credential; it was not passed on: the model sees %s", i+1, strings.Join(sq.Redacted, ", "))})
		}
		if sq.Cut {
			_ = n.Notify(ctx, wisp.Notice{Kind: wisp.NoticeCut, Thread: card.Thread, Text: fmt.Sprintf(
				"your answer to question %d was longer than %d bytes; the model got its first %d bytes", i+1, MaxAnswerBytes, len(sq.Text))})
		}
		if sq.refusal != "" {
			_ = n.Notify(ctx, wisp.Notice{Kind: wisp.NoticeSecret, Thread: card.Thread, Text: fmt.Sprintf(
				"the secret %s was not stored: %s", card.Questions[i].Secret, sq.refusal)})
		}
	}
}

// recordCardSettled records inquiry.settled for a card: source person
// when the person answered any of it.
func (d *Desk) recordCardSettled(ctx context.Context, card wisp.Card, settled []SettledQuestion) error {
	source := wisp.SourceWisp
	qs := make([]wisp.CardQuestionSettled, len(settled))
	for i, sq := range settled {
		if sq.Provenance == wisp.FromPerson {
			source = wisp.SourcePerson
		}
		q := card.Questions[i]
		qs[i] = wisp.CardQuestionSettled{
			Question:   q.Text,
			Outcome:    sq.Outcome.String(),
			Provenance: sq.Provenance.String(),
			Fallback:   sq.Fallback,
			Chosen:     slices.Clone(sq.Chosen),
			Answer:     sq.verbatim,
			Redacted:   slices.Clone(sq.Redacted),
			Cut:        sq.Cut,
			Secret:     q.Secret,
			Ref:        sq.Ref,
			Error:      sq.refusal,
		}
	}
	return d.record(ctx, wisp.Event{
		Thread: card.Thread, Turn: card.Turn, Source: source,
		Data: wisp.InquirySettledData{ID: card.ID, Kind: kindAskUser, Questions: qs},
	})
}

// kindAskUser is the kind the records of a card give it, beside a
// question's none: inquiry.requested's and inquiry.settled's "kind".
const kindAskUser = "ask_user"

// cardRequestedData is inquiry.requested's data for a card.
func cardRequestedData(card wisp.Card) wisp.InquiryRequestedData {
	qs := make([]wisp.CardQuestionRequest, len(card.Questions))
	for i, q := range card.Questions {
		r := wisp.CardQuestionRequest{Question: q.Text, Header: q.Header, Secret: q.Secret}
		if len(q.Options) > 0 {
			r.Options = make([]wisp.CardOptionRecord, len(q.Options))
			for j, o := range q.Options {
				r.Options[j] = wisp.CardOptionRecord{Label: o.Label, Description: o.Description, Recommended: o.Recommended}
			}
			r.MultiSelect, r.AllowOther = q.Multi, q.Other
		}
		qs[i] = r
	}
	return wisp.InquiryRequestedData{ID: card.ID, Kind: kindAskUser, Questions: qs, Deadline: card.Deadline.UTC().Format(time.RFC3339)}
}

func cloneQuestions(qs []wisp.CardQuestion) []wisp.CardQuestion {
	out := slices.Clone(qs)
	for i := range out {
		out[i].Options = slices.Clone(out[i].Options)
	}
	return out
}

func refusedCard(line string) CardSettled { return CardSettled{Line: line, Refused: true} }

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.TrimSpace(s)
}
