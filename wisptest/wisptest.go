// Package wisptest holds public fakes for tests of code built on wisp: a
// scripted person that answers questions, a recorder of events, and
// SchemaGolden, which pins a tool's schema to a golden file. With
// the scripted model (package models/script) they let a table-driven test
// run whole turns with no model server and no terminal.
package wisptest

import (
	"context"
	"strings"
	"sync"

	"github.com/wisp-agent/wisp"
)

// A Person is a scripted person: it answers questions from a list, in
// order, and records what it was asked. Each question of an ask_user card
// takes the next reply too, so a card of three questions takes three, even
// when the person falls silent or stops at the first. A reply the question
// does not take (typed text on a choice, text with control characters) is
// asked again, as every face does, so the reply after it answers. When the
// list runs out, the person declines. The replies made by Says, Chooses
// and the others are the person's (wisp.FromPerson); a Reply written out
// by hand carries the Provenance it is given, and the zero one is nobody's.
// Safe for concurrent use.
type Person struct {
	mu        sync.Mutex
	answers   []Reply
	questions []wisp.Question
	cards     []wisp.Card
	notices   []wisp.Notice
}

// A Reply is what the scripted person does with one question.
type Reply struct {
	Answer wisp.Answer
	// Err, if set, is returned instead of Answer (wisp.ErrInterrupted
	// stops the turn as Ctrl-C would).
	Err error
	// Silent makes the person say nothing until ctx ends.
	Silent bool
	// Nth, if above zero, chooses the question's Nth option (from 1),
	// whatever its text.
	Nth int
	// Chosen, on a card's question, are the labels chosen (with Answer's
	// Outcome OutcomeChose); Nths are the options chosen by position (from
	// 1). Both are for multi-select questions; a face passes them on
	// verbatim, and so does the scripted person, whatever the question.
	Chosen []string
	Nths   []int
}

var (
	_ wisp.Inquirer     = (*Person)(nil)
	_ wisp.CardInquirer = (*Person)(nil)
	_ wisp.Notifier     = (*Person)(nil)
)

// NewPerson returns a person who will reply as given, one reply a question.
func NewPerson(replies ...Reply) *Person { return &Person{answers: replies} }

// Says is a Reply that types text: the answer to a free-text question,
// "something else" on a card's choice, or a secret's value.
func Says(text string) Reply {
	return Reply{Answer: wisp.Answer{Outcome: wisp.OutcomeAnswered, Text: text, Provenance: wisp.FromPerson}}
}

// Chooses is a Reply that chooses an option by its text (on a card, its
// label).
func Chooses(option string) Reply {
	return Reply{Answer: wisp.Answer{Outcome: wisp.OutcomeChose, Text: option, Provenance: wisp.FromPerson}}
}

// ChoosesSeveral is a Reply that chooses several options of a card's
// multi-select question by their labels.
func ChoosesSeveral(labels ...string) Reply {
	return Reply{Answer: wisp.Answer{Outcome: wisp.OutcomeChose, Provenance: wisp.FromPerson}, Chosen: labels}
}

// ChoosesNth is a Reply that chooses the question's nth option, counting
// from 1.
func ChoosesNth(n int) Reply { return Reply{Nth: n} }

// ChoosesNths is a Reply that chooses several options of a card's
// multi-select question by position, counting from 1.
func ChoosesNths(ns ...int) Reply { return Reply{Nths: ns} }

// ChoosesNone is a Reply that chooses none of the options.
func ChoosesNone() Reply {
	return Reply{Answer: wisp.Answer{Outcome: wisp.OutcomeChoseNone, Provenance: wisp.FromPerson}}
}

// Declines is a Reply that declines to answer.
func Declines() Reply {
	return Reply{Answer: wisp.Answer{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson}}
}

// StaysSilent is a Reply that waits until the question's deadline. On a
// card, the person answers nothing more after it.
func StaysSilent() Reply { return Reply{Silent: true} }

// Interrupts is a Reply that stops the turn, as Ctrl-C does. On a card,
// the answers given before it are returned with wisp.ErrInterrupted.
func Interrupts() Reply { return Reply{Err: wisp.ErrInterrupted} }

// next returns the person's next reply: a decline once the list runs out.
func (p *Person) next() Reply {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := Declines()
	if len(p.answers) > 0 {
		r, p.answers = p.answers[0], p.answers[1:]
	}
	return r
}

// Ask answers with the next reply. A reply the question does not take
// (wisp.Question.Fit: text on a choice that names none of its options,
// text with control characters) is never returned: as a face would, the
// person is asked again, and the reply after it answers.
func (p *Person) Ask(ctx context.Context, q wisp.Question) (wisp.Answer, error) {
	if err := ctx.Err(); err != nil {
		return wisp.Answer{}, context.Cause(ctx)
	}
	p.mu.Lock()
	p.questions = append(p.questions, q)
	p.mu.Unlock()
	for {
		r := p.next()
		if r.Silent {
			<-ctx.Done()
			return wisp.Answer{}, context.Cause(ctx)
		}
		if r.Nth > 0 && r.Nth <= len(q.Options) {
			return wisp.Answer{Outcome: wisp.OutcomeChose, Text: q.Options[r.Nth-1], Provenance: wisp.FromPerson}, nil
		}
		if r.Err != nil {
			return r.Answer, r.Err
		}
		if _, err := q.Fit(r.Answer); err != nil {
			continue
		}
		return r.Answer, nil
	}
}

// AskCard answers each question of c with the next reply, in order. A
// silent reply waits for ctx to end, and a reply with Err stops the card:
// AskCard then returns the answers given so far with ctx's cause or Err.
// Typed text a question does not take (on a choice without Other, or
// with control characters) is asked again, as a face would: the next
// reply answers.
func (p *Person) AskCard(ctx context.Context, c wisp.Card) ([]wisp.CardAnswer, error) {
	if err := ctx.Err(); err != nil {
		return nil, context.Cause(ctx)
	}
	p.mu.Lock()
	p.cards = append(p.cards, c)
	p.mu.Unlock()
	answers := make([]wisp.CardAnswer, 0, len(c.Questions))
	// A card takes a reply for each of its questions, even those after
	// the person stopped.
	skip := func(i int) {
		for range len(c.Questions) - i - 1 {
			p.next()
		}
	}
	for i, q := range c.Questions {
		for {
			if err := ctx.Err(); err != nil {
				skip(i - 1)
				return answers, context.Cause(ctx)
			}
			r := p.next()
			if r.Silent {
				skip(i)
				<-ctx.Done()
				return answers, context.Cause(ctx)
			}
			if r.Err != nil {
				skip(i)
				return answers, r.Err
			}
			if a := r.cardAnswer(q); takes(q, a) {
				answers = append(answers, a)
				break
			}
		}
	}
	return answers, nil
}

// takes reports whether a card's question q takes the typed text of a:
// text without control characters, where the question takes text (free
// text, Other, a secret) or names one of its options.
func takes(q wisp.CardQuestion, a wisp.CardAnswer) bool {
	t := strings.TrimSpace(a.Text)
	if a.Outcome != wisp.OutcomeAnswered || t == "" {
		return true
	}
	if wisp.CheckTyped(t) != nil {
		return false
	}
	if len(q.Options) == 0 || q.Other {
		return true
	}
	for _, o := range q.Options {
		if strings.EqualFold(o.Label, t) {
			return true
		}
	}
	return false
}

// cardAnswer is r as the answer to a card's question q.
func (r Reply) cardAnswer(q wisp.CardQuestion) wisp.CardAnswer {
	label := func(n int) (string, bool) {
		if n < 1 || n > len(q.Options) {
			return "", false
		}
		return q.Options[n-1].Label, true
	}
	if r.Nth > 0 || len(r.Nths) > 0 {
		a := wisp.CardAnswer{Outcome: wisp.OutcomeChose, Provenance: wisp.FromPerson}
		for _, n := range append([]int{r.Nth}, r.Nths...) {
			if l, ok := label(n); ok {
				a.Chosen = append(a.Chosen, l)
			}
		}
		if len(a.Chosen) > 0 {
			return a
		}
	}
	a := wisp.CardAnswer{Outcome: r.Answer.Outcome, Chosen: r.Chosen, Text: r.Answer.Text, Provenance: r.Answer.Provenance}
	if a.Outcome == wisp.OutcomeChose && a.Chosen == nil {
		a.Chosen, a.Text = []string{a.Text}, ""
	}
	return a
}

// Notify records a notice.
func (p *Person) Notify(ctx context.Context, n wisp.Notice) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.notices = append(p.notices, n)
	return nil
}

// Questions returns the questions the person was asked.
func (p *Person) Questions() []wisp.Question {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]wisp.Question(nil), p.questions...)
}

// Cards returns the cards the person was shown.
func (p *Person) Cards() []wisp.Card {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]wisp.Card(nil), p.cards...)
}

// Notices returns what wisp told the person.
func (p *Person) Notices() []wisp.Notice {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]wisp.Notice(nil), p.notices...)
}

// A Recorder is an EventSink that keeps every event, and a Witness that
// vouches for what it kept. Safe for concurrent use.
type Recorder struct {
	mu     sync.Mutex
	events []wisp.Event
}

var _ wisp.Witness = (*Recorder)(nil)

// Vouched reports whether an event of kind was kept whose data, an
// InquiryAnsweredData or ApprovalAnsweredData, has ID id and FileSHA256
// sum.
func (r *Recorder) Vouched(ctx context.Context, kind, id, sum string) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.events {
		if e.Kind() != kind {
			continue
		}
		var gotID, gotSum string
		switch d := e.Data.(type) {
		case wisp.InquiryAnsweredData:
			gotID, gotSum = d.ID, d.FileSHA256
		case wisp.ApprovalAnsweredData:
			gotID, gotSum = d.ID, d.FileSHA256
		default:
			continue
		}
		if gotID == id && gotSum == sum {
			return true, nil
		}
	}
	return false, nil
}

// Record keeps e.
func (r *Recorder) Record(ctx context.Context, e wisp.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
	return nil
}

// Events returns the events whose kind starts with prefix ("" for all).
func (r *Recorder) Events(prefix string) []wisp.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []wisp.Event
	for _, e := range r.events {
		if strings.HasPrefix(e.Kind(), prefix) {
			out = append(out, e)
		}
	}
	return out
}

// Kinds returns the kinds of the recorded events, in order.
func (r *Recorder) Kinds() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, len(r.events))
	for i, e := range r.events {
		out[i] = e.Kind()
	}
	return out
}
