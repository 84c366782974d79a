package spool

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/wisp-agent/wisp/internal/fsx"
)

// IDLen is the length of an ID: 8 characters from 0-9 and a-f, such as
// a1b2c3d4.
const IDLen = 8

// ValidID reports whether id is an ID: exactly IDLen characters, each a
// digit or a lower-case letter from a to f. Only such a string is ever
// joined to a spool folder's path, so an ID can name no other file.
func ValidID(id string) bool {
	if len(id) != IDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// IDOf returns the ID a file name in a spool folder starts with, after
// an optional dot (temp files start with one), followed by a dot.
func IDOf(name string) (string, bool) {
	name = strings.TrimPrefix(name, ".")
	if len(name) <= IDLen || name[IDLen] != '.' || !ValidID(name[:IDLen]) {
		return "", false
	}
	return name[:IDLen], true
}

// Name returns the name of the file of kind for id: "<id>.<kind>.json".
func Name(id, kind string) string { return id + "." + kind + ".json" }

// isTemp reports whether name is a temp file's: ".<id>.<kind>.json.tmp-…".
func isTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp-")
}

// UsedIDs lists the IDs that any file in the folder dir names, leftovers
// and temp files included.
func UsedIDs(dir string) (map[string]bool, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	used := map[string]bool{}
	for _, e := range entries {
		if id, ok := IDOf(e.Name()); ok {
			used[id] = true
		}
	}
	return used, nil
}

// RemoveID removes every file of id in the folder dir, temp files
// included, and syncs the folder. Hold the folder's lock while it runs.
func RemoveID(dir, id string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if got, ok := IDOf(e.Name()); ok && got == id {
			if err := Remove(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return fsx.SyncDir(dir)
}

// Sweep removes what crashes leave in the folder dir: every temp file,
// and the files of the kinds in leftovers whose ID has no file of kind
// main ("<id>.<main>.json"). It leaves other files alone and syncs the
// folder when it removed something. Hold the folder's lock while it runs:
// then no change is running, and every temp file is a leftover.
func Sweep(dir, main string, leftovers ...string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	filed := map[string]bool{}
	for _, e := range entries {
		if id, ok := idOfKind(e.Name(), main); ok {
			filed[id] = true
		}
	}
	removed := false
	for _, e := range entries {
		name := e.Name()
		id, ok := IDOf(name)
		if !ok {
			continue
		}
		leftover := !filed[id] && slices.ContainsFunc(leftovers, func(kind string) bool { return name == Name(id, kind) })
		if isTemp(name) || leftover {
			if err := Remove(filepath.Join(dir, name)); err != nil {
				return err
			}
			removed = true
		}
	}
	if removed {
		return fsx.SyncDir(dir)
	}
	return nil
}

// idOfKind returns the ID of name when it is the file of kind for a
// valid ID, "<id>.<kind>.json".
func idOfKind(name, kind string) (string, bool) {
	id, ok := strings.CutSuffix(name, "."+kind+".json")
	return id, ok && ValidID(id)
}

// Path returns the path of the file of kind for id, which must be valid,
// in the folder dir.
func Path(dir, id, kind string) string { return filepath.Join(dir, Name(id, kind)) }

// QuoteID quotes id, which is not valid, for the line that refuses it: in
// ASCII, and cut after 40 bytes.
func QuoteID(id string) string {
	if len(id) > 40 {
		id = id[:40] + "…"
	}
	return strconv.QuoteToASCII(id)
}
