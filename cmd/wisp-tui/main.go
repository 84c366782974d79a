// Command wisp-tui is a terminal UI for wisp. It runs `wisp chat --json`
// as its engine and draws the conversation: the person's messages, the
// model's reply as it streams (its reasoning apart), the tools it calls
// and their results, and wisp's notes.
//
// Usage:
//
//	wisp-tui [--wisp PATH] [--model M] [--tool T]... [wisp chat flags]
//	wisp-tui --version
//
// --wisp names the wisp binary (default: wisp on PATH, else a wisp beside
// wisp-tui); every other argument goes to `wisp chat --json` as it is.
// Exit status: 0 when the session ended, 1 on a failure, 2 on a usage
// error, wisp-tui's own or one wisp refused in the arguments it passed.
// With NO_COLOR set and not empty, nothing is coloured; borders and bold stay.
//
// When the model asks something, the question opens as a picker titled
// "the model asks", which says where the answer goes: to the model, in
// this conversation's thread (and, for a question from a thread an agent
// started through wisp mcp, that the agent can read it). A card of
// questions (ask_user) opens the same way, one question after another:
// options with their descriptions, the recommended one marked, several
// options marked with Space on a multi-select question, "something else"
// for an answer of the person's own, and a secret typed masked. A request
// for the person's approval opens as wisp's own dialog, in another border
// and colour, with only the keys its scopes allow: [y]once [s]ession
// [p]roject [a]lways and [n]o.
//
// Keys: Enter sends a message, or answers; ↑ ↓ move in a picker; a number
// chooses (or marks) an option; Esc declines a question (on a card, the
// question shown) or refuses an approval; Ctrl-C declines the open dialog,
// and a second Ctrl-C in the same turn stops the turn (with no dialog
// open, the first one does); PgUp and PgDn scroll; Ctrl-D, or Ctrl-C twice
// at an empty message box with no turn running, leaves: wisp declines
// what waits, ends the session, and wisp-tui quits when wisp has ended.
// For a moment (0.3 s) after a dialog opens it takes no answering key, so
// keys typed for something else cannot answer it.
//
// Everything that came from wisp, and the model's words above all, is
// escaped before it is drawn (see package inquiry/escape): a reply cannot
// move the cursor, clear the screen, set the title or reorder text.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"golang.org/x/term"

	"github.com/wisp-agent/wisp/inquiry/escape"
	"github.com/wisp-agent/wisp/internal/version"
	"github.com/wisp-agent/wisp/sandbox"
)

const usage = `usage: wisp-tui [--wisp PATH] [--model M] [--tool T]... [wisp chat flags]
       wisp-tui --version

A terminal UI for wisp: it runs "wisp chat --json" and shows the conversation,
the model's questions as pickers, and wisp's approval requests as its own dialog.

  --wisp PATH   the wisp binary (default: wisp on PATH, else the one beside wisp-tui)
  --model M     the model, as SCHEME:NAME (script:PATH plays a JSON-lines script)
  --tool T      give the conversation only this tool (repeat for more)

Every other argument goes to "wisp chat --json" as it is; wisp-tui exits with
status 2 when wisp refuses them, as for its own usage errors. With NO_COLOR set
and not empty, nothing is coloured (borders and bold stay). wisp reads WISP_HOME, OLLAMA_HOST,
WISP_MLX_URL, HF_ENDPOINT and HF_TOKEN (wisp chat --help).

Keys: Enter sends or answers · ↑↓ move · 1-9 choose · Space marks (multi-select)
Esc declines · Ctrl-C declines, again stops the turn · PgUp/PgDn scroll · Ctrl-D leaves
(docs/tui.md)
`

// errUsage marks a usage error (exit status 2).
var errUsage = errors.New("usage")

// errHelp asks for the usage text, errVersion for the version.
var (
	errHelp    = errors.New("help")
	errVersion = errors.New("version")
)

// exitError carries the exit status of a failure already reported.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func main() {
	sandbox.Main() // a launcher for a sandboxed command does not return
	err := run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	var ee exitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		os.Exit(ee.code)
	case errors.Is(err, errUsage):
		fmt.Fprintf(os.Stderr, "wisp-tui: %s\n", err)
		os.Exit(2)
	default:
		fmt.Fprintf(os.Stderr, "wisp-tui: %s\n", err)
		os.Exit(1)
	}
}

// invocation is what the command line asks for.
type invocation struct {
	wisp string   // the wisp binary; "" finds it
	args []string // for wisp: chat --json and the rest
}

// parseArgs reads wisp-tui's flags; every other argument goes to wisp
// chat --json in the order given.
func parseArgs(args []string) (invocation, error) {
	inv := invocation{args: []string{"chat", "--json"}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			inv.args = append(inv.args, args[i+1:]...)
			break
		}
		if a == "-h" || a == "-help" || a == "--help" {
			return invocation{}, errHelp
		}
		if a == "--version" {
			return invocation{}, errVersion
		}
		name, value, hasValue := strings.Cut(a, "=")
		switch name {
		case "--wisp", "--model", "--tool":
		default:
			inv.args = append(inv.args, a)
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				return invocation{}, fmt.Errorf("%w: %s needs a value; run wisp-tui --help", errUsage, name)
			}
			i++
			value = args[i]
		}
		if name == "--wisp" {
			if value == "" {
				return invocation{}, fmt.Errorf("%w: --wisp needs the path of the wisp binary", errUsage)
			}
			inv.wisp = value
			continue
		}
		inv.args = append(inv.args, name, value)
	}
	return inv, nil
}

// findWisp returns the wisp to run: the one named, wisp on PATH, or a
// wisp beside this executable.
func findWisp(named string) (string, error) {
	if named != "" {
		return named, nil
	}
	if p, err := exec.LookPath("wisp"); err == nil {
		return p, nil
	}
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), "wisp")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	return "", fmt.Errorf("no wisp on PATH or beside wisp-tui; install it (go install ./cmd/wisp) or pass --wisp PATH")
}

// run is wisp-tui: it starts the engine, runs the screen until the
// session ends, and stops the engine. After the screen is gone it writes
// to stderr how wisp ended if it failed, with its last lines of standard
// error.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	inv, err := parseArgs(args)
	switch {
	case errors.Is(err, errHelp):
		_, err := io.WriteString(stdout, usage)
		return err
	case errors.Is(err, errVersion):
		_, err := fmt.Fprintf(stdout, "wisp-tui %s\n", version.String())
		return err
	}
	if err != nil {
		return err
	}
	if !isTerminal(stdin) || !isTerminal(stdout) {
		return fmt.Errorf("%w: wisp-tui runs at a terminal; a program talks to wisp chat --json directly", errUsage)
	}
	path, err := findWisp(inv.wisp)
	if err != nil {
		return err
	}
	eng, err := startEngine(path, inv.args)
	if err != nil {
		return fmt.Errorf("cannot start %s: %w; pass the wisp binary with --wisp PATH", path, err)
	}
	m := newModel(eng, modelOptions{next: eng.next})
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithInput(stdin), tea.WithOutput(stdout)}
	if os.Getenv("NO_COLOR") != "" {
		// no-color.org: any value but the empty one. The terminal library
		// reads NO_COLOR as a boolean, so NO_COLOR=yes would colour.
		opts = append(opts, tea.WithColorProfile(colorprofile.Ascii))
	}
	p := tea.NewProgram(m, opts...)
	_, runErr := p.Run()
	engErr := eng.Stop(leaveWait)
	if runErr != nil && !errors.Is(runErr, tea.ErrProgramKilled) {
		return runErr
	}
	if engErr != nil {
		for _, l := range eng.lastStderr() {
			fmt.Fprintln(stderr, escape.Terminal(l))
		}
		fmt.Fprintf(stderr, "wisp-tui: wisp chat --json ended: %s\n", engErr)
		return exitError{code: exitStatus(engErr)}
	}
	return nil
}

// exitStatus is wisp-tui's exit status when wisp ended with err: 2 when
// wisp refused how it was called (the arguments wisp-tui passed on), 1
// for any other failure.
func exitStatus(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 2 {
		return 2
	}
	return 1
}

func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
