// Package standing keeps the person's standing approvals: the answers of
// scope project (this workspace) and always that the approval gate keeps
// beyond a session (its Store is a policy.Keeper), in one file of the
// wisp home, approval-rules.json; and lists and revokes them for the
// person (RunCommand: wisp approvals rules).
//
// The file is written the way wisp writes its settings: replaced
// atomically and durably, 0600, under a lock. It is obeyed only when it
// is the person's own and holds only what wisp writes: a file that is a
// link, another user's, writable by others, or that holds anything else
// (an unknown key, a scope other than project or always, a pattern that
// is all wildcards, a project answer with no project) is refused whole,
// with one line that says how to mend it. A refused file covers nothing,
// so what it would have covered is asked; it is never read as wider than
// it is.
//
// A project answer holds in the workspace it was given in: the folder's
// path with every link resolved, and on Unix the same folder (its device
// and inode), so that a folder removed and made again under the same name
// is a new project. The file lives in the wisp home, which the sandbox
// keeps commands from reaching, never in the workspace, which they may
// write.
package standing

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/internal/fsx"
	"github.com/wisp-agent/wisp/policy"
)

// Limits of the file.
const (
	// MaxFileBytes bounds the file.
	MaxFileBytes = 1 << 20
	// MaxRules bounds the answers kept.
	MaxRules = 1000
	// MaxPatternBytes bounds a pattern; MaxCommandBytes the command kept
	// beside it.
	MaxPatternBytes = 1 << 10
	MaxCommandBytes = 4 << 10
)

// fileVersion is the version of the file's form this package writes.
const fileVersion = 1

// Sentinel errors callers can branch on with errors.Is.
var (
	// ErrBadFile: approval-rules.json cannot be obeyed: it is not the
	// person's own, or holds what wisp never writes. No answer in it
	// covers anything until it is mended or removed.
	ErrBadFile = errors.New("bad approval rules file")
	// ErrUnknownID: no kept answer has the id given.
	ErrUnknownID = errors.New("no kept approval has that id")
	// ErrNotKept: the answer is not one a Store keeps (a scope other than
	// project or always, an empty or wildcard pattern), or the file is
	// full.
	ErrNotKept = errors.New("not an answer that can be kept")
)

// rulesFile is what the checks call the file.
var rulesFile = fsx.Kind{File: "approval rules file", Chown: true}

// A Store is approval-rules.json in the wisp home: the answers of project
// and always the gate keeps. Path is the file, LockPath a separate file
// every writer locks (locks/approval-rules.lock); their folders must
// exist. The zero Store is not usable; home.Home.ApprovalRules returns
// the home's.
//
// A Store is a policy.Keeper and safe for concurrent use, across
// processes too, provided every writer goes through a Store.
type Store struct {
	Path     string
	LockPath string
}

var _ policy.Keeper = Store{}

// file is the file's form.
type file struct {
	Version int    `json:"version"`
	Rules   []rule `json:"rules"`
}

// rule is one kept answer as the file holds it.
type rule struct {
	ID      string    `json:"id"`
	Kind    string    `json:"kind,omitempty"`
	Command string    `json:"command"`
	Pattern string    `json:"pattern"`
	Scope   string    `json:"scope"`
	Project string    `json:"project,omitempty"`
	Device  uint64    `json:"device,omitempty"`
	Inode   uint64    `json:"inode,omitempty"`
	Time    time.Time `json:"time"`
}

// An Entry is a kept answer as List shows it.
type Entry struct {
	policy.Kept
	// Gone reports a project answer whose folder is gone, or is another
	// folder now under the same name: it covers nothing.
	Gone bool
}

// Kept returns the kept answers that hold in project: those of always,
// and those of project kept for that folder (the same folder, not only
// the same name). A missing file keeps nothing. A file that cannot be
// obeyed is an error matching ErrBadFile, and covers nothing.
func (s Store) Kept(ctx context.Context, project string) ([]policy.Kept, error) {
	f, err := s.load()
	if err != nil {
		return nil, err
	}
	var out []policy.Kept
	for _, r := range f.Rules {
		if r.Scope == "always" || project != "" && r.Project == project && sameFolder(r) {
			out = append(out, r.kept())
		}
	}
	return out, nil
}

// Keep keeps k, in place of any kept answer of the same pattern, scope
// and project. k must be of scope project (with its Project, a folder
// that exists) or always (with none), with an id and a pattern that is
// not all wildcards; anything else is an error matching ErrNotKept. A
// file that cannot be obeyed is not replaced: the error matches
// ErrBadFile.
func (s Store) Keep(ctx context.Context, k policy.Kept) error {
	r := rule{ID: k.ID, Kind: k.Kind, Command: k.Command, Pattern: k.Pattern, Scope: k.Scope.String(), Project: k.Project, Time: k.Time.UTC()}
	if r.Scope == "project" {
		if dev, ino, ok := identity(r.Project); ok {
			r.Device, r.Inode = dev, ino
		} else if _, err := os.Stat(r.Project); err != nil {
			return fmt.Errorf("%w: the project %s cannot be found: %v", ErrNotKept, strconv.Quote(r.Project), err)
		}
	}
	if problem := r.check(); problem != "" {
		return fmt.Errorf("%w: %s", ErrNotKept, problem)
	}
	return s.update(ctx, func(f *file) error {
		f.Rules = slices.DeleteFunc(f.Rules, func(o rule) bool {
			return o.Pattern == r.Pattern && o.Scope == r.Scope && o.Project == r.Project
		})
		if slices.ContainsFunc(f.Rules, func(o rule) bool { return o.ID == r.ID }) {
			return fmt.Errorf("%w: an approval of id %s is kept already", ErrNotKept, strconv.Quote(r.ID))
		}
		if len(f.Rules) >= MaxRules {
			return fmt.Errorf("%w: %s keeps %d approvals already; revoke some (wisp approvals rules revoke ID)", ErrNotKept, fsx.QuotePath(s.Path), MaxRules)
		}
		f.Rules = append(f.Rules, r)
		return nil
	})
}

// List returns the kept answers, in the order they were kept. A file
// that cannot be obeyed is an error matching ErrBadFile.
func (s Store) List() ([]Entry, error) {
	f, err := s.load()
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, r := range f.Rules {
		out = append(out, Entry{Kept: r.kept(), Gone: r.Scope == "project" && !sameFolder(r)})
	}
	return out, nil
}

// RevokeOptions configure Revoke. A nil *RevokeOptions records nothing.
type RevokeOptions struct {
	// Events receives approval.revoked before the file is changed; when
	// it cannot record it, nothing is revoked.
	Events wisp.EventSink
	// Session names the session in the event.
	Session string
	// Now makes time injectable; nil: the clock.
	Now func() time.Time
}

// Revoke removes the kept answer id, recording approval.revoked (source
// person) first, and returns it. An id no answer has is an error
// matching ErrUnknownID; a file that cannot be obeyed one matching
// ErrBadFile (remove the file to revoke every answer in it).
func (s Store) Revoke(ctx context.Context, id string, opts *RevokeOptions) (policy.Kept, error) {
	var o RevokeOptions
	if opts != nil {
		o = *opts
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	var gone policy.Kept
	err := s.update(ctx, func(f *file) error {
		i := slices.IndexFunc(f.Rules, func(r rule) bool { return r.ID == id })
		if i < 0 {
			return fmt.Errorf("%w: %s; wisp approvals rules lists them", ErrUnknownID, strconv.Quote(id))
		}
		gone = f.Rules[i].kept()
		err := wisp.Record(ctx, o.Events, wisp.Event{Time: o.Now(), Session: o.Session, Source: wisp.SourcePerson, Approval: gone.ID,
			Data: wisp.ApprovalRevokedData{ApprovalID: gone.ID, Pattern: gone.Pattern, Project: gone.Project, Scope: gone.Scope.String()}})
		if err != nil {
			return err
		}
		f.Rules = slices.Delete(f.Rules, i, i+1)
		return nil
	})
	if err != nil {
		return policy.Kept{}, err
	}
	return gone, nil
}

// update changes the file under its lock: fn is given what it holds (a
// missing file holds nothing), and what it leaves is written, atomically,
// unless fn returns an error.
func (s Store) update(ctx context.Context, fn func(*file) error) (err error) {
	unlock, err := fsx.Lock(ctx, s.LockPath)
	if err != nil {
		return err
	}
	defer func() {
		if uerr := unlock(); uerr != nil && err == nil {
			err = uerr
		}
	}()
	if err := fsx.SweepTemps(s.Path); err != nil {
		return err
	}
	f, err := s.load()
	if err != nil {
		return err
	}
	if err := fn(&f); err != nil {
		return err
	}
	f.Version = fileVersion
	if f.Rules == nil {
		f.Rules = []rule{}
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := fsx.WriteFile(s.Path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("cannot save %s: %w", fsx.QuotePath(s.Path), err)
	}
	return nil
}

// load reads the file; a missing one holds nothing.
func (s Store) load() (file, error) {
	data, err := rulesFile.ReadFile(s.Path, MaxFileBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return file{Version: fileVersion}, nil
	case errors.Is(err, fsx.ErrUnsafe), errors.Is(err, fsx.ErrNotRegular), errors.Is(err, fsx.ErrTooLarge):
		return file{}, fmt.Errorf("%w: %v; no kept approval applies until it is mended", ErrBadFile, err)
	case err != nil:
		return file{}, fmt.Errorf("cannot read %s: %w", fsx.QuotePath(s.Path), err)
	}
	var f file
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil || dec.More() {
		if err == nil {
			err = errors.New("more than one JSON value")
		}
		return file{}, s.bad(fmt.Sprintf("is not what wisp writes (%v)", oneLine(err.Error())))
	}
	if f.Version != fileVersion {
		return file{}, s.bad(fmt.Sprintf("has version %d; this wisp reads version %d", f.Version, fileVersion))
	}
	if len(f.Rules) > MaxRules {
		return file{}, s.bad(fmt.Sprintf("keeps %d approvals, more than %d", len(f.Rules), MaxRules))
	}
	seen := map[string]bool{}
	for i, r := range f.Rules {
		problem := r.check()
		if problem == "" && seen[r.ID] {
			problem = "has the id of another"
		}
		if problem != "" {
			return file{}, s.bad(fmt.Sprintf("approval %d %s", i+1, problem))
		}
		seen[r.ID] = true
	}
	return f, nil
}

// bad is the ErrBadFile error for a file that holds what wisp never
// writes.
func (s Store) bad(what string) error {
	q := fsx.QuotePath(s.Path)
	return fmt.Errorf("%w: %s %s; no kept approval applies until you remove it (rm %s), and answer again", ErrBadFile, q, what, q)
}

// check returns what is wrong with r, or "" when it is one wisp writes.
func (r rule) check() string {
	switch {
	case r.ID == "" || len(r.ID) > 64 || strings.ContainsFunc(r.ID, func(c rune) bool {
		return !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_')
	}):
		return "has no id wisp gives (letters, digits, - and _)"
	case r.Scope != "project" && r.Scope != "always":
		return fmt.Sprintf("has scope %s; only project and always answers are kept", strconv.Quote(r.Scope))
	case r.Scope == "project" && (r.Project == "" || !filepath.IsAbs(r.Project) || filepath.Clean(r.Project) != r.Project):
		return "is of a project, but names no project folder by its full path"
	case r.Scope == "always" && (r.Project != "" || r.Device != 0 || r.Inode != 0):
		return "is of always, yet names a project"
	case !patternOK(r.Pattern):
		return "has a pattern that is empty, all wildcards, too long, or holds control characters"
	case len(r.Command) > MaxCommandBytes || !utf8.ValidString(r.Command) || len(r.Kind) > 64:
		return "has a command or kind wisp never writes"
	}
	return ""
}

// patternOK reports whether p may be kept: 1 to MaxPatternBytes of UTF-8
// with no control character, whose first word is no wildcard.
func patternOK(p string) bool {
	if p == "" || len(p) > MaxPatternBytes || !utf8.ValidString(p) || strings.ContainsFunc(p, func(c rune) bool {
		return c < 0x20 || c == 0x7f || 0x80 <= c && c < 0xa0 || c == '\u2028' || c == '\u2029'
	}) {
		return false
	}
	words := strings.Fields(p)
	return len(words) > 0 && !strings.ContainsAny(words[0], "*?[") && words[0] != "..."
}

// kept returns r as the gate's Kept.
func (r rule) kept() policy.Kept {
	return policy.Kept{ID: r.ID, Kind: r.Kind, Command: r.Command, Pattern: r.Pattern, Scope: scopeOf(r.Scope), Project: r.Project, Time: r.Time}
}

// sameFolder reports whether a project answer's folder is still the one
// it was given in.
func sameFolder(r rule) bool {
	dev, ino, ok := identity(r.Project)
	if !ok {
		_, err := os.Stat(r.Project)
		return err == nil && r.Device == 0 && r.Inode == 0
	}
	return dev == r.Device && ino == r.Inode
}

func scopeOf(name string) wisp.Scope {
	switch name {
	case "project":
		return wisp.ScopeProject
	case "always":
		return wisp.ScopeAlways
	}
	return wisp.ScopeNone
}

// oneLine puts text on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
