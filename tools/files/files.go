package files

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/policy/secrets"
)

// The tools' names.
const (
	NameReadFile  = "read_file"
	NameListFiles = "list_files"
	NameSearch    = "search"
	NameEditFile  = "edit_file"
	// NameScanSecrets is the tool that scans the workspace for
	// credentials (ScanSecrets).
	NameScanSecrets = "scan_secrets"
)

// Options configure a Workspace. A nil *Options is refused: Workspace
// has no default.
type Options struct {
	// Workspace is the folder the tools reach, and the folder relative
	// paths start from. Required.
	Workspace string
	// Home is the wisp home ($WISP_HOME): nothing under it is read,
	// listed, searched or changed, even where it lies inside the
	// workspace; when the workspace lies inside it, every call is
	// refused. "": no home to keep out.
	Home string
	// Redact is applied to everything the tools hand the model and to
	// the diffs they show the person. Give the session's redactor
	// (secrets.Redactor.Replace), so that a credential has the same
	// marker here as in the rest of the conversation. nil: a
	// secrets.Redactor of the Workspace's own.
	Redact func(string) string
}

// A Workspace is the folder the file tools are confined to, open as an
// *os.Root. It is safe for concurrent use. Close it when its tools are
// no longer called.
type Workspace struct {
	root   *os.Root
	dirs   []string // the workspace as given and with its links resolved, absolute and clean
	home   string   // the home's real path relative to the workspace, slash-separated; "" when outside it, "." when it holds the workspace
	redact func(string) string
}

// Open opens the workspace opts names, for the file tools.
func Open(opts *Options) (*Workspace, error) {
	if opts == nil || opts.Workspace == "" {
		return nil, errors.New("files: no workspace; Options.Workspace names the folder the file tools reach")
	}
	dir, err := filepath.Abs(opts.Workspace)
	if err != nil {
		return nil, fmt.Errorf("files: workspace %s: %w", opts.Workspace, err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, fmt.Errorf("files: workspace %s: %w", opts.Workspace, err)
	}
	root, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("files: workspace %s: %w", opts.Workspace, err)
	}
	w := &Workspace{root: root, dirs: []string{dir}, redact: opts.Redact}
	if real != dir {
		w.dirs = append(w.dirs, real)
	}
	if w.redact == nil {
		w.redact = secrets.NewRedactor().Replace
	}
	if opts.Home != "" {
		w.home, err = homeWithin(real, opts.Home)
		if err != nil {
			root.Close()
			return nil, err
		}
	}
	return w, nil
}

// homeWithin returns where home lies in the workspace real: its path
// relative to real, slash-separated, "." when real lies inside it, or ""
// when neither holds the other.
func homeWithin(real, home string) (string, error) {
	h, err := filepath.Abs(home)
	if err != nil {
		return "", fmt.Errorf("files: wisp home %s: %w", home, err)
	}
	// A home not made yet is compared by its folder's real path.
	if r, err := filepath.EvalSymlinks(h); err == nil {
		h = r
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("files: wisp home %s: %w", home, err)
	} else if dir, err := filepath.EvalSymlinks(filepath.Dir(h)); err == nil {
		h = filepath.Join(dir, filepath.Base(h))
	}
	if inside(h, real) {
		return ".", nil
	}
	if rel, ok := relInside(real, h); ok {
		return filepath.ToSlash(rel), nil
	}
	return "", nil
}

// inside reports whether p is dir or lies under it; both are clean and
// absolute.
func inside(dir, p string) bool {
	_, ok := relInside(dir, p)
	return ok
}

// relInside returns p relative to dir when p is dir or lies under it.
func relInside(dir, p string) (string, bool) {
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// Close closes the workspace's root. Calls of its tools after Close
// fail.
func (w *Workspace) Close() error { return w.root.Close() }

// Tools returns the four tools, reads first: read_file, list_files,
// search, edit_file.
func (w *Workspace) Tools() []wisp.Tool {
	return []wisp.Tool{w.ReadFile(), w.ListFiles(), w.Search(), w.EditFile()}
}

// ReadTools returns the tools that only read: read_file, list_files,
// search.
func (w *Workspace) ReadTools() []wisp.Tool {
	return []wisp.Tool{w.ReadFile(), w.ListFiles(), w.Search()}
}
