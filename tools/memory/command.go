package memory

import (
	"context"
	"fmt"
	"strings"

	"github.com/wisp-agent/wisp/inquiry/escape"
	"github.com/wisp-agent/wisp/internal/plural"
)

// A Command is one of the person's memory commands.
type Command struct {
	// Name is the action: list or forget.
	Name string
	// Args are what it takes after its name: "", "ID".
	Args string
	// Short says what it does, in one line.
	Short string
}

// Commands returns the person's memory commands, in the order usage
// lines name them.
func Commands() []Command {
	return []Command{
		{"list", "", "Print the facts kept, each with its id, time and source"},
		{"forget", "ID", "Remove the fact ID"},
	}
}

// A CommandError is a command RunCommand could not read: no action, an
// unknown one, a missing or extra argument. Its text says what to type.
type CommandError struct{ line string }

func (e *CommandError) Error() string { return e.line }

// RunCommand runs one of the person's memory commands on s: args are the
// words after "memory" (list, or forget ID). It returns what the person
// reads of it, lines that end with a newline, the facts' texts escaped
// for a terminal. The person's own forget needs no approval.
//
// A command it cannot read is a *CommandError; an id no fact has is
// ErrNoFact; a file that cannot be trusted or read is ErrBadFile.
func RunCommand(ctx context.Context, s Store, args []string) (string, error) {
	const usage = "list or forget ID"
	if len(args) == 0 {
		return "", &CommandError{"memory needs an action: " + usage}
	}
	switch {
	case args[0] == "list" && len(args) == 1:
		facts, err := s.List()
		if err != nil {
			return "", err
		}
		if len(facts) == 0 {
			return "no facts are kept\n", nil
		}
		var b strings.Builder
		for _, f := range facts {
			fmt.Fprintf(&b, "%s  %s  %s  %s\n", escape.Terminal(f.ID), f.Time.UTC().Format("2006-01-02 15:04 UTC"), source(f), escape.Terminal(f.Text))
		}
		return b.String(), nil
	case args[0] == "forget" && len(args) == 2:
		f, err := s.Forget(ctx, args[1])
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("forgot %s: %s\n", escape.Terminal(f.ID), escape.Terminal(f.Text)), nil
	case args[0] == "list":
		return "", &CommandError{fmt.Sprintf("list takes no arguments (got %d)", len(args)-1)}
	case args[0] == "forget":
		return "", &CommandError{fmt.Sprintf("forget takes one ID, as memory list shows it (got %s)", plural.Count(len(args)-1, "argument"))}
	}
	return "", &CommandError{fmt.Sprintf("unknown action %q; memory takes %s", escape.Terminal(args[0]), usage)}
}

// source says who kept f and where.
func source(f Fact) string {
	s := escape.Terminal(f.Source)
	if f.Thread != "" {
		s += ", thread " + escape.Terminal(f.Thread)
	}
	return "(" + s + ")"
}
