package hf

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/gofrs/flock"
)

// Lock takes the lock of repository repo ("org/name"),
// <Home>/locks/pull-<org>--<name>.lock (in lower case, so that spellings
// the Hub treats as one repository share it), without waiting. When a
// pull in this process or another holds it, Lock fails with an error
// wrapping [ErrBusy]: "a pull of org/name is already running".
//
// The lock is an flock(2)-style advisory lock on an open file, which dies
// with the process: a pull that is killed never blocks the next one. Two
// Locks in one process exclude each other too, since each opens the file
// anew. The lock file is left in place: removing it would let a second
// pull lock a new file while the first still holds the old one. Locks are
// not dependable on network file systems; wisp's home belongs on a local
// disk.
//
// unlock releases the lock; it may be called from any goroutine, and
// calls after the first do nothing.
func (s Store) Lock(repo string) (unlock func(), err error) {
	if s.Home == "" {
		return nil, fmt.Errorf("cannot lock %s: the model store has no home folder", repo)
	}
	if err := vetRepo(repo); err != nil {
		return nil, err
	}
	dir := filepath.Join(s.Home, "locks")
	if err := makeDir(dir); err != nil {
		return nil, fmt.Errorf("cannot lock %s: %w", repo, err)
	}
	path := filepath.Join(dir, "pull-"+strings.ToLower(strings.ReplaceAll(repo, "/", "--"))+".lock")
	fl := flock.New(path, flock.SetFlag(os.O_CREATE|os.O_RDWR|noFollow), flock.SetPermissions(0o600))
	ok, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("cannot lock %s (%s): %w", repo, path, err)
	}
	if !ok {
		return nil, &storeError{msg: "a pull of " + repo + " is already running", kind: ErrBusy}
	}
	var once sync.Once
	return func() { once.Do(func() { fl.Unlock() }) }, nil
}
