package cmdline_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/wisp-agent/wisp/internal/cmdline"
)

// tree is a command with subcommands, one of which has subcommands of its
// own and flags, under the conventions.
func tree(out *bytes.Buffer) *cobra.Command {
	root := &cobra.Command{Use: "tool", SilenceErrors: true, SilenceUsage: true}
	root.SetOut(out)
	root.SetErr(out)
	root.SetFlagErrorFunc(cmdline.FlagError)
	items := &cobra.Command{Use: "items list | show NAME"}
	var page int
	list := &cobra.Command{Use: "list [--page N]", Args: cmdline.ExactArgs(0, "items list takes no arguments"), RunE: func(*cobra.Command, []string) error { return nil }}
	list.Flags().IntVar(&page, "page", 1, "the page")
	show := &cobra.Command{Use: "show NAME", Args: cmdline.ExactArgs(1, "items show takes one NAME"), RunE: func(*cobra.Command, []string) error { return nil }}
	items.AddCommand(list, show)
	root.AddCommand(items)
	cmdline.Apply(root)
	return root
}

func TestApply(t *testing.T) {
	tests := []struct {
		args []string
		err  string
		hint string
	}{
		{[]string{"itmes"}, `unknown command "itmes" for "tool" (see tool --help)`, "Did you mean tool items?"},
		{[]string{"items", "lst"}, `unknown command "lst" for "tool items" (see tool items --help)`, "Did you mean tool items list?"},
		{[]string{"items", "shw", "x"}, `unknown command "shw" for "tool items" (see tool items --help)`, "Did you mean tool items show?"},
		{[]string{"items", "frobnicate"}, `unknown command "frobnicate" for "tool items" (see tool items --help)`, ""},
		{[]string{"completion", "tcsh"}, `unknown command "tcsh" for "tool completion" (see tool completion --help)`, "Did you mean tool completion bash, tool completion fish or tool completion zsh?"},
		{[]string{"items", "show"}, "items show takes one NAME (got no arguments; see tool items show --help)", ""},
		{[]string{"items", "list", "x"}, "items list takes no arguments (got 1 argument; see tool items list --help)", ""},
		{[]string{"items", "show", "a", "b"}, "items show takes one NAME (got 2 arguments; see tool items show --help)", ""},
		{[]string{"items", "list", "--page", "two"}, `--page takes a whole number, not "two" (see tool items list --help)`, ""},
		{[]string{"items", "list", "--nope"}, "unknown flag: --nope (see tool items list --help)", ""},
	}
	for _, tc := range tests {
		root := tree(&bytes.Buffer{})
		root.SetArgs(tc.args)
		err := root.Execute()
		hint, usage := cmdline.Usage(err)
		if err == nil || err.Error() != tc.err || hint != tc.hint || !usage {
			t.Errorf("tool %s = %v (hint %q, usage %v), want %q (hint %q), a usage error", strings.Join(tc.args, " "), err, hint, usage, tc.err, tc.hint)
		}
	}
}

// Usage lines are as written, and a command of subcommands called alone
// shows its help.
func TestApplyHelp(t *testing.T) {
	var out bytes.Buffer
	root := tree(&out)
	root.SetArgs([]string{"items"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "tool items list | show NAME\n") || strings.Contains(out.String(), "[flags]") {
		t.Errorf("tool items wrote\n%s\nwant its help, with its usage line as written", out.String())
	}
	out.Reset()
	root.SetArgs([]string{"items", "list", "--help"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "tool items list [--page N]\n") || strings.Contains(out.String(), "[flags]") {
		t.Errorf("tool items list --help wrote\n%s\nwant its usage line as written", out.String())
	}
}

func TestUsage(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{nil, false},
		{errors.New("the model is not answering"), false},
		{&cmdline.UsageError{Err: errors.New("bad")}, true},
		{errors.New(`unknown command "x" for "tool"`), true},
		{errors.New("unknown shorthand flag: 'q' in -q"), true},
		{errors.New(`flag needs an argument: --page`), true},
		{errors.New(`accepts 1 arg(s), received 2`), true},
	}
	for _, tc := range tests {
		if _, got := cmdline.Usage(tc.err); got != tc.want {
			t.Errorf("Usage(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

func TestCount(t *testing.T) {
	for n, want := range []string{"no arguments", "1 argument", "2 arguments", "3 arguments"} {
		if got := cmdline.Count(make([]string, n)); got != want {
			t.Errorf("Count(%d arguments) = %q, want %q", n, got, want)
		}
	}
}
