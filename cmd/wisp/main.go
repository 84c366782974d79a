// Command wisp is the reference CLI of the wisp SDK: chat with a model
// that can ask you questions, run one turn unattended, and read and set
// wisp's configuration and audit log.
//
// Exit status: 0 on success, 1 on a failure, 2 on a usage error, 130 when
// Ctrl-C stopped the command. Every error is one line that says what is
// wrong and how to mend it.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/spf13/cobra"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/terminal"
	"github.com/wisp-agent/wisp/internal/cmdline"
	"github.com/wisp-agent/wisp/internal/version"
	"github.com/wisp-agent/wisp/sandbox"
)

func main() {
	sandbox.Main() // a launcher for a sandboxed command does not return
	ctx := context.Background()
	env := environ{getenv: os.Getenv, userHome: os.UserHomeDir, environment: os.Environ}
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, env))
}

// environ is what wisp reads from its surroundings, injectable for tests.
type environ struct {
	getenv   func(string) string
	userHome func() (string, error)
	// environment is the whole environment, as os.Environ gives it, from
	// which run_command's commands get what the allowlist names; nil:
	// none of it.
	environment func() []string
	// interrupts, if not nil, delivers Ctrl-C; nil means the process's
	// SIGINT.
	interrupts <-chan os.Signal
	// ctrlC routes each Ctrl-C from interrupts; run sets it.
	ctrlC *terminal.Interrupts
	// hasTerminal, if not nil, says whether wisp runs with a controlling
	// terminal, /dev/tty; nil: terminal.ControllingTerminal.
	hasTerminal func() bool
	// workspace is --workspace, which chat, respond and mcp take; newRoot
	// sets it. Empty: the folder wisp was started in.
	workspace *string
}

// controllingTerminal names wisp's controlling terminal, or "" when it
// has none (terminal.ControllingTerminal).
func (e environ) controllingTerminal() string {
	if e.hasTerminal == nil {
		return terminal.ControllingTerminal()
	}
	if e.hasTerminal() {
		return "/dev/tty"
	}
	return ""
}

// run is the whole program: it returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, env environ) int {
	if env.interrupts == nil {
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, os.Interrupt)
		defer signal.Stop(ch)
		env.interrupts = ch
	}
	// Ctrl-C stops the command, unless a part of it takes Ctrl-C.
	routing, stopRouting := context.WithCancel(ctx)
	defer stopRouting()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	env.ctrlC = terminal.NewInterrupts(func() { cancel(wisp.ErrInterrupted) })
	go env.ctrlC.Route(routing, env.interrupts)

	root := newRoot(stdin, stdout, stderr, env)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	return cmdline.Exit(ctx, stderr, err, &cmdline.ExitOptions{Name: "wisp", Line: terminal.ErrorLine})
}

func newRoot(stdin io.Reader, stdout, stderr io.Writer, env environ) *cobra.Command {
	root := &cobra.Command{
		Use:   "wisp",
		Short: "An agent that works beside you: it can ask you questions, and every rule that guards you lives in one place",
		Long: `wisp runs a model that works beside you. The model can ask you a question in the
middle of a turn (the ask tool) and go on with your answer; a question is never a
permission. Settings live in $WISP_HOME/config.json (default ~/.wisp), and every
question, answer and tool call is recorded in a hash-chained audit log.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(cmdline.FlagError)
	root.Version = version.String()
	root.SetVersionTemplate("wisp {{.Version}}\n")
	env.workspace = new(string)
	root.AddCommand(
		&cobra.Command{
			Use:   "version",
			Short: "Print wisp's version and the commit it was built from",
			Args:  cmdline.ExactArgs(0, "version takes no arguments"),
			Run:   func(cmd *cobra.Command, _ []string) { fmt.Fprintf(cmd.OutOrStdout(), "wisp %s\n", root.Version) },
		},
		newChatCmd(env),
		newRespondCmd(env),
		newConfigCmd(env),
		newAuditCmd(env),
		newModelsCmd(env),
		newMCPCmd(env),
		newQuestionsCmd(env),
		newApprovalsCmd(env),
		newMemoryCmd(env),
		newScanCmd(),
	)
	cmdline.Apply(root)
	return root
}
