package pending

import "github.com/wisp-agent/wisp/internal/spool"

// files is the pending folder's kind of spool: every file in it is
// checked, read and written through internal/spool, with these words in
// its messages and these sentinels in its errors.
var files = spool.Spool{
	Folder:       "pending folder",
	File:         "pending file",
	Keeps:        "questions",
	MaxFileBytes: MaxFileBytes,
	ErrUnsafe:    ErrUnsafe,
	ErrMalformed: ErrMalformed,
}

// readFile reads the pending file at path without following a link,
// refusing it when it is unsafe or longer than MaxFileBytes. A missing
// file gives an error that matches fs.ErrNotExist.
func readFile(path string) ([]byte, error) { return files.ReadFile(path) }

// present reports whether something is at path, refusing it when it is
// unsafe.
func present(path string) (bool, error) { return files.Present(path) }

// errExists: createExclusive found a file at the name already.
var errExists = spool.ErrExists

// createExclusive makes path hold data, mode 0600, unless something is
// there already (errExists); of writers racing for one name exactly one
// succeeds. See spool.CreateExclusive.
func createExclusive(path string, data []byte) error { return spool.CreateExclusive(path, data) }

// writeFile replaces path with data atomically and durably, mode 0600.
func writeFile(path string, data []byte) error { return spool.WriteFile(path, data) }

// remove removes path; a missing path is no error.
func remove(path string) error { return spool.Remove(path) }

// malformed reports a pending file that is not one wisp wrote.
func malformed(path string, why error) error { return files.Malformed(path, why) }
