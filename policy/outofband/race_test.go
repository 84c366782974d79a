package outofband

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/internal/spool/spooltest"
)

// TestFirstDecisionWinsGoroutines races decisions and a withdrawal from
// many goroutines: exactly one of them wins, and the others are refused
// with ErrDecided or ErrWithdrawn as the winner dictates.
func TestFirstDecisionWinsGoroutines(t *testing.T) {
	const n = 16
	s := testStore(t)
	r := mustFile(t, s, enable)
	errs := make([]error, n+1)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			// Each racer is its own Store value, as in separate processes.
			scope := []wisp.Scope{wisp.ScopeNone, wisp.ScopeOnce, wisp.ScopeSession}[i%3]
			errs[i] = Store{Dir: s.Dir, Now: s.Now}.Decide(t.Context(), Decision{ID: r.ID, Digest: r.Digest, Scope: scope, From: FromElicitation})
		})
	}
	wg.Go(func() {
		<-start
		errs[n] = Store{Dir: s.Dir, Now: s.Now}.Withdraw(t.Context(), r.ID, "no answer within 1 min")
	})
	close(start)
	wg.Wait()
	won := 0
	for i, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, ErrDecided) && !errors.Is(err, ErrWithdrawn):
			t.Errorf("racer %d = %v, want nil, ErrDecided or ErrWithdrawn", i, err)
		}
	}
	if won != 1 {
		t.Fatalf("%d racers won, want exactly 1: %v", won, errs)
	}
	d, ok, err := s.Decided(r.ID)
	withdrawn := errs[n] == nil
	if err != nil || ok == withdrawn {
		t.Fatalf("Decided = %+v, %v, %v; the withdrawal won: %v", d, ok, err, withdrawn)
	}
}

// TestFirstDecisionWinsProcesses races decisions from processes (this
// test binary, run again): exactly one says it won, and its decision is
// filed.
func TestFirstDecisionWinsProcesses(t *testing.T) {
	const n = 8
	s := testStore(t)
	s.Now = nil // the racers use the real clock; so must the deadline
	r := mustFile(t, s, withID(pull, "0a0b0c0d"))
	scope := func(i int) string { return []string{"none", "once"}[i%2] }
	winner := spooltest.Race(t, racerEnv, n, func(i int) string {
		return fmt.Sprintf("%s|%s|%s|%s", s.Dir, r.ID, r.Digest, scope(i))
	}, "decided")
	d, ok, err := s.Decided(r.ID)
	if err != nil || !ok || d.Scope.String() != scope(winner) {
		t.Errorf("Decided = %+v, %v, %v; want the scope of racer %d, %s", d, ok, err, winner, scope(winner))
	}
}
