// Package cmdline holds the conventions every wisp command keeps on its
// command line, over cobra: usage lines as written, a completion script
// for each shell, a subcommand mistyped refused with the nearest ones
// named on a line of their own, argument counts and flag values said in
// words, which errors are mistakes in how a command was called (exit
// status 2), and how a command that returned an error ends: its exit
// status and the line it says.
package cmdline

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/wisp-agent/wisp/internal/plural"
)

// A UsageError is a mistake in how a command was called: exit status 2.
type UsageError struct {
	Err error
	// Hint, when not "", is a line to say after Err, such as the command
	// the person meant.
	Hint string
}

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usage reports whether err is a mistake in how a command was called: a
// *UsageError, or one of cobra's own errors about the command line. hint
// is the line to say after it, or "".
func Usage(err error) (hint string, ok bool) {
	var ue *UsageError
	if errors.As(err, &ue) {
		return ue.Hint, true
	}
	if err == nil {
		return "", false
	}
	s := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "accepts ", "requires at least", "flag needs an argument", "invalid argument"} {
		if strings.HasPrefix(s, p) {
			return "", true
		}
	}
	return "", false
}

// Apply gives root and every command under it the conventions: cobra's
// completion command (bash, zsh, fish and powershell); each usage line as
// written, with no [flags] added; and, on a command made of subcommands,
// its help when it is called alone, and an argument that names none of
// its subcommands refused as a *UsageError whose Hint names the nearest
// ones. Call it once the tree is built.
func Apply(root *cobra.Command) {
	root.DisableSuggestions = true // unknownSubcommand suggests, at every level
	root.InitDefaultCompletionCmd()
	apply(root)
}

func apply(c *cobra.Command) {
	c.DisableFlagsInUseLine = true
	if c.HasSubCommands() {
		c.Args = unknownSubcommand
		c.SuggestionsMinimumDistance = 2
		if c.RunE == nil && c.Run == nil {
			c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
		}
	}
	for _, sub := range c.Commands() {
		apply(sub)
	}
}

// unknownSubcommand refuses an argument to a command made of
// subcommands: it names none of them.
func unknownSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	path := cmd.CommandPath()
	err := &UsageError{Err: fmt.Errorf("unknown command %q for %q (see %s --help)", args[0], path, path)}
	near := cmd.SuggestionsFor(args[0])
	if len(near) == 0 {
		return err
	}
	for i, n := range near {
		near[i] = path + " " + n
	}
	if last := len(near) - 1; last > 0 {
		near = append(near[:last-1], near[last-1]+" or "+near[last])
	}
	err.Hint = "Did you mean " + strings.Join(near, ", ") + "?"
	return err
}

// ExactArgs takes exactly n arguments; otherwise it returns a
// *UsageError that says msg, how many were given and where the help is.
func ExactArgs(n int, msg string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return &UsageError{Err: fmt.Errorf("%s (got %s; see %s --help)", msg, Count(args), cmd.CommandPath())}
		}
		return nil
	}
}

// Count says how many arguments args holds: "no arguments", "1
// argument", "2 arguments".
func Count(args []string) string { return plural.Count(len(args), "argument") }

// FlagError is a cobra FlagErrorFunc: err, a flag that cobra could not
// read, as a *UsageError that says where the help is, and a bad value as
// what the flag takes ("--page takes a whole number, not "x"") rather
// than how parsing it failed.
func FlagError(c *cobra.Command, err error) error {
	var bad *pflag.InvalidValueError
	if errors.As(err, &bad) {
		err = fmt.Errorf("--%s takes %s, not %q", bad.GetFlag().Name, takes(bad.GetFlag()), bad.GetValue())
	}
	return &UsageError{Err: fmt.Errorf("%w (see %s --help)", err, c.CommandPath())}
}

// takes says what kind of value f takes.
func takes(f *pflag.Flag) string {
	switch t := f.Value.Type(); {
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"):
		return "a whole number"
	case t == "bool":
		return "true or false"
	case t == "duration":
		return "a duration such as 30s or 5m"
	default:
		return "a " + t
	}
}
