package models

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/internal/plural"
)

// A Command is one of the person's models commands, as wisp models and a
// chat's /models take them.
type Command struct {
	// Name is the action: list, show, pull, cancel, enable, disable,
	// check or trust.
	Name string
	// Arg is what it takes after its name, as a usage line writes it:
	// "NAME", "PUBLISHER", "[PAGE]".
	Arg string
	// Short says what it does, in one line.
	Short string
}

// commands are the person's models commands, in the order every usage
// line names them.
var commands = []Command{
	{"list", "[PAGE]", "List the models, 20 a page"},
	{"show", "NAME", "Every fact of one model, and whether it is usable"},
	{"pull", "ORGANISATION/NAME", "Pull an MLX model from Hugging Face: planned, verified as it streams, resumable"},
	{"cancel", "ORGANISATION/NAME", "Stop a pull running anywhere on this machine, keeping what arrived"},
	{"enable", "NAME", "Check a model and let wisp run it"},
	{"disable", "NAME", "Stop wisp from running a model"},
	{"check", "[NAME]", "Verify a model again, or every enabled one; a model that fails is disabled"},
	{"trust", "PUBLISHER", "Trust a publisher to pull models from (yours alone to decide)"},
}

// Commands returns the person's models commands, in the order usage
// lines name them.
func Commands() []Command { return append([]Command(nil), commands...) }

// CommandUsage names every command with what it takes: "list [PAGE],
// show NAME, …, check NAME or trust PUBLISHER".
func CommandUsage() string {
	parts := make([]string, len(commands))
	for i, c := range commands {
		parts[i] = c.Name + " " + c.Arg
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

// A CommandError is a command RunCommand could not read: no action, an
// unknown one, a missing or extra argument, a page that is no number. Its
// text says what to type instead.
type CommandError struct{ line string }

func (e *CommandError) Error() string { return e.line }

func commandErrorf(format string, args ...any) error {
	return &CommandError{line: fmt.Sprintf(format, args...)}
}

// CommandOptions configure RunCommand. A nil *CommandOptions or a zero
// field means the default given beside the field.
type CommandOptions struct {
	// Current is the conversation's model, marked * in the listing; "":
	// none is marked.
	Current string
	// Table writes list as FormatTable does, for wisp models list at a
	// terminal: escaped already, to print as it is. false: as
	// FormatListing.
	Table bool
	// JSON writes list as ListJSON does, every model on no page, for a
	// program: list takes no page then.
	JSON bool
}

// RunCommand runs one of the person's models commands: args are the
// words after "models" (list [PAGE], show NAME, pull REPO, cancel REPO,
// enable NAME, disable NAME, check [NAME] or trust PUBLISHER). It returns
// what the person reads of it, lines that end with a newline and hold the
// backends' and the Hub's words unescaped: a face escapes them as it
// shows them. Every action is the person's own (wisp.ActorPerson),
// through the same rules as everywhere; pull runs in the background, and
// its end arrives as Options.Pull's notice.
//
// A command it cannot read is a *CommandError; an action that fails
// returns the action's error. A check (check NAME, or check alone for
// every enabled model) that a model fails returns a *CheckError, whose
// Change holds the lines the person reads: a face shows them and fails,
// as wisp models check exits 1.
func RunCommand(ctx context.Context, a *Actions, args []string, opts *CommandOptions) (string, error) {
	var o CommandOptions
	if opts != nil {
		o = *opts
	}
	if len(args) == 0 {
		return "", commandErrorf("models needs an action: %s", CommandUsage())
	}
	c, ok := lookupCommand(args[0])
	if !ok {
		return "", commandErrorf("unknown action %q; models takes %s", args[0], CommandUsage())
	}
	arg, err := c.argument(args[1:])
	if err != nil {
		return "", err
	}
	switch c.Name {
	case "list":
		if o.JSON {
			if arg != "" {
				return "", commandErrorf("list --json lists every model, on no page; leave the page out")
			}
			b, err := ListJSON(ctx, a)
			return string(b), err
		}
		page := 1
		if arg != "" {
			if page, err = strconv.Atoi(arg); err != nil {
				return "", commandErrorf("list takes a page number; got %q", arg)
			}
		}
		l, err := a.List(ctx, page)
		if err != nil {
			return "", err
		}
		if o.Table {
			return FormatTable(l), nil
		}
		return FormatListing(l, o.Current), nil
	case "show":
		m, err := a.Show(ctx, arg)
		if err != nil {
			return "", err
		}
		return FormatInfo(m), nil
	case "check":
		var ch wisp.Change
		if arg == "" {
			ch, err = a.CheckEnabled(ctx, wisp.ActorPerson)
		} else {
			ch, err = a.Check(ctx, arg, wisp.ActorPerson)
		}
		if err != nil {
			return "", err
		}
		return FormatChange(ch), nil
	case "enable", "disable":
		do := map[string]func(context.Context, string, wisp.Actor) (wisp.Change, error){
			"enable": a.Enable, "disable": a.Disable}[c.Name]
		ch, err := do(ctx, arg, wisp.ActorPerson)
		if err != nil {
			return "", err
		}
		return FormatChange(ch), nil
	case "pull":
		p, err := a.Pull(ctx, arg, wisp.ActorPerson)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("pulling %s in the background: about %s in %d of %d files; its end will arrive here\n", p.Repo, Size(p.Bytes), p.Files, p.Total), nil
	case "cancel":
		running, err := a.RequestCancel(arg)
		if err != nil {
			return "", err
		}
		if !running {
			return "", fmt.Errorf("no pull of %s is running", arg)
		}
		return "asked the pull of " + arg + " to stop; what arrived is kept\n", nil
	default: // trust
		if err := a.Trust(ctx, arg, wisp.ActorPerson); err != nil {
			return "", err
		}
		return arg + " is trusted: pulls from it are not flagged\n", nil
	}
}

// lookupCommand finds the command named name.
func lookupCommand(name string) (Command, bool) {
	for _, c := range commands {
		if c.Name == name {
			return c, true
		}
	}
	return Command{}, false
}

// argument returns the one argument of c in args ("" for a list with no
// page), or why args do not fit.
func (c Command) argument(args []string) (string, error) {
	optional := strings.HasPrefix(c.Arg, "[")
	switch {
	case len(args) == 1:
		return args[0], nil
	case len(args) == 0 && optional:
		return "", nil
	case optional:
		return "", commandErrorf("%s takes at most one %s (got %s)", c.Name, strings.Trim(c.Arg, "[]"), plural.Count(len(args), "argument"))
	}
	return "", commandErrorf("%s takes one %s (got %s)", c.Name, c.Arg, plural.Count(len(args), "argument"))
}
