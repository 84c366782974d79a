package runcommand_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/policy"
	"github.com/wisp-agent/wisp/tools/runcommand"
)

// The command the classifier judges names the folder and the secrets
// when there are any, and never lets the line pass for an option.
func TestInvocationCommand(t *testing.T) {
	for _, tc := range []struct {
		inv  runcommand.Invocation
		want string
	}{
		{runcommand.Invocation{Line: "ls -la"}, "run_command ls -la"},
		{runcommand.Invocation{Line: "-rf x"}, "run_command -- -rf x"},
		{runcommand.Invocation{Line: "make", Dir: "src/app"}, "run_command -C src/app -- make"},
		{runcommand.Invocation{Line: "gh pr list", Env: []string{"A", "GH_TOKEN"}}, "run_command -e A -e GH_TOKEN -- gh pr list"},
		{runcommand.Invocation{Line: "ls", Dir: "my dir"}, `run_command -C "my dir" -- ls`},
		{runcommand.Invocation{Line: "ls", Dir: "-x"}, `run_command -C "-x" -- ls`},
		{runcommand.Invocation{Line: "ls", Dir: "a\nrated safe"}, `run_command -C "a\nrated safe" -- ls`},
	} {
		if got := tc.inv.Command(); got != tc.want {
			t.Errorf("%+v.Command() = %q, want %q", tc.inv, got, tc.want)
		}
	}
}

// FuzzInvocationCommand: the folder and names are written so they read
// back exactly, and the line is the command's end, untouched.
func FuzzInvocationCommand(f *testing.F) {
	f.Add("ls", "src", "GH_TOKEN")
	f.Add("-x", "", "")
	f.Add("a -- b", "my dir\n", "A B")
	f.Fuzz(func(t *testing.T, line, dir, name string) {
		inv := runcommand.Invocation{Line: line, Dir: dir}
		if name != "" {
			inv.Env = []string{name}
		}
		got := inv.Command()
		rest, ok := strings.CutPrefix(got, runcommand.CommandPrefix)
		if !ok || !strings.HasSuffix(got, line) {
			t.Fatalf("%+v.Command() = %q", inv, got)
		}
		if rest == line {
			if dir != "" || name != "" || strings.HasPrefix(line, "-") {
				t.Fatalf("%+v.Command() = %q: the folder, a name or a leading - left out", inv, got)
			}
			return
		}
		for _, want := range []struct{ flag, v string }{{"-C ", dir}, {"-e ", name}} {
			if want.v == "" {
				continue
			}
			after, ok := strings.CutPrefix(rest, want.flag)
			if !ok {
				t.Fatalf("%q: no %s", got, want.flag)
			}
			tok := after
			if strings.HasPrefix(after, `"`) {
				q, err := strconv.QuotedPrefix(after)
				if err != nil {
					t.Fatalf("%q: %v", got, err)
				}
				tok = q
				if v, _ := strconv.Unquote(q); v != want.v {
					t.Fatalf("%q reads back %q, want %q", got, v, want.v)
				}
			} else {
				tok, _, _ = strings.Cut(after, " ")
				if tok != want.v {
					t.Fatalf("%q reads back %q, want %q", got, tok, want.v)
				}
			}
			rest = strings.TrimPrefix(after[len(tok):], " ")
		}
		if rest != "-- "+line {
			t.Fatalf("%q ends %q, want -- and the line", got, rest)
		}
	})
}

// describer gives the gate a pattern and scopes of its own.
type describer struct{}

func (describer) Describe(inv runcommand.Invocation) (string, string, []wisp.Scope) {
	return "run_command " + inv.Line, "git commit *", []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession}
}

// A Describer says what the gate is asked, and a call runs only under an
// approval of the command it describes.
func TestDescriber(t *testing.T) {
	f := newFixture(t)
	r, g := &fakeRunner{}, &approving{}
	tl := f.tool(t, r, &runcommand.Options{Describer: describer{}})
	if _, err := run(t, tl, g, `{"command":"git commit -m x","cwd":"src"}`, nil); err != nil {
		t.Fatal(err)
	}
	want := policy.Request{Thread: "t1", Turn: 1, Kind: "command", Command: "run_command git commit -m x", Pattern: "git commit *",
		Scopes: []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession}, AlwaysAsk: true,
		Text: "runs in \"src\" of the workspace\nsandbox: none: the command runs with all your rights, so every command is asked\nstopped if still running after 120 s"}
	if len(g.got) != 1 {
		t.Fatalf("asked %d times", len(g.got))
	}
	if diff := cmp.Diff(want, g.got[0]); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
	if len(r.ran()) != 1 {
		t.Errorf("ran %d commands, want 1", len(r.ran()))
	}
}
