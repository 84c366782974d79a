package fsx

import (
	"fmt"
	"io"
	"os"
)

// ReadFile reads the regular file at path, at most limit bytes of it.
//
// It refuses, with an error that wraps [ErrNotRegular], a path whose last
// part is a symbolic link, a folder, a device or a pipe; the file is opened
// without following a link, so the check cannot be raced. A file longer
// than limit bytes is refused with an error that wraps [ErrTooLarge]. A
// missing file gives an error that matches [os.ErrNotExist].
func ReadFile(path string, limit int64) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(path, fi)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|OpenNoFollow, 0)
	if err != nil {
		if fi, lerr := os.Lstat(path); lerr == nil && !fi.Mode().IsRegular() {
			return nil, notRegular(path, fi)
		}
		return nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(path, fi)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &lineError{fmt.Sprintf("%s is larger than %d bytes", QuotePath(path), limit), ErrTooLarge}
	}
	return data, nil
}

// notRegular says what path holds instead of a regular file.
func notRegular(path string, fi os.FileInfo) error {
	what := "not a regular file"
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		what = "a symbolic link, not a regular file"
	case fi.IsDir():
		what = "a folder, not a regular file"
	}
	return &lineError{QuotePath(path) + " is " + what, ErrNotRegular}
}
