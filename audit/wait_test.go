package audit

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

// holdShared takes the shared lock a reader such as Verify takes, as a
// wisp audit --verify that was stopped keeps it, until the returned func.
func holdShared(t *testing.T, dir string) func() {
	t.Helper()
	fl := flock.New(filepath.Join(dir, lockName))
	if err := fl.RLock(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fl.Close() })
	return func() { fl.Unlock() }
}

// An append that finds the log locked by another process says so once,
// after its patience, and goes on waiting: the record is written once the
// lock is free.
func TestAppendSaysItWaits(t *testing.T) {
	waited := make(chan struct{}, 4)
	l, dir := openTest(t, &Options{Now: clock(t0, time.Second), Patience: time.Millisecond,
		Waiting: func(context.Context) { waited <- struct{}{} }})
	release := holdShared(t, dir)
	done := make(chan error, 1)
	go func() {
		_, err := l.Append(t.Context(), Entry{Kind: "turn.started", Source: SourcePerson, Turn: 1})
		done <- err
	}()
	<-waited
	release()
	if err := <-done; err != nil {
		t.Fatalf("Append once the lock was released = %v", err)
	}
	if n := len(waited); n != 0 {
		t.Errorf("Waiting was called %d more times; want once", n)
	}
	if got := lines(t, dir); got != 1 {
		t.Errorf("the log holds %d lines, want 1", got)
	}
}

// The person can stop a wait for a lock another process keeps: the append
// gives up with ErrLocked and the cause, and writes nothing.
func TestAppendWaitIsCancellable(t *testing.T) {
	waited := make(chan struct{}, 1)
	l, dir := openTest(t, &Options{Now: clock(t0, time.Second), Patience: time.Millisecond,
		Waiting: func(context.Context) { waited <- struct{}{} }})
	release := holdShared(t, dir)
	stop := errors.New("the person stopped the turn")
	ctx, cancel := context.WithCancelCause(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := l.Append(ctx, Entry{Kind: "turn.started", Source: SourcePerson, Turn: 1})
		done <- err
	}()
	<-waited
	cancel(stop)
	err := <-done
	if !errors.Is(err, ErrLocked) || !errors.Is(err, stop) {
		t.Fatalf("Append whose wait was stopped = %v, want ErrLocked and the cause", err)
	}
	if got := lines(t, dir); got != 0 {
		t.Errorf("the log holds %d lines, want none", got)
	}
	// The one that gave up holds nothing up: the next append goes on.
	release()
	mustAppend(t, l, Entry{Kind: "turn.ended", Source: SourceWisp, Turn: 1})
	if got := lines(t, dir); got != 1 {
		t.Errorf("the log holds %d lines, want 1", got)
	}
}

// A record of a cancelled turn is still written: a done ctx ends only a
// wait longer than the patience, never the short one for another writer.
func TestAppendUnderDoneContextWaitsItsPatience(t *testing.T) {
	l, dir := openTest(t, &Options{Now: clock(t0, time.Second), Patience: time.Minute})
	release := holdShared(t, dir)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	done := make(chan error, 1)
	go func() {
		_, err := l.Append(ctx, Entry{Kind: "turn.ended", Source: SourceWisp, Turn: 1})
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("Append under a done ctx gave up at once: %v", err)
	case <-time.After(20 * time.Millisecond):
	}
	release()
	if err := <-done; err != nil {
		t.Fatalf("Append under a done ctx, the lock released within its patience = %v", err)
	}

	// Past the patience, a done ctx ends the wait.
	l2, err := Open(dir, &Options{Patience: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	defer holdShared(t, dir)()
	if _, err := l2.Append(ctx, Entry{Kind: "turn.ended", Source: SourceWisp, Turn: 1}); !errors.Is(err, ErrLocked) {
		t.Errorf("Append under a done ctx, the lock held past its patience = %v, want ErrLocked", err)
	}
}

// lines counts the lines of the log in dir.
func lines(t *testing.T, dir string) int {
	t.Helper()
	return bytes.Count(logBytes(t, dir), []byte("\n"))
}
