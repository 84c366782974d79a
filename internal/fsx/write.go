package fsx

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
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
	return writeIn(osFolder(dir), base, perm, fill)
}

// WriteFileIn is WriteFile for the file name inside root: the temp file
// is made beside it, renamed over it and the folder synced, every step
// through root, so a name or a symbolic link that leads out of root
// fails as root's methods fail, and nothing outside root is touched.
// name is relative to root, in the system's form (filepath).
//
// As with WriteFile, a symbolic link at name is replaced, not followed;
// a caller that means to write the link's target resolves it first.
func WriteFileIn(root *os.Root, name string, data []byte, perm os.FileMode) error {
	return writeFileIn(root, name, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeFileIn is WriteFileIn with the content supplied by fill.
func writeFileIn(root *os.Root, name string, perm os.FileMode, fill func(io.Writer) error) error {
	dir, base, err := splitTarget(name)
	if err != nil {
		return err
	}
	return writeIn(rootFolder{root: root, dir: dir}, base, perm, fill)
}

// A folder is where writeIn makes its temp file and renames it: a folder
// named by its path, or one inside an *os.Root.
type folder interface {
	// createTemp creates a new file whose name is "."+base+tempInfix and
	// digits, and returns it with the name the other methods take.
	createTemp(base string) (*os.File, string, error)
	rename(tmp, base string) error
	remove(tmp string) error
	sync() error
}

// writeIn writes base in dir: a temp file, chmod, fill, sync, close,
// rename, and the folder synced (see WriteFile).
func writeIn(dir folder, base string, perm os.FileMode, fill func(io.Writer) error) error {
	f, tmp, err := dir.createTemp(base)
	if err != nil {
		return err
	}
	renamed := false
	closed := false
	defer func() {
		if renamed {
			return
		}
		if !closed {
			f.Close()
		}
		dir.remove(tmp)
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
	if err := dir.rename(tmp, base); err != nil {
		return err
	}
	renamed = true
	return dir.sync()
}

// osFolder is a folder named by its path.
type osFolder string

func (d osFolder) createTemp(base string) (*os.File, string, error) {
	f, err := os.CreateTemp(string(d), "."+base+tempInfix+"*")
	if err != nil {
		return nil, "", err
	}
	return f, f.Name(), nil
}

func (d osFolder) rename(tmp, base string) error {
	return os.Rename(tmp, filepath.Join(string(d), base))
}
func (d osFolder) remove(tmp string) error { return os.Remove(tmp) }
func (d osFolder) sync() error             { return SyncDir(string(d)) }

// rootFolder is the folder dir inside root.
type rootFolder struct {
	root *os.Root
	dir  string
}

// createTemp makes the temp file with O_EXCL under a random number, as
// os.CreateTemp does, trying again while the name is taken.
func (d rootFolder) createTemp(base string) (*os.File, string, error) {
	for try := 0; ; try++ {
		name := filepath.Join(d.dir, "."+base+tempInfix+strconv.FormatUint(uint64(rand.Uint32()), 10))
		f, err := d.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) && try < 10000 {
			continue
		}
		return f, name, err
	}
}

func (d rootFolder) rename(tmp, base string) error {
	return d.root.Rename(tmp, filepath.Join(d.dir, base))
}
func (d rootFolder) remove(tmp string) error { return d.root.Remove(tmp) }
func (d rootFolder) sync() error             { return syncDirIn(d.root, d.dir) }

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
