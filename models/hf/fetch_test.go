package hf_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/wisp-agent/wisp/models/hf"
)

// blobPath is where f's blob, or with a suffix its partial file or state,
// lives.
func blobPath(s hf.Store, p hf.Plan, f hf.File, suffix string) string {
	return filepath.Join(s.RepoDir(p.Repo), "blobs", f.Etag()+suffix)
}

// checkBlob fails the test unless f's blob holds data and no partial file
// or state is left beside it.
func checkBlob(t *testing.T, s hf.Store, p hf.Plan, f hf.File, data []byte) {
	t.Helper()
	got, err := os.ReadFile(blobPath(s, p, f, ""))
	if err != nil || !bytes.Equal(got, data) {
		t.Errorf("blob of %s: %d bytes, %v; want the file's %d bytes", f.Path, len(got), err, len(data))
	}
	for _, suffix := range []string{".incomplete", ".state"} {
		if _, err := os.Lstat(blobPath(s, p, f, suffix)); err == nil {
			t.Errorf("%s%s is left behind", f.Etag(), suffix)
		}
	}
}

// stateBytes reads the byte count of f's saved state, -1 when there is
// none.
func stateBytes(t *testing.T, s hf.Store, p hf.Plan, f hf.File) int64 {
	t.Helper()
	data, err := os.ReadFile(blobPath(s, p, f, ".state"))
	if err != nil {
		return -1
	}
	var st struct{ Bytes int64 }
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatalf("state of %s: %v", f.Path, err)
	}
	return st.Bytes
}

// cancelAt runs a Fetch of p that src stalls at offset at of its only
// file, cancels it there, and checks that it returns context.Canceled
// with a state saved at exactly at bytes.
func cancelAt(t *testing.T, s hf.Store, p hf.Plan, data []byte, at int64) {
	t.Helper()
	src := &fakeSource{
		data:    map[string][]byte{p.Files[0].Path: data},
		faults:  func(hf.File, int) fault { return fault{stall: true, at: at} },
		stalled: make(chan string, 1),
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Fetch(ctx, src, p, nil) }()
	<-src.stalled
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Fetch = %v, want context.Canceled", err)
	}
	if got := stateBytes(t, s, p, p.Files[0]); got != at {
		t.Fatalf("after cancel the state covers %d bytes, want %d", got, at)
	}
	if fi, err := os.Stat(blobPath(s, p, p.Files[0], ".incomplete")); err != nil || fi.Size() != at {
		t.Fatalf("after cancel the partial file: %v, %v; want %d bytes", fi, err, at)
	}
}

// TestFetchResumeAfterFailure fails a fetch mid-file with no resumes
// allowed, then fetches again: the second run asks for the range from
// where the first stopped, and no byte is served twice.
func TestFetchResumeAfterFailure(t *testing.T) {
	ctx := context.Background()
	data := pattern(5<<20+17, 3)
	const at = 3<<20 + 123
	p, src := newPlan("org/name", testFile{path: "model.safetensors", data: data, lfs: true})
	src.faults = func(_ hf.File, call int) fault { return fault{drop: true, at: at} }
	s := hf.Store{Home: t.TempDir()}
	err := s.Fetch(ctx, src, p, &hf.FetchOptions{Retries: -1})
	if !errors.Is(err, errDropped) || !strings.Contains(err.Error(), "model.safetensors") {
		t.Fatalf("first Fetch = %v, want the dropped connection, naming the file", err)
	}
	if got := src.servedBytes("model.safetensors"); got != at {
		t.Fatalf("first Fetch was served %d bytes, want %d", got, at)
	}
	if _, err := os.Lstat(filepath.Join(s.RepoDir(p.Repo), "snapshots")); err == nil {
		t.Errorf("a failed Fetch made the snapshot folder")
	}

	// A new source and a new Store value, as a new run would have.
	p2, src2 := newPlan("org/name", testFile{path: "model.safetensors", data: data, lfs: true})
	var first hf.Progress
	opts := &hf.FetchOptions{Progress: func(pr hf.Progress) {
		if first.File == "" {
			first = pr
		}
	}}
	if err := (hf.Store{Home: s.Home}).Fetch(ctx, src2, p2, opts); err != nil {
		t.Fatalf("second Fetch = %v", err)
	}
	if diff := cmp.Diff([]openCall{{"model.safetensors", at}}, src2.calls()); diff != "" {
		t.Errorf("second Fetch's Open calls (-want +got):\n%s", diff)
	}
	missing := int64(len(data)) - at
	if got := src2.servedBytes("model.safetensors"); got != missing {
		t.Errorf("second Fetch was served %d bytes, want the %d missing (at most %d)", got, missing, missing+1<<20)
	}
	if first.Resumed != at || first.Done != at {
		t.Errorf("first Progress of the second Fetch = %+v; want Resumed and Done %d", first, at)
	}
	checkBlob(t, s, p, p.Files[0], data)
}

// TestFetchResumeInRun drops the connection twice in one run: the fetch
// resumes each time from where the body stopped and serves each byte
// once.
func TestFetchResumeInRun(t *testing.T) {
	data := pattern(4<<20, 5)
	drops := []int64{1<<20 + 5, 3<<20 + 77}
	p, src := newPlan("org/name", testFile{path: "w.safetensors", data: data, lfs: true})
	src.faults = func(_ hf.File, call int) fault {
		if call < len(drops) {
			return fault{drop: true, at: drops[call]}
		}
		return fault{}
	}
	s := hf.Store{Home: t.TempDir()}
	if err := s.Fetch(context.Background(), src, p, nil); err != nil {
		t.Fatalf("Fetch = %v", err)
	}
	want := []openCall{{"w.safetensors", 0}, {"w.safetensors", drops[0]}, {"w.safetensors", drops[1]}}
	if diff := cmp.Diff(want, src.calls()); diff != "" {
		t.Errorf("Open calls (-want +got):\n%s", diff)
	}
	if got := src.servedBytes("w.safetensors"); got != int64(len(data)) {
		t.Errorf("served %d bytes, want %d", got, len(data))
	}
	checkBlob(t, s, p, p.Files[0], data)
}

// TestFetchResumeAfterCancel cancels a fetch in the middle of a file, as
// a person's ^C or a dying process would, then resumes it from a new
// Store value: the state was saved at the exact byte, and the new run
// asks for the rest.
func TestFetchResumeAfterCancel(t *testing.T) {
	data := pattern(3<<20+1, 9)
	const at = 2<<20 + 4097
	home := t.TempDir()
	p, _ := newPlan("org/name", testFile{path: "model.safetensors", data: data, lfs: true})
	cancelAt(t, hf.Store{Home: home}, p, data, at)

	_, src := newPlan("org/name", testFile{path: "model.safetensors", data: data, lfs: true})
	s := hf.Store{Home: home}
	if err := s.Fetch(context.Background(), src, p, nil); err != nil {
		t.Fatalf("resumed Fetch = %v", err)
	}
	if diff := cmp.Diff([]openCall{{"model.safetensors", at}}, src.calls()); diff != "" {
		t.Errorf("resumed Fetch's Open calls (-want +got):\n%s", diff)
	}
	if got, want := src.servedBytes("model.safetensors"), int64(len(data)-at); got != want {
		t.Errorf("resumed Fetch was served %d bytes, want %d", got, want)
	}
	checkBlob(t, s, p, p.Files[0], data)
}

// TestFetchResumeStates resumes from partial files whose state is behind
// them (bytes written after the last save, as a kill leaves), ahead of
// them (a state that lies), unreadable or missing, and from a partial
// that is already whole.
func TestFetchResumeStates(t *testing.T) {
	data := pattern(2<<20+333, 11)
	const at = 1<<20 + 99
	tests := []struct {
		name string
		// spoil changes the partial file and its state after a cancel
		// at byte at.
		spoil     func(t *testing.T, part, state string)
		wantOpens []openCall // nil: no Open at all
	}{
		{
			name: "bytes a killed run wrote past the state are kept",
			spoil: func(t *testing.T, part, state string) {
				appendFile(t, part, data[at:at+5000])
			},
			wantOpens: []openCall{{"w.safetensors", at + 5000}},
		},
		{
			name: "state longer than the file restarts",
			spoil: func(t *testing.T, part, state string) {
				editState(t, state, func(st map[string]any) { st["bytes"] = at + 1000 })
			},
			wantOpens: []openCall{{"w.safetensors", 0}},
		},
		{
			name: "partial shorter than its state restarts",
			spoil: func(t *testing.T, part, state string) {
				if err := os.Truncate(part, at-1); err != nil {
					t.Fatal(err)
				}
			},
			wantOpens: []openCall{{"w.safetensors", 0}},
		},
		{
			name: "garbled state restarts",
			spoil: func(t *testing.T, part, state string) {
				writeFile(t, state, []byte(`{"version": 1, "bytes": `))
			},
			wantOpens: []openCall{{"w.safetensors", 0}},
		},
		{
			name: "hash state of the wrong kind restarts",
			spoil: func(t *testing.T, part, state string) {
				editState(t, state, func(st map[string]any) { st["hash"] = "c2hhAQ==" })
			},
			wantOpens: []openCall{{"w.safetensors", 0}},
		},
		{
			name: "missing state: the partial is hashed from disk, as a run killed before its first save leaves it",
			spoil: func(t *testing.T, part, state string) {
				if err := os.Remove(state); err != nil {
					t.Fatal(err)
				}
			},
			wantOpens: []openCall{{"w.safetensors", at}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			s := hf.Store{Home: home}
			p, src := newPlan("org/name", testFile{path: "w.safetensors", data: data, lfs: true})
			cancelAt(t, s, p, data, at)
			tt.spoil(t, blobPath(s, p, p.Files[0], ".incomplete"), blobPath(s, p, p.Files[0], ".state"))
			if err := s.Fetch(context.Background(), src, p, nil); err != nil {
				t.Fatalf("Fetch = %v", err)
			}
			if diff := cmp.Diff(tt.wantOpens, src.calls()); diff != "" {
				t.Errorf("Open calls (-want +got):\n%s", diff)
			}
			checkBlob(t, s, p, p.Files[0], data)
		})
	}
}

// Bytes past the state that are not the file's (a power loss can keep a
// file's size but not its data) fail the digest check: the partial is
// deleted, nothing is linked, and the next fetch starts the file again.
func TestFetchResumeWrongTail(t *testing.T) {
	data := pattern(2<<20+333, 11)
	const at = 1<<20 + 99
	s := hf.Store{Home: t.TempDir()}
	p, src := newPlan("org/name", testFile{path: "w.safetensors", data: data, lfs: true})
	cancelAt(t, s, p, data, at)
	appendFile(t, blobPath(s, p, p.Files[0], ".incomplete"), bytes.Repeat([]byte{0xee}, len(data)-at+5000))
	if err := s.Fetch(context.Background(), src, p, nil); !errors.Is(err, hf.ErrMismatch) {
		t.Fatalf("Fetch over a wrong tail = %v, want ErrMismatch", err)
	}
	_, src2 := newPlan("org/name", testFile{path: "w.safetensors", data: data, lfs: true})
	if err := s.Fetch(context.Background(), src2, p, nil); err != nil {
		t.Fatalf("Fetch after the mismatch = %v", err)
	}
	if diff := cmp.Diff([]openCall{{"w.safetensors", 0}}, src2.calls()); diff != "" {
		t.Errorf("Open calls after the mismatch (-want +got):\n%s", diff)
	}
	checkBlob(t, s, p, p.Files[0], data)
}

// TestFetchResumeWholePartial finishes a partial file whose state already
// covers every byte without opening anything; the state is written here
// by hand, which pins its format.
func TestFetchResumeWholePartial(t *testing.T) {
	data := pattern(1<<20, 13)
	s := hf.Store{Home: t.TempDir()}
	p, src := newPlan("org/name", testFile{path: "w.safetensors", data: data, lfs: true})
	f := p.Files[0]
	h := sha256.New()
	h.Write(data)
	hash, err := h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	state, err := json.Marshal(map[string]any{"version": 1, "etag": f.Etag(), "size": f.Size, "bytes": f.Size, "hash": hash})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(blobPath(s, p, f, "")), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, blobPath(s, p, f, ".incomplete"), data)
	writeFile(t, blobPath(s, p, f, ".state"), state)
	if err := s.Fetch(context.Background(), src, p, nil); err != nil {
		t.Fatalf("Fetch = %v", err)
	}
	if n := len(src.calls()); n != 0 {
		t.Errorf("Fetch of a whole partial opened it %d times", n)
	}
	checkBlob(t, s, p, f, data)

	// An empty file needs no Open either.
	empty := hf.Plan{Repo: "org/empty", Commit: testCommit, Files: []hf.File{fileOf("empty.txt", nil, true)}}
	if err := s.Fetch(context.Background(), src, empty, nil); err != nil {
		t.Fatalf("Fetch of an empty file = %v", err)
	}
	if n := len(src.calls()); n != 0 {
		t.Errorf("Fetch of an empty file opened it %d times", n)
	}
	checkBlob(t, s, empty, empty.Files[0], nil)
}

// TestFetchServerRestartsFromZero has the server answer a resume with the
// whole file: the partial is restarted cleanly rather than appended to.
func TestFetchServerRestartsFromZero(t *testing.T) {
	data := pattern(3<<20, 17)
	const at = 1<<20 + 3
	p, src := newPlan("org/name", testFile{path: "w.safetensors", data: data, lfs: true})
	src.faults = func(_ hf.File, call int) fault {
		if call == 0 {
			return fault{drop: true, at: at}
		}
		return fault{wholeFile: true}
	}
	var last hf.Progress
	var most int64
	opts := &hf.FetchOptions{Progress: func(pr hf.Progress) {
		last = pr
		most = max(most, pr.Done)
	}}
	s := hf.Store{Home: t.TempDir()}
	if err := s.Fetch(context.Background(), src, p, opts); err != nil {
		t.Fatalf("Fetch = %v", err)
	}
	if diff := cmp.Diff([]openCall{{"w.safetensors", 0}, {"w.safetensors", at}}, src.calls()); diff != "" {
		t.Errorf("Open calls (-want +got):\n%s", diff)
	}
	if last.Done != p.Bytes() || most != p.Bytes() {
		t.Errorf("progress ended at %d and peaked at %d, want both %d", last.Done, most, p.Bytes())
	}
	checkBlob(t, s, p, p.Files[0], data)
}

// TestFetchMismatch corrupts one byte of an LFS file and of a small file,
// and sends an LFS file longer than planned: the file is deleted, Fetch
// fails naming it, and nothing is linked.
func TestFetchMismatch(t *testing.T) {
	big := pattern(2<<20, 19)
	small := []byte(`{"model_type": "qwen3"}`)
	tests := []struct {
		name    string
		path    string
		fault   fault
		longer  bool
		wantMsg string
	}{
		{"lfs byte flipped", "model.safetensors", fault{flip: true, at: 1<<20 + 5}, false, "its SHA-256 is "},
		{"small byte flipped", "config.json", fault{flip: true, at: 3}, false, "its git blob SHA-1 is "},
		{"lfs body too long", "model.safetensors", fault{}, true, "longer than the 2097152 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, src := newPlan("org/name",
				testFile{path: "config.json", data: small},
				testFile{path: "model.safetensors", data: big, lfs: true},
			)
			if tt.longer {
				src.data[tt.path] = append(append([]byte(nil), big...), "tail"...)
			}
			src.faults = func(f hf.File, _ int) fault {
				if f.Path == tt.path {
					return tt.fault
				}
				return fault{}
			}
			s := hf.Store{Home: t.TempDir()}
			err := s.Fetch(context.Background(), src, p, nil)
			if !errors.Is(err, hf.ErrMismatch) || !strings.HasPrefix(err.Error(), tt.path+" of org/name does not match") || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("Fetch = %v; want ErrMismatch naming %s, saying %q", err, tt.path, tt.wantMsg)
			}
			var bad hf.File
			for _, f := range p.Files {
				if f.Path == tt.path {
					bad = f
				}
			}
			for _, suffix := range []string{"", ".incomplete", ".state"} {
				if _, err := os.Lstat(blobPath(s, p, bad, suffix)); err == nil {
					t.Errorf("%s%s was kept", bad.Etag(), suffix)
				}
			}
			for _, name := range []string{"snapshots", "refs"} {
				if _, err := os.Lstat(filepath.Join(s.RepoDir(p.Repo), name)); err == nil {
					t.Errorf("%s was made though a file failed", name)
				}
			}
			if missing, _ := s.Missing(p); len(missing) == 0 {
				t.Errorf("Missing after a failed Fetch is empty")
			}
		})
	}
}

// TestFetchOpenFailure returns the source's error when a file cannot be
// opened at all, without retrying.
func TestFetchOpenFailure(t *testing.T) {
	gone := errors.New("config.json of org/name: 404 Not Found")
	p, src := newPlan("org/name", testFile{path: "config.json", data: []byte("{}")})
	src.openErr = gone
	err := hf.Store{Home: t.TempDir()}.Fetch(context.Background(), src, p, nil)
	if err != gone {
		t.Errorf("Fetch = %v, want the source's error as it is", err)
	}
	if n := len(src.calls()); n != 1 {
		t.Errorf("Open was called %d times, want 1", n)
	}
}

// TestFetchParallel fetches many files through a source that holds the
// first bodies until Parallel are open at once: the fetch must run that
// many, never more, and report progress one call at a time.
func TestFetchParallel(t *testing.T) {
	const parallel, n = 6, 40
	var files []testFile
	for i := range n {
		files = append(files, testFile{path: fmt.Sprintf("model-%02d.safetensors", i), data: pattern(100<<10+i*1000, byte(i)), lfs: true})
	}
	p, src := newPlan("org/many", files...)
	var (
		mu      sync.Mutex
		waiting int
		full    = make(chan struct{})
	)
	src.gate = func(ctx context.Context, f hf.File) error {
		mu.Lock()
		waiting++
		if waiting == parallel {
			close(full)
		}
		mu.Unlock()
		select {
		case <-full:
			return nil
		case <-time.After(10 * time.Second):
			return fmt.Errorf("only %d files opened at once, want %d", waiting, parallel)
		}
	}
	// calls and last are touched without a lock: the race detector
	// catches Progress calls that overlap.
	calls := 0
	var last hf.Progress
	opts := &hf.FetchOptions{Parallel: parallel, ChunkSize: 16 << 10, Progress: func(pr hf.Progress) {
		calls++
		if pr.Done < 0 || pr.Done > pr.Total || pr.FileDone > pr.FileTotal {
			t.Errorf("Progress out of range: %+v", pr)
		}
		last = pr
	}}
	s := hf.Store{Home: t.TempDir()}
	if err := s.Fetch(context.Background(), src, p, opts); err != nil {
		t.Fatalf("Fetch = %v", err)
	}
	if src.maxOpen != parallel {
		t.Errorf("at most %d files were open at once, want %d", src.maxOpen, parallel)
	}
	if last.Done != p.Bytes() || last.Total != p.Bytes() || last.FilesDone != n || last.Files != n || calls < n {
		t.Errorf("last Progress = %+v after %d calls; want all %d bytes and %d files", last, calls, p.Bytes(), n)
	}
	for i, f := range p.Files {
		checkBlob(t, s, p, f, files[i].data)
	}
}

// TestFetchMemory fetches a 64 MiB file through a 1 MiB chunk: what the
// fetch allocates must not grow with the file.
func TestFetchMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("64 MiB fetch skipped in -short mode")
	}
	data := pattern(64<<20, 23)
	p, src := newPlan("org/big", testFile{path: "model.safetensors", data: data, lfs: true})
	s := hf.Store{Home: t.TempDir()}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := s.Fetch(context.Background(), src, p, &hf.FetchOptions{ChunkSize: 1 << 20}); err != nil {
		t.Fatalf("Fetch = %v", err)
	}
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("fetching 64 MiB allocated %d KiB", alloc>>10)
	if alloc > 3<<20 {
		t.Errorf("fetching 64 MiB allocated %d KiB, want at most 3 MiB (one 1 MiB chunk and change)", alloc>>10)
	}
	checkBlob(t, s, p, p.Files[0], data)
}

// TestFetchDiskSpace asks for more bytes than any disk holds: Fetch
// refuses before opening anything, naming both figures.
func TestFetchDiskSpace(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" && runtime.GOOS != "freebsd" {
		t.Skip("free space is not checked on " + runtime.GOOS)
	}
	huge := hf.File{Path: "model.safetensors", Size: 1 << 53, SHA256: strings.Repeat("ab", 32)}
	p := hf.Plan{Repo: "org/huge", Commit: testCommit, Files: []hf.File{huge}}
	src := &fakeSource{data: map[string][]byte{}}
	s := hf.Store{Home: t.TempDir()}
	err := s.Fetch(context.Background(), src, p, nil)
	if !errors.Is(err, hf.ErrNoSpace) {
		t.Fatalf("Fetch = %v, want ErrNoSpace", err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "not enough free disk space to pull org/huge: 9.0 PB still to fetch, ") || !strings.Contains(msg, " free in ") || strings.Contains(msg, "\n") {
		t.Errorf("Fetch = %q; want one line naming 9.0 PB and the free space", msg)
	}
	if n := len(src.calls()); n != 0 {
		t.Errorf("Fetch opened %d files before refusing", n)
	}
}

// appendFile adds data to the end of the file at path.
func appendFile(t *testing.T, path string, data []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// writeFile replaces the file at path with data.
func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// editState rewrites the state file at path through edit.
func editState(t *testing.T, path string, edit func(map[string]any)) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	edit(st)
	data, err = json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, data)
}

// Prefetch fetches only the files named, links them in the snapshot and
// leaves refs/main alone; the Fetch of the whole plan then fetches the
// rest only, and records the commit.
func TestPrefetch(t *testing.T) {
	s := hf.Store{Home: t.TempDir()}
	weights := pattern(3<<20, 7)
	p, src := newPlan("org/model",
		testFile{"config.json", []byte(`{"model_type":"qwen3"}`), false},
		testFile{"chat_template.jinja", []byte("{{ messages }}"), false},
		testFile{"model.safetensors", weights, true},
	)
	dir, fetched, err := s.Prefetch(context.Background(), src, p, []string{"config.json", "chat_template.jinja", "tokenizer_config.json"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(s.RepoDir(p.Repo), "snapshots", p.Commit); dir != want {
		t.Errorf("Prefetch dir = %s, want %s", dir, want)
	}
	var paths []string
	for _, f := range fetched.Files {
		paths = append(paths, f.Path)
	}
	if diff := cmp.Diff([]string{"config.json", "chat_template.jinja"}, paths); diff != "" {
		t.Errorf("Prefetch fetched (-want +got):\n%s", diff)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "config.json")); err != nil || string(data) != `{"model_type":"qwen3"}` {
		t.Errorf("the snapshot's config.json = %q, %v", data, err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "model.safetensors")); err == nil {
		t.Error("the weights were linked by a prefetch")
	}
	if _, err := os.Stat(filepath.Join(s.RepoDir(p.Repo), "refs", "main")); err == nil {
		t.Error("a prefetch wrote refs/main")
	}
	if missing, _ := s.Missing(p); len(missing) != 1 || missing[0].Path != "model.safetensors" {
		t.Errorf("Missing after a prefetch = %v, want the weights only", missing)
	}
	if err := s.Fetch(context.Background(), src, p, nil); err != nil {
		t.Fatal(err)
	}
	var opened []string
	for _, o := range src.opens {
		opened = append(opened, o.Path)
	}
	if diff := cmp.Diff([]string{"chat_template.jinja", "config.json", "model.safetensors"}, opened, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("files opened in all (-want +got):\n%s", diff)
	}
	if ref, err := os.ReadFile(filepath.Join(s.RepoDir(p.Repo), "refs", "main")); err != nil || string(ref) != p.Commit {
		t.Errorf("refs/main after the whole fetch = %q, %v", ref, err)
	}
}
