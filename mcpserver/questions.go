package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/inquiry"
	"github.com/wisp-agent/wisp/inquiry/escape"
	"github.com/wisp-agent/wisp/inquiry/pending"
)

// DefaultHold is how long a respond call holds for the answer to a
// question before the turn parks it.
const DefaultHold = 60 * time.Second

// A Face is how the model's questions reach the person while wisp serves
// MCP. Build conversations with it (it is a wisp.Inquirer and an
// inquiry.Parker). Nothing in the MCP conversation answers a question:
//
//   - The question is filed in the pending folder (Options.Pending), where
//     wisp questions answer ID at a terminal, or a plain wisp chat, can
//     answer it, and announced to the client by one notification, "wisp:
//     the model asks: … — wisp questions answer ID".
//   - With Options.Elicitation (inquiry.elicitation) on and a client that
//     declared the elicitation capability, it is also put to the client's
//     own dialog: as an input request on a 2026-07-28 connection, as an
//     elicitation/create request on an older one. The person sees that
//     dialog; the first answer from any face wins and the others are
//     withdrawn.
//   - The call holds for Options.Hold (60 s); then the turn parks the
//     question: the model reads inquiry.LineParked, respond returns it,
//     and the answer reaches the thread's next turn through the Inbox.
//
// Outside a respond call (no run in the context) and without a pending
// folder, a question gets "no person can answer here".
type Face struct{ s *Server }

var (
	_ wisp.Inquirer  = (*Face)(nil)
	_ inquiry.Parker = (*Face)(nil)
)

// Face returns the server's question face.
func (s *Server) Face() *Face { return &Face{s: s} }

// Ask files q, announces it, elicits it when allowed, and waits for the
// first answer until the hold ends, the caller goes away (the turn parks)
// or ctx ends (the question is withdrawn).
func (f *Face) Ask(ctx context.Context, q wisp.Question) (wisp.Answer, error) {
	s := f.s
	r := runFrom(ctx)
	if r == nil || s.opts.Pending.Dir == "" {
		return wisp.Answer{Outcome: wisp.OutcomeNoPerson, Provenance: wisp.FromUnattended}, nil
	}
	// The hold starts before the question is filed, so it never outlasts
	// the question by more than Hold.
	hold := s.opts.After(s.opts.Hold)
	store := s.opts.Pending
	store.NewID = func() string { return q.ID } // the desk's ID, which the model and the audit know
	pq, err := store.File(ctx, q)
	if err != nil {
		return wisp.Answer{}, err
	}
	s.announce(r, pq)
	s.elicit(r, pq)

	waitCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		a   pending.Answer
		err error
	}
	answers := make(chan result, 1)
	go func() {
		a, err := s.opts.Pending.Wait(waitCtx, pq.ID)
		answers <- result{a, err}
	}()
	select {
	case res := <-answers:
		if res.err != nil {
			if ctx.Err() != nil {
				why := "the turn was stopped"
				if errors.Is(ctx.Err(), context.DeadlineExceeded) {
					why = "its time ran out"
				}
				s.withdraw(pq.ID, why)
				return wisp.Answer{}, context.Cause(ctx)
			}
			return wisp.Answer{}, res.err
		}
		s.closeDialog(r, pq.ID, res.a.From)
		return answerOf(res.a), nil
	case <-hold:
	case <-r.park:
	}
	// An answer filed as the hold ended is taken, not parked.
	if a, ok, err := s.opts.Pending.Answered(pq.ID); err == nil && ok {
		s.closeDialog(r, pq.ID, a.From)
		return answerOf(a), nil
	}
	r.mu.Lock()
	r.parked = append(r.parked, pq)
	r.mu.Unlock()
	return wisp.Answer{Outcome: wisp.OutcomeParked}, nil
}

// Waiting reports whether a question filed for thread still waits.
func (f *Face) Waiting(_ context.Context, thread string) (bool, error) {
	if f.s.opts.Pending.Dir == "" {
		return false, nil
	}
	recs, err := f.s.opts.Pending.Filed(thread)
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(recs, func(r pending.Record) bool { return !r.Answered && !r.Withdrawn }), nil
}

// Settled forgets a question answered within its turn, once the turn's
// thread has been saved with the answer: until then a crash leaves the
// answer on file, and the thread's next turn takes it as a late answer.
func (f *Face) Settled(ctx context.Context, q wisp.Question) {
	if f.s.opts.Pending.Dir == "" {
		return
	}
	if r := runFrom(ctx); r != nil {
		r.mu.Lock()
		r.settle = append(r.settle, q.ID)
		r.mu.Unlock()
		return
	}
	f.s.settle(ctx, q.ID)
}

// settle forgets question id.
func (s *Server) settle(ctx context.Context, id string) {
	if err := s.opts.Pending.Settle(ctx, id); err != nil {
		s.opts.Logger.Error("settling a question", "id", id, "error", err)
	}
}

// answerOf turns a filed answer into the face's answer, naming the file
// it was taken from.
func answerOf(a pending.Answer) wisp.Answer {
	return wisp.Answer{Outcome: a.Outcome, Text: a.Text, Provenance: wisp.FromPerson, FileSHA256: a.FileSHA256}
}

// withdraw withdraws question id, keeping an answer that won first.
func (s *Server) withdraw(id, why string) {
	err := s.opts.Pending.Withdraw(context.Background(), id, why)
	if err != nil && !errors.Is(err, pending.ErrAnswered) {
		s.opts.Logger.Error("withdrawing a question", "id", id, "error", err)
	}
}

// announce sends the one notification about a question to the waiting
// caller.
func (s *Server) announce(r *run, q pending.Question) {
	s.tell(r, "wisp: the model asks: "+escape.Terminal(q.Text)+" — wisp questions answer "+q.ID)
}

// elicit puts q to the client's dialog when the settings and the client
// allow.
func (s *Server) elicit(r *run, q pending.Question) {
	s.putToDialog(r, elicitation{
		kind:   kindQuestion,
		id:     q.ID,
		params: elicitationParams(q),
		file: func(ctx context.Context, res *mcp.ElicitationResult) string {
			return s.fileElicited(ctx, q, res)
		},
	}, nil)
}

// closeDialog withdraws the client's dialog for question id once the
// question was answered in another face, and tells the client so.
func (s *Server) closeDialog(r *run, id, from string) {
	if from == pending.FromElicitation {
		return
	}
	key := kindQuestion + ":" + id
	s.mu.Lock()
	cancel := s.dialogs[key]
	s.mu.Unlock()
	r.mu.Lock()
	_, elicited := r.elicited[key]
	r.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	if cancel != nil || elicited {
		s.tell(r, "wisp: question "+id+" was answered from "+from+"; an answer in its dialog will not be used")
	}
}

// elicitationParams is the form the client shows for q: the question,
// escaped, what the answer is not (private), and a field for the answer:
// a choice of the options (and none of these), or free text.
func elicitationParams(q pending.Question) mcp.ElicitationParams {
	msg := "wisp's model asks: " + escape.Terminal(q.Text) + "\n\n" +
		"Your answer is not private from the agent that called wisp: it can read thread " + q.Thread +
		" (its output, context, facts and audit) through wisp://threads/" + q.Thread + ". " +
		"You can also answer at a terminal: wisp questions answer " + q.ID
	var field map[string]any
	if q.FreeText() {
		field = map[string]any{"type": "string", "title": "Your answer", "minLength": 1, "maxLength": inquiry.MaxAnswerBytes}
	} else {
		var choices []any
		for _, o := range append(slices.Clone(q.Options), inquiry.NoneOfThese) {
			choices = append(choices, map[string]any{"const": o, "title": escape.Terminal(o)})
		}
		field = map[string]any{"type": "string", "title": "Your choice", "oneOf": choices}
	}
	return mcp.ElicitationParams{
		Mode:    mcp.ElicitationModeForm,
		Message: msg,
		RequestedSchema: map[string]any{
			"type":       "object",
			"properties": map[string]any{"answer": field},
			"required":   []string{"answer"},
		},
	}
}

// fileElicited files the dialog's answer to q, bound to q's digest. It
// returns a line for the client when the answer was not used ("" when it
// was, or when the person dismissed the dialog).
func (s *Server) fileElicited(ctx context.Context, q pending.Question, res *mcp.ElicitationResult) string {
	if res == nil {
		return ""
	}
	if !q.Deadline.IsZero() && time.Now().After(q.Deadline) {
		return "wisp: the dialog's answer to question " + q.ID + " came after its deadline and was not used"
	}
	a := pending.Answer{ID: q.ID, Digest: q.Digest, From: pending.FromElicitation}
	switch res.Action {
	case mcp.ElicitationResponseActionAccept:
		text, ok := elicitedText(res.Content)
		if !ok {
			return "wisp: the dialog's answer to question " + q.ID + " was not one it takes; it still waits: wisp questions answer " + q.ID
		}
		// The one rule of what an answer may be: an option or none of
		// these on a choice, text without control characters on free text.
		got, err := wisp.Question{Options: q.Options}.Fit(wisp.Answer{Outcome: wisp.OutcomeAnswered, Text: text, Provenance: wisp.FromPerson})
		if err != nil {
			return "wisp: the dialog's answer to question " + q.ID + " was not used (" + err.Error() + "); it still waits: wisp questions answer " + q.ID
		}
		a.Outcome, a.Text = got.Outcome, got.Text
	case mcp.ElicitationResponseActionDecline:
		a.Outcome = wisp.OutcomeDeclined
	default: // cancelled: dismissed without a choice; the question still waits
		return ""
	}
	err := s.opts.Pending.Answer(ctx, a)
	switch {
	case err == nil:
		if s.opts.Pending.Witness == nil { // a Witness recorded it already
			s.record(ctx, wisp.Event{Session: q.Session, Thread: q.Thread, Turn: q.Turn, Source: wisp.SourcePerson,
				Data: wisp.InquiryAnsweredData{ID: q.ID, Question: q.Text, Outcome: a.Outcome.String(), From: a.From, Answer: a.Text}})
		}
		return ""
	case errors.Is(err, pending.ErrAnswered), errors.Is(err, pending.ErrWithdrawn), errors.Is(err, pending.ErrNoQuestion), errors.Is(err, pending.ErrStale):
		return "wisp: the dialog's answer was not used: " + err.Error()
	case errors.Is(err, pending.ErrUnrecorded):
		s.opts.Logger.Error("recording the dialog's answer", "id", q.ID, "error", err)
		return "wisp: the dialog's answer was not used: the audit log could not record it; answer at a terminal: wisp questions answer " + q.ID
	default:
		s.opts.Logger.Error("filing the dialog's answer", "id", q.ID, "error", err)
		return "wisp: the dialog's answer could not be filed; answer at a terminal: wisp questions answer " + q.ID
	}
}

// elicitedText takes the answer field out of a dialog's content: one
// string of 1 to 2,000 characters of UTF-8 (what the form's schema
// allows; the desk passes on at most 2,000 bytes of it), and nothing else.
func elicitedText(content any) (string, bool) {
	m, ok := content.(map[string]any)
	if !ok || len(m) != 1 {
		return "", false
	}
	text, ok := m["answer"].(string)
	if !ok || strings.TrimSpace(text) == "" || utf8.RuneCountInString(text) > inquiry.MaxAnswerBytes || len(text) > pending.MaxAnswerBytes || !utf8.ValidString(text) {
		return "", false
	}
	return text, true
}

// Inbox returns the mail of parked questions for an agent whose questions
// go through desk: before each turn, the answers that arrived for the
// thread since its question parked, each settled through desk.Resume
// (inquiry.settled recorded, credentials marked, long answers cut) and
// posted as a notice (inquiry.LineLate) with the answer's fact; questions
// whose deadline passed unanswered are withdrawn and posted as timed out;
// and questions whose file cannot be read back (pending.Damaged) are
// posted as never to be answered (inquiry.LineDamaged). Once the thread is
// saved, the questions are settled in the folder, damaged files too.
//
// Chat and respond use it too, so a thread started under wisp mcp and
// continued elsewhere still gets its answers.
func Inbox(store pending.Store, desk *inquiry.Desk) agent.Inbox {
	return &inbox{store: store, desk: desk}
}

type inbox struct {
	store pending.Store
	desk  *inquiry.Desk
	now   func() time.Time
}

func (b *inbox) Take(ctx context.Context, thread string, turn int) ([]agent.Mail, error) {
	if b.store.Dir == "" {
		return nil, nil
	}
	recs, err := b.store.Filed(thread)
	if err != nil {
		return nil, fmt.Errorf("the answers to its parked questions cannot be read: %w", err)
	}
	now := time.Now()
	if b.now != nil {
		now = b.now()
	}
	var mail []agent.Mail
	damaged, err := b.store.Damaged()
	if err != nil {
		return nil, fmt.Errorf("the answers to its parked questions cannot be read: %w", err)
	}
	for _, d := range damaged {
		if d.Thread == thread {
			// Told once, then settled with the rest: it takes no answer.
			mail = append(mail, agent.Mail{Text: inquiry.LineDamaged(d.ID), Key: d.ID})
		}
	}
	for _, r := range recs {
		q := r.Question
		wq := wisp.Question{ID: q.ID, Session: q.Session, Thread: q.Thread, Turn: q.Turn, Text: q.Text, Options: q.Options, Deadline: q.Deadline}
		var a wisp.Answer
		switch {
		case r.Answered:
			a = answerOf(r.Answer)
		case r.Withdrawn:
			mail = append(mail, agent.Mail{Key: q.ID}) // counts for nothing; settled with the rest
			continue
		case !q.Deadline.IsZero() && now.After(q.Deadline):
			if err := b.store.Withdraw(ctx, q.ID, "its time ran out"); errors.Is(err, pending.ErrAnswered) {
				continue // answered at the last moment: the next turn takes it
			} else if err != nil {
				return nil, err
			}
			a = wisp.Answer{Outcome: wisp.OutcomeTimedOut, Provenance: wisp.FromTimeout}
		default:
			continue
		}
		s := b.desk.Resume(ctx, wq, a, turn)
		m := agent.Mail{Text: s.Line, Key: q.ID}
		if s.Fact != nil {
			m.Facts = []wisp.Fact{*s.Fact}
		}
		mail = append(mail, m)
	}
	return mail, nil
}

func (b *inbox) Delivered(ctx context.Context, _ string, mail []agent.Mail) {
	for _, m := range mail {
		_ = b.store.Settle(ctx, m.Key)
	}
}
