package pending

import (
	"cmp"
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"
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
	if err := s.useDir(false); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	entries, err := os.ReadDir(s.Dir)
	if err != nil {
		return nil, err
	}
	var recs []Record
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), "."+kindQuestion+".json")
		if !ok || !ValidID(id) {
			continue
		}
		q, err := s.readQuestion(id)
		switch {
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, ErrMalformed):
			continue
		case err != nil:
			return nil, err
		}
		if thread != "" && q.Thread != thread {
			continue
		}
		r := Record{Question: q}
		if r.Answer, r.Answered, err = s.answerOf(q); err != nil {
			return nil, err
		}
		if !r.Answered {
			if r.Withdrawn, err = present(s.path(id, kindWithdrawn)); err != nil {
				return nil, err
			}
		}
		recs = append(recs, r)
	}
	slices.SortFunc(recs, func(a, b Record) int {
		return cmp.Or(a.Question.Asked.Compare(b.Question.Asked), strings.Compare(a.Question.ID, b.Question.ID))
	})
	return recs, nil
}
