package threadfile_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/agent/threadfile"
)

// echoModel replies to each input with "re: " and the input.
var echoModel = wisp.ModelFunc(func(ctx context.Context, req wisp.ChatRequest, _ func(wisp.ChatDelta)) (wisp.ChatResponse, error) {
	return wisp.ChatResponse{Message: wisp.Message{Content: "re: " + req.Messages[len(req.Messages)-1].Content}}, nil
})

// checkTurns checks that the thread id in d holds n turns, each input
// once with its own reply right after it, and returns the inputs in the
// thread's order.
func checkTurns(t *testing.T, d threadfile.Dir, id string, n int) []string {
	t.Helper()
	st, ok, err := d.Load(id)
	if err != nil || !ok {
		t.Fatalf("Load(%q) = %v, %v", id, ok, err)
	}
	if st.Turn != n || len(st.Messages) != 2*n {
		t.Fatalf("the thread is at turn %d with %d messages; want %d turns, %d messages: turns were lost", st.Turn, len(st.Messages), n, 2*n)
	}
	var inputs []string
	for i := 0; i < len(st.Messages); i += 2 {
		in, out := st.Messages[i], st.Messages[i+1]
		if in.Role != wisp.RoleUser || out.Content != "re: "+in.Content {
			t.Errorf("messages %d and %d are %q and %q; want an input and its reply", i, i+1, in.Content, out.Content)
		}
		inputs = append(inputs, in.Content)
	}
	if sorted := slices.Sorted(slices.Values(inputs)); len(slices.Compact(sorted)) != n {
		t.Errorf("inputs %q: want %d different ones", inputs, n)
	}
	return inputs
}

// Turns on one thread by agents that share nothing but the folder, as
// processes do, never lose each other: each waits for the one before.
func TestConcurrentTurnsOnOneThread(t *testing.T) {
	const n = 8
	path := t.TempDir()
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			d := threadfile.Dir{Path: path, Locks: filepath.Join(path, "locks")}
			if _, err := agent.New(echoModel, &agent.Options{Store: d}).Respond(t.Context(), "shared", fmt.Sprint("parallel ", i)); err != nil {
				t.Errorf("turn %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	checkTurns(t, threadfile.Dir{Path: path}, "shared", n)
}

// The same across processes: this test binary, run again as a helper,
// takes one turn in each.
func TestConcurrentTurnsAcrossProcesses(t *testing.T) {
	const n = 8
	path := t.TempDir()
	cmds := make([]*exec.Cmd, n)
	for i := range cmds {
		cmds[i] = exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestHelperTurn$")
		cmds[i].Env = append(os.Environ(), "WISP_THREADFILE_HELPER="+path, "WISP_THREADFILE_INPUT=process "+strconv.Itoa(i))
	}
	for _, c := range cmds {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Errorf("helper %d: %v", i, err)
		}
	}
	checkTurns(t, threadfile.Dir{Path: path}, "shared", n)
}

// TestHelperTurn is one process of TestConcurrentTurnsAcrossProcesses.
func TestHelperTurn(t *testing.T) {
	path := os.Getenv("WISP_THREADFILE_HELPER")
	if path == "" {
		t.Skip("a helper of TestConcurrentTurnsAcrossProcesses")
	}
	d := threadfile.Dir{Path: path, Locks: filepath.Join(path, "locks")}
	if _, err := agent.New(echoModel, &agent.Options{Store: d}).Respond(context.Background(), "shared", os.Getenv("WISP_THREADFILE_INPUT")); err != nil {
		t.Fatal(err)
	}
}

// Lock says once that it waits for a thread held elsewhere, and the wait
// ends with ctx; the lock lives under Locks.
func TestLockWaits(t *testing.T) {
	d := threadfile.Dir{Path: t.TempDir()}
	d.Locks = filepath.Join(d.Path, "locks")
	unlock, err := d.Lock(t.Context(), "t1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(d.Locks, "thread-t1.lock")); err != nil {
		t.Errorf("lock file: %v", err)
	}
	ctx, cancel := context.WithCancelCause(t.Context())
	stop := fmt.Errorf("stopped")
	res := make(chan error, 1)
	go func() {
		u, err := threadfile.Dir{Path: d.Path, Locks: d.Locks}.Lock(ctx, "t1", func() { cancel(stop) })
		if u != nil {
			u()
		}
		res <- err
	}()
	if err := <-res; err == nil || context.Cause(ctx) != stop {
		t.Errorf("Lock of a held thread = %v; want it to wait, say so and end with its ctx", err)
	}
	unlock()
	unlock() // twice is harmless
	u, err := d.Lock(ctx, "t1", func() { t.Error("waited for a free thread") })
	if err != nil {
		t.Fatalf("Lock of a free thread under a done ctx = %v", err)
	}
	u()
}

// Holding a thread sweeps the temp files a save killed before its rename
// left beside its file, and no others.
func TestLockSweepsTemps(t *testing.T) {
	d := threadfile.Dir{Path: t.TempDir()}
	for _, name := range []string{".t1.json.tmp-123", ".t1.json.tmp-9", ".t2.json.tmp-5", ".t1.json.tmp-x"} {
		if err := os.WriteFile(filepath.Join(d.Path, name), []byte("{"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	unlock, err := d.Lock(t.Context(), "t1", nil)
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	var left []string
	entries, _ := os.ReadDir(d.Path)
	for _, e := range entries {
		left = append(left, e.Name())
	}
	want := []string{".t1.json.tmp-x", ".t2.json.tmp-5", "thread-t1.lock"}
	if !slices.Equal(left, want) {
		t.Errorf("left in the folder: %q, want %q", left, want)
	}
}
