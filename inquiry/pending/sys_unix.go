//go:build unix

package pending

import (
	"io/fs"
	"os"
	"syscall"
)

// openNoFollow adds to open(2) flags: refuse a symbolic link as the last
// part of the path, and do not block on opening a pipe.
const openNoFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// syncDir makes a create, rename or removal in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// owner returns the user id that owns fi and the current effective user
// id; ok is false where the system does not say.
func owner(fi fs.FileInfo) (uid, me int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return int(st.Uid), os.Geteuid(), true
}
