package spool

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/wisp-agent/wisp/internal/fsx"
)

// LockName is the lock file in a spool folder that every change takes.
const LockName = ".lock"

// A Spool is one kind of spool folder: what its messages call the folder
// and its files, how large a file may be, and the sentinels its errors
// wrap. It holds no path: its methods take the folder or the file they
// work on, so one Spool serves every folder of its kind.
type Spool struct {
	// Folder and File are what messages call the folder and a file in it,
	// such as "pending folder" and "pending file".
	Folder, File string
	// Keeps names what the folder keeps, such as "questions", in the line
	// that refuses a folder that is a symbolic link.
	Keeps string
	// MaxFileBytes bounds every read; a longer file is malformed.
	MaxFileBytes int
	// ErrUnsafe and ErrMalformed are the caller's sentinels, which the
	// errors wrap beside this package's ErrUnsafe and ErrMalformed; nil:
	// only those.
	ErrUnsafe, ErrMalformed error
}

func (s Spool) unsafe(msg string) error { return lineErr(ErrUnsafe, s.ErrUnsafe, msg) }

// kind is what fsx's checks call the folder and its files.
func (s Spool) kind() fsx.Kind { return fsx.Kind{Folder: s.Folder, File: s.File, Keeps: s.Keeps} }

// CheckDir refuses a folder that is a symbolic link, not a folder,
// another user's, or writable by others; fi is its Lstat. See
// [fsx.Kind.CheckDir].
func (s Spool) CheckDir(dir string, fi fs.FileInfo) error {
	if err := s.kind().CheckDir(dir, fi); err != nil {
		return s.unsafe(err.Error())
	}
	return nil
}

// CheckFile refuses a file that is a symbolic link, not a regular file,
// another user's, or writable by others; fi is its Lstat or the Stat of
// the file opened without following links. See [fsx.Kind.CheckFile].
func (s Spool) CheckFile(path string, fi fs.FileInfo) error {
	if err := s.kind().CheckFile(path, fi); err != nil {
		return s.unsafe(err.Error())
	}
	return nil
}

// UseDir checks the folder dir before use. When it is missing, UseDir
// creates it, mode 0700, if create is set (refusing, as [fsx.EnsureDir]
// does, to create it below a folder others control) and otherwise
// returns an error that matches fs.ErrNotExist.
func (s Spool) UseDir(dir string, create bool) error {
	if dir == "" {
		return fmt.Errorf("the %s is an empty path", s.Folder)
	}
	fi, err := os.Lstat(dir)
	switch {
	case err == nil:
		if err := s.CheckDir(dir, fi); err != nil {
			return err
		}
	case errors.Is(err, fs.ErrNotExist) && !create:
		return err
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	// Create the folder, and check the folders above it.
	if err := fsx.EnsureDir(dir); err != nil {
		if errors.Is(err, fsx.ErrUnsafe) {
			return s.unsafe(err.Error())
		}
		return err
	}
	fi, err = os.Lstat(dir)
	if err != nil {
		return err
	}
	return s.CheckDir(dir, fi)
}

// Lock takes the lock of the folder dir, waiting while another holds it
// and giving up when ctx is done. See [fsx.Lock].
func Lock(ctx context.Context, dir string) (unlock func() error, err error) {
	return fsx.Lock(ctx, filepath.Join(dir, LockName))
}

// ReadFile reads the file at path without following a link, refusing it
// as CheckFile does, and as malformed when it is longer than
// MaxFileBytes. A missing file gives an error that matches
// fs.ErrNotExist.
func (s Spool) ReadFile(path string) ([]byte, error) {
	data, err := s.kind().ReadFile(path, int64(s.MaxFileBytes))
	switch {
	case errors.Is(err, fsx.ErrTooLarge):
		return nil, s.Malformed(path, fmt.Errorf("it is larger than %d bytes", s.MaxFileBytes))
	case errors.Is(err, fsx.ErrUnsafe):
		return nil, s.unsafe(err.Error())
	}
	return data, err
}

// Present reports whether something is at path, refusing it as CheckFile
// does when it is.
func (s Spool) Present(path string) (bool, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, s.CheckFile(path, fi)
}

// Malformed reports a file that is not one wisp wrote, saying why.
func (s Spool) Malformed(path string, why error) error {
	q := fsx.QuotePath(path)
	return lineErr(ErrMalformed, s.ErrMalformed, fmt.Sprintf("%s %s is not one wisp wrote (%v); remove it (rm %s)", s.File, q, why, q))
}
