package mcpface

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry"
	"github.com/wisp-agent/wisp/inquiry/escape"
	"github.com/wisp-agent/wisp/inquiry/pending"
)

// unattended is the answer to a question no person can answer here.
var unattended = wisp.Answer{Outcome: wisp.OutcomeNoPerson, Provenance: wisp.FromUnattended}

// Ask files q, announces it, puts it to the client's dialog when allowed,
// and waits for the first answer from any face until the hold ends or the
// client goes away (the turn parks the question: wisp.OutcomeParked), or
// ctx ends (the question is withdrawn and Ask returns ctx's cause).
//
// An answer on file, the dialog's or one from wisp questions, counts
// only as the pending folder takes it: bound to the question's digest
// and, with a Witness, on record as inquiry.answered. It is returned
// marked wisp.FromPerson, with the SHA-256 of its file.
func (f *Face) Ask(ctx context.Context, q wisp.Question) (wisp.Answer, error) {
	sess := SessionFrom(ctx)
	if sess == nil || f.opts.Pending.Dir == "" {
		return unattended, nil
	}
	if ctx.Err() != nil {
		return wisp.Answer{}, context.Cause(ctx)
	}
	// The hold starts before the question is filed, so it never outlasts
	// the question by more than Hold.
	hold := f.opts.After(f.opts.Hold)
	store := f.opts.Pending
	store.NewID = func() string { return q.ID } // the desk's ID, which the model and the audit know
	pq, err := store.File(ctx, q)
	if err != nil {
		return wisp.Answer{}, err
	}
	sess.Notify("wisp: the model asks: " + escape.Terminal(pq.Text) + " — wisp questions answer " + pq.ID)
	d := f.putQuestion(ctx, sess, pq)

	waitCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		a   pending.Answer
		err error
	}
	answers := make(chan result, 1)
	go func() {
		a, err := f.opts.Pending.Wait(waitCtx, pq.ID)
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
				f.withdraw(pq.ID, why)
				d.withdraw()
				return wisp.Answer{}, context.Cause(ctx)
			}
			return wisp.Answer{}, res.err
		}
		d.close(sess, res.a.From)
		return answerOf(res.a), nil
	case <-hold:
	case <-sess.Gone():
	}
	// An answer filed as the hold ended is taken, not parked.
	if a, ok, err := f.opts.Pending.Answered(pq.ID); err == nil && ok {
		d.close(sess, a.From)
		return answerOf(a), nil
	}
	// The dialog stays open: an answer there still reaches the thread's
	// next turn.
	sess.Parked(pq)
	return wisp.Answer{Outcome: wisp.OutcomeParked}, nil
}

// Waiting reports whether a question filed for thread still waits.
func (f *Face) Waiting(_ context.Context, thread string) (bool, error) {
	if f.opts.Pending.Dir == "" {
		return false, nil
	}
	recs, err := f.opts.Pending.Filed(thread)
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(recs, func(r pending.Record) bool { return !r.Answered && !r.Withdrawn }), nil
}

// Settled forgets a question answered within its turn, once the turn's
// thread has been saved with the answer: until then a crash leaves the
// answer on file, and the thread's next turn takes it as a late answer.
// Within a turn that answers to a client, the Session settles it once the
// thread is saved; outside one, it is settled now.
func (f *Face) Settled(ctx context.Context, q wisp.Question) {
	if f.opts.Pending.Dir == "" {
		return
	}
	if sess := SessionFrom(ctx); sess != nil {
		sess.Answered(q.ID)
		return
	}
	if err := f.opts.Pending.Settle(ctx, q.ID); err != nil {
		f.opts.Logger.Error("settling a question", "id", q.ID, "error", err)
	}
}

// answerOf turns a filed answer into the face's answer, naming the file
// it was taken from.
func answerOf(a pending.Answer) wisp.Answer {
	return wisp.Answer{Outcome: a.Outcome, Text: a.Text, Provenance: wisp.FromPerson, FileSHA256: a.FileSHA256}
}

// withdraw withdraws question id, keeping an answer that won first.
func (f *Face) withdraw(id, why string) {
	err := f.opts.Pending.Withdraw(context.Background(), id, why)
	if err != nil && !errors.Is(err, pending.ErrAnswered) {
		f.opts.Logger.Error("withdrawing a question", "id", id, "error", err)
	}
}

// A questionDialog is a question put to the client's dialog, or none.
type questionDialog struct {
	id     string
	cancel context.CancelFunc // nil when the question was not put
	once   sync.Once
}

// putQuestion puts q to sess's dialog when the settings and the client
// allow. The dialog outlives the turn's wait: it is withdrawn when
// another face answers first, not when the question parks.
func (f *Face) putQuestion(ctx context.Context, sess Session, q pending.Question) *questionDialog {
	d := &questionDialog{id: q.ID}
	if !f.dialogs(sess) {
		return d
	}
	dctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	d.cancel = cancel
	sess.Elicit(dctx, Form{Kind: KindQuestion, ID: q.ID, Params: questionParams(q)},
		func(ctx context.Context, reply *mcp.ElicitationResult) string { return f.fileReply(ctx, q, reply) })
	return d
}

// withdraw withdraws the dialog, if there is one.
func (d *questionDialog) withdraw() {
	if d.cancel != nil {
		d.once.Do(d.cancel)
	}
}

// close withdraws the client's dialog once the question was answered in
// another face (from), and tells the client so.
func (d *questionDialog) close(sess Session, from string) {
	if d.cancel == nil || from == pending.FromElicitation {
		return
	}
	d.withdraw()
	sess.Notify("wisp: question " + d.id + " was answered from " + from + "; an answer in its dialog will not be used")
}

// questionParams is the form the client shows for q: the question,
// escaped, what the answer is not (private), and a field for the answer:
// a choice of the options (and none of these), or free text.
func questionParams(q pending.Question) mcp.ElicitationParams {
	msg := "wisp's model asks: " + escape.Terminal(q.Text) + "\n\n" + notPrivate(q.Thread) +
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

// notPrivate says, in a dialog, who else reads what the person answers.
func notPrivate(thread string) string {
	return "Your answer is not private from the agent that called wisp: it can read thread " + thread +
		" (its output, context, facts and audit) through wisp://threads/" + thread + ". "
}

// fileReply files the dialog's reply to q, bound to q's digest. It
// returns a line for the client when the answer was not used ("" when it
// was, or when the person dismissed the dialog).
func (f *Face) fileReply(ctx context.Context, q pending.Question, reply *mcp.ElicitationResult) string {
	if reply == nil {
		return ""
	}
	if !q.Deadline.IsZero() && f.opts.Now().After(q.Deadline) {
		return "wisp: the dialog's answer to question " + q.ID + " came after its deadline and was not used"
	}
	a := pending.Answer{ID: q.ID, Digest: q.Digest, From: pending.FromElicitation}
	switch reply.Action {
	case mcp.ElicitationResponseActionAccept:
		text, ok := elicitedText(reply.Content)
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
	err := f.opts.Pending.Answer(ctx, a)
	switch {
	case err == nil:
		if f.opts.Pending.Witness == nil { // a Witness recorded it already
			f.record(ctx, wisp.Event{Session: q.Session, Thread: q.Thread, Turn: q.Turn, Source: wisp.SourcePerson,
				Data: wisp.InquiryAnsweredData{ID: q.ID, Question: q.Text, Outcome: a.Outcome.String(), From: a.From, Answer: a.Text}})
		}
		return ""
	case errors.Is(err, pending.ErrAnswered), errors.Is(err, pending.ErrWithdrawn), errors.Is(err, pending.ErrNoQuestion), errors.Is(err, pending.ErrStale):
		return "wisp: the dialog's answer was not used: " + err.Error()
	case errors.Is(err, pending.ErrUnrecorded):
		f.opts.Logger.Error("recording the dialog's answer", "id", q.ID, "error", err)
		return "wisp: the dialog's answer was not used: the audit log could not record it; answer at a terminal: wisp questions answer " + q.ID
	default:
		f.opts.Logger.Error("filing the dialog's answer", "id", q.ID, "error", err)
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
