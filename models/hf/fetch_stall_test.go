package hf_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wisp-agent/wisp/models/hf"
)

// TestFetchStall has a body go silent mid-file: after StallTimeout the
// watchdog drops it and the fetch resumes from the byte where it stopped.
func TestFetchStall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		data := pattern(3<<20, 29)
		const at = 1<<20 + 7
		p, src := newPlan("org/name", testFile{path: "w.safetensors", data: data, lfs: true})
		src.faults = func(_ hf.File, call int) fault {
			if call == 0 {
				return fault{stall: true, at: at}
			}
			return fault{}
		}
		s := hf.Store{Home: t.TempDir()}
		start := time.Now()
		if err := s.Fetch(context.Background(), src, p, nil); err != nil {
			t.Fatalf("Fetch = %v", err)
		}
		if got := time.Since(start); got != 30*time.Second {
			t.Errorf("Fetch took %v, want the 30s default stall timeout", got)
		}
		if diff := cmp.Diff([]openCall{{"w.safetensors", 0}, {"w.safetensors", at}}, src.calls()); diff != "" {
			t.Errorf("Open calls (-want +got):\n%s", diff)
		}
		if got := src.servedBytes("w.safetensors"); got != int64(len(data)) {
			t.Errorf("served %d bytes, want %d", got, len(data))
		}
		checkBlob(t, s, p, p.Files[0], data)
	})
}

// TestFetchStallInOpen has the first request hang before any body: the
// watchdog cancels it and the fetch asks again.
func TestFetchStallInOpen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		data := []byte(`{"model_type": "qwen3"}`)
		p, src := newPlan("org/name", testFile{path: "config.json", data: data})
		first := true
		src.gate = func(ctx context.Context, f hf.File) error {
			if !first {
				return nil
			}
			first = false
			<-ctx.Done()
			return ctx.Err()
		}
		s := hf.Store{Home: t.TempDir()}
		start := time.Now()
		if err := s.Fetch(context.Background(), src, p, &hf.FetchOptions{StallTimeout: 5 * time.Second}); err != nil {
			t.Fatalf("Fetch = %v", err)
		}
		if got := time.Since(start); got != 5*time.Second {
			t.Errorf("Fetch took %v, want the 5s stall timeout", got)
		}
		if n := len(src.calls()); n != 2 {
			t.Errorf("Open was called %d times, want 2", n)
		}
		checkBlob(t, s, p, p.Files[0], data)
	})
}

// TestFetchSlowIsNotStalled sends a byte-stream with a pause shorter than
// the stall timeout before every read: the watchdog restarts with each
// read and never drops the connection.
func TestFetchSlowIsNotStalled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		data := pattern(5*readSize, 31)
		p, src := newPlan("org/name", testFile{path: "w.safetensors", data: data, lfs: true})
		src.faults = func(hf.File, int) fault { return fault{delay: 20 * time.Second} }
		s := hf.Store{Home: t.TempDir()}
		start := time.Now()
		if err := s.Fetch(context.Background(), src, p, &hf.FetchOptions{StallTimeout: 30 * time.Second}); err != nil {
			t.Fatalf("Fetch = %v", err)
		}
		if n := len(src.calls()); n != 1 {
			t.Errorf("Open was called %d times, want 1: a slow body was dropped", n)
		}
		if got := time.Since(start); got < 100*time.Second {
			t.Errorf("Fetch took %v, want at least 5 reads of 20s", got)
		}
		checkBlob(t, s, p, p.Files[0], data)
	})
}

// TestFetchRetries checks the resume budget: failures without a byte in
// between use it up, with pauses of none, 1 s, 2 s; failures after bytes
// arrived start it again.
func TestFetchRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		data := pattern(1<<20, 37)
		p, src := newPlan("org/name", testFile{path: "w.safetensors", data: data, lfs: true})
		src.faults = func(f hf.File, call int) fault {
			if call == 0 {
				return fault{drop: true, at: 1000} // some bytes, then nothing
			}
			return fault{dropFirst: true}
		}
		s := hf.Store{Home: t.TempDir()}
		start := time.Now()
		err := s.Fetch(context.Background(), src, p, &hf.FetchOptions{Retries: 3})
		if !errors.Is(err, errDropped) || !strings.Contains(err.Error(), "gave up after 3 resumes") {
			t.Errorf("Fetch = %v, want it to give up after 3 resumes", err)
		}
		// The drop after 1000 bytes is resume 1 (no pause); three more
		// drops with nothing between pause 1 s and 2 s, then give up.
		if n := len(src.calls()); n != 4 {
			t.Errorf("Open was called %d times, want 4", n)
		}
		if got := time.Since(start); got != 3*time.Second {
			t.Errorf("Fetch gave up after %v, want 3s of pauses", got)
		}
		if got := stateBytes(t, s, p, p.Files[0]); got != 1000 {
			t.Errorf("after giving up the state covers %d bytes, want 1000", got)
		}
	})

	synctest.Test(t, func(t *testing.T) {
		const step = 100 << 10
		data := pattern(1<<20, 41)
		p, src := newPlan("org/name", testFile{path: "w.safetensors", data: data, lfs: true})
		src.faults = func(f hf.File, call int) fault { return fault{drop: true, at: int64(call+1) * step} }
		s := hf.Store{Home: t.TempDir()}
		if err := s.Fetch(context.Background(), src, p, &hf.FetchOptions{Retries: 2}); err != nil {
			t.Fatalf("Fetch with progress between drops = %v", err)
		}
		if n, want := len(src.calls()), len(data)/step+1; n != want {
			t.Errorf("Open was called %d times, want %d", n, want)
		}
		checkBlob(t, s, p, p.Files[0], data)
	})
}

// TestFetchResumeAfterKill checks the state saved while a file streams:
// the disk as a kill would leave it mid-file (copied while the fetch
// hangs, before any save on stop) resumes from the last periodic save,
// which lies at most 16 MiB behind.
func TestFetchResumeAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("48 MiB fetch skipped in -short mode")
	}
	synctest.Test(t, func(t *testing.T) {
		data := pattern(48<<20, 47)
		const at = 40<<20 + 12345
		p, src := newPlan("org/name", testFile{path: "w.safetensors", data: data, lfs: true})
		// A read every 50 ms (of fake time) lets a second pass between
		// saves.
		src.faults = func(hf.File, int) fault { return fault{stall: true, at: at, delay: 50 * time.Millisecond} }
		src.stalled = make(chan string, 1)
		s := hf.Store{Home: t.TempDir()}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- s.Fetch(ctx, src, p, nil) }()
		<-src.stalled
		synctest.Wait() // the background save, if one runs, ends

		// The disk as a kill leaves it: the partial file and the last
		// state saved.
		killed := hf.Store{Home: t.TempDir()}
		f := p.Files[0]
		if err := os.MkdirAll(filepath.Dir(blobPath(killed, p, f, "")), 0o700); err != nil {
			t.Fatal(err)
		}
		var onDisk int64
		for _, suffix := range []string{".incomplete", ".state"} {
			b, err := os.ReadFile(blobPath(s, p, f, suffix))
			if err != nil {
				t.Fatalf("mid-file, no %s: %v", suffix, err)
			}
			writeFile(t, blobPath(killed, p, f, suffix), b)
			if suffix == ".incomplete" {
				onDisk = int64(len(b))
			}
		}
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("Fetch = %v, want context.Canceled", err)
		}

		saved := stateBytes(t, killed, p, f)
		if saved != 32<<20 {
			t.Errorf("mid-file the state covers %d bytes, want the save at 32 MiB", saved)
		}
		_, src2 := newPlan("org/name", testFile{path: "w.safetensors", data: data, lfs: true})
		if err := killed.Fetch(context.Background(), src2, p, nil); err != nil {
			t.Fatalf("Fetch after the kill = %v", err)
		}
		// What the killed run wrote after its last save is hashed from
		// the file, not fetched again: the resume asks for the first byte
		// the killed run did not write.
		if onDisk <= saved {
			t.Errorf("the partial holds %d bytes, the state %d: nothing was written after the save", onDisk, saved)
		}
		if diff := cmp.Diff([]openCall{{"w.safetensors", onDisk}}, src2.calls()); diff != "" {
			t.Errorf("Open calls after the kill (-want +got):\n%s", diff)
		}
		checkBlob(t, killed, p, f, data)
	})
}
