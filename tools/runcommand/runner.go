package runcommand

import (
	"context"
	"time"
)

// The streams of a command's output, as Spec.Output and wisp.ToolOutput
// name them.
const (
	Stdout = "stdout"
	Stderr = "stderr"
)

// The sandbox modes, as sandbox.mode spells them.
const (
	// ModeReadOnly: the command may read but write nothing but its
	// private temp folder.
	ModeReadOnly = "read-only"
	// ModeWorkspaceWrite: the command may write inside the workspace and
	// its private temp folder, nowhere else.
	ModeWorkspaceWrite = "workspace-write"
	// ModeOff: the command runs with all the person's rights.
	ModeOff = "off"
)

// A Spec is one command line for a Runner to run.
type Spec struct {
	// Command is the line, as the model sent it, for /bin/sh -c.
	Command string
	// Dir is the folder it runs in: absolute, with no symbolic link in
	// it, inside the workspace.
	Dir string
	// Env is the command's whole environment, "NAME=value" entries: the
	// allowed variables of wisp's own, the fixed ones, and the secrets
	// the call named (see Environ). The runner adds what its sandbox
	// needs (a private TMPDIR) and nothing of its own environment. The
	// tool drops the entries once Run returns: a Runner copies what it
	// keeps.
	Env []string
	// Timeout is how long the command may run; the runner ends it then
	// (Result.TimedOut).
	Timeout time.Duration
	// Output, when set, is given the command's output as it comes, a
	// piece at a time, with its stream (Stdout or Stderr). It may be
	// called from two goroutines at once, one per stream, and is never
	// called after Run returns. The pieces are raw: the tool redacts
	// them before anyone sees them.
	Output func(stream string, p []byte)
}

// A Result is how a command ended.
type Result struct {
	// ExitCode is the command's exit status; -1 when a signal ended it.
	ExitCode int
	// Signal names the signal that ended the command, such as "killed";
	// empty when it exited.
	Signal string
	// TimedOut reports that the command ran past Spec.Timeout and the
	// runner ended it.
	TimedOut bool
	// Duration is how long it ran.
	Duration time.Duration
	// Stdout and Stderr are what the command wrote, as the runner kept it.
	Stdout, Stderr Output
	// Mode is the sandbox the command ran in (ModeReadOnly,
	// ModeWorkspaceWrite, ModeOff); empty: the one Sandbox said.
	Mode string
	// Denied are what the sandbox refused the command, in the runner's
	// words ("write /etc/hosts"), when it can tell.
	Denied []string
}

// Output is what a command wrote to one stream, as a runner keeps it: all
// of it, or its head and its tail when it was longer than the runner
// keeps.
type Output struct {
	// Head is the start of the stream: all of it when it was not cut.
	Head []byte
	// Tail is the end of the stream when it was cut; empty otherwise.
	Tail []byte
	// Bytes is how much the command wrote to the stream.
	Bytes int64
}

// Cut reports whether bytes were dropped between Head and Tail.
func (o Output) Cut() bool { return o.Bytes > int64(len(o.Head)+len(o.Tail)) }

// A Runner runs one command line: /bin/sh -c Spec.Command, in Spec.Dir,
// with exactly Spec.Env, no terminal and empty input, in its own process
// group (or namespace), confined by its sandbox.
//
// Run returns once the command and everything it started have ended. It
// ends them at Spec.Timeout (Result.TimedOut) and when ctx is done, and
// then returns what it kept with an error wrapping context.Cause(ctx). It
// returns any other error only when the command could not be run at all
// (the sandbox could not be set up); a command that ran and failed is a
// Result with its exit status. A Runner must be safe for concurrent use.
type Runner interface {
	Run(ctx context.Context, s Spec) (Result, error)
}

// RunnerFunc adapts a function to a Runner.
type RunnerFunc func(ctx context.Context, s Spec) (Result, error)

// Run calls f(ctx, s).
func (f RunnerFunc) Run(ctx context.Context, s Spec) (Result, error) { return f(ctx, s) }

// A Sandbox is how a Runner confines the commands it runs.
type Sandbox struct {
	// Mode is ModeReadOnly, ModeWorkspaceWrite or ModeOff; any other
	// value is taken as ModeOff.
	Mode string
	// Network reports that commands may reach the network.
	Network bool
}

// Confined reports whether the sandbox confines commands at all.
func (s Sandbox) Confined() bool { return s.Mode == ModeReadOnly || s.Mode == ModeWorkspaceWrite }

// A Confiner is a Runner that says how it confines commands, for the
// person's approval prompt and the records. A Runner that is not one
// confines nothing: its commands run with all the person's rights
// (ModeOff), and every one of them is asked, whatever
// approval.threshold says.
type Confiner interface {
	Sandbox() Sandbox
}
