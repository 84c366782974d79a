package audit

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/gofrs/flock"
	"github.com/google/go-cmp/cmp"
)

func TestReadFilter(t *testing.T) {
	l, dir := openTest(t, nil)
	entries := []Entry{
		{Kind: "session.started", Session: "s1", Source: SourceWisp},
		{Kind: "inquiry.requested", Session: "s1", Thread: "t1", Turn: 1, Source: SourceModel},
		{Kind: "inquiry.settled", Session: "s1", Thread: "t1", Turn: 1, Source: SourcePerson},
		{Kind: "inquiry.requested", Session: "s1", Thread: "t2", Turn: 1, Source: SourceModel},
		{Kind: "inquiryx.other", Session: "s1", Thread: "t1", Turn: 2, Source: SourceWisp},
		{Kind: "tool.call", Session: "s1", Thread: "t1", Turn: 2, Source: SourceModel},
		{Kind: "tool.call", Session: "s1", Thread: "t10", Turn: 1, Source: SourceModel},
	}
	for _, e := range entries {
		mustAppend(t, l, e)
	}
	tests := []struct {
		name string
		f    Filter
		want []int64
	}{
		{"zero picks all", Filter{}, []int64{1, 2, 3, 4, 5, 6, 7}},
		{"thread", Filter{Thread: "t1"}, []int64{2, 3, 5, 6}},
		{"thread is exact", Filter{Thread: "t10"}, []int64{7}},
		{"kind prefix", Filter{KindPrefix: "inquiry."}, []int64{2, 3, 4}},
		{"kind prefix without the dot", Filter{KindPrefix: "inquiry"}, []int64{2, 3, 4, 5}},
		{"whole kind", Filter{KindPrefix: "inquiry.settled"}, []int64{3}},
		{"both", Filter{Thread: "t1", KindPrefix: "inquiry."}, []int64{2, 3}},
		{"none", Filter{Thread: "t3"}, nil},
		{"after a line", Filter{After: 4}, []int64{5, 6, 7}},
		{"after the last", Filter{After: 7}, nil},
		{"after, with a thread", Filter{Thread: "t1", After: 3}, []int64{5, 6}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, err := Read(dir, tt.f)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, seqs(recs)); diff != "" {
				t.Errorf("Read(%+v) seqs (-want +got):\n%s", tt.f, diff)
			}
		})
	}
}

// TestReadersWaitForWriters: Read and Verify take a shared lock, so a
// write in progress (here, half a line under the writers' lock) is not
// mistaken for a torn line.
func TestReadersWaitForWriters(t *testing.T) {
	l, dir := openTest(t, nil)
	mustAppend(t, l, Entry{Kind: "k", Source: SourceWisp})
	whole := logBytes(t, dir)
	writer := flock.New(filepath.Join(dir, lockName))
	if err := writer.Lock(); err != nil {
		t.Fatal(err)
	}
	line := appendLine(nil, Record{Seq: 2, Kind: "k", Source: SourceWisp, Prev: hashLine(whole[:len(whole)-1])})
	writeLog(t, dir, append(whole, line[:20]...))
	done := make(chan Report)
	go func() {
		rep, err := Verify(dir)
		if err != nil {
			t.Error(err)
		}
		done <- rep
	}()
	select {
	case rep := <-done:
		t.Fatalf("Verify returned %v while a writer held the lock", rep)
	case <-time.After(50 * time.Millisecond):
	}
	writeLog(t, dir, append(whole, line...))
	if err := writer.Unlock(); err != nil {
		t.Fatal(err)
	}
	if rep := <-done; rep.Records != 2 || rep.Torn != nil || rep.Break != nil {
		t.Errorf("Verify after the write finished = %v, want 2 records intact", rep)
	}
}

func TestReadCorrupt(t *testing.T) {
	l, dir := openTest(t, nil)
	mustAppend(t, l, Entry{Kind: "k", Source: SourceWisp})
	writeLog(t, dir, append(logBytes(t, dir), "not a record\n"...))
	recs, err := Read(dir, Filter{})
	if !errors.Is(err, ErrCorrupt) {
		t.Errorf("Read with a corrupt line = %+v, %v; want ErrCorrupt", recs, err)
	}
}
