package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/wisp-agent/wisp/internal/fsx"
	"github.com/wisp-agent/wisp/policy/secrets"
)

// The limits of what is kept.
const (
	// MaxFactBytes bounds the text of one fact, in bytes.
	MaxFactBytes = 500
	// MaxFacts is the most facts the file keeps; a fact beyond them is
	// refused until one is forgotten.
	MaxFacts = 200
	// maxFileSize caps memory.json: MaxFacts facts are far below it.
	maxFileSize = 1 << 20
	// version is the format of memory.json this package writes.
	version = 1
)

// Sources of a fact.
const (
	// SourceModel: the model kept it, with the memory tool.
	SourceModel = "model"
)

// A Fact is one thing kept across conversations.
type Fact struct {
	// ID names the fact: "m" and a number, never reused.
	ID string `json:"id"`
	// Text is the fact, its credentials as markers.
	Text string `json:"text"`
	// Source says who kept it (SourceModel); Thread and Session, where.
	Source  string `json:"source"`
	Thread  string `json:"thread,omitempty"`
	Session string `json:"session,omitempty"`
	// Time is when it was kept.
	Time time.Time `json:"time"`
}

// file is memory.json.
type file struct {
	Version int    `json:"version"`
	Seq     int    `json:"seq"`
	Facts   []Fact `json:"facts"`
}

// ErrBadFile: memory.json cannot be trusted or read: it is a link, not a
// regular file, someone else's, writable by others, too large, or not
// what wisp writes. The error's text is one line that names the file and
// says how to mend it.
var ErrBadFile = errors.New("bad memory file")

// ErrNoFact: no fact has the id given.
var ErrNoFact = errors.New("no such fact")

// ErrFull: the file keeps MaxFacts facts already.
var ErrFull = errors.New("memory is full")

// fileError is a one-line error about the memory file that is ErrBadFile
// and its cause.
type fileError struct {
	msg string
	err error
}

func (e *fileError) Error() string   { return e.msg }
func (e *fileError) Unwrap() []error { return []error{ErrBadFile, e.err} }

// memoryFile is what the checks of memory.json call it. Facts are worth
// keeping, so a file that is not the person's own is mended before it is
// removed.
var memoryFile = fsx.Kind{File: "memory file", Chown: true}

// A Store is memory.json in the wisp home (home.Home.Memory gives it),
// changed under its lock. Its zero fields but Path and LockPath are
// defaults. It is safe for concurrent use, by goroutines and processes.
type Store struct {
	// Path is the file; LockPath the lock its writers take.
	Path, LockPath string
	// Redact replaces the credentials in a fact before it is kept: give
	// the conversation's (secrets.Redactor.Replace). nil: a
	// secrets.Redactor of each call's own.
	Redact func(string) string
	// Now is the clock the time of a fact is read from; nil: time.Now.
	Now func() time.Time
}

// List returns the facts kept, oldest first. A missing file holds none.
// A file that cannot be trusted or read is refused with one line that
// says how to mend it (ErrBadFile).
func (s Store) List() ([]Fact, error) {
	f, err := s.load()
	return f.Facts, err
}

// Remember keeps f's text (trimmed, its credentials replaced by markers)
// with its Source, Thread and Session, giving it an ID and the time. A
// fact whose text is already kept is not kept twice: Remember returns
// the one kept, and added false. An empty text, or one over MaxFactBytes,
// is refused; so is a fact beyond MaxFacts (ErrFull).
func (s Store) Remember(ctx context.Context, f Fact) (kept Fact, added bool, err error) {
	text, err := s.clean(f.Text)
	if err != nil {
		return Fact{}, false, err
	}
	err = s.update(ctx, func(m *file) error {
		if i := slices.IndexFunc(m.Facts, func(g Fact) bool { return g.Text == text }); i >= 0 {
			kept = m.Facts[i]
			return nil
		}
		if len(m.Facts) >= MaxFacts {
			return fmt.Errorf("%w: it keeps %d facts, the most it holds; forget one first", ErrFull, MaxFacts)
		}
		m.Seq++
		kept = Fact{ID: "m" + strconv.Itoa(m.Seq), Text: text, Source: f.Source, Thread: f.Thread, Session: f.Session, Time: s.now()}
		m.Facts = append(m.Facts, kept)
		added = true
		return nil
	})
	if err != nil {
		return Fact{}, false, err
	}
	return kept, added, nil
}

// Forget removes the fact id and returns it; an id no fact has is
// ErrNoFact.
func (s Store) Forget(ctx context.Context, id string) (Fact, error) {
	var gone Fact
	err := s.update(ctx, func(m *file) error {
		i := slices.IndexFunc(m.Facts, func(g Fact) bool { return g.ID == id })
		if i < 0 {
			return fmt.Errorf("%w %q", ErrNoFact, id)
		}
		gone = m.Facts[i]
		m.Facts = slices.Delete(m.Facts, i, i+1)
		return nil
	})
	return gone, err
}

// Find returns the fact id, or ok false when none has it.
func (s Store) Find(id string) (f Fact, ok bool, err error) {
	facts, err := s.List()
	if err != nil {
		return Fact{}, false, err
	}
	i := slices.IndexFunc(facts, func(g Fact) bool { return g.ID == id })
	if i < 0 {
		return Fact{}, false, nil
	}
	return facts[i], true, nil
}

// clean returns text as it is kept: trimmed and redacted; or an error
// when it is empty or too long.
func (s Store) clean(text string) (string, error) {
	redact := s.Redact
	if redact == nil {
		redact = secrets.NewRedactor().Replace
	}
	text = strings.TrimSpace(redact(strings.TrimSpace(text)))
	switch {
	case text == "":
		return "", errors.New("the fact is empty")
	case len(text) > MaxFactBytes || !utf8.ValidString(text):
		return "", fmt.Errorf("the fact is longer than %d bytes, or not UTF-8; say it in a sentence or two", MaxFactBytes)
	}
	return text, nil
}

func (s Store) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

// load reads the file; a missing one is empty.
func (s Store) load() (file, error) {
	data, err := memoryFile.ReadFile(s.Path, maxFileSize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return file{Version: version}, nil
	case errors.Is(err, fsx.ErrUnsafe), errors.Is(err, fsx.ErrTooLarge):
		return file{}, &fileError{err.Error(), err}
	case err != nil:
		return file{}, &fileError{fmt.Sprintf("memory file %s cannot be read: %v", fsx.QuotePath(s.Path), fsx.Bare(err)), err}
	}
	var m file
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err = dec.Decode(&m)
	if err == nil {
		err = m.check()
	}
	if err != nil {
		q := fsx.QuotePath(s.Path)
		return file{}, &fileError{fmt.Sprintf("memory file %s is not one wisp wrote (%s); move it aside (mv %s %s.old) to start afresh", q, oneLine(err.Error()), q, q), err}
	}
	return m, nil
}

// check refuses what wisp never writes.
func (m file) check() error {
	if m.Version != version {
		return fmt.Errorf("version %d, not %d", m.Version, version)
	}
	seen := map[string]bool{}
	for _, f := range m.Facts {
		n, err := strconv.Atoi(strings.TrimPrefix(f.ID, "m"))
		switch {
		case !strings.HasPrefix(f.ID, "m") || err != nil || n < 1 || n > m.Seq || seen[f.ID]:
			return fmt.Errorf("a fact's id %q", f.ID)
		case f.Text == "" || len(f.Text) > MaxFactBytes:
			return fmt.Errorf("fact %s is empty or longer than %d bytes", f.ID, MaxFactBytes)
		}
		seen[f.ID] = true
	}
	if len(m.Facts) > MaxFacts {
		return fmt.Errorf("%d facts, more than %d", len(m.Facts), MaxFacts)
	}
	return nil
}

// update changes the file under its lock: fn changes what load read, and
// the result is written atomically (temp file, sync, rename), mode 0600,
// unless fn returns an error.
func (s Store) update(ctx context.Context, fn func(*file) error) error {
	unlock, err := fsx.Lock(ctx, s.LockPath)
	if err != nil {
		return err
	}
	defer unlock()
	if err := fsx.SweepTemps(s.Path); err != nil {
		return err
	}
	m, err := s.load()
	if err != nil {
		return err
	}
	if err := fn(&m); err != nil {
		return err
	}
	if m.Facts == nil {
		m.Facts = []Fact{}
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := fsx.WriteFile(s.Path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("memory file %s was not saved: %v", fsx.QuotePath(s.Path), fsx.Bare(err))
	}
	return nil
}

// oneLine makes s one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
