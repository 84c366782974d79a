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
	"sync"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/internal/fsx"
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
type Dir struct {
	// Path is the folder, created 0700 when missing.
	Path string
	// Locks is the folder of the threads' lock files
	// (thread-<id>.lock), created 0700 when missing; "" means Path.
	Locks string
	// Redact replaces credentials in every text before it is written;
	// nil writes texts as they are.
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
	if err := fsx.SweepTemps(path); err != nil {
		unlock()
		return nil, fmt.Errorf("the leftovers of an earlier save of thread %s cannot be removed: %w", id, err)
	}
	return unlock, nil
}

// Load reads a thread; ok is false when it was never saved.
func (d Dir) Load(id string) (agent.ThreadState, bool, error) {
	path, err := d.file(id)
	if err != nil {
		return agent.ThreadState{}, false, err
	}
	data, err := fsx.ReadFile(path, int64(maxFile))
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
	if err := fsx.EnsureDir(d.Path); err != nil {
		return err
	}
	if d.Redact != nil {
		st = redact(st, d.Redact)
	}
	data, err := json.Marshal(st)
	if err != nil {
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

// redact returns a copy of st with every text passed through r.
func redact(st agent.ThreadState, r func(string) string) agent.ThreadState {
	out := st
	out.Messages = make([]wisp.Message, len(st.Messages))
	for i, m := range st.Messages {
		m.Content = r(m.Content)
		if len(m.ToolCalls) > 0 {
			calls := make([]wisp.ToolCall, len(m.ToolCalls))
			for j, c := range m.ToolCalls {
				c.Arguments = redactJSON(c.Arguments, r)
				calls[j] = c
			}
			m.ToolCalls = calls
		}
		out.Messages[i] = m
	}
	out.Facts = make([]wisp.Fact, len(st.Facts))
	for i, f := range st.Facts {
		f.Name, f.Value = r(f.Name), r(f.Value)
		out.Facts[i] = f
	}
	return out
}

// redactJSON passes the string values of a JSON document through r.
func redactJSON(raw json.RawMessage, r func(string) string) json.RawMessage {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		b, _ := json.Marshal(r(string(raw)))
		return b
	}
	v = walk(v, r)
	b, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return b
}

func walk(v any, r func(string) string) any {
	switch x := v.(type) {
	case string:
		return r(x)
	case []any:
		for i := range x {
			x[i] = walk(x[i], r)
		}
	case map[string]any:
		for k := range x {
			x[k] = walk(x[k], r)
		}
	}
	return v
}
