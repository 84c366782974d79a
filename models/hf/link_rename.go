package hf

import (
	"errors"
	"io/fs"
	"os"
)

// errNoExchange: the system or file system cannot swap two names
// atomically.
var errNoExchange = errors.New("atomic exchange not supported")

// renameNoReplaceChecked renames oldpath to newpath after checking that
// newpath does not exist, failing with an error that wraps fs.ErrExist
// when it does. The check and the rename are two steps.
func renameNoReplaceChecked(oldpath, newpath string) error {
	if _, err := os.Lstat(newpath); err == nil {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: fs.ErrExist}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return os.Rename(oldpath, newpath)
}
