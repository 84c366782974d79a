package shell_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp/policy"
	"github.com/wisp-agent/wisp/policy/shell"
)

func TestInvocationCommand(t *testing.T) {
	tests := []struct {
		inv  shell.Invocation
		want string
	}{
		{shell.Invocation{Line: "go test ./..."}, "run_command go test ./..."},
		{shell.Invocation{Line: "ls", Dir: "sub"}, "run_command -C sub -- ls"},
		{shell.Invocation{Line: "ls", Dir: "my dir"}, `run_command -C "my dir" -- ls`},
		{shell.Invocation{Line: "gh pr list", Env: []string{"GH_TOKEN"}}, "run_command -e GH_TOKEN -- gh pr list"},
		{shell.Invocation{Line: "-C x -- rm -rf /"}, "run_command -- -C x -- rm -rf /"},
		{shell.Invocation{Line: "ls", Dir: "-x", Env: []string{"A B", ""}}, `run_command -C "-x" -e "A B" -e "" -- ls`},
		{shell.Invocation{Line: ""}, "run_command "},
	}
	for _, tc := range tests {
		got := tc.inv.Command()
		if got != tc.want {
			t.Errorf("%+v.Command() = %q, want %q", tc.inv, got, tc.want)
		}
		back, err := shell.ParseInvocation(strings.TrimPrefix(got, shell.Prefix+" "))
		if err != nil {
			t.Errorf("ParseInvocation(%q): %v", got, err)
			continue
		}
		if diff := cmp.Diff(tc.inv, back); diff != "" {
			t.Errorf("ParseInvocation(%q) (-want +got):\n%s", got, diff)
		}
	}
}

func TestParseInvocationRefuses(t *testing.T) {
	for _, text := range []string{"-C", "-C sub", "-C sub ls", "-x -- ls", "-e -- ls", `-C "sub -- ls`, "-C a -C b -- ls", `-C "a"b -- ls`} {
		if inv, err := shell.ParseInvocation(text); err == nil {
			t.Errorf("ParseInvocation(%q) = %+v, want an error", text, inv)
		}
	}
}

// The folder and the variables of the call are rated with the line.
func TestInvocationDirAndEnv(t *testing.T) {
	j := newJudge(t, nil)
	tests := []struct {
		inv    shell.Invocation
		rating policy.Rating
	}{
		{shell.Invocation{Line: "ls", Dir: "sub"}, S},
		{shell.Invocation{Line: "ls", Dir: "/ws/sub"}, S},
		{shell.Invocation{Line: "ls", Dir: "/etc"}, D},
		{shell.Invocation{Line: "ls", Dir: "../x"}, D},
		{shell.Invocation{Line: "rm x", Dir: "sub"}, M},
		{shell.Invocation{Line: "rm ../../x", Dir: "sub"}, D},
		{shell.Invocation{Line: "rm ../x", Dir: "sub"}, M},
		{shell.Invocation{Line: "ls", Env: []string{"GH_TOKEN"}}, S},
		{shell.Invocation{Line: "ls", Env: []string{"LD_PRELOAD"}}, D},
		{shell.Invocation{Line: "ls", Env: []string{"GIT_SSH_COMMAND"}}, D},
		{shell.Invocation{Line: "ls", Env: []string{"NOT A NAME"}}, D},
	}
	for _, tc := range tests {
		if got := j.Line(nil, tc.inv).Rating; got != tc.rating {
			t.Errorf("Line(%+v) = %v, want %v", tc.inv, got, tc.rating)
		}
	}
}

func TestNewRefuses(t *testing.T) {
	for _, o := range []*shell.Options{nil, {}, {Workspace: "ws"}, {Workspace: "/ws", Home: "home"}, {Workspace: "/ws", Temp: "tmp"}} {
		if _, err := shell.New(o); err == nil {
			t.Errorf("New(%+v): no error, want one", o)
		}
	}
}

// Without GitProtected, git's reading commands may run a program the
// repository's settings name, so they are moderate.
func TestGitUnprotected(t *testing.T) {
	j := newJudge(t, &shell.Options{Workspace: "/ws", Home: "/home/p"})
	for _, line := range []string{"git status", "git log -1", "git diff"} {
		if l := j.Line(nil, shell.Invocation{Line: line}); l.Rating != M {
			t.Errorf("Line(%q) = %v %q, want moderate", line, l.Rating, l.Reason)
		}
	}
	if l := j.Line(nil, shell.Invocation{Line: "git version"}); l.Rating != S {
		t.Errorf("Line(git version) = %v, want safe", l.Rating)
	}
	// Without a temporary folder, /tmp is outside.
	if l := j.Line(nil, shell.Invocation{Line: "echo x > /tmp/w/x"}); l.Rating != D {
		t.Errorf("Line(echo x > /tmp/w/x) = %v, want dangerous", l.Rating)
	}
	// Without a home, ~ is only known when the command runs.
	j = newJudge(t, &shell.Options{Workspace: "/ws"})
	if l := j.Line(nil, shell.Invocation{Line: "touch ~/x"}); l.Rating != D {
		t.Errorf("Line(touch ~/x) = %v, want dangerous", l.Rating)
	}
}

// A path is judged where its symbolic links lead: a link in the workspace
// to a folder outside it is outside.
func TestSymlinks(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	outside := filepath.Join(root, "outside")
	home := filepath.Join(root, "home")
	for _, d := range []string{ws, outside, filepath.Join(home, ".wisp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(ws, "out")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := os.Symlink(filepath.Join(home, ".wisp"), filepath.Join(ws, "w")); err != nil {
		t.Fatal(err)
	}
	// The workspace itself through a link is the workspace.
	link := filepath.Join(root, "wslink")
	if err := os.Symlink(ws, link); err != nil {
		t.Fatal(err)
	}
	j := newJudge(t, &shell.Options{Workspace: link, Home: home})
	tests := []struct {
		line       string
		rating     policy.Rating
		personOnly bool
	}{
		{"touch in.txt", M, false},
		{"touch out/x", D, false},
		{"echo x > out/new/file", D, false},
		{"echo x > w/config.json", D, true},
		{"cat w/config.json", D, false},
		{"touch " + ws + "/a", M, false},
	}
	for _, tc := range tests {
		l := j.Line(nil, shell.Invocation{Line: tc.line})
		if l.Rating != tc.rating || l.PersonOnly != tc.personOnly {
			t.Errorf("Line(%q) = %v %q personOnly=%v, want %v personOnly=%v", tc.line, l.Rating, l.Reason, l.PersonOnly, tc.rating, tc.personOnly)
		}
	}
}

// The table has every program's own row first, and the test table is
// large enough to say something.
func TestTableSize(t *testing.T) {
	if o := shell.Orphans(); len(o) > 0 {
		t.Errorf("programs whose rows do not start with their own, with sub set: %v", o)
	}
	if n := shell.Rows(); n < 250 {
		t.Errorf("the table has %d rows, want at least 250", n)
	}
	t.Logf("%d rows for %d programs", shell.Rows(), len(shell.Names()))
}
