package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Mode is how far a command is confined. The zero Mode is [WorkspaceWrite].
type Mode string

// The modes a [Policy] may name.
const (
	// ReadOnly lets the command read but write nothing except its private
	// temp folder.
	ReadOnly Mode = "read-only"
	// WorkspaceWrite lets the command write the workspace and its private
	// temp folder, and nothing else. It is the default.
	WorkspaceWrite Mode = "workspace-write"
	// Off runs the command unconfined: no namespaces, no Landlock, no
	// sandbox-exec. Only the person may choose it. Running is still
	// bounded (process group, timeout, limits, output).
	Off Mode = "off"
)

// ParseMode reads a mode as config and flags spell it. The empty string is
// [WorkspaceWrite].
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case "":
		return WorkspaceWrite, nil
	case ReadOnly, WorkspaceWrite, Off:
		return m, nil
	}
	return "", fmt.Errorf("sandbox mode %q is not one of read-only, workspace-write, off", s)
}

// Policy is what every command a [Runner] runs may touch.
type Policy struct {
	// Mode is how far commands are confined; "" is [WorkspaceWrite].
	Mode Mode
	// Workspace is the folder commands run in and, in [WorkspaceWrite],
	// may write. Required. It must not be the root folder, the system temp
	// folder itself, or lie inside Home or a Hide path.
	Workspace string
	// Home is the wisp home. A confined command can neither read, write,
	// list, stat, chmod nor touch anything in it. Required unless Mode is
	// [Off].
	Home string
	// Hide names more folders or files to hide the same way, such as
	// ~/.ssh or ~/.aws. Missing paths are skipped.
	Hide []string
	// ReadOnly names paths inside the workspace a command may read but
	// not change, such as the repository's .git, whose hooks and config
	// run programs later outside the sandbox. Missing paths are skipped.
	ReadOnly []string
	// Network keeps the host's network. When false, a confined command
	// runs in a network namespace of its own with only a loopback
	// interface: it can serve and reach itself on 127.0.0.1 and nothing
	// else.
	Network bool
	// Limits bound each run; zero fields are the documented defaults.
	Limits Limits
}

// Limits bound one run. A zero field means its default.
type Limits struct {
	// Output is how many bytes of each stream a Result keeps: the first
	// half and the last half, with a note of what was cut between.
	// Default [DefaultOutput].
	Output int
	// Processes is how many processes and threads a command may have at
	// once. Default [DefaultProcesses].
	Processes int
	// FileSize is the largest file, in bytes, a command may write.
	// Default [DefaultFileSize].
	FileSize int64
	// OpenFiles is how many files a process may hold open. Default
	// [DefaultOpenFiles].
	OpenFiles int
	// Grace is how long a command has between SIGTERM and SIGKILL when it
	// is stopped. Default [DefaultGrace].
	Grace time.Duration
}

// Defaults and bounds.
const (
	// DefaultTimeout is a command's timeout when it names none.
	DefaultTimeout = 120 * time.Second
	// MaxTimeout is the longest timeout a command may name.
	MaxTimeout = 600 * time.Second
	// DefaultOutput is how many bytes of each stream a Result keeps.
	DefaultOutput = 128 << 10
	// DefaultProcesses is how many processes and threads a command may
	// have at once.
	DefaultProcesses = 512
	// DefaultFileSize is the largest file a command may write, in bytes.
	DefaultFileSize = 4 << 30
	// DefaultOpenFiles is how many files a process may hold open.
	DefaultOpenFiles = 1024
	// DefaultGrace is how long a stopped command has between SIGTERM and
	// SIGKILL.
	DefaultGrace = 2 * time.Second
)

func (l Limits) withDefaults() Limits {
	if l.Output <= 0 {
		l.Output = DefaultOutput
	}
	if l.Processes <= 0 {
		l.Processes = DefaultProcesses
	}
	if l.FileSize <= 0 {
		l.FileSize = DefaultFileSize
	}
	if l.OpenFiles <= 0 {
		l.OpenFiles = DefaultOpenFiles
	}
	if l.Grace <= 0 {
		l.Grace = DefaultGrace
	}
	return l
}

// ErrUnavailable is returned by [Runner.Run] when the policy asks for a
// sandbox this machine cannot give; [Probe] says why.
var ErrUnavailable = errors.New("no sandbox is available on this machine")

// clean makes p absolute and resolves its links; a missing path is kept as
// given, made absolute.
func clean(p string) (string, error) {
	if p == "" {
		return "", nil
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	return abs, nil
}

// within reports whether p is dir or lies below it. Both are clean and
// absolute.
func within(p, dir string) bool {
	if dir == "/" {
		return true
	}
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}

// resolve checks p and returns it with every path absolute and resolved.
func (p Policy) resolve() (Policy, error) {
	mode, err := ParseMode(string(p.Mode))
	if err != nil {
		return Policy{}, err
	}
	p.Mode = mode
	if p.Workspace == "" {
		return Policy{}, errors.New("sandbox policy has no workspace; set Policy.Workspace to the folder commands run in")
	}
	if p.Workspace, err = clean(p.Workspace); err != nil {
		return Policy{}, fmt.Errorf("sandbox workspace: %w", err)
	}
	if fi, err := os.Stat(p.Workspace); err != nil || !fi.IsDir() {
		return Policy{}, fmt.Errorf("sandbox workspace %s is not a folder; give an existing folder", p.Workspace)
	}
	if p.Workspace == "/" {
		return Policy{}, errors.New("sandbox workspace is the root folder; give the project's folder")
	}
	if tmp, err := clean(os.TempDir()); err == nil && (p.Workspace == tmp || p.Workspace == "/tmp") {
		return Policy{}, fmt.Errorf("sandbox workspace %s is the system temp folder; give a folder inside it or elsewhere", p.Workspace)
	}
	if p.Home == "" && p.Mode != Off {
		return Policy{}, errors.New("sandbox policy has no wisp home; set Policy.Home so commands cannot reach it")
	}
	if p.Home, err = clean(p.Home); err != nil {
		return Policy{}, fmt.Errorf("sandbox home: %w", err)
	}
	p.Hide = append([]string(nil), p.Hide...)
	for i, h := range p.Hide {
		if p.Hide[i], err = clean(h); err != nil {
			return Policy{}, fmt.Errorf("sandbox hidden path: %w", err)
		}
	}
	for _, h := range append([]string{p.Home}, p.Hide...) {
		if h != "" && within(p.Workspace, h) {
			return Policy{}, fmt.Errorf("sandbox workspace %s lies inside %s, which commands may not see; choose another workspace", p.Workspace, h)
		}
	}
	p.ReadOnly = append([]string(nil), p.ReadOnly...)
	for i, r := range p.ReadOnly {
		if !filepath.IsAbs(r) {
			r = filepath.Join(p.Workspace, r)
		}
		if p.ReadOnly[i], err = clean(r); err != nil {
			return Policy{}, fmt.Errorf("sandbox read-only path: %w", err)
		}
		if !within(p.ReadOnly[i], p.Workspace) {
			return Policy{}, fmt.Errorf("sandbox read-only path %s is outside the workspace; name paths inside it", r)
		}
	}
	p.Limits = p.Limits.withDefaults()
	return p, nil
}
