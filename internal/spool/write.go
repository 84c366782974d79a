package spool

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/wisp-agent/wisp/internal/fsx"
)

// CreateExclusive makes path hold data, mode 0600, unless something is
// there already, in which case it returns ErrExists and changes nothing.
//
// The data goes to a temp file created with O_EXCL (which never follows a
// link) beside path, is synced, and is then hard-linked to path: link(2)
// fails when path exists, link or not, so of two writers racing exactly
// one succeeds, and the file appears whole or not at all. The temp file is
// removed and the folder synced. A crash can leave the temp file, named
// ".<name>.tmp-<digits>", which [Sweep] and [RemoveID] remove.
func CreateExclusive(path string, data []byte) error {
	dir, name := filepath.Split(path)
	f, err := os.CreateTemp(dir, "."+name+".tmp-")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	err = f.Chmod(0o600)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return ErrExists
		}
		return err
	}
	if err := os.Remove(tmp); err != nil {
		return err
	}
	return fsx.SyncDir(dir)
}

// WriteFile replaces path with data atomically and durably, mode 0600:
// see [fsx.WriteFile].
func WriteFile(path string, data []byte) error {
	return fsx.WriteFile(path, data, 0o600)
}

// Remove removes path; a missing path is no error.
func Remove(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
