package sandboxed_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/policy"
	"github.com/wisp-agent/wisp/policy/shell"
	"github.com/wisp-agent/wisp/sandbox"
	"github.com/wisp-agent/wisp/tools/runcommand"
	"github.com/wisp-agent/wisp/tools/runcommand/sandboxed"
)

func TestMain(m *testing.M) {
	sandbox.Main()
	os.Exit(m.Run())
}

// fixture is a workspace, a wisp home and a person's home folder, apart.
type fixture struct {
	ws, wispHome, home string
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := fixture{ws: filepath.Join(dir, "ws"), wispHome: filepath.Join(dir, "person", ".wisp"), home: filepath.Join(dir, "person")}
	for _, d := range []string{f.ws, f.wispHome, filepath.Join(f.home, ".ssh")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for p, text := range map[string]string{
		filepath.Join(f.wispHome, "config.json"):    "{}\n",
		filepath.Join(f.home, ".ssh", "id_ed25519"): "key\n",
	} {
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func (f fixture) runner(t *testing.T, o sandboxed.Options) *sandboxed.Runner {
	t.Helper()
	o.Workspace, o.WispHome, o.Home = f.ws, f.wispHome, f.home
	r, err := sandboxed.New(context.Background(), &o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func needSandbox(t *testing.T) {
	t.Helper()
	if s := sandbox.Probe(context.Background()); !s.Confined {
		t.Skipf("no sandbox here: %s", s.Reason)
	}
}

var env = []string{"PATH=/usr/bin:/bin", "LANG=C"}

func run(t *testing.T, r *sandboxed.Runner, line string) runcommand.Result {
	t.Helper()
	res, err := r.Run(context.Background(), runcommand.Spec{Command: line, Env: env, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatalf("Run(%q): %v", line, err)
	}
	return res
}

// A confined command writes in the workspace and nowhere else; it sees
// nothing of the wisp home nor of the person's keys; it gets git's
// settings that turn the repository's own programs off; and the Runner
// says how it is confined.
func TestRunConfined(t *testing.T) {
	needSandbox(t)
	f := newFixture(t)
	r := f.runner(t, sandboxed.Options{})
	if got, want := r.Sandbox(), (runcommand.Sandbox{Mode: runcommand.ModeWorkspaceWrite}); got != want || r.Unavailable() != "" {
		t.Fatalf("Sandbox() = %+v, Unavailable() = %q; want %+v and none", got, r.Unavailable(), want)
	}
	for _, tc := range []struct {
		line string
		ok   bool
	}{
		{"echo hi > in.txt && cat in.txt", true},
		{"cat " + f.wispHome + "/config.json", false},
		{"touch " + f.wispHome + "/planted", false},
		{"cat " + f.home + "/.ssh/id_ed25519", false},
		{"echo x > " + f.home + "/outside", false},
	} {
		res := run(t, r, tc.line)
		if got := res.ExitCode == 0; got != tc.ok {
			t.Errorf("Run(%q) exit %d, want success %v; stderr %q", tc.line, res.ExitCode, tc.ok, res.Stderr.Head)
		}
		if res.Mode != runcommand.ModeWorkspaceWrite {
			t.Errorf("Run(%q) mode %q, want %q", tc.line, res.Mode, runcommand.ModeWorkspaceWrite)
		}
	}
	for _, p := range []string{filepath.Join(f.wispHome, "planted"), filepath.Join(f.home, "outside")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was made", p)
		}
	}
	res := run(t, r, "env")
	for _, want := range shell.GitEnv() {
		if !strings.Contains(string(res.Stdout.Head), want+"\n") {
			t.Errorf("the command's environment lacks %s:\n%s", want, res.Stdout.Head)
		}
	}
}

// The workspace's .git is read-only to a confined command.
func TestGitReadOnly(t *testing.T) {
	needSandbox(t)
	f := newFixture(t)
	if err := os.Mkdir(filepath.Join(f.ws, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	r := f.runner(t, sandboxed.Options{})
	if res := run(t, r, "echo x > .git/config"); res.ExitCode == 0 {
		t.Errorf("a write to .git succeeded")
	}
	if res := run(t, r, "echo x > notgit"); res.ExitCode != 0 {
		t.Errorf("a write beside .git failed: %s", res.Stderr.Head)
	}
}

// Output streams as it comes, by stream name, and the Result keeps it.
func TestRunStreams(t *testing.T) {
	f := newFixture(t)
	r := f.runner(t, sandboxed.Options{Mode: runcommand.ModeOff})
	var mu sync.Mutex
	got := map[string]string{}
	res, err := r.Run(context.Background(), runcommand.Spec{Command: "echo out; echo err >&2; exit 3", Env: env, Timeout: 30 * time.Second,
		Output: func(stream string, p []byte) {
			mu.Lock()
			got[stream] += string(p)
			mu.Unlock()
		}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{runcommand.Stdout: "out\n", runcommand.Stderr: "err\n"}, got); diff != "" {
		t.Errorf("streamed (-want +got):\n%s", diff)
	}
	if res.ExitCode != 3 || string(res.Stdout.Head) != "out\n" || res.Stdout.Bytes != 4 || res.Mode != runcommand.ModeOff {
		t.Errorf("Run = %+v, want exit 3, stdout out, mode off", res)
	}
}

// A cancelled command is ended, and Run says so with the cause, as
// run_command expects.
func TestRunCancelled(t *testing.T) {
	f := newFixture(t)
	r := f.runner(t, sandboxed.Options{Mode: runcommand.ModeOff})
	cause := errors.New("the person stopped the turn")
	ctx, cancel := context.WithCancelCause(context.Background())
	started := make(chan struct{})
	var once sync.Once
	go func() {
		<-started
		cancel(cause)
	}()
	res, err := r.Run(ctx, runcommand.Spec{Command: "echo go; sleep 60", Env: env, Timeout: 60 * time.Second,
		Output: func(string, []byte) { once.Do(func() { close(started) }) }})
	if !errors.Is(err, cause) {
		t.Fatalf("Run = %v, want an error wrapping %v", err, cause)
	}
	if res.Duration >= 30*time.Second || string(res.Stdout.Head) != "go\n" {
		t.Errorf("Run kept %+v; want the output so far, ended early", res)
	}
	if _, err := r.Run(ctx, runcommand.Spec{Command: "true", Env: env}); !errors.Is(err, cause) {
		t.Errorf("Run after the cancel = %v, want an error wrapping %v", err, cause)
	}
}

// Where no sandbox can be had, commands run unconfined, and the Runner
// says so: the tool then asks about every one.
func TestUnavailable(t *testing.T) {
	f := newFixture(t)
	r := f.runner(t, sandboxed.Options{Network: true, Probe: func(context.Context) sandbox.Support {
		return sandbox.Support{Reason: "user namespaces are off"}
	}})
	if got := r.Sandbox(); got.Confined() || got.Mode != runcommand.ModeOff || got.Network {
		t.Errorf("Sandbox() = %+v, want off", got)
	}
	if r.Unavailable() != "user namespaces are off" {
		t.Errorf("Unavailable() = %q, want the probe's reason", r.Unavailable())
	}
	if res := run(t, r, "echo hi"); res.ExitCode != 0 || res.Mode != runcommand.ModeOff {
		t.Errorf("Run = %+v, want it run in mode off", res)
	}
	// Mode off asked for is not a sandbox that is missing.
	off := f.runner(t, sandboxed.Options{Mode: runcommand.ModeOff, Probe: func(context.Context) sandbox.Support {
		t.Error("mode off probed")
		return sandbox.Support{}
	}})
	if off.Unavailable() != "" || off.Sandbox().Mode != runcommand.ModeOff {
		t.Errorf("mode off: Sandbox() = %+v, Unavailable() = %q", off.Sandbox(), off.Unavailable())
	}
}

func TestNewRefuses(t *testing.T) {
	f := newFixture(t)
	for _, o := range []*sandboxed.Options{
		nil,
		{Workspace: f.ws, WispHome: f.wispHome, Mode: "wide-open"},
		{Workspace: f.ws, Mode: runcommand.ModeWorkspaceWrite, Probe: func(context.Context) sandbox.Support { return sandbox.Support{Confined: true} }},
		{Workspace: filepath.Join(f.wispHome, "ws"), WispHome: f.wispHome, Probe: func(context.Context) sandbox.Support { return sandbox.Support{Confined: true} }},
	} {
		if _, err := sandboxed.New(context.Background(), o); err == nil {
			t.Errorf("New(%+v) succeeded, want an error", o)
		}
	}
}

// The judge knows the Runner's folders, and rates git's reading commands
// safe only where .git cannot be written.
func TestJudge(t *testing.T) {
	f := newFixture(t)
	confined := func(context.Context) sandbox.Support { return sandbox.Support{Confined: true} }
	for _, tc := range []struct {
		mode string
		line string
		want policy.Rating
	}{
		{runcommand.ModeWorkspaceWrite, "git status", policy.Safe},
		{runcommand.ModeReadOnly, "git status", policy.Safe},
		{runcommand.ModeOff, "git status", policy.Moderate},
		{runcommand.ModeWorkspaceWrite, "cat ~/.ssh/id_ed25519", policy.Dangerous},
		{runcommand.ModeWorkspaceWrite, "echo x > out.txt", policy.Moderate},
		{runcommand.ModeWorkspaceWrite, "ls " + f.wispHome, policy.Dangerous},
	} {
		// A home outside /tmp, which a confined command sees as its own.
		r, err := sandboxed.New(context.Background(), &sandboxed.Options{Workspace: f.ws, WispHome: f.wispHome, Home: "/home/p", Mode: tc.mode, Probe: confined})
		if err != nil {
			t.Fatal(err)
		}
		j, err := r.Judge()
		if err != nil {
			t.Fatal(err)
		}
		c, err := policy.NewClassifier(j.Rule())
		if err != nil {
			t.Fatal(err)
		}
		inv := shell.Invocation{Line: tc.line}
		if v := c.Classify(inv.Command()); v.Rating != tc.want {
			t.Errorf("in %s, Classify(%q) = %v (%s), want %v", tc.mode, tc.line, v.Rating, v.Reason, tc.want)
		}
	}
}

// The Describer gives the command as the shell judge writes it, the
// pattern over its parts and the scopes its rating allows.
func TestDescribe(t *testing.T) {
	j, err := shell.New(&shell.Options{Workspace: "/ws", Home: "/home/p", GitProtected: true})
	if err != nil {
		t.Fatal(err)
	}
	c, err := policy.NewClassifier(j.Rule())
	if err != nil {
		t.Fatal(err)
	}
	d := sandboxed.Describer{Judge: j, Table: c}
	all := []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession, wisp.ScopeProject, wisp.ScopeAlways}
	for _, tc := range []struct {
		inv     runcommand.Invocation
		command string
		pattern string
		scopes  []wisp.Scope
	}{
		{runcommand.Invocation{Line: "git commit -m x"}, "run_command git commit -m x", "git commit *", all},
		{runcommand.Invocation{Line: "go test ./...", Dir: "sub", Env: []string{"GH_TOKEN"}}, "run_command -C sub -e GH_TOKEN -- go test ./...", "-e GH_TOKEN ; go test *", all},
		{runcommand.Invocation{Line: "rm -rf build"}, "run_command rm -rf build", "", []wisp.Scope{wisp.ScopeOnce}},
	} {
		command, pattern, scopes := d.Describe(tc.inv)
		if command != tc.command || pattern != tc.pattern || !slices.Equal(scopes, tc.scopes) {
			t.Errorf("Describe(%+v) = %q, %q, %v; want %q, %q, %v", tc.inv, command, pattern, scopes, tc.command, tc.pattern, tc.scopes)
		}
		if want := tc.inv.Command(); command != want {
			t.Errorf("Describe(%+v) command %q, but the tool writes %q", tc.inv, command, want)
		}
	}
}
