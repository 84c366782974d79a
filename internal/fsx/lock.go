package fsx

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/gofrs/flock"
)

// lockPoll is how often Lock retries while another holder has the lock.
const lockPoll = 5 * time.Millisecond

// Lock takes an exclusive advisory lock on the file at path, creating it
// with mode 0600 when missing, and returns the function that releases it.
// A symbolic link at path is refused.
//
// Lock waits while someone else holds the lock, in this process or
// another, and gives up with an error that wraps ctx.Err() when ctx is
// done first. The lock is released by unlock or when the process dies, so
// a crash never leaves it held. Lock a separate file that is never
// replaced: a lock on a file that a rename swaps away protects nothing.
// Locks are not dependable on network file systems.
//
// unlock may be called from any goroutine; calls after the first do
// nothing.
func Lock(ctx context.Context, path string) (unlock func() error, err error) {
	if err := createLockFile(path); err != nil {
		return nil, fmt.Errorf("cannot lock %s: %w", QuotePath(path), Bare(err))
	}
	fl := flock.New(path,
		flock.SetFlag(os.O_CREATE|os.O_RDWR|OpenNoFollow),
		flock.SetPermissions(0o600))
	ok, err := fl.TryLockContext(ctx, lockPoll)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("waiting for lock %s: %w", QuotePath(path), err)
		}
		return nil, fmt.Errorf("cannot lock %s: %w", QuotePath(path), Bare(err))
	}
	if !ok {
		return nil, fmt.Errorf("cannot lock %s", QuotePath(path))
	}
	return fl.Unlock, nil
}

// LockWaiting is Lock, except that a free lock is taken even when ctx is
// done, and that waiting, when not nil, is called once as Lock begins to
// wait for a lock someone else holds. The wait ends with an error that
// wraps context.Cause(ctx).
func LockWaiting(ctx context.Context, path string, waiting func()) (unlock func() error, err error) {
	if err := createLockFile(path); err != nil {
		return nil, fmt.Errorf("cannot lock %s: %w", QuotePath(path), Bare(err))
	}
	fl := flock.New(path,
		flock.SetFlag(os.O_CREATE|os.O_RDWR|OpenNoFollow),
		flock.SetPermissions(0o600))
	ok, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("cannot lock %s: %w", QuotePath(path), Bare(err))
	}
	if ok {
		return fl.Unlock, nil
	}
	if waiting != nil {
		waiting()
	}
	tick := time.NewTicker(lockPoll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for lock %s: %w", QuotePath(path), context.Cause(ctx))
		case <-tick.C:
		}
		ok, err := fl.TryLock()
		if err != nil {
			return nil, fmt.Errorf("cannot lock %s: %w", QuotePath(path), Bare(err))
		}
		if ok {
			return fl.Unlock, nil
		}
	}
}

// createLockFile makes sure a regular lock file exists at path. A file it
// creates gets mode 0600 with an explicit chmod, whatever the umask.
func createLockFile(path string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_RDWR, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	err = f.Chmod(0o600)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Bare drops the operation and path that an *fs.PathError repeats, for a
// message that names the path already.
func Bare(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
