package hf

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/wisp-agent/wisp/internal/fsx"
)

// stateVersion is the version of the state file's format.
const stateVersion = 1

// A partState is what blobs/<etag>.state records about a partial file:
// how many of its bytes are synced and hashed, and the hash's state
// after them.
type partState struct {
	Version int    `json:"version"`
	Etag    string `json:"etag"`
	// Size is the whole file's size, as the plan states it.
	Size int64 `json:"size"`
	// Bytes is how many bytes of the partial file the hash covers.
	Bytes int64 `json:"bytes"`
	// Hash is the hash's state after those bytes, as its
	// MarshalBinary gives it.
	Hash []byte `json:"hash"`
}

// readState reads the state at path; ok is false when there is none, or
// it is unreadable, of another version, or about another file.
func readState(path string, f File) (st partState, ok bool) {
	data, err := fsx.ReadFile(path, 64<<10)
	if err != nil {
		return partState{}, false
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return partState{}, false
	}
	if st.Version != stateVersion || st.Etag != f.Etag() || st.Size != f.Size || st.Bytes < 0 || len(st.Hash) == 0 {
		return partState{}, false
	}
	return st, true
}

// writeState records, atomically and durably, that the partial file of f
// holds bytes bytes whose hash has the marshalled state hash.
func writeState(path string, f File, bytes int64, hash []byte) error {
	data, err := json.Marshal(partState{Version: stateVersion, Etag: f.Etag(), Size: f.Size, Bytes: bytes, Hash: hash})
	if err != nil {
		return err
	}
	return fsx.WriteFile(path, data, 0o600)
}

// openPartialFile opens the regular file at path for reading and writing,
// creating it with mode 0600, without following a symbolic link.
func openPartialFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|noFollow, 0o600)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file", path)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
