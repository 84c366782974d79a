package audit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Names of the files in a log directory, and their modes.
const (
	logName  = "audit.jsonl"
	lockName = "audit.lock"
	fileMode = 0o600
	dirMode  = 0o700
)

// openFile opens path with flag, refusing a symbolic link (O_NOFOLLOW, and
// an Lstat check where the platform lacks it) and anything but a regular
// file. A file it creates gets mode 0600 whatever the umask; a file it
// opens to write or create is tightened to 0600 if it is looser.
func openFile(path string, flag int) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil {
		if err := checkMode(path, fi); err != nil {
			return nil, err
		}
	}
	f, err := os.OpenFile(path, flag|noFollow, fileMode)
	if err != nil {
		if fi, lerr := os.Lstat(path); lerr == nil {
			if merr := checkMode(path, fi); merr != nil {
				return nil, merr
			}
		}
		return nil, fmt.Errorf("audit: %w", err)
	}
	fi, err := f.Stat()
	if err == nil {
		err = checkMode(path, fi)
	}
	if err == nil && flag&(os.O_CREATE|os.O_WRONLY|os.O_RDWR) != 0 && fi.Mode().Perm() != fileMode {
		err = f.Chmod(fileMode)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("audit: %w", err)
	}
	return f, nil
}

// lockError explains an error from locking the file at path, naming a
// symbolic link or other unsafe file for what it is.
func lockError(path string, err error) error {
	if fi, lerr := os.Lstat(path); lerr == nil {
		if merr := checkMode(path, fi); merr != nil {
			return merr
		}
	}
	return fmt.Errorf("audit: lock: %w", err)
}

// checkMode refuses what is not a regular file.
func checkMode(path string, fi fs.FileInfo) error {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%w: %s", ErrSymlink, path)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%w: %s is %v", ErrNotRegular, path, fi.Mode().Type())
	}
	return nil
}

// openLog opens the log file of dir for reading and appending, creating it
// if missing. When it creates the file it fsyncs the directory, so the new
// name is as durable as the records written to it.
func openLog(dir string) (*os.File, error) {
	path := filepath.Join(dir, logName)
	for range 3 {
		f, err := openFile(path, os.O_RDWR|os.O_APPEND)
		if !errors.Is(err, fs.ErrNotExist) {
			return f, err
		}
		f, err = openFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE|os.O_EXCL)
		if err == nil {
			if err := syncDir(dir); err != nil {
				f.Close()
				return nil, err
			}
			return f, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		// Another writer created it meanwhile: open it as it is.
	}
	return nil, fmt.Errorf("audit: %s keeps appearing and disappearing", path)
}

// syncDir fsyncs a directory, making the names in it durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("audit: sync %s: %w", dir, err)
	}
	return nil
}

// makeDir makes sure dir is a directory, creating it with mode 0700 (set
// explicitly, whatever the umask) when it is missing.
func makeDir(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case err == nil && !fi.IsDir():
		return fmt.Errorf("audit: %s is not a directory", dir)
	case err == nil:
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("audit: %w", err)
	}
	if err := os.MkdirAll(dir, dirMode); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	if err := os.Chmod(dir, dirMode); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return nil
}
