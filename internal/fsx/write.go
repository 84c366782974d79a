package fsx

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// tempInfix sits between a target's name and the random digits of its temp
// files: the temp files of "config.json" are ".config.json.tmp-<digits>".
const tempInfix = ".tmp-"

// WriteFile replaces the file at path with data, atomically and durably.
//
// It writes a temp file named ".<base>.tmp-<digits>" in the same folder as
// path, sets its mode to perm with an explicit chmod (so the umask plays no
// part; only the permission bits of perm are used), writes data, syncs and
// closes the file, renames it over path, and then syncs the folder so the
// rename itself survives a power cut. A reader, or a process that crashes
// at any point, sees either the old file or the new one, never a mix.
//
// On any error before the rename the temp file is removed; a crash may
// still leave one, which [SweepTemps] clears. An fsync error is returned
// and never retried: after a failed fsync the kernel may have dropped the
// data while reporting later syncs as clean. An error from the final sync
// of the folder means path already holds data but may not survive a power
// cut.
//
// If path is a symbolic link, the link itself is replaced, not its target.
// The rename is atomic only on local file systems that support rename(2)
// semantics; wisp's home belongs on one.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return writeFile(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeFile is WriteFile with the content supplied by fill, which lets the
// tests fail a write half way.
func writeFile(path string, perm os.FileMode, fill func(io.Writer) error) error {
	dir, base, err := splitTarget(path)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+base+tempInfix+"*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	renamed := false
	closed := false
	defer func() {
		if renamed {
			return
		}
		if !closed {
			f.Close()
		}
		os.Remove(tmp)
	}()

	if err := f.Chmod(perm.Perm()); err != nil {
		return err
	}
	if err := fill(f); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	closed = true
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	renamed = true
	return SyncDir(dir)
}

// SweepTemps removes the temp files that WriteFile leaves beside path when
// a process dies between creating one and renaming it. It removes only
// regular files named ".<base>.tmp-<digits>" in path's folder and reports
// the first error it meets after trying them all.
//
// A temp file in use by a WriteFile that is still running would be removed
// too, making that write fail, so call SweepTemps at start-up or while
// holding the lock that serialises the writers of path.
func SweepTemps(path string) error {
	dir, base, err := splitTarget(path)
	if err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	var first error
	for _, e := range entries {
		if !isTempName(e.Name(), base) || !e.Type().IsRegular() {
			continue
		}
		err := os.Remove(filepath.Join(dir, e.Name()))
		if err != nil && !errors.Is(err, os.ErrNotExist) && first == nil {
			first = err
		}
	}
	return first
}

// isTempName reports whether name is one of WriteFile's temp names for base.
func isTempName(name, base string) bool {
	digits, ok := strings.CutPrefix(name, "."+base+tempInfix)
	if !ok || digits == "" {
		return false
	}
	for _, r := range digits {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// splitTarget splits path into its folder and file name, refusing a path
// that names no file.
func splitTarget(path string) (dir, base string, err error) {
	base = filepath.Base(path)
	if path == "" || base == "." || base == ".." || base == string(filepath.Separator) ||
		strings.HasSuffix(path, string(filepath.Separator)) {
		return "", "", fmt.Errorf("%q does not name a file", path)
	}
	return filepath.Dir(path), base, nil
}
