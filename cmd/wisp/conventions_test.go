package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/wisp-agent/wisp/internal/version"
)

// runWisp runs wisp with args in a home of its own and returns its exit
// status, standard output and standard error.
func runWisp(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &stdout, &stderr, testEnv(t.TempDir()))
	return code, stdout.String(), stderr.String()
}

// wisp --version and wisp version print the version the build recorded,
// the same string chat --json's hello carries.
func TestVersion(t *testing.T) {
	want := "wisp " + version.String() + "\n"
	for _, args := range [][]string{{"--version"}, {"version"}} {
		code, out, errs := runWisp(t, "", args...)
		if code != 0 || out != want || errs != "" {
			t.Errorf("wisp %s = exit %d, stdout %q, stderr %q; want 0, %q and nothing", strings.Join(args, " "), code, out, errs, want)
		}
	}

	script := filepath.Join(t.TempDir(), "ok.jsonl")
	if err := os.WriteFile(script, []byte(`{"content":"ok"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, out, _ := runWisp(t, "", "chat", "--json", "--model", "script:"+script)
	first, _, _ := strings.Cut(out, "\n")
	var hello struct{ Type, Wisp string }
	if err := json.Unmarshal([]byte(first), &hello); err != nil || hello.Type != "hello" {
		t.Fatalf("wisp chat --json wrote %q first, want its hello (%v)", first, err)
	}
	if hello.Wisp != version.String() {
		t.Errorf("hello's wisp = %q, want %q, as wisp --version says", hello.Wisp, version.String())
	}
}

// wisp completion writes the completion script of each shell.
func TestCompletion(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		code, out, errs := runWisp(t, "", "completion", shell)
		if code != 0 || !strings.Contains(out, "wisp") || errs != "" {
			t.Errorf("wisp completion %s = exit %d, %d bytes, stderr %q; want 0 and a script", shell, code, len(out), errs)
		}
	}
	code, _, errs := runWisp(t, "", "completion", "tcsh")
	want := "wisp: unknown command \"tcsh\" for \"wisp completion\" (see wisp completion --help)\n" +
		"Did you mean wisp completion bash, wisp completion fish or wisp completion zsh?\n"
	if code != 2 || errs != want {
		t.Errorf("wisp completion tcsh = exit %d, stderr %q; want 2 and %q", code, errs, want)
	}
}

// A command that is not there, at any level, is a usage error, with the
// nearest commands on a line of their own.
func TestUnknownCommand(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"chta"}, "wisp: unknown command \"chta\" for \"wisp\" (see wisp --help)\nDid you mean wisp chat?\n"},
		{[]string{"models", "lst"}, "wisp: unknown command \"lst\" for \"wisp models\" (see wisp models --help)\nDid you mean wisp models list?\n"},
		{[]string{"config", "sett", "x"}, "wisp: unknown command \"sett\" for \"wisp config\" (see wisp config --help)\nDid you mean wisp config get or wisp config set?\n"},
		{[]string{"questions", "anser", "x"}, "wisp: unknown command \"anser\" for \"wisp questions\" (see wisp questions --help)\nDid you mean wisp questions answer?\n"},
		{[]string{"approvals", "aprove"}, "wisp: unknown command \"aprove\" for \"wisp approvals\" (see wisp approvals --help)\nDid you mean wisp approvals approve?\n"},
		{[]string{"frobnicate"}, "wisp: unknown command \"frobnicate\" for \"wisp\" (see wisp --help)\n"},
	}
	for _, tc := range tests {
		code, out, errs := runWisp(t, "", tc.args...)
		if code != 2 || out != "" || errs != tc.want {
			t.Errorf("wisp %s = exit %d, stdout %q, stderr %q; want 2, nothing and %q", strings.Join(tc.args, " "), code, out, errs, tc.want)
		}
	}
}

// A wrong count of arguments is said in words that agree with it, and a
// flag's bad value as what the flag takes.
func TestArgumentCount(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"version", "x"}, "wisp: version takes no arguments (got 1 argument; see wisp version --help)\n"},
		{[]string{"questions", "answer", "a", "b"}, "wisp: questions answer takes one question ID, as wisp questions list shows it (got 2 arguments; see wisp questions answer --help)\n"},
		{[]string{"respond"}, "wisp: respond takes one PROMPT, or - to read it from standard input (got no arguments)\n"},
		// A flag's value is said as what it takes, not as the parser's
		// internals.
		{[]string{"models", "list", "--page", "x"}, "wisp: --page takes a whole number, not \"x\" (see wisp models list --help)\n"},
		{[]string{"audit", "--after=1.5"}, "wisp: --after takes a whole number, not \"1.5\" (see wisp audit --help)\n"},
		{[]string{"chat", "--yes=maybe"}, "wisp: --yes takes true or false, not \"maybe\" (see wisp chat --help)\n"},
	}
	for _, tc := range tests {
		code, _, errs := runWisp(t, "", tc.args...)
		if code != 2 || errs != tc.want {
			t.Errorf("wisp %s = exit %d, stderr %q; want 2 and %q", strings.Join(tc.args, " "), code, errs, tc.want)
		}
	}
}

// Every usage line is as written, with no [flags] added, and a command
// made of subcommands names each of them in its usage line.
func TestUsageLines(t *testing.T) {
	root := newRoot(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}, testEnv(t.TempDir()))
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if strings.Contains(c.UseLine(), "[flags]") {
			t.Errorf("%s: usage line %q has [flags] added", c.CommandPath(), c.UseLine())
		}
		for _, sub := range c.Commands() {
			if c.HasParent() && strings.Contains(c.Use, " ") && sub.IsAvailableCommand() && !strings.Contains(c.Use, sub.Name()) {
				t.Errorf("%s: usage line %q does not name %s", c.CommandPath(), c.Use, sub.Name())
			}
			walk(sub)
		}
	}
	walk(root)
}

// The help of chat, respond and mcp names what each reads from the
// environment.
func TestHelpNamesEnvironment(t *testing.T) {
	for _, cmd := range []string{"chat", "respond", "mcp"} {
		code, out, _ := runWisp(t, "", cmd, "--help")
		if code != 0 {
			t.Errorf("wisp %s --help = exit %d, want 0", cmd, code)
		}
		for _, v := range []string{"WISP_HOME", "OLLAMA_HOST", "WISP_MLX_URL", "HF_ENDPOINT", "HF_TOKEN", "NO_COLOR"} {
			if !strings.Contains(out, "\n  "+v+" ") {
				t.Errorf("wisp %s --help does not name %s under Environment:\n%s", cmd, v, out)
			}
		}
	}
}
