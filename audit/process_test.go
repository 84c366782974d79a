package audit

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// childEnv, when set, makes the test binary a child writer instead of
// running tests. Its value is "mode dir name count".
const childEnv = "AUDIT_TEST_CHILD"

func TestMain(m *testing.M) {
	if spec := os.Getenv(childEnv); spec != "" {
		os.Exit(child(spec))
	}
	os.Exit(m.Run())
}

// child appends as a separate process. Mode "append" appends count
// records; mode "ack" appends up to count records and, after each Append
// returns, writes its seq to stdout, so the parent knows which records were
// acknowledged when it kills the child.
func child(spec string) int {
	f := strings.Fields(spec)
	if len(f) != 4 {
		fmt.Fprintf(os.Stderr, "bad %s %q\n", childEnv, spec)
		return 2
	}
	mode, dir, name := f[0], f[1], f[2]
	count, err := strconv.Atoi(f[3])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	l, err := Open(dir, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer l.Close()
	for i := range count {
		r, err := l.Append(context.Background(), Entry{Kind: "child." + mode, Session: name, Turn: i, Source: SourceTool,
			Data: map[string]string{"pad": strings.Repeat("p", i%300)}})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if mode == "ack" {
			if _, err := fmt.Printf("%d\n", r.Seq); err != nil {
				return 1 // the parent has gone
			}
		}
	}
	return 0
}

// startChild starts the test binary as a child writer.
func startChild(t *testing.T, mode, dir, name string, count int) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %s %s %d", childEnv, mode, dir, name, count))
	cmd.Stderr = &strings.Builder{}
	return cmd
}

// TestTwoProcesses has two processes append to one log at once.
func TestTwoProcesses(t *testing.T) {
	t.Parallel()
	const each = 200
	dir := filepath.Join(t.TempDir(), "audit")
	if l, err := Open(dir, nil); err != nil {
		t.Fatal(err)
	} else {
		l.Close()
	}
	var cmds []*exec.Cmd
	for _, name := range []string{"a", "b"} {
		cmd := startChild(t, "append", dir, name, each)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill() })
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("child: %v\n%s", err, cmd.Stderr)
		}
	}
	mustIntact(t, dir, 2*each)
	recs, err := Read(dir, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(oneTo(2*each), seqs(recs)); diff != "" {
		t.Errorf("seqs (-want +got):\n%s", diff)
	}
	next := map[string]int{}
	for _, r := range recs {
		if r.Turn != next[r.Session] {
			t.Fatalf("child %s: turn %d at seq %d, want %d", r.Session, r.Turn, r.Seq, next[r.Session])
		}
		next[r.Session]++
	}
	if diff := cmp.Diff(map[string]int{"a": each, "b": each}, next); diff != "" {
		t.Errorf("records per child (-want +got):\n%s", diff)
	}
}

// TestKill kills a writing child with SIGKILL at random points, 20 times
// over one log. After each kill the chain must hold (a torn line is
// allowed; a break is not) and every record the child acknowledged must be
// in the log; the next child recovers any torn line.
func TestKill(t *testing.T) {
	t.Parallel()
	const trials = 20
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 0))
	t.Logf("seed %d", seed)
	dir := filepath.Join(t.TempDir(), "audit")
	acked := map[int64]string{}
	var torn, recovered int
	for trial := range trials {
		name := fmt.Sprintf("c%d", trial)
		cmd := startChild(t, "ack", dir, name, 100000)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill() })
		want := 1 + rng.IntN(40)
		reached := make(chan struct{})
		var mine []int64
		var wg sync.WaitGroup
		wg.Go(func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				seq, err := strconv.ParseInt(sc.Text(), 10, 64)
				if err != nil {
					t.Errorf("child wrote %q", sc.Text())
					continue
				}
				if mine = append(mine, seq); len(mine) == want {
					close(reached)
				}
			}
		})
		select {
		case <-reached:
		case <-time.After(20 * time.Second):
			t.Fatalf("trial %d: the child acknowledged %d records in 20 s, want %d\n%s", trial, len(mine), want, cmd.Stderr)
		}
		time.Sleep(time.Duration(rng.IntN(2000)) * time.Microsecond)
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		wg.Wait()
		for _, s := range mine {
			acked[s] = name
		}

		rep, err := Verify(dir)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Break != nil {
			t.Fatalf("trial %d: after kill -9: %v", trial, rep)
		}
		if rep.Torn != nil {
			torn++
		}
		recs, err := Read(dir, Filter{})
		if err != nil {
			t.Fatal(err)
		}
		bySeq := map[int64]Record{}
		for _, r := range recs {
			bySeq[r.Seq] = r
			if r.Kind == KindRecovered {
				recovered++
			}
		}
		for s, who := range acked {
			if r, ok := bySeq[s]; !ok || r.Session != who {
				t.Fatalf("trial %d: acknowledged record %d of %s is lost (found %+v)", trial, s, who, r)
			}
		}
	}
	l, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, l, Entry{Kind: "after.kills", Source: SourceWisp})
	l.Close()
	rep, err := Verify(dir)
	if err != nil || rep.Break != nil || rep.Torn != nil {
		t.Fatalf("after %d kills and an append: %v, %v; want the chain intact", trials, rep, err)
	}
	t.Logf("%d kills, %d acknowledged records kept, %d torn tails seen, %d recovered; %v", trials, len(acked), torn, recovered, rep)
}
