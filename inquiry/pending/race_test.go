package pending

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/internal/spool/spooltest"
)

// TestFirstAnswerWinsGoroutines races answers from many goroutines: one
// wins, the others get ErrAnswered, and the answer on file is the
// winner's.
func TestFirstAnswerWinsGoroutines(t *testing.T) {
	const n = 16
	s := testStore(t)
	q := mustFile(t, s, free)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			// Each racer is its own Store value, as in separate processes.
			r := Store{Dir: s.Dir}
			errs[i] = r.Answer(t.Context(), Answer{ID: q.ID, Digest: q.Digest, Outcome: wisp.OutcomeAnswered, Text: fmt.Sprint("racer ", i), From: FromChat})
		})
	}
	close(start)
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner >= 0:
			t.Errorf("racers %d and %d both won", winner, i)
		case err == nil:
			winner = i
		case !errors.Is(err, ErrAnswered):
			t.Errorf("racer %d: Answer = %v, want nil or ErrAnswered", i, err)
		}
	}
	if winner < 0 {
		t.Fatal("no racer won")
	}
	a, ok, err := s.Answered(q.ID)
	if err != nil || !ok || a.Text != fmt.Sprint("racer ", winner) {
		t.Errorf("Answered = %q, %v, %v; want the text of racer %d", a.Text, ok, err, winner)
	}
}

// TestFirstAnswerWinsProcesses races answers from processes (this test
// binary, run again): exactly one says it won, and its answer is filed.
func TestFirstAnswerWinsProcesses(t *testing.T) {
	const n = 8
	s := testStore(t)
	q := mustFile(t, s, free)
	winner := spooltest.Race(t, racerEnv, n, func(i int) string {
		return fmt.Sprintf("%s|%s|%s|%d", s.Dir, q.ID, q.Digest, i)
	}, "answered")
	a, ok, err := s.Answered(q.ID)
	if err != nil || !ok || a.Text != fmt.Sprint("racer ", winner) {
		t.Errorf("Answered = %q, %v, %v; want the text of racer %d", a.Text, ok, err, winner)
	}
}
