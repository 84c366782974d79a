package conversation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/config"
	"github.com/wisp-agent/wisp/home"
	"github.com/wisp-agent/wisp/policy"
	"github.com/wisp-agent/wisp/policy/shell"
	"github.com/wisp-agent/wisp/tools/runcommand"
	"github.com/wisp-agent/wisp/tools/runcommand/sandboxed"
)

// LineNoSandbox starts the notice (wisp.NoticeSandbox) a conversation
// gives its Notifier once, as it starts, when it gets run_command but
// its commands cannot be confined although sandbox.mode asks for it; why
// follows.
const LineNoSandbox = "commands cannot be confined here, so every command the model asks to run is put to you first, and runs with all your rights: "

// commands is how a conversation runs run_command's commands: the runner
// (nil when the conversation does not get the tool), and the shell judge
// that rates their lines (nil without a workspace).
type commands struct {
	runner   runcommand.Runner
	disabled bool // named, or turned on, and removed by tools.disabled
	unasked  bool // neither named nor turned on
	judge    *shell.Judge
}

// newCommands makes what the conversation runs commands with: the runner
// when it gets run_command (o.NewRunner's, or wisp's sandbox), and the
// judge whenever there is a workspace. Named naming run_command with no
// workspace is an OptionError.
func newCommands(ctx context.Context, o Options, cfg config.Config, h *home.Home, workspace string) (*commands, error) {
	c := &commands{}
	named := slices.Contains(o.Named, runcommand.Name)
	person := lookupEnv(o.Environ, "HOME")
	switch {
	case o.Named != nil && !named, o.Named == nil && !cfg.Tools.RunCommand:
		c.unasked = true
	case slices.Contains(cfg.Tools.Disabled, runcommand.Name):
		c.disabled = true
	case workspace == "":
		if named {
			return nil, &OptionError{Option: "Workspace", Err: errors.New("run_command needs a workspace to run commands in: set Options.Workspace (the folder wisp was started in, or --workspace DIR)")}
		}
	case o.NewRunner != nil:
		runner, err := o.NewRunner(workspace, cfg.Sandbox)
		if err != nil {
			return nil, &OptionError{Option: "NewRunner", Err: err}
		}
		c.runner = runner
	default:
		runner, err := sandboxed.New(ctx, &sandboxed.Options{
			Workspace: workspace, WispHome: h.Dir(), Home: person, Mode: cfg.Sandbox.Mode, Network: cfg.Sandbox.Network,
		})
		if err != nil {
			// A workspace the sandbox refuses: the root folder, the
			// system temp folder, one inside the wisp home.
			return nil, &OptionError{Option: "Workspace", Err: fmt.Errorf("run_command cannot run commands here: %w; start wisp in the project's folder, or name it with --workspace DIR", err)}
		}
		c.runner = runner
	}
	if workspace == "" {
		return c, nil
	}
	var err error
	if r, ok := c.runner.(*sandboxed.Runner); ok {
		c.judge, err = r.Judge()
	} else {
		// A runner of the program's own: nothing says .git is kept from
		// its commands, so git's reading commands are not rated safe.
		c.judge, err = shell.New(&shell.Options{Workspace: workspace, Home: person, WispHome: h.Dir()})
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// rules are the classifier's rows for the commands: the shell judge's
// row for run_command, when there is a workspace.
func (c *commands) rules() []policy.Rule {
	if c.judge == nil {
		return nil
	}
	return []policy.Rule{c.judge.Rule()}
}

// tool returns run_command over o, with the runner and the shell judge
// as its Describer (table is the gate's classifier). Where the
// conversation does not get it, it returns a tool of its name that is
// never run, so that the registry knows the name: tools.disabled removes
// it (and the set says so), or nothing asked for it (and a list of the
// known tools names it); nil with no workspace that was asked for.
func (c *commands) tool(o *runcommand.Options, table *policy.Classifier) (wisp.Tool, error) {
	switch {
	case c.disabled, c.unasked:
		return wisp.ToolFunc{Spec: wisp.ToolSpec{Name: runcommand.Name, Schema: json.RawMessage(`{"type":"object"}`)}}, nil
	case c.runner == nil:
		return nil, nil
	}
	o.Runner = c.runner
	o.Describer = sandboxed.Describer{Judge: c.judge, Table: table}
	return runcommand.New(o)
}

// notice returns what the person is told as the conversation starts:
// that its commands cannot be confined although sandbox.mode asks for
// it, and why; "" when they are, or when the person turned the sandbox
// off.
func (c *commands) notice(cfg config.Config) string {
	if c.runner == nil || cfg.Sandbox.Mode == runcommand.ModeOff {
		return ""
	}
	if cf, ok := c.runner.(runcommand.Confiner); ok && cf.Sandbox().Confined() {
		return ""
	}
	why := "the program's runner confines nothing"
	if u, ok := c.runner.(interface{ Unavailable() string }); ok && u.Unavailable() != "" {
		why = u.Unavailable()
	}
	return LineNoSandbox + why
}

// lookupEnv returns the value of name in environ ("NAME=value" entries;
// the last one wins, as in a shell), or "".
func lookupEnv(environ []string, name string) string {
	v := ""
	for _, e := range environ {
		if n, value, ok := strings.Cut(e, "="); ok && n == name {
			v = value
		}
	}
	return v
}
