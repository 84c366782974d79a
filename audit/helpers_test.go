package audit

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// clock returns a Now that starts at start and moves on by step at each
// call. It is safe for concurrent use.
func clock(start time.Time, step time.Duration) func() time.Time {
	var mu sync.Mutex
	next := start
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t := next
		next = next.Add(step)
		return t
	}
}

// t0 is the first time of the fixed clocks.
var t0 = time.Date(2026, 11, 30, 10, 0, 0, 123456789, time.UTC)

// openTest opens a log in a new temporary directory with a fixed clock.
func openTest(t testing.TB, opts *Options) (*Log, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "audit")
	o := Options{Now: clock(t0, time.Second+time.Nanosecond)}
	if opts != nil {
		o = *opts
	}
	l, err := Open(dir, &o)
	if err != nil {
		t.Fatalf("Open(%q) = %v", dir, err)
	}
	t.Cleanup(func() { l.Close() })
	return l, dir
}

// mustAppend appends e and fails the test on error.
func mustAppend(t testing.TB, l *Log, e Entry) Record {
	t.Helper()
	r, err := l.Append(t.Context(), e)
	if err != nil {
		t.Fatalf("Append(%+v) = %v", e, err)
	}
	return r
}

// logBytes returns the bytes of the log file in dir.
func logBytes(t testing.TB, dir string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, logName))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// writeLog replaces the log file in dir with b.
func writeLog(t testing.TB, dir string, b []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, logName), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// lineStarts returns the offset where each line of b starts, and len(b).
func lineStarts(b []byte) []int {
	starts := []int{0}
	for i, c := range b {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	if starts[len(starts)-1] != len(b) {
		starts = append(starts, len(b))
	}
	return starts
}

// mustVerify verifies b and fails the test on error.
func mustVerify(t testing.TB, b []byte) Report {
	t.Helper()
	rep, err := verify(newReader(b))
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	return rep
}

// newReader reads b.
func newReader(b []byte) *bufio.Reader {
	return bufio.NewReaderSize(bytes.NewReader(b), readBuffer)
}
