//go:build unix

package fsx

import (
	"io/fs"
	"os"
	"syscall"
)

// OpenNoFollow adds to open(2) flags: refuse a symbolic link as the last
// part of the path, and do not block on opening a pipe.
const OpenNoFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// SyncDir makes a create, rename or removal in dir durable.
func SyncDir(dir string) error { return syncOpened(os.Open(dir)) }

// syncDirIn makes a create, rename or removal in dir, inside root,
// durable.
func syncDirIn(root *os.Root, dir string) error { return syncOpened(root.Open(dir)) }

// syncOpened syncs and closes a folder just opened.
func syncOpened(d *os.File, err error) error {
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// Owner returns the user id that owns fi; ok is false where the system
// does not say.
func Owner(fi fs.FileInfo) (uid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// CurrentUID is the effective user id, the one that owns what this process
// creates.
func CurrentUID() (int, bool) { return os.Geteuid(), true }
