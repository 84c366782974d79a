package sandbox

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Command is one command line to run.
type Command struct {
	// Line is the shell command line, run as `/bin/sh -c Line`.
	Line string
	// Dir is the folder it runs in: empty for the workspace, relative to
	// the workspace, or absolute; it must lie inside the workspace.
	Dir string
	// Env is the command's whole environment, as KEY=VALUE entries; the
	// caller scrubs it ([Environ]). In a confined mode TMPDIR is set to
	// the private temp folder.
	Env []string
	// Timeout ends the command when it passes: 0 means [DefaultTimeout];
	// more than [MaxTimeout] is refused.
	Timeout time.Duration
	// OnOutput, if not nil, is given each piece of output as it comes.
	// Calls never overlap; p is valid only during the call.
	OnOutput func(s Stream, p []byte)
}

// Result is how a command ended.
type Result struct {
	// ExitCode is the command's exit status, or -1 when a signal ended it.
	ExitCode int
	// Signal names the signal that ended the command ("killed",
	// "terminated"), or is empty.
	Signal string
	// TimedOut is set when the timeout ended the command; Canceled when
	// the context did.
	TimedOut, Canceled bool
	// Duration is how long the command ran.
	Duration time.Duration
	// Stdout and Stderr are the streams as kept.
	Stdout, Stderr Output
	// Mode is the mode the command ran in.
	Mode Mode
	// Denied lists what the sandbox seems to have refused, read from the
	// command's error messages: "write outside the writable folders",
	// "file access", "network". It is a hint, and may be empty when the
	// command hid its errors.
	Denied []string
}

// Runner runs commands under one Policy. It is safe for concurrent use.
type Runner struct {
	policy Policy
	probe  func(context.Context) Support // nil: Probe

	mu      sync.Mutex
	support *Support
}

// New returns a Runner for p, or an error that says what is wrong with p.
func New(p Policy) (*Runner, error) {
	p, err := p.resolve()
	if err != nil {
		return nil, err
	}
	return &Runner{policy: p}, nil
}

// Policy returns the runner's policy with its paths resolved.
func (r *Runner) Policy() Policy {
	return r.policy
}

// Support reports what confinement this machine gives, probing once (see
// [Probe]); a probe the context cut short is not kept.
func (r *Runner) Support(ctx context.Context) Support {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.support != nil {
		return *r.support
	}
	probe := r.probe
	if probe == nil {
		probe = Probe
	}
	s := probe(ctx)
	if ctx.Err() == nil {
		r.support = &s
	}
	return s
}

// Support is what confinement this machine gives to commands.
type Support struct {
	// Confined is set when commands can run confined; the modes read-only
	// and workspace-write work.
	Confined bool
	// Method names how: "landlock+namespaces" on Linux, "sandbox-exec"
	// on macOS.
	Method string
	// LandlockABI is the Landlock version the kernel offers (Linux).
	LandlockABI int
	// Reason says in one line why commands cannot be confined.
	Reason string
	// Weaknesses lists what the sandbox cannot do here, in a confined
	// run, each in one line.
	Weaknesses []string
}

// command checks c against the policy and returns its folder and timeout.
func (r *Runner) command(c Command) (dir string, timeout time.Duration, err error) {
	if strings.TrimSpace(c.Line) == "" {
		return "", 0, errors.New("the command line is empty; give a command to run")
	}
	if strings.IndexByte(c.Line, 0) >= 0 {
		return "", 0, errors.New("the command line holds a NUL byte; remove it")
	}
	for _, e := range c.Env {
		if !strings.Contains(e, "=") || strings.IndexByte(e, 0) >= 0 {
			return "", 0, fmt.Errorf("environment entry %q is not NAME=VALUE", e)
		}
	}
	switch {
	case c.Timeout < 0:
		return "", 0, fmt.Errorf("timeout %v is negative; give 0 for the default %v", c.Timeout, DefaultTimeout)
	case c.Timeout == 0:
		timeout = DefaultTimeout
	case c.Timeout > MaxTimeout:
		return "", 0, fmt.Errorf("timeout %v is above the most, %v; give a shorter one", c.Timeout, MaxTimeout)
	default:
		timeout = c.Timeout
	}
	dir = c.Dir
	if dir == "" {
		dir = r.policy.Workspace
	} else if !filepath.IsAbs(dir) {
		dir = filepath.Join(r.policy.Workspace, dir)
	}
	if dir, err = clean(dir); err != nil {
		return "", 0, fmt.Errorf("command folder: %w", err)
	}
	if !within(dir, r.policy.Workspace) {
		return "", 0, fmt.Errorf("command folder %s is outside the workspace %s; give a folder inside it", c.Dir, r.policy.Workspace)
	}
	return dir, timeout, nil
}

// denials guesses from the command's messages what the sandbox refused.
func denials(mode Mode, network bool, out ...Output) []string {
	if mode == Off {
		return nil
	}
	var text strings.Builder
	for _, o := range out {
		text.WriteString(o.String())
	}
	s := text.String()
	var got []string
	if strings.Contains(s, "Read-only file system") {
		got = append(got, "write outside the writable folders")
	}
	if strings.Contains(s, "Permission denied") || strings.Contains(s, "Operation not permitted") {
		got = append(got, "file access")
	}
	if !network {
		for _, m := range []string{"Network is unreachable", "Could not resolve host", "Temporary failure in name resolution", "Name or service not known", "network is unreachable", "no such host"} {
			if strings.Contains(s, m) {
				got = append(got, "network")
				break
			}
		}
	}
	return got
}
