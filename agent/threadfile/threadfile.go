// Package threadfile keeps an agent's threads as files, one JSON file a
// thread under a folder of the wisp home ($WISP_HOME/threads), written
// atomically and durably, 0600, with credentials replaced by markers
// before anything reaches the disk.
//
// A file is the thread's agent.ThreadState with its format's "version"
// (Version): each record of "messages" is a message as the model reads
// it, with a "kind" for the records wisp adds (notices, condensing
// notes). A file without a version was written before records had kinds;
// it is read as its writer meant it (see Load).
package threadfile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
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

// Version is the format of the thread files Save writes. Version 2 gives
// notices and condensing notes a record kind of their own; version 1
// files, which have no "version", marked them only by their text.
const Version = 2

// legacyNote starts the text of every notice and condensing note in a
// version 1 file.
const legacyNote = "[wisp: "

// file is a thread file's JSON.
type file struct {
	Version int `json:"version"`
	agent.ThreadState
}

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
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		return agent.ThreadState{}, false, d.damaged(id, describe(err))
	}
	switch {
	case f.Version < 0 || f.Version > Version:
		return agent.ThreadState{}, false, d.damaged(id, fmt.Sprintf("its format is version %d, and this wisp reads versions 1 to %d", f.Version, Version))
	case f.Version < 2:
		upgrade(&f.ThreadState)
	}
	for i, r := range f.Messages {
		switch r.Kind {
		case agent.RecordMessage, agent.RecordNotice, agent.RecordCondensed:
		default:
			return agent.ThreadState{}, false, d.damaged(id, fmt.Sprintf("record %d is of a kind this wisp does not know (%s)", i+1, clip(string(r.Kind))))
		}
	}
	return f.ThreadState, true, nil
}

// damaged is the error for a thread file that cannot be read as one. It
// names the file by its folder and name, not by its whole path: the line
// may reach a model (an MCP caller's), which has no business with where
// the wisp home is.
func (d Dir) damaged(id, problem string) error {
	name := filepath.Join(filepath.Base(d.Path), id+".json")
	return fmt.Errorf("its file %s is damaged (%s); move the file aside to start the thread afresh", name, problem)
}

// describe says what encoding/json found wrong with a file, in the
// file's terms rather than Go's.
func describe(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &te) && te.Field == "":
		return fmt.Sprintf("it holds a JSON %s, not an object", te.Value)
	case errors.As(err, &te):
		return fmt.Sprintf("its %q holds a %s, where the format has %s", keyPath(te.Field), te.Value, jsonKind(te.Type.Kind()))
	case errors.As(err, &se) && strings.Contains(se.Error(), "unexpected end of JSON input"):
		return "it ends before its JSON does"
	case errors.As(err, &se):
		return fmt.Sprintf("its JSON breaks off at byte %d: %s", se.Offset, strings.TrimPrefix(se.Error(), "json: "))
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// keyPath drops the Go types that encoding/json names in a field's path
// (the embedded ThreadState and Message) to leave the file's keys.
func keyPath(field string) string {
	var keys []string
	for k := range strings.SplitSeq(field, ".") {
		if k != "ThreadState" && k != "Message" {
			keys = append(keys, k)
		}
	}
	return strings.Join(keys, ".")
}

// jsonKind names a Go kind as JSON does.
func jsonKind(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "another kind of value"
}

// upgrade reads a version 1 thread: a user message whose text starts as
// every notice's did is a notice, and a system message that does a
// condensing note. Version 1 could not tell a person's message that began
// the same way from a notice; version 2 files never guess.
func upgrade(st *agent.ThreadState) {
	for i, r := range st.Messages {
		if r.Kind != agent.RecordMessage || !strings.HasPrefix(r.Content, legacyNote) {
			continue
		}
		switch r.Role {
		case wisp.RoleUser:
			st.Messages[i].Kind = agent.RecordNotice
		case wisp.RoleSystem:
			st.Messages[i].Kind = agent.RecordCondensed
		}
	}
}

// clip shortens a text for an error line and writes it quoted.
func clip(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return strconv.Quote(s)
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
	data, err := json.Marshal(file{Version: Version, ThreadState: wellFormed(st)})
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
