package pending

import (
	"context"
	"slices"
)

// A Record is a filed question and how it stands.
type Record struct {
	Question Question
	// Answer is the first answer, when Answered is set.
	Answer   Answer
	Answered bool
	// Withdrawn is set when the question was withdrawn before any answer.
	Withdrawn bool
}

// Filed returns every question filed for thread, or for every thread when
// thread is empty, whether it waits, was answered or was withdrawn,
// oldest first. The asking thread uses it to take answers that arrived
// after the turn that asked. Like List, it returns nothing when the
// folder does not exist, skips question files wisp did not write, and
// fails on a file it must not trust; it fails too on an answer bound to
// another question (ErrStale).
func (s Store) Filed(thread string) ([]Record, error) {
	var recs []Record
	st := s.store()
	for q, err := range st.Records() {
		if err != nil {
			return nil, err
		}
		if thread != "" && q.Thread != thread {
			continue
		}
		r := Record{Question: q}
		if r.Answer, r.Answered, err = st.Answer(context.Background(), q.ID, q); err != nil {
			return nil, err
		}
		if !r.Answered {
			if r.Withdrawn, err = st.Withdrawn(q.ID); err != nil {
				return nil, err
			}
		}
		recs = append(recs, r)
	}
	slices.SortFunc(recs, func(a, b Record) int { return byAsked(a.Question, b.Question) })
	return recs, nil
}
