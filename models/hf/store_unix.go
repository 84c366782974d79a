//go:build unix

package hf

import (
	"os"
	"syscall"
)

// syncFolder makes the creates, renames and removes in dir durable.
func syncFolder(dir string) error {
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

// noFollow adds to open(2) flags: refuse a symbolic link as the last part
// of the path, and do not block on opening a pipe.
const noFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
