package pending

import (
	"context"
	"errors"
	"fmt"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry"
)

// Inbox returns the mail of parked questions for an agent whose questions
// go through desk: before each turn, the answers that arrived for the
// thread since its question parked, each settled through desk.Resume
// (inquiry.settled recorded, credentials marked, long answers cut) and
// posted as a notice (inquiry.LineLate) with the answer's fact; questions
// whose deadline passed unanswered are withdrawn and posted as timed out;
// and questions whose file cannot be read back (Damaged) are
// posted as never to be answered (inquiry.LineDamaged). Once the thread is
// saved, the questions are settled in the folder, damaged files too.
//
// Every face's conversation uses it (conversation.New gives it to the
// agent), so a thread started under wisp mcp and continued elsewhere
// still gets its answers.
func Inbox(store Store, desk *inquiry.Desk) wisp.Inbox {
	return &inbox{store: store, desk: desk}
}

type inbox struct {
	store Store
	desk  *inquiry.Desk
}

func (b *inbox) Take(ctx context.Context, thread string, turn int) ([]wisp.Mail, error) {
	if b.store.Dir == "" {
		return nil, nil
	}
	recs, err := b.store.Filed(thread)
	if err != nil {
		return nil, fmt.Errorf("the answers to its parked questions cannot be read: %w", err)
	}
	now := b.store.now()
	var mail []wisp.Mail
	damaged, err := b.store.Damaged()
	if err != nil {
		return nil, fmt.Errorf("the answers to its parked questions cannot be read: %w", err)
	}
	for _, d := range damaged {
		if d.Thread == thread {
			// Told once, then settled with the rest: it takes no answer.
			mail = append(mail, wisp.Mail{Text: inquiry.LineDamaged(d.ID), Key: d.ID})
		}
	}
	for _, r := range recs {
		q := r.Question
		wq := wisp.Question{ID: q.ID, Session: q.Session, Thread: q.Thread, Turn: q.Turn, Text: q.Text, Options: q.Options, Deadline: q.Deadline}
		var a wisp.Answer
		switch {
		case r.Answered:
			a = wisp.Answer{Outcome: r.Answer.Outcome, Text: r.Answer.Text, Provenance: wisp.FromPerson, FileSHA256: r.Answer.FileSHA256}
		case r.Withdrawn:
			mail = append(mail, wisp.Mail{Key: q.ID}) // counts for nothing; settled with the rest
			continue
		case !q.Deadline.IsZero() && now.After(q.Deadline):
			if err := b.store.Withdraw(ctx, q.ID, "its time ran out"); errors.Is(err, ErrAnswered) {
				continue // answered at the last moment: the next turn takes it
			} else if err != nil {
				return nil, err
			}
			a = wisp.Answer{Outcome: wisp.OutcomeTimedOut, Provenance: wisp.FromTimeout}
		default:
			continue
		}
		s := b.desk.Resume(ctx, wq, a, turn)
		m := wisp.Mail{Text: s.Line, Key: q.ID}
		if s.Fact != nil {
			m.Facts = []wisp.Fact{*s.Fact}
		}
		mail = append(mail, m)
	}
	return mail, nil
}

func (b *inbox) Delivered(ctx context.Context, _ string, mail []wisp.Mail) {
	for _, m := range mail {
		_ = b.store.Settle(ctx, m.Key)
	}
}
