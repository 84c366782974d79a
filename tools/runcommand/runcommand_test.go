package runcommand_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/policy"
	"github.com/wisp-agent/wisp/tools/runcommand"
	"github.com/wisp-agent/wisp/wisptest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// The schema the model reads is pinned.
func TestSchemaGolden(t *testing.T) {
	f := newFixture(t)
	tl := f.tool(t, &fakeRunner{}, nil)
	wisptest.SchemaGolden(t, tl, filepath.Join("testdata", "schema.json"), *update)
}

// New refuses options it cannot run with.
func TestNewRefuses(t *testing.T) {
	ws := t.TempDir()
	file := filepath.Join(ws, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		o    runcommand.Options
		want string
	}{
		{"no workspace", runcommand.Options{Runner: &fakeRunner{}}, "no workspace given"},
		{"missing workspace", runcommand.Options{Workspace: filepath.Join(ws, "none"), Runner: &fakeRunner{}}, "cannot be used"},
		{"file", runcommand.Options{Workspace: file, Runner: &fakeRunner{}}, "is not a folder"},
		{"no runner", runcommand.Options{Workspace: ws}, "needs a Runner"},
	} {
		_, err := runcommand.New(&tc.o)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: New = %v, want one line with %q", tc.name, err, tc.want)
		}
	}
}

// cwd must lie inside the workspace once links are resolved; anything
// else is refused with a line the model can act on, needs no approval,
// and runs nothing.
func TestCwd(t *testing.T) {
	f := newFixture(t)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(f.ws, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(f.ws, "src", "deep"), filepath.Join(f.ws, "in")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.ws, "file"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cwd     string
		dir     string // want: relative to the workspace
		problem string // want: in the refusal
	}{
		{"", ".", ""},
		{".", ".", ""},
		{"src", "src", ""},
		{"src/../src/deep", "src/deep", ""},
		{filepath.Join(f.ws, "src"), "src", ""},
		{"in", "src/deep", ""},
		{"..", "", "outside the workspace"},
		{"../" + filepath.Base(f.ws) + "x", "", "does not exist"},
		{"out", "", "outside the workspace"},
		{outside, "", "outside the workspace"},
		{"/", "", "outside the workspace"},
		{"none", "", "does not exist"},
		{"file", "", "is not a folder"},
	} {
		r := &fakeRunner{}
		g := &approving{}
		tl := f.tool(t, r, nil)
		args, _ := json.Marshal(map[string]string{"command": "ls", "cwd": tc.cwd})
		res, err := run(t, tl, g, string(args), nil)
		if err != nil {
			t.Fatal(err)
		}
		if tc.problem != "" {
			if !res.IsError || !strings.Contains(res.Content, tc.problem) || strings.Contains(res.Content, f.ws) || len(r.ran()) > 0 || len(g.got) > 0 {
				t.Errorf("cwd %q: %+v, ran %d, asked %d; want a refusal with %q that does not name the workspace, nothing run or asked", tc.cwd, res, len(r.ran()), len(g.got), tc.problem)
			}
			continue
		}
		specs := r.ran()
		if res.IsError || len(specs) != 1 {
			t.Errorf("cwd %q: %+v, ran %d; want it run once", tc.cwd, res, len(specs))
			continue
		}
		real, _ := filepath.EvalSymlinks(filepath.Join(f.ws, tc.dir))
		if specs[0].Dir != real {
			t.Errorf("cwd %q ran in %q, want %q", tc.cwd, specs[0].Dir, real)
		}
	}
}

// The environment is scrubbed to the allowlist: wisp's WISP_* never, the
// person's tokens only when allowed, the fixed entries always, and the
// call's secrets resolved from the vault by reference.
func TestEnvironment(t *testing.T) {
	f := newFixture(t)
	from := []string{
		"PATH=/usr/bin", "HOME=/home/ana", "LANG=C.UTF-8", "WISP_HOME=/home/ana/.wisp", "AWS_SECRET_ACCESS_KEY=abc",
		"NPM_TOKEN=npm", "PAGER=less", "TERM=xterm", "OLLAMA_HOST=x", "WISP_MLX_URL=y", "wisp_mlx_url=z", "noequals",
	}
	r := &fakeRunner{}
	tl := f.tool(t, r, &runcommand.Options{Environ: from, Allow: []string{"NPM_TOKEN", "WISP_HOME", "wisp_mlx_url"}})
	if _, err := run(t, tl, &approving{}, `{"command":"env","env":{"GITHUB_TOKEN":"session:GH_TOKEN"}}`, nil); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"GITHUB_TOKEN=" + token, "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "HOME=/home/ana", "LANG=C.UTF-8", "NO_COLOR=1",
		"NPM_TOKEN=npm", "PAGER=cat", "PATH=/usr/bin", "TERM=dumb",
	}
	if specs := r.ran(); len(specs) != 1 {
		t.Fatalf("ran %d commands, want 1", len(specs))
	} else if diff := cmp.Diff(want, specs[0].Env); diff != "" {
		t.Errorf("environment (-want +got):\n%s", diff)
	}
	if got := runcommand.DefaultEnv(); !slices.Contains(got, "PATH") || slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, "WISP_") }) {
		t.Errorf("DefaultEnv() = %v; want PATH and no WISP_*", got)
	}
}

// env takes only references the vault holds, under names that may name a
// secret; anything else is refused before anyone is asked, without
// repeating a value.
func TestEnvRefused(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		env  string
		want string
	}{
		{`{"GH_TOKEN":"ghp_0123456789abcdefghijklmnopqrstuvwxyz"}`, "is not set to a secret's reference"},
		{`{"GH_TOKEN":"session:NOPE"}`, "there is no secret session:NOPE"},
		{`{"PATH":"session:GH_TOKEN"}`, "cannot name a secret"},
		{`{"LD_PRELOAD":"session:GH_TOKEN"}`, "cannot name a secret"},
		{`{"WISP_HOME":"session:GH_TOKEN"}`, "cannot name a secret"},
		{`{"gh":"session:GH_TOKEN"}`, "cannot name a secret"},
	} {
		r, g := &fakeRunner{}, &approving{}
		res, err := run(t, f.tool(t, r, nil), g, `{"command":"gh pr list","env":`+tc.env+`}`, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError || !strings.Contains(res.Content, tc.want) || strings.Contains(res.Content, "ghp_") || len(r.ran()) > 0 || len(g.got) > 0 {
			t.Errorf("env %s: %+v, ran %d, asked %d; want a refusal with %q, nothing run or asked", tc.env, res, len(r.ran()), len(g.got), tc.want)
		}
	}
	// No vault: no secret can be named.
	r := &fakeRunner{}
	tl, err := runcommand.New(&runcommand.Options{Workspace: f.ws, Runner: r})
	if err != nil {
		t.Fatal(err)
	}
	res, err := run(t, tl, &approving{}, `{"command":"gh","env":{"GH_TOKEN":"session:GH_TOKEN"}}`, nil)
	if err != nil || !res.IsError || !strings.Contains(res.Content, "holds no secrets") || len(r.ran()) > 0 {
		t.Errorf("env with no vault: %+v, %v; want a refusal, nothing run", res, err)
	}
}

// judge rates every command as it is told.
type judge policy.Verdict

func (j judge) Classify(command string) policy.Verdict {
	v := policy.Verdict(j)
	v.Command = command
	return v
}

// What the gate is asked: the command the classifier judges, run_command
// and the line; the text the person reads (folder, sandbox, rating and
// reason, secrets, timeout); every scope, for the gate to narrow; and,
// when nothing confines the command, asked whatever the threshold says.
func TestAction(t *testing.T) {
	f := newFixture(t)
	j := judge{Rating: policy.Moderate, Reason: "writes in the\nworkspace"}
	all := []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession, wisp.ScopeProject, wisp.ScopeAlways}
	for _, tc := range []struct {
		name   string
		runner runcommand.Runner
		args   string
		want   policy.Request
	}{
		{
			"workspace-write", confined{&fakeRunner{}, runcommand.Sandbox{Mode: runcommand.ModeWorkspaceWrite}},
			`{"command":"git commit -m 'x\ny'","cwd":"src","timeoutSeconds":30,"env":{"GH_TOKEN":"session:GH_TOKEN"}}`,
			policy.Request{Thread: "t1", Turn: 1, Kind: "command", Command: "run_command -C src -e GH_TOKEN -- git commit -m 'x\ny'", Scopes: all,
				Text: "runs in \"src\" of the workspace\nsandbox: workspace-write (writes only in the workspace and a private temp folder; network off)\n" +
					"rated moderate: writes in the workspace\nsecrets in its environment: GH_TOKEN from session:GH_TOKEN\nstopped if still running after 30 s"},
		},
		{
			"read-only, network", confined{&fakeRunner{}, runcommand.Sandbox{Mode: runcommand.ModeReadOnly, Network: true}},
			`{"command":"ls"}`,
			policy.Request{Thread: "t1", Turn: 1, Kind: "command", Command: "run_command ls", Scopes: all,
				Text: "runs in the workspace\nsandbox: read-only (writes only in a private temp folder; network on)\nrated moderate: writes in the workspace\nstopped if still running after 120 s"},
		},
		{
			"no sandbox", &fakeRunner{}, `{"command":"ls"}`,
			policy.Request{Thread: "t1", Turn: 1, Kind: "command", Command: "run_command ls", Scopes: all, AlwaysAsk: true,
				Text: "runs in the workspace\nsandbox: none: the command runs with all your rights, so every command is asked\nrated moderate: writes in the workspace\nstopped if still running after 120 s"},
		},
		{
			"mode off", confined{&fakeRunner{}, runcommand.Sandbox{Mode: runcommand.ModeOff, Network: true}}, `{"command":"ls"}`,
			policy.Request{Thread: "t1", Turn: 1, Kind: "command", Command: "run_command ls", Scopes: all, AlwaysAsk: true,
				Text: "runs in the workspace\nsandbox: none: the command runs with all your rights, so every command is asked\nrated moderate: writes in the workspace\nstopped if still running after 120 s"},
		},
	} {
		g := &approving{}
		if _, err := run(t, f.tool(t, tc.runner, &runcommand.Options{Judge: j}), g, tc.args, nil); err != nil {
			t.Fatal(err)
		}
		if len(g.got) != 1 {
			t.Fatalf("%s: asked %d times, want 1", tc.name, len(g.got))
		}
		if diff := cmp.Diff(tc.want, g.got[0]); diff != "" {
			t.Errorf("%s: request (-want +got):\n%s", tc.name, diff)
		}
	}
}

// A command with a control character other than tab and line feed (a
// lone CR among them) is refused before it is judged: a shell may read it
// otherwise than the person does.
func TestControlCharactersRefused(t *testing.T) {
	f := newFixture(t)
	for _, cmd := range []string{"ls\rrm -rf ~", "ls\x00", "ls\x1b[2J", "ls\x7f"} {
		r, g := &fakeRunner{}, &approving{}
		args, _ := json.Marshal(map[string]string{"command": cmd})
		res, err := run(t, f.tool(t, r, nil), g, string(args), nil)
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError || !strings.Contains(res.Content, "control character") || len(g.got) > 0 || len(r.ran()) > 0 {
			t.Errorf("command %q: %+v, asked %d, ran %d; want refused, nothing asked or run", cmd, res, len(g.got), len(r.ran()))
		}
	}
	r := &fakeRunner{}
	if res, _ := run(t, f.tool(t, r, nil), &approving{}, `{"command":"for f in a b; do\n\techo $f\ndone"}`, nil); res.IsError || len(r.ran()) != 1 {
		t.Errorf("a line with tabs and line breaks: %+v, ran %d; want it run", res, len(r.ran()))
	}
}

// A call runs only under an approval of exactly its command: the tool
// called outside the guard, or under another command's approval, runs
// nothing.
func TestRunsOnlyApproved(t *testing.T) {
	f := newFixture(t)
	r := &fakeRunner{}
	tl := f.tool(t, r, nil)
	for _, a := range []wisp.Approval{{}, {ID: "1", Command: "run_command ls -a"}, {ID: "1", Command: "ls"}, {Command: "run_command ls"}} {
		res, err := tl.Call(context.Background(), wisp.Call{Name: runcommand.Name, Arguments: json.RawMessage(`{"command":"ls"}`), Approval: a})
		if err != nil || !res.IsError || !strings.HasPrefix(res.Content, policy.LineNotApproved) {
			t.Errorf("call under approval %+v = %+v, %v; want %q…", a, res, err, policy.LineNotApproved)
		}
	}
	refuse := refusing{}
	res, err := run(t, tl, refuse, `{"command":"ls"}`, nil)
	if err != nil || res.Content != policy.LineNotApproved+"the person declined" {
		t.Errorf("refused call = %+v, %v", res, err)
	}
	if n := len(r.ran()); n != 0 {
		t.Errorf("ran %d commands, want none", n)
	}
	if k := f.events.Kinds(); len(k) != 0 {
		t.Errorf("recorded %v, want nothing", k)
	}
}

type refusing struct{}

func (refusing) Ask(context.Context, policy.Request) (policy.Outcome, error) {
	return policy.Outcome{ID: "x", Reason: "the person declined"}, nil
}

// What the model reads of how a command ended, and what is recorded.
func TestResult(t *testing.T) {
	for _, tc := range []struct {
		name    string
		res     runcommand.Result
		err     error
		want    string
		isError bool
		ended   wisp.CommandEndedData
	}{
		{
			name: "exited",
			res: runcommand.Result{ExitCode: 0, Duration: 1520 * time.Millisecond, Mode: runcommand.ModeWorkspaceWrite,
				Stdout: runcommand.Output{Head: []byte("a\nb\n"), Bytes: 4}},
			want:  "exit status 0 after 1.52s\nstdout:\na\nb\nstderr: (none)",
			ended: wisp.CommandEndedData{ApprovalID: "7f3a2c1d", Bytes: 4, DurationMS: 1520, ID: "c1", Mode: "workspace-write", Outcome: "exited"},
		},
		{
			name: "failed with denials",
			res: runcommand.Result{ExitCode: 1, Duration: time.Second, Denied: []string{"write /etc/hosts"},
				Stderr: runcommand.Output{Head: []byte("touch: /etc/hosts: Permission denied"), Bytes: 36}},
			want:  "exit status 1 after 1s\nthe sandbox refused: write /etc/hosts\nstdout: (none)\nstderr:\ntouch: /etc/hosts: Permission denied",
			ended: wisp.CommandEndedData{ApprovalID: "7f3a2c1d", Bytes: 36, Denied: []string{"write /etc/hosts"}, DurationMS: 1000, ExitCode: 1, ID: "c1", Mode: "off", Outcome: "exited"},
		},
		{
			name:    "timed out",
			res:     runcommand.Result{ExitCode: -1, Signal: "killed", TimedOut: true, Duration: 5 * time.Second},
			want:    "error: timed out: the command was ended after 5s (timeoutSeconds 5; at most 600)\nstdout: (none)\nstderr: (none)",
			isError: true,
			ended:   wisp.CommandEndedData{ApprovalID: "7f3a2c1d", DurationMS: 5000, Error: "no end within 5 s", ExitCode: -1, ID: "c1", Mode: "off", Outcome: "timed-out", Signal: "killed"},
		},
		{
			name:  "signalled",
			res:   runcommand.Result{ExitCode: -1, Signal: "segmentation fault", Duration: time.Millisecond},
			want:  "ended by signal segmentation fault after 1ms\nstdout: (none)\nstderr: (none)",
			ended: wisp.CommandEndedData{ApprovalID: "7f3a2c1d", DurationMS: 1, ExitCode: -1, ID: "c1", Mode: "off", Outcome: "signalled", Signal: "segmentation fault"},
		},
		{
			name:    "could not run",
			err:     errors.New("landlock:\nnot supported; token " + token),
			want:    "error: the command could not be run: landlock: not supported; token [REDACTED:session:GH_TOKEN]",
			isError: true,
			ended:   wisp.CommandEndedData{ApprovalID: "7f3a2c1d", Error: "landlock: not supported; token [REDACTED:session:GH_TOKEN]", ExitCode: -1, ID: "c1", Mode: "off", Outcome: "failed"},
		},
	} {
		f := newFixture(t)
		r := &fakeRunner{res: tc.res, err: tc.err}
		timeout := `,"timeoutSeconds":5`
		if !tc.res.TimedOut {
			timeout = ""
		}
		res, err := run(t, f.tool(t, r, nil), &approving{}, `{"command":"make"`+timeout+`}`, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if res.Content != tc.want || res.IsError != tc.isError {
			t.Errorf("%s: result = %+v, want %q (isError %v)", tc.name, res, tc.want, tc.isError)
		}
		evs := f.events.Events("command.")
		if len(evs) != 2 {
			t.Fatalf("%s: recorded %v, want command.started and command.ended", tc.name, f.events.Kinds())
		}
		if diff := cmp.Diff(tc.ended, evs[1].Data); diff != "" {
			t.Errorf("%s: command.ended (-want +got):\n%s", tc.name, diff)
		}
		if evs[1].Approval != "7f3a2c1d" || evs[1].Source != wisp.SourceTool || evs[1].Thread != "t1" {
			t.Errorf("%s: command.ended event %+v; want approval 7f3a2c1d, source tool, thread t1", tc.name, evs[1])
		}
	}
}

// command.started names the folder, the sandbox, the timeout and the
// secrets by reference, never a value.
func TestStarted(t *testing.T) {
	f := newFixture(t)
	r := confined{&fakeRunner{}, runcommand.Sandbox{Mode: runcommand.ModeWorkspaceWrite, Network: true}}
	if _, err := run(t, f.tool(t, r, nil), &approving{}, `{"command":"gh pr list","cwd":"src/deep","env":{"GH_TOKEN":"session:GH_TOKEN"}}`, nil); err != nil {
		t.Fatal(err)
	}
	evs := f.events.Events(wisp.KindCommandStarted)
	if len(evs) != 1 {
		t.Fatalf("recorded %v", f.events.Kinds())
	}
	want := wisp.CommandStartedData{ApprovalID: "7f3a2c1d", Command: "gh pr list", Cwd: "src/deep", Env: []string{"GH_TOKEN=session:GH_TOKEN"},
		ID: "c1", Mode: "workspace-write", Network: true, TimeoutSeconds: 120}
	if diff := cmp.Diff(want, evs[0].Data); diff != "" {
		t.Errorf("command.started (-want +got):\n%s", diff)
	}
}

// A start the audit cannot record runs nothing and ends the turn.
func TestStartNotRecorded(t *testing.T) {
	f := newFixture(t)
	r := &fakeRunner{}
	tl, err := runcommand.New(&runcommand.Options{Workspace: f.ws, Runner: r,
		Events: wisp.EventSinkFunc(func(context.Context, wisp.Event) error { return errors.New("disk full") })})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, tl, &approving{}, `{"command":"ls"}`, nil); !errors.Is(err, wisp.ErrNotRecorded) {
		t.Errorf("call = %v, want ErrNotRecorded", err)
	}
	if len(r.ran()) != 0 {
		t.Error("the command ran though its start was not recorded")
	}
}

// A turn stopped while the command runs ends the call with the turn's
// cause, and the end is still recorded.
func TestCancelled(t *testing.T) {
	f := newFixture(t)
	stopped := errors.New("the person stopped the turn")
	ctx, cancel := context.WithCancelCause(context.Background())
	r := runcommand.RunnerFunc(func(ctx context.Context, s runcommand.Spec) (runcommand.Result, error) {
		cancel(stopped)
		<-ctx.Done()
		return runcommand.Result{ExitCode: -1, Signal: "killed"}, context.Cause(ctx)
	})
	var opts runcommand.Options
	opts.Workspace, opts.Runner, opts.Events = f.ws, r, f.events
	tl, err := runcommand.New(&opts)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tl.Call(ctx, wisp.Call{ID: "c1", Name: runcommand.Name, Arguments: json.RawMessage(`{"command":"sleep 100"}`),
		Approval: wisp.Approval{ID: "a1", Command: "run_command sleep 100"}})
	if !errors.Is(err, stopped) {
		t.Errorf("call = %v, want %v", err, stopped)
	}
	evs := f.events.Events(wisp.KindCommandEnded)
	if len(evs) != 1 || evs[0].Data.(wisp.CommandEndedData).Outcome != "cancelled" {
		t.Errorf("command.ended = %+v, want one, cancelled", evs)
	}
}
