package fsx_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/fsx"
)

func TestLockExcludes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	unlock, err := fsx.Lock(t.Context(), path)
	if err != nil {
		t.Fatalf("Lock = %v", err)
	}
	got := make(chan func() error)
	go func() {
		u, err := fsx.Lock(t.Context(), path)
		if err != nil {
			t.Errorf("second Lock = %v", err)
			close(got)
			return
		}
		got <- u
	}()
	select {
	case <-got:
		t.Fatal("second Lock succeeded while the first was held")
	case <-time.After(100 * time.Millisecond):
	}
	if err := unlock(); err != nil {
		t.Fatalf("unlock = %v", err)
	}
	select {
	case u, ok := <-got:
		if ok {
			if err := u(); err != nil {
				t.Errorf("second unlock = %v", err)
			}
		}
	case <-time.After(5 * time.Second):
		t.Fatal("second Lock still waiting 5 s after the first was released")
	}
}

func TestLockHonoursContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	unlock, err := fsx.Lock(t.Context(), path)
	if err != nil {
		t.Fatalf("Lock = %v", err)
	}
	defer unlock()

	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	u, err := fsx.Lock(ctx, path)
	if !errors.Is(err, context.DeadlineExceeded) {
		if u != nil {
			u()
		}
		t.Fatalf("Lock on a held lock with a 50 ms deadline = %v, want %v", err, context.DeadlineExceeded)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Lock gave up after %v, want about 50 ms", d)
	}

	cctx, ccancel := context.WithCancel(t.Context())
	ccancel()
	if _, err := fsx.Lock(cctx, path); !errors.Is(err, context.Canceled) {
		t.Errorf("Lock with a cancelled context = %v, want %v", err, context.Canceled)
	}
}

func TestLockRefusesLink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	path := filepath.Join(dir, "x.lock")
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	if u, err := fsx.Lock(t.Context(), path); err == nil {
		u()
		t.Fatal("Lock through a symbolic link = nil, want an error")
	}
	if _, err := os.Lstat(target); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Lock created the link's target: Lstat = %v", err)
	}
}

func TestLockMissingFolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "locks", "x.lock")
	_, err := fsx.Lock(t.Context(), path)
	want := "cannot lock " + path + ": no such file or directory"
	if err == nil || err.Error() != want || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Lock in a missing folder = %v, want %q matching os.ErrNotExist", err, want)
	}
}

// LockWaiting takes a free lock under a done ctx, says once that it waits
// for a held one, and ends that wait with ctx's cause.
func TestLockWaiting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	done, cancel := context.WithCancel(t.Context())
	cancel()
	waits := 0
	unlock, err := fsx.LockWaiting(done, path, func() { waits++ })
	if err != nil || waits != 0 {
		t.Fatalf("LockWaiting of a free lock under a done ctx = %v, waited %d times; want the lock, no wait", err, waits)
	}

	stop := errors.New("stopped by the test")
	ctx, cancelCause := context.WithCancelCause(t.Context())
	waited := make(chan struct{})
	res := make(chan error, 1)
	go func() {
		u, err := fsx.LockWaiting(ctx, path, func() { close(waited) })
		if u != nil {
			u()
		}
		res <- err
	}()
	<-waited
	cancelCause(stop)
	if err := <-res; !errors.Is(err, stop) {
		t.Errorf("LockWaiting on a held lock, its ctx cancelled = %v, want %v", err, stop)
	}

	got := make(chan error, 1)
	waited2 := make(chan struct{})
	go func() {
		u, err := fsx.LockWaiting(t.Context(), path, func() { close(waited2) })
		if u != nil {
			u()
		}
		got <- err
	}()
	<-waited2
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Errorf("LockWaiting once the lock was released = %v, want the lock", err)
	}
}
