package pending

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/wisp-agent/wisp/internal/fsx"
)

// checkDir refuses a pending folder that is a symbolic link, not a
// folder, another user's, or writable by others; fi is its Lstat.
func checkDir(dir string, fi fs.FileInfo) error {
	q := fsx.QuotePath(dir)
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return lineErr(ErrUnsafe, fmt.Sprintf("pending folder %s is a symbolic link; wisp keeps questions only in a real folder: remove the link (rm %s)", q, q))
	case !fi.IsDir():
		return lineErr(ErrUnsafe, fmt.Sprintf("pending folder %s is not a folder; move it aside (mv %s %s.old)", q, q, q))
	}
	if uid, me, ok := owner(fi); ok && uid != me {
		return lineErr(ErrUnsafe, fmt.Sprintf("pending folder %s belongs to uid %d, not to you (uid %d); run chown %d %s as root, or remove it", q, uid, me, me, q))
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return lineErr(ErrUnsafe, fmt.Sprintf("pending folder %s is writable by others; run chmod 700 %s", q, q))
	}
	return nil
}

// checkFile refuses a pending file that is a symbolic link, not a
// regular file, another user's, or writable by others; fi is its Lstat
// or the Stat of the file opened without following links.
func checkFile(path string, fi fs.FileInfo) error {
	q := fsx.QuotePath(path)
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return lineErr(ErrUnsafe, fmt.Sprintf("pending file %s is a symbolic link, which wisp never follows there; remove it (rm %s)", q, q))
	case !fi.Mode().IsRegular():
		return lineErr(ErrUnsafe, fmt.Sprintf("pending file %s is not a regular file; remove it (rm -r %s)", q, q))
	}
	if uid, me, ok := owner(fi); ok && uid != me {
		return lineErr(ErrUnsafe, fmt.Sprintf("pending file %s belongs to uid %d, not to you (uid %d); remove it (rm %s)", q, uid, me, q))
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return lineErr(ErrUnsafe, fmt.Sprintf("pending file %s is writable by others; remove it (rm %s) or run chmod 600 %s", q, q, q))
	}
	return nil
}

// readFile reads the pending file at path without following a link,
// refusing it as checkFile does and when it is longer than MaxFileBytes.
// A missing file gives an error that matches fs.ErrNotExist.
func readFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|fsx.OpenNoFollow, 0)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			if fi, lerr := os.Lstat(path); lerr == nil {
				if cerr := checkFile(path, fi); cerr != nil {
					return nil, cerr
				}
			}
		}
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := checkFile(path, fi); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, malformed(path, fmt.Errorf("it is larger than %d bytes", MaxFileBytes))
	}
	return data, nil
}

// present reports whether something is at path, refusing it as checkFile
// does when it is.
func present(path string) (bool, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, checkFile(path, fi)
}

// errExists: createExclusive found a file at the name already.
var errExists = errors.New("exists")

// createExclusive makes path hold data, mode 0600, unless something is
// there already, in which case it returns errExists and changes nothing.
//
// The data goes to a temp file created with O_EXCL (which never follows a
// link) beside path, is synced, and is then hard-linked to path: link(2)
// fails when path exists, link or not, so of two writers racing exactly
// one succeeds, and the file appears whole or not at all. The temp file is
// removed and the folder synced. A crash can leave the temp file, named
// ".<name>.tmp-<digits>", which Settle and Sweep remove.
func createExclusive(path string, data []byte) error {
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
			return errExists
		}
		return err
	}
	if err := os.Remove(tmp); err != nil {
		return err
	}
	return fsx.SyncDir(dir)
}

// writeFile replaces path with data atomically and durably, mode 0600.
func writeFile(path string, data []byte) error {
	return fsx.WriteFile(path, data, 0o600)
}

// remove removes path; a missing path is no error.
func remove(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// malformed reports a pending file that is not one wisp wrote.
func malformed(path string, why error) error {
	q := fsx.QuotePath(path)
	return lineErr(ErrMalformed, fmt.Sprintf("pending file %s is not one wisp wrote (%v); remove it (rm %s)", q, why, q))
}

// owner returns the user id that owns fi and this process's; ok is false
// where the system does not say.
func owner(fi fs.FileInfo) (uid, me int, ok bool) {
	uid, ok = fsx.Owner(fi)
	me, mine := fsx.CurrentUID()
	return uid, me, ok && mine
}
