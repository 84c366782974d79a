package audit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// seqs returns the seqs of recs.
func seqs(recs []Record) []int64 {
	var s []int64
	for _, r := range recs {
		s = append(s, r.Seq)
	}
	return s
}

// oneTo returns 1..n.
func oneTo(n int) []int64 {
	s := make([]int64, n)
	for i := range s {
		s[i] = int64(i + 1)
	}
	return s
}

// mustIntact verifies the log in dir and fails unless it holds n records
// with the chain intact and no torn line.
func mustIntact(t testing.TB, dir string, n int) Report {
	t.Helper()
	rep, err := Verify(dir)
	if err != nil {
		t.Fatalf("Verify(%q) = %v", dir, err)
	}
	if rep.Break != nil || rep.Torn != nil || rep.Records != n {
		t.Fatalf("Verify(%q) = %v, want %d records intact", dir, rep, n)
	}
	return rep
}

func TestAppendReturnsStoredRecord(t *testing.T) {
	l, dir := openTest(t, nil)
	var got []Record
	for i := range 3 {
		got = append(got, mustAppend(t, l, Entry{Kind: "tool.call", Session: "s1", Thread: "t1", Turn: i, Source: SourceModel, Data: map[string]int{"i": i}}))
	}
	read, err := Read(dir, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(read, got); diff != "" {
		t.Errorf("records from Append differ from Read (-read +append):\n%s", diff)
	}
	if got[0].Prev != genesis || got[0].Time != t0 {
		t.Errorf("first record: prev %s, time %v; want %s, %v", got[0].Prev, got[0].Time, genesis, t0)
	}
}

func TestAppendInvalid(t *testing.T) {
	ok := Entry{Kind: "tool.call", Session: "s1", Source: SourceTool}
	tests := []struct {
		name string
		edit func(*Entry)
	}{
		{"unknown source", func(e *Entry) { e.Source = "admin" }},
		{"empty source", func(e *Entry) { e.Source = "" }},
		{"empty kind", func(e *Entry) { e.Kind = "" }},
		{"reserved kind", func(e *Entry) { e.Kind = KindRecovered }},
		{"negative turn", func(e *Entry) { e.Turn = -1 }},
		{"data not an object", func(e *Entry) { e.Data = []string{"a"} }},
	}
	l, dir := openTest(t, nil)
	mustAppend(t, l, ok)
	before := logBytes(t, dir)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := ok
			tt.edit(&e)
			if r, err := l.Append(t.Context(), e); !errors.Is(err, ErrInvalidEntry) {
				t.Errorf("Append(%+v) = %+v, %v; want ErrInvalidEntry", e, r, err)
			}
			if got := logBytes(t, dir); !bytes.Equal(got, before) {
				t.Errorf("Append(%+v) changed the file:\n%s", e, got)
			}
		})
	}
}

func TestAppendIgnoresCancellation(t *testing.T) {
	l, dir := openTest(t, nil)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := l.Append(ctx, Entry{Kind: "turn.ended", Source: SourceWisp}); err != nil {
		t.Fatalf("Append(cancelled ctx) = %v, want the record written", err)
	}
	mustIntact(t, dir, 1)
}

func TestClose(t *testing.T) {
	l, dir := openTest(t, nil)
	mustAppend(t, l, Entry{Kind: "k", Source: SourceWisp})
	if err := l.Close(); err != nil {
		t.Fatalf("Close() = %v", err)
	}
	if err := l.Close(); err != nil {
		t.Fatalf("second Close() = %v", err)
	}
	if _, err := l.Append(t.Context(), Entry{Kind: "k", Source: SourceWisp}); !errors.Is(err, ErrClosed) {
		t.Errorf("Append after Close = %v, want ErrClosed", err)
	}
	mustIntact(t, dir, 1)
}

func TestChainAcrossOpen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "audit")
	for round := range 3 {
		l, err := Open(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 4 {
			mustAppend(t, l, Entry{Kind: "k", Session: fmt.Sprint(round), Turn: i, Source: SourceWisp})
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
	mustIntact(t, dir, 12)
	recs, err := Read(dir, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(oneTo(12), seqs(recs)); diff != "" {
		t.Errorf("seqs (-want +got):\n%s", diff)
	}
}

// TestConcurrentLogs has two Log values on one directory, each used by
// several goroutines: the file lock, not the mutex, must keep the chain.
func TestConcurrentLogs(t *testing.T) {
	const logs, writers, each = 2, 3, 40
	dir := filepath.Join(t.TempDir(), "audit")
	var wg sync.WaitGroup
	got := make(chan int64, logs*writers*each)
	for i := range logs {
		l, err := Open(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		for w := range writers {
			wg.Go(func() {
				for n := range each {
					r, err := l.Append(context.Background(), Entry{Kind: "k", Session: fmt.Sprintf("%d/%d", i, w), Turn: n, Source: SourceTool})
					if err != nil {
						t.Error(err)
						return
					}
					got <- r.Seq
				}
			})
		}
	}
	wg.Wait()
	close(got)
	const total = logs * writers * each
	mustIntact(t, dir, total)
	seen := make([]bool, total+1)
	for s := range got {
		if s < 1 || s > total || seen[s] {
			t.Errorf("Append returned seq %d twice or out of range", s)
			continue
		}
		seen[s] = true
	}
	recs, err := Read(dir, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(oneTo(total), seqs(recs)); diff != "" {
		t.Errorf("seqs (-want +got):\n%s", diff)
	}
	// Each writer's records are in its own order.
	next := map[string]int{}
	for _, r := range recs {
		if r.Turn != next[r.Session] {
			t.Errorf("writer %s: turn %d at seq %d, want %d", r.Session, r.Turn, r.Seq, next[r.Session])
		}
		next[r.Session]++
	}
}

// TestAppendAfterBreak: a complete line that breaks the chain does not stop
// the log; Append chains from the last line and Verify keeps the break.
func TestAppendAfterBreak(t *testing.T) {
	tests := []struct {
		name    string
		corrupt func(lines [][]byte) [][]byte
		wantSeq int64
		brk     int
	}{
		{"edited middle line", func(ls [][]byte) [][]byte {
			ls[1] = bytes.Replace(ls[1], []byte(`"turn":1`), []byte(`"turn":9`), 1)
			return ls
		}, 5, 3},
		{"garbage last line", func(ls [][]byte) [][]byte {
			ls[3] = []byte("garbage")
			return ls
		}, 5, 4},
		{"two garbage lines at the end", func(ls [][]byte) [][]byte {
			return append(ls, []byte("x"))
		}, 6, 5},
		{"nothing but garbage", func(ls [][]byte) [][]byte {
			return [][]byte{[]byte("x"), []byte("y")}
		}, 3, 1},
		{"removed line", func(ls [][]byte) [][]byte {
			return append(ls[:1], ls[2:]...)
		}, 5, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, dir := openTest(t, nil)
			for i := range 4 {
				mustAppend(t, l, Entry{Kind: "k", Turn: i, Source: SourceWisp})
			}
			b := logBytes(t, dir)
			lines := bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
			lines = tt.corrupt(lines)
			b = append(bytes.Join(lines, []byte("\n")), '\n')
			writeLog(t, dir, b)
			r := mustAppend(t, l, Entry{Kind: "after", Source: SourceWisp})
			if r.Seq != tt.wantSeq || r.Prev != hashLine(lines[len(lines)-1]) {
				t.Errorf("Append after corruption: seq %d prev %.8s, want seq %d prev %.8s (the last line's hash)",
					r.Seq, r.Prev, tt.wantSeq, hashLine(lines[len(lines)-1]))
			}
			rep, err := Verify(dir)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Break == nil || rep.Break.Line != tt.brk {
				t.Errorf("Verify after corruption and append = %v, want a break at line %d", rep, tt.brk)
			}
		})
	}
}

// TestLongLines has a last line and a torn tail longer than the window
// Append first reads, which must grow.
func TestLongLines(t *testing.T) {
	big := strings.Repeat("x", 3*tailWindow)
	l, dir := openTest(t, nil)
	mustAppend(t, l, Entry{Kind: "k", Source: SourceWisp, Data: map[string]string{"big": big}})
	mustAppend(t, l, Entry{Kind: "k", Source: SourceWisp, Data: map[string]string{"big": big + big}})
	b := logBytes(t, dir)
	writeLog(t, dir, append(b, big...))
	r := mustAppend(t, l, Entry{Kind: "k", Source: SourceWisp})
	if r.Seq != 4 {
		t.Errorf("Append after a long torn line: seq %d, want 4", r.Seq)
	}
	mustIntact(t, dir, 4)
	recs, err := Read(dir, Filter{KindPrefix: KindRecovered})
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf(`{"droppedBytes":%d,"droppedSHA256":"%s"}`, len(big), hashLine([]byte(big))); len(recs) != 1 || string(recs[0].Data) != want {
		t.Errorf("audit.recovered records = %+v, want one with data %s", recs, want)
	}
}

func TestOpenRefusesSymlinks(t *testing.T) {
	for _, name := range []string{logName, lockName} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			target := filepath.Join(t.TempDir(), "target")
			if err := os.WriteFile(target, []byte("keep\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
				t.Skipf("no symlinks here: %v", err)
			}
			if _, err := Open(dir, nil); !errors.Is(err, ErrSymlink) {
				t.Errorf("Open with %s a symlink = %v, want ErrSymlink", name, err)
			}
			if _, err := Verify(dir); !errors.Is(err, ErrSymlink) {
				t.Errorf("Verify with %s a symlink = %v, want ErrSymlink", name, err)
			}
			if _, err := Read(dir, Filter{}); !errors.Is(err, ErrSymlink) {
				t.Errorf("Read with %s a symlink = %v, want ErrSymlink", name, err)
			}
			if b, _ := os.ReadFile(target); string(b) != "keep\n" {
				t.Errorf("the symlink's target changed to %q", b)
			}
			fi, _ := os.Stat(target)
			if fi.Mode().Perm() != 0o644 {
				t.Errorf("the symlink's target mode changed to %v", fi.Mode().Perm())
			}
		})
	}
}

// TestAppendRefusesSwappedSymlink: the log is opened anew on each append,
// with O_NOFOLLOW, so a symlink put in its place later is refused too.
func TestAppendRefusesSwappedSymlink(t *testing.T) {
	l, dir := openTest(t, nil)
	mustAppend(t, l, Entry{Kind: "k", Source: SourceWisp})
	target := filepath.Join(t.TempDir(), "target")
	if err := os.WriteFile(target, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, logName)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	if _, err := l.Append(t.Context(), Entry{Kind: "k", Source: SourceWisp}); !errors.Is(err, ErrSymlink) {
		t.Errorf("Append through a symlink = %v, want ErrSymlink", err)
	}
	if b, _ := os.ReadFile(target); len(b) != 0 {
		t.Errorf("Append wrote through the symlink: %q", b)
	}
}

func TestOpenRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, logName), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, nil); !errors.Is(err, ErrNotRegular) {
		t.Errorf("Open with a directory as the log = %v, want ErrNotRegular", err)
	}
}

func TestOpenTightensMode(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{logName, lockName} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o666); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(dir, name), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	l, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	for _, name := range []string{logName, lockName} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != fileMode {
			t.Errorf("mode of %s after Open = %v, want %v", name, got, os.FileMode(fileMode))
		}
	}
}

func TestReadVerifyMissing(t *testing.T) {
	dir := t.TempDir()
	if _, err := Read(dir, Filter{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Read(empty dir) = %v, want ErrNotExist", err)
	}
	if _, err := Verify(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Verify(empty dir) = %v, want ErrNotExist", err)
	}
}

func TestRecordTimeRange(t *testing.T) {
	l, _ := openTest(t, &Options{Now: func() time.Time { return time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) }})
	if _, err := l.Append(t.Context(), Entry{Kind: "k", Source: SourceWisp}); err == nil {
		t.Errorf("Append at year 10000 = nil error, want an error (RFC 3339 has four-digit years)")
	}
}

// BenchmarkAppend measures one append: lock, read the tail, write, fsync,
// unlock. fsync dominates; BenchmarkFsync shows its share.
func BenchmarkAppend(b *testing.B) {
	l, _ := openTest(b, &Options{})
	e := Entry{Kind: "tool.call", Session: "s1", Thread: "t1", Turn: 3, Source: SourceModel,
		Data: map[string]any{"name": "shell", "args": map[string]any{"cmd": "go test ./..."}}}
	for b.Loop() {
		if _, err := l.Append(context.Background(), e); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFsync writes a line of the same size and fsyncs it: the floor
// under BenchmarkAppend.
func BenchmarkFsync(b *testing.B) {
	f, err := os.OpenFile(filepath.Join(b.TempDir(), "f"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	line := append(bytes.Repeat([]byte("x"), 280), '\n')
	for b.Loop() {
		if _, err := f.Write(line); err != nil {
			b.Fatal(err)
		}
		if err := f.Sync(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerify measures Verify's reading of a 1,000-record log.
func BenchmarkVerify(b *testing.B) {
	l, dir := openTest(b, nil)
	for i := range 1000 {
		mustAppend(b, l, Entry{Kind: "tool.call", Session: "s1", Thread: "t1", Turn: i, Source: SourceModel, Data: map[string]int{"i": i}})
	}
	b.SetBytes(int64(len(logBytes(b, dir))))
	for b.Loop() {
		if _, err := Verify(dir); err != nil {
			b.Fatal(err)
		}
	}
}
