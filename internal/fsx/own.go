package fsx

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// A Kind is a kind of file or folder that wisp trusts only when it is the
// person's own: what the lines that refuse one call it, such as "thread
// file" in the "thread folder", which keeps "threads". Its checks refuse
// a symbolic link, what is not a folder or regular file, what belongs to
// another user, and what its group or others can write to, each with one
// line that says how to mend it and wraps [ErrUnsafe].
type Kind struct {
	// Folder and File are what the lines call the folder and a file in
	// it.
	Folder, File string
	// Keeps names what the folder keeps, for the line that refuses a
	// folder that is a symbolic link.
	Keeps string
	// Chown says a file is worth keeping (the person's settings): the
	// lines that refuse one offer chown and chmod before removing it.
	Chown bool
}

// CheckDir refuses the folder dir when it is a symbolic link, not a
// folder, another user's, or writable by its group or others; fi is its
// Lstat. It does not look at the folders above dir; [EnsureDir] does.
func (k Kind) CheckDir(dir string, fi fs.FileInfo) error {
	q := QuotePath(dir)
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return unsafe("%s %s is a symbolic link; wisp keeps %s only in a real folder: remove the link (rm %s)", k.Folder, q, k.Keeps, q)
	case !fi.IsDir():
		return unsafe("%s %s is not a folder; move it aside (mv %s %s.old)", k.Folder, q, q, q)
	}
	if uid, me, ok := owners(fi); ok && uid != me {
		return unsafe("%s %s belongs to uid %d, not to you (uid %d); run chown %d %s as root, or remove it", k.Folder, q, uid, me, me, q)
	}
	if _, known := CurrentUID(); known && fi.Mode().Perm()&0o022 != 0 {
		return unsafe("%s %s is writable by others; run chmod 700 %s", k.Folder, q, q)
	}
	return nil
}

// CheckFile refuses the file at path when it is a symbolic link, not a
// regular file, another user's, or writable by its group or others; fi is
// its Lstat or the Stat of the file opened without following links. The
// refusal of a link or of what is not a regular file wraps
// [ErrNotRegular] too.
func (k Kind) CheckFile(path string, fi fs.FileInfo) error {
	q := QuotePath(path)
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return &lineError{fmt.Sprintf("%s %s is a symbolic link, which wisp never follows there; remove it (rm %s)", k.File, q, q), errUnsafeLink}
	case !fi.Mode().IsRegular():
		return &lineError{fmt.Sprintf("%s %s is not a regular file; remove it (rm -r %s)", k.File, q, q), errUnsafeLink}
	}
	if uid, me, ok := owners(fi); ok && uid != me {
		if k.Chown {
			return unsafe("%s %s belongs to uid %d, not to you (uid %d); if it is yours, run chown %d %s as root, or else remove it (rm %s)", k.File, q, uid, me, me, q, q)
		}
		return unsafe("%s %s belongs to uid %d, not to you (uid %d); remove it (rm %s)", k.File, q, uid, me, q)
	}
	if _, known := CurrentUID(); known && fi.Mode().Perm()&0o022 != 0 {
		if k.Chown {
			return unsafe("%s %s is writable by others; run chmod 600 %s", k.File, q, q)
		}
		return unsafe("%s %s is writable by others; remove it (rm %s) or run chmod 600 %s", k.File, q, q, q)
	}
	return nil
}

// errUnsafeLink is what the refusal of a link, or of what is not a
// regular file, wraps: both ErrUnsafe and ErrNotRegular.
var errUnsafeLink = joined{ErrUnsafe, ErrNotRegular}

// joined is an error that is each of its errors.
type joined []error

func (j joined) Error() string   { return errors.Join(j...).Error() }
func (j joined) Unwrap() []error { return j }

// ReadFile reads the file at path, at most limit bytes of it, opening it
// without following a link (so the check cannot be raced) and refusing it
// as CheckFile does. A longer file is refused with an error that wraps
// [ErrTooLarge]; a missing one gives an error that matches
// [os.ErrNotExist].
func (k Kind) ReadFile(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|OpenNoFollow, 0)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			if fi, lerr := os.Lstat(path); lerr == nil {
				if cerr := k.CheckFile(path, fi); cerr != nil {
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
	if err := k.CheckFile(path, fi); err != nil {
		return nil, err
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

// owners returns the user id that owns fi and this process's; ok is false
// where the system does not say.
func owners(fi fs.FileInfo) (uid, me int, ok bool) {
	uid, ok = Owner(fi)
	me, known := CurrentUID()
	return uid, me, ok && known
}
