// Package sandboxed runs run_command's commands in wisp's sandbox
// (package sandbox), and has the shell judge (policy/shell) say what the
// approval gate is asked about each of them: the pieces a conversation
// wires by default (package conversation), for a program that wires its
// own.
//
// A Runner is a runcommand.Runner and a runcommand.Confiner over a
// sandbox.Runner. New probes once whether commands can be confined here;
// where they cannot, the Runner runs them with all the person's rights
// (mode off) and says so (Unavailable, Sandbox), so that the tool asks
// the person about every one of them. Every command gets
// shell.GitEnv, and the workspace's .git is kept read-only, so that the
// judge may rate git's reading commands safe in a confined mode (Judge).
//
// A Describer is the shell judge as the tool's runcommand.Describer: the
// command the classifier rates, the pattern over the parsed line an answer
// of session, project or always covers, and the scopes its rating allows.
package sandboxed

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/policy"
	"github.com/wisp-agent/wisp/policy/shell"
	"github.com/wisp-agent/wisp/sandbox"
	"github.com/wisp-agent/wisp/tools/runcommand"
)

// Hidden are the folders and files of the person's home folder that a
// confined command can neither read nor see, beside the wisp home: where
// keys and the credentials of cloud and package tools are kept. A
// missing one is skipped.
var Hidden = []string{".ssh", ".gnupg", ".aws", ".netrc"}

// Options configure a Runner. Workspace is required, and so is WispHome
// unless Mode is off; every other zero field means the default given
// beside it.
type Options struct {
	// Workspace is the folder commands run in and, in workspace-write,
	// may write.
	Workspace string
	// WispHome is the wisp home, hidden from every confined command.
	WispHome string
	// Home is the person's home folder: what "~" names in a command, and
	// where the Hidden paths are. "": none is hidden but the wisp home.
	Home string
	// Mode is sandbox.mode, as config spells it (sandbox.ParseMode):
	// read-only, workspace-write or off; "": workspace-write.
	Mode string
	// Network is sandbox.network: confined commands may reach the
	// network.
	Network bool
	// Probe says whether commands can be confined here; nil: sandbox.Probe.
	Probe func(context.Context) sandbox.Support
}

// A Runner runs run_command's commands in the sandbox. It is safe for
// concurrent use.
type Runner struct {
	run         *sandbox.Runner
	mode        sandbox.Mode // the mode commands run in
	network     bool
	home        string
	unavailable string
}

var (
	_ runcommand.Runner   = (*Runner)(nil)
	_ runcommand.Confiner = (*Runner)(nil)
)

// New returns a Runner for opts, probing once whether commands can be
// confined here (ctx bounds the probe). Where a confined mode was asked
// for and none can be had, the Runner runs commands in mode off, and
// Unavailable says why. An error says what is wrong with opts.
func New(ctx context.Context, opts *Options) (*Runner, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	mode, err := sandbox.ParseMode(o.Mode)
	if err != nil {
		return nil, err
	}
	p := sandbox.Policy{Mode: mode, Workspace: o.Workspace, Home: o.WispHome, Network: o.Network}
	if gitInside(o.Workspace) {
		// A .git that leads out of the workspace is read-only as all
		// that lies outside it is.
		p.ReadOnly = []string{".git"}
	}
	if o.Home != "" {
		for _, h := range Hidden {
			p.Hide = append(p.Hide, filepath.Join(o.Home, h))
		}
	}
	r := &Runner{mode: mode, network: o.Network, home: o.Home}
	if mode != sandbox.Off {
		probe := o.Probe
		if probe == nil {
			probe = sandbox.Probe
		}
		if s := probe(ctx); !s.Confined {
			r.unavailable = s.Reason
			if r.unavailable == "" {
				r.unavailable = sandbox.ErrUnavailable.Error()
			}
			r.mode, p.Mode = sandbox.Off, sandbox.Off
		}
	}
	if r.run, err = sandbox.New(p); err != nil {
		return nil, err
	}
	return r, nil
}

// Unavailable says why commands run unconfined although a confined mode
// was asked for: no sandbox can be had here. "" when they run as asked.
func (r *Runner) Unavailable() string { return r.unavailable }

// Sandbox says how the Runner confines commands: its mode, or off where
// no sandbox can be had.
func (r *Runner) Sandbox() runcommand.Sandbox {
	return runcommand.Sandbox{Mode: string(r.mode), Network: r.network && r.mode != sandbox.Off}
}

// Policy returns the sandbox's policy, its paths resolved.
func (r *Runner) Policy() sandbox.Policy { return r.run.Policy() }

// Judge returns the shell judge for the Runner's commands: the workspace,
// the person's home and the wisp home the Runner was given; the private
// temporary folder a confined command gets on Linux (/tmp); and git's
// reading commands rated safe (GitProtected) when the workspace's .git
// cannot be written, as in a confined mode, since every command gets
// shell.GitEnv.
func (r *Runner) Judge() (*shell.Judge, error) {
	p := r.run.Policy()
	o := &shell.Options{Workspace: p.Workspace, Home: r.home, WispHome: p.Home}
	if r.mode != sandbox.Off {
		o.GitProtected = true
		if runtime.GOOS == "linux" {
			o.Temp = "/tmp"
		}
	}
	return shell.New(o)
}

// Run runs s in the sandbox, with shell.GitEnv in its environment. When
// ctx ends the command is ended, and Run returns what was kept with an
// error wrapping context.Cause(ctx).
func (r *Runner) Run(ctx context.Context, s runcommand.Spec) (runcommand.Result, error) {
	c := sandbox.Command{Line: s.Command, Dir: s.Dir, Env: withGitEnv(s.Env), Timeout: s.Timeout}
	if s.Output != nil {
		c.OnOutput = func(st sandbox.Stream, p []byte) { s.Output(st.String(), p) }
	}
	res, err := r.run.Run(ctx, c)
	clear(c.Env)
	if err != nil {
		if ctx.Err() != nil {
			return runcommand.Result{}, fmt.Errorf("the command was not run: %w", context.Cause(ctx))
		}
		return runcommand.Result{}, err
	}
	out := runcommand.Result{
		ExitCode: res.ExitCode, Signal: res.Signal, TimedOut: res.TimedOut, Duration: res.Duration,
		Stdout: output(res.Stdout), Stderr: output(res.Stderr), Mode: string(res.Mode), Denied: res.Denied,
	}
	if res.Canceled {
		cause := context.Cause(ctx)
		if cause == nil {
			cause = context.Canceled
		}
		return out, fmt.Errorf("the command was stopped: %w", cause)
	}
	return out, nil
}

// gitInside reports whether the workspace's .git, if any, lies inside it
// once links are resolved.
func gitInside(workspace string) bool {
	ws, err := filepath.EvalSymlinks(workspace)
	if err != nil {
		return true // New says what is wrong with it
	}
	git, err := filepath.EvalSymlinks(filepath.Join(ws, ".git"))
	if err != nil {
		return true // missing: the sandbox skips it
	}
	rel, err := filepath.Rel(ws, git)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// output is a stream as the tool takes it.
func output(o sandbox.Output) runcommand.Output {
	return runcommand.Output{Head: o.Head, Tail: o.Tail, Bytes: o.Bytes}
}

// withGitEnv returns env with shell.GitEnv's entries in place of any of
// the same names.
func withGitEnv(env []string) []string {
	git := shell.GitEnv()
	out := make([]string, 0, len(env)+len(git))
	for _, e := range env {
		name, _, _ := strings.Cut(e, "=")
		if !slices.ContainsFunc(git, func(g string) bool { return strings.HasPrefix(g, name+"=") }) {
			out = append(out, e)
		}
	}
	return append(out, git...)
}

// A Describer is the shell judge as run_command's Describer: it says what
// the gate is asked about a call, the command as shell.Invocation writes
// it, the pattern over its parsed line (empty when no answer may cover
// more than the call), and the scopes the line's rating allows.
type Describer struct {
	// Judge reads the lines; Table is the classifier whose person-only
	// rows it applies (the gate's).
	Judge *shell.Judge
	Table *policy.Classifier
}

var _ runcommand.Describer = Describer{}

// Describe says what the gate is asked about inv.
func (d Describer) Describe(inv runcommand.Invocation) (command, pattern string, scopes []wisp.Scope) {
	si := shell.Invocation{Line: inv.Line, Dir: inv.Dir, Env: inv.Env}
	l := d.Judge.Line(d.Table, si)
	if p := l.Pattern(); p != nil {
		pattern = p.String()
	}
	return si.Command(), pattern, l.Scopes()
}
