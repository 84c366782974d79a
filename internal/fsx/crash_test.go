//go:build unix

package fsx_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/fsx"
)

// crashTrials sets how many times TestKill9 kills a writer. The default
// keeps go test quick; a release runs
//
//	go test ./internal/fsx -run TestKill9 -crashtrials=10000
//
// which takes some minutes.
var crashTrials = flag.Int("crashtrials", 40, "kill -9 trials for TestKill9")

// Environment of a re-executed test binary that plays the writer.
const (
	childEnv = "FSX_TEST_CRASH_CHILD" // the file to rewrite
	modeEnv  = "FSX_TEST_CRASH_MODE"  // "atomic" or "naive"
)

func TestMain(m *testing.M) {
	if path := os.Getenv(childEnv); path != "" {
		crashChild(path, os.Getenv(modeEnv))
		return
	}
	os.Exit(m.Run())
}

// crashContents are the two valid JSON documents the writer alternates
// between; their lengths differ so a torn write cannot pass for either.
func crashContents() [2][]byte {
	long := `{"tools":{"disabled":["shell"` + strings.Repeat(`,"read_file","write_file"`, 2000) + "]}}\n"
	return [2][]byte{[]byte(`{"tools":{"ask":true}}` + "\n"), []byte(long)}
}

// crashChild rewrites path for ever, alternating the two contents, and
// says "ready" on stdout after its first write.
func crashChild(path, mode string) {
	contents := crashContents()
	for i := 0; ; i++ {
		data := contents[(i+1)%2]
		var err error
		if mode == "naive" {
			err = os.WriteFile(path, data, 0o600)
		} else {
			err = fsx.WriteFile(path, data, 0o600)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		if i == 0 {
			fmt.Println("ready")
		}
	}
}

// killWriter starts a writer on path, kills it with SIGKILL at a random
// moment after its first write, and returns what path then holds.
func killWriter(t *testing.T, path, mode string) []byte {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+path, modeEnv+"="+mode)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "ready\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("writer did not start: %q, %v; stderr: %s", line, err, stderr.String())
	}
	time.Sleep(time.Duration(rand.Int64N(int64(5 * time.Millisecond))))
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
		t.Fatalf("writer ended by itself (%v); stderr: %s", err, stderr.String())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("after kill -9: %v", err)
	}
	return data
}

// TestKill9 kills a process in the middle of rewriting a file, again and
// again: the file must always hold one of the two contents whole, and
// after SweepTemps no temp file may remain.
func TestKill9(t *testing.T) {
	if testing.Short() && *crashTrials > 40 {
		t.Skip("long crash run skipped in -short mode")
	}
	contents := crashContents()
	dir := t.TempDir()
	path := filepath.Join(dir, "config.json")
	if err := fsx.WriteFile(path, contents[0], 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var swept int
	for trial := range *crashTrials {
		got := killWriter(t, path, "atomic")
		if !json.Valid(got) {
			t.Fatalf("trial %d: after kill -9 the file is not valid JSON (%d bytes)", trial, len(got))
		}
		if !bytes.Equal(got, contents[0]) && !bytes.Equal(got, contents[1]) {
			t.Fatalf("trial %d: after kill -9 the file holds neither content (%d bytes)", trial, len(got))
		}
		swept += len(listDir(t, dir)) - 1
		if err := fsx.SweepTemps(path); err != nil {
			t.Fatalf("trial %d: SweepTemps = %v", trial, err)
		}
		if names := listDir(t, dir); len(names) != 1 || names[0] != "config.json" {
			t.Fatalf("trial %d: after SweepTemps the folder holds %q, want only config.json", trial, names)
		}
	}
	t.Logf("%d kill -9 trials in %v; %d temp files swept", *crashTrials, time.Since(start).Round(time.Millisecond), swept)
}

// TestKill9CatchesNaiveWrites shows that the harness can see a torn file:
// a writer that truncates and rewrites in place is caught within a few
// trials.
func TestKill9CatchesNaiveWrites(t *testing.T) {
	contents := crashContents()
	path := filepath.Join(t.TempDir(), "config.json")
	const max = 40
	for trial := range max {
		got := killWriter(t, path, "naive")
		if !bytes.Equal(got, contents[0]) && !bytes.Equal(got, contents[1]) {
			t.Logf("torn file seen at trial %d (%d bytes)", trial, len(got))
			return
		}
	}
	t.Errorf("no torn file in %d kills of a naive writer; the harness cannot see tearing", max)
}
