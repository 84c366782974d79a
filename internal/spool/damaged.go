package spool

import (
	"errors"
	"io"
	"io/fs"
	"os"

	"github.com/wisp-agent/wisp/internal/fsx"
)

// A Damage is a record file in a ledger's folder that is not one its
// caller wrote: cut short, edited, too large, or not a record at all.
type Damage struct {
	// ID is the record's ID, as its file's name gives it.
	ID string
	// Err says what is wrong with the file, in a line that names it and
	// how to mend it; it wraps ErrMalformed.
	Err error
	// Head is the file's first MaxFileBytes bytes, or nil when they
	// cannot be read.
	Head []byte
}

// Damaged returns the record files in the folder dir that Records skips
// because they are not records the caller wrote, by ID. It fails, as
// Records does, on a file it must not trust, and returns nothing when the
// folder is missing.
func (l Ledger[R, A]) Damaged(dir string) ([]Damage, error) {
	if err := l.UseDir(dir, false); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var ds []Damage
	for _, e := range entries {
		id, ok := idOfKind(e.Name(), l.RecordKind)
		if !ok {
			continue
		}
		_, err := l.readRecord(dir, id)
		switch {
		case err == nil, errors.Is(err, fs.ErrNotExist):
		case errors.Is(err, ErrMalformed):
			ds = append(ds, Damage{ID: id, Err: err, Head: l.head(Path(dir, id, l.RecordKind))})
		default:
			return nil, err
		}
	}
	return ds, nil
}

// head reads up to MaxFileBytes of the file at path, without following a
// link; nil when it cannot.
func (s Spool) head(path string) []byte {
	f, err := os.OpenFile(path, os.O_RDONLY|fsx.OpenNoFollow, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || s.CheckFile(path, fi) != nil {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(f, int64(s.MaxFileBytes)))
	if err != nil {
		return nil
	}
	return data
}
