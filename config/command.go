package config

import (
	"context"
	"fmt"
	"strings"

	"github.com/wisp-agent/wisp/internal/plural"
)

// A Command is one of the person's config commands, as wisp config and a
// chat's /config take them.
type Command struct {
	// Name is the action: get, set or list.
	Name string
	// Args are what it takes after its name, as a usage line writes
	// them: "KEY", "KEY VALUE", "".
	Args string
	// Short says what it does, in one line.
	Short string
}

// commands are the person's config commands, in the order every usage
// line names them.
var commands = []Command{
	{"get", "KEY", "Print one setting"},
	{"set", "KEY VALUE", "Change one setting (from the next conversation on)"},
	{"list", "", "Print every setting with its value"},
}

// Commands returns the person's config commands, in the order usage
// lines name them.
func Commands() []Command { return append([]Command(nil), commands...) }

// CommandUsage names every command with what it takes: "get KEY, set KEY
// VALUE or list".
func CommandUsage() string {
	parts := make([]string, len(commands))
	for i, c := range commands {
		parts[i] = strings.TrimSpace(c.Name + " " + c.Args)
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

// A CommandError is a command RunCommand could not read: no action, an
// unknown one, a missing or extra argument. Its text says what to type
// instead.
type CommandError struct{ line string }

func (e *CommandError) Error() string { return e.line }

// RunCommand runs one of the person's config commands on s: args are the
// words after "config" (get KEY, set KEY VALUE or list). It returns what
// the person reads of it, lines that end with a newline. set goes through
// Store.Set with opts: a change to a security setting is recorded before
// it is saved, or not made.
//
// A command it cannot read is a *CommandError; a bad key or value, or a
// change that could not be recorded or saved, is Store.Set's error.
func RunCommand(ctx context.Context, s Store, args []string, opts *SetOptions) (string, error) {
	if len(args) == 0 {
		return "", &CommandError{"config needs an action: " + CommandUsage()}
	}
	var c Command
	for _, cc := range commands {
		if cc.Name == args[0] {
			c = cc
		}
	}
	if c.Name == "" {
		return "", &CommandError{fmt.Sprintf("unknown action %q; config takes %s", args[0], CommandUsage())}
	}
	if want := len(strings.Fields(c.Args)); len(args)-1 != want {
		takes := "no arguments"
		if want > 0 {
			takes = map[int]string{1: "one", 2: "a"}[want] + " " + strings.ReplaceAll(c.Args, " ", " and a ")
		}
		return "", &CommandError{fmt.Sprintf("%s takes %s (got %s)", c.Name, takes, plural.Count(len(args)-1, "argument"))}
	}
	switch c.Name {
	case "get":
		cfg, err := s.Load()
		if err != nil {
			return "", err
		}
		v, err := cfg.Get(args[1])
		if err != nil {
			return "", err
		}
		return v + "\n", nil
	case "set":
		v, err := s.Set(ctx, args[1], args[2], opts)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%s = %s (applies from the next conversation)\n", args[1], v), nil
	default: // list
		cfg, err := s.Load()
		if err != nil {
			return "", err
		}
		var b strings.Builder
		for _, k := range Keys() {
			v, err := cfg.Get(k.Name)
			if err != nil {
				return "", err
			}
			fmt.Fprintf(&b, "%s = %s\t# %s (default %s)\n", k.Name, v, k.Doc, k.Default)
		}
		return b.String(), nil
	}
}
