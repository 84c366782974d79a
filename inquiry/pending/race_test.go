package pending

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
	type proc struct {
		cmd   *exec.Cmd
		stdin io.WriteCloser
		out   *bufio.Reader
		err   bytes.Buffer
	}
	procs := make([]*proc, n)
	for i := range procs {
		p := &proc{cmd: exec.Command(os.Args[0], "-test.run=^$")}
		p.cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s|%s|%s|%d", racerEnv, s.Dir, q.ID, q.Digest, i))
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
		case line != "answered":
			t.Errorf("racer %d said %q, want won or answered; stderr: %s", i, line, p.err.String())
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

// TestCreateExclusive checks the primitive the first answer rests on,
// without the lock: of goroutines linking the same name, one succeeds and
// the others get errExists, and no temp file is left.
func TestCreateExclusive(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/a1b2c3d4.answer.json"
	const n = 32
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = createExclusive(path, []byte(fmt.Sprint(i))) })
	}
	wg.Wait()
	won := 0
	for i, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, errExists):
			t.Errorf("createExclusive %d = %v", i, err)
		}
	}
	if won != 1 {
		t.Errorf("%d writers won, want 1", won)
	}
	if n := names(t, dir); len(n) != 1 {
		t.Errorf("folder holds %q, want only the answer", n)
	}
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode() != 0o600 {
		t.Errorf("answer mode = %v, %v; want 0600", fi, err)
	}
}
