package outofband

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/wisp-agent/wisp"
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
	type proc struct {
		cmd   *exec.Cmd
		stdin io.WriteCloser
		out   *bufio.Reader
		err   bytes.Buffer
		scope string
	}
	procs := make([]*proc, n)
	for i := range procs {
		p := &proc{cmd: exec.Command(os.Args[0], "-test.run=^$"), scope: []string{"none", "once"}[i%2]}
		p.cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s|%s|%s|%s", racerEnv, s.Dir, r.ID, r.Digest, p.scope))
		p.cmd.Stderr = &p.err
		var err error
		if p.stdin, err = p.cmd.StdinPipe(); err != nil {
			t.Fatal(err)
		}
		stdout, err := p.cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		p.out = bufio.NewReader(stdout)
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.cmd.Process.Kill(); p.cmd.Wait() })
		if line, err := p.out.ReadString('\n'); line != "ready\n" {
			t.Fatalf("racer %d: %q, %v; stderr: %s", i, line, err, p.err.String())
		}
		procs[i] = p
	}
	for _, p := range procs {
		io.WriteString(p.stdin, "go\n")
	}
	winner := -1
	for i, p := range procs {
		line, _ := p.out.ReadString('\n')
		switch line = strings.TrimSpace(line); {
		case line == "won" && winner >= 0:
			t.Errorf("racers %d and %d both won", winner, i)
		case line == "won":
			winner = i
		case line != "decided":
			t.Errorf("racer %d said %q, want won or decided; stderr: %s", i, line, p.err.String())
		}
	}
	if winner < 0 {
		t.Fatal("no racer won")
	}
	d, ok, err := s.Decided(r.ID)
	if err != nil || !ok || d.Scope.String() != procs[winner].scope {
		t.Errorf("Decided = %+v, %v, %v; want the scope of racer %d, %s", d, ok, err, winner, procs[winner].scope)
	}
}
