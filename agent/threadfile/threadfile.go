// Package threadfile keeps an agent's threads as files, one JSON file a
// thread under a folder of the wisp home ($WISP_HOME/threads), written
// atomically and durably, 0600, with credentials replaced by markers
// before anything reaches the disk.
package threadfile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sync"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/internal/fsx"
	"github.com/wisp-agent/wisp/internal/jsonredact"
	"github.com/wisp-agent/wisp/policy/secrets"
)

// MaxFile bounds a thread's file. Save refuses to write a larger one, so
// every file it writes loads; the agent's limits keep a thread well below
// it (see agent.MaxThreadBytes).
const MaxFile = 64 << 20

// maxFile is MaxFile, lowered by the tests.
var maxFile = MaxFile

var validID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// ErrBadID refuses a thread id that could not be a file name of ours.
var ErrBadID = errors.New("a thread id is 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit")

// Dir is a folder of thread files. It is safe for concurrent use. Turns
// on one thread are serialised by the agent, through Lock, across
// processes.
//
// A thread is read only from what the person owns: Load and Save refuse
// the folder when it is a symbolic link, not a folder, another user's or
// writable by others (or sits below a folder others control, as
// fsx.EnsureDir checks), and Load refuses the same of a thread file, which
// it opens without following links. Nothing another user planted is
// loaded.
type Dir struct {
	// Path is the folder, created 0700 when missing.
	Path string
	// Locks is the folder of the threads' lock files
	// (thread-<id>.lock), created 0700 when missing; "" means Path.
	Locks string
	// Redact replaces credentials in every string of a thread before it is
	// written: texts, tool names and ids, facts, and the keys and values of
	// a model's tool arguments (each value also in the light of its key,
	// so {"password": "…"} is caught). nil: a secrets.Redactor of each
	// Save's own, which numbers its markers afresh.
	Redact func(string) string
}

var (
	_ agent.ThreadStore  = Dir{}
	_ agent.ThreadLocker = Dir{}
)

// ValidID reports whether id can name a thread file.
func ValidID(id string) bool { return validID.MatchString(id) }

func (d Dir) file(id string) (string, error) {
	if !ValidID(id) {
		return "", fmt.Errorf("thread %q: %w", id, ErrBadID)
	}
	return filepath.Join(d.Path, id+".json"), nil
}

// Lock holds thread id against every other holder, in this process or
// another, until unlock: an flock(2) lock on its own lock file, which dies
// with its process, so a killed turn never leaves its thread held. A free
// lock is taken even when ctx is done; a held one is waited for, after one
// call of waiting, until ctx is done (the error wraps context.Cause(ctx)).
//
// Once it holds the thread, Lock removes the temp files a save that was
// killed before its rename left beside the thread's file.
func (d Dir) Lock(ctx context.Context, id string, waiting func()) (unlock func(), err error) {
	path, err := d.file(id)
	if err != nil {
		return nil, err
	}
	locks := d.Locks
	if locks == "" {
		locks = d.Path
	}
	if err := fsx.EnsureDir(locks); err != nil {
		return nil, err
	}
	release, err := fsx.LockWaiting(ctx, filepath.Join(locks, "thread-"+id+".lock"), waiting)
	if err != nil {
		return nil, err
	}
	var once sync.Once
	unlock = func() { once.Do(func() { _ = release() }) }
	if err := d.useDir(false); errors.Is(err, fs.ErrNotExist) {
		return unlock, nil
	} else if err != nil {
		unlock()
		return nil, err
	}
	if err := fsx.SweepTemps(path); err != nil {
		unlock()
		return nil, fmt.Errorf("the leftovers of an earlier save of thread %s cannot be removed: %w", id, err)
	}
	return unlock, nil
}

// kind is what the checks of the folder and its files call them.
var kind = fsx.Kind{Folder: "thread folder", File: "thread file", Keeps: "threads"}

// useDir checks that the folder is the person's own (see Dir), creating
// it when it is missing and create is set; otherwise a missing folder
// gives an error that matches fs.ErrNotExist.
func (d Dir) useDir(create bool) error {
	fi, err := os.Lstat(d.Path)
	if errors.Is(err, fs.ErrNotExist) && create {
		if err := fsx.EnsureDir(d.Path); err != nil {
			return err
		}
		fi, err = os.Lstat(d.Path)
	}
	if err != nil {
		return err
	}
	if err := kind.CheckDir(d.Path, fi); err != nil {
		return err
	}
	return fsx.EnsureDir(d.Path) // and the folders above it
}

// Load reads a thread; ok is false when it was never saved. It refuses,
// with one line that says how to mend it, a folder or a thread file that
// is not the person's own (see Dir).
func (d Dir) Load(id string) (agent.ThreadState, bool, error) {
	path, err := d.file(id)
	if err != nil {
		return agent.ThreadState{}, false, err
	}
	if err := d.useDir(false); errors.Is(err, fs.ErrNotExist) {
		return agent.ThreadState{}, false, nil
	} else if err != nil {
		return agent.ThreadState{}, false, err
	}
	data, err := kind.ReadFile(path, int64(maxFile))
	if errors.Is(err, fs.ErrNotExist) {
		return agent.ThreadState{}, false, nil
	}
	if err != nil {
		return agent.ThreadState{}, false, err
	}
	var st agent.ThreadState
	if err := json.Unmarshal(data, &st); err != nil {
		return agent.ThreadState{}, false, fmt.Errorf("%s is not a thread file (%v); move it aside to start the thread afresh", path, err)
	}
	return st, true, nil
}

// Save writes a thread, replacing its file atomically.
func (d Dir) Save(id string, st agent.ThreadState) error {
	path, err := d.file(id)
	if err != nil {
		return err
	}
	if err := d.useDir(true); err != nil {
		return err
	}
	data, err := json.Marshal(wellFormed(st))
	if err != nil {
		return err
	}
	redact := d.Redact
	if redact == nil {
		r := secrets.NewRedactor()
		redact = func(s string) string { out, _ := r.Redact(s); return out }
	}
	if data, err = jsonredact.Redact(data, redact); err != nil {
		return err
	}
	if len(data)+1 > maxFile {
		return fmt.Errorf("it would take %d bytes, and a thread file holds at most %d", len(data)+1, maxFile)
	}
	return fsx.WriteFile(path, append(data, '\n'), 0o600)
}

// Remove deletes a thread's file.
func (d Dir) Remove(id string) error {
	path, err := d.file(id)
	if err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// wellFormed returns st with each tool call's arguments that are not JSON
// (a model can send anything) kept as a JSON string of their text, so the
// thread can be written; st itself is left as it is.
func wellFormed(st agent.ThreadState) agent.ThreadState {
	out := st
	out.Messages = slices.Clone(st.Messages)
	for i, m := range out.Messages {
		var calls []wisp.ToolCall // m's calls, cloned once one changes
		for j, c := range m.ToolCalls {
			if len(c.Arguments) == 0 || json.Valid(c.Arguments) {
				continue
			}
			if calls == nil {
				calls = slices.Clone(m.ToolCalls)
				out.Messages[i].ToolCalls = calls
			}
			calls[j].Arguments, _ = json.Marshal(string(c.Arguments)) // a string always marshals
		}
	}
	return out
}
