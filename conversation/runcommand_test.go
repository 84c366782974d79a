package conversation_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/audit"
	"github.com/wisp-agent/wisp/config"
	"github.com/wisp-agent/wisp/conversation"
	"github.com/wisp-agent/wisp/tools/runcommand"
	"github.com/wisp-agent/wisp/wisptest"
)

// sandbox is a program's sandbox for tests: it keeps what it was made
// with and the commands it ran, and prints each command's environment.
type sandbox struct {
	mu        sync.Mutex
	workspace string
	settings  config.Sandbox
	specs     []runcommand.Spec
}

func (s *sandbox) newRunner(workspace string, settings config.Sandbox) (runcommand.Runner, error) {
	s.workspace, s.settings = workspace, settings
	return s, nil
}

func (s *sandbox) Sandbox() runcommand.Sandbox {
	return runcommand.Sandbox{Mode: s.settings.Mode, Network: s.settings.Network}
}

func (s *sandbox) Run(ctx context.Context, spec runcommand.Spec) (runcommand.Result, error) {
	s.mu.Lock()
	kept := spec
	kept.Env = slices.Clone(spec.Env)
	s.specs = append(s.specs, kept)
	s.mu.Unlock()
	out := []byte(strings.Join(spec.Env, "\n") + "\n")
	if spec.Output != nil {
		spec.Output(runcommand.Stdout, out)
	}
	return runcommand.Result{Stdout: runcommand.Output{Head: out, Bytes: int64(len(out))}}, nil
}

func (s *sandbox) ran() []runcommand.Spec {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.specs
}

// approveOnce approves every request once, as the person.
var approveOnce = wisp.ApproverFunc(func(context.Context, wisp.ApprovalRequest) (wisp.Decision, error) {
	return wisp.Decision{Scope: wisp.ScopeOnce, Provenance: wisp.FromPerson}, nil
})

// Through a conversation: the person gives a secret to ask_user, the
// model runs a command with it by reference, the person approves, and the
// command runs in the program's sandbox, in the workspace, with the
// secret in its environment; the model, the events, the face's live view
// and the home's files never hold the value; the audit log has the
// command's start and end under the approval's id.
func TestRunCommandThroughAConversation(t *testing.T) {
	const secret = "tok-Zx9Qw8Er7Ty6Ui5Op4"
	home, ws := t.TempDir(), t.TempDir()
	sb := &sandbox{}
	m := model(t,
		`{"tool_calls":[{"name":"ask_user","arguments":{"secret":{"name":"GH_TOKEN","question":"Which token?"}}}]}`,
		`{"tool_calls":[{"name":"run_command","arguments":{"command":"gh pr list","env":{"GH_TOKEN":"session:GH_TOKEN"}}}]}`,
		`{"content":"done"}`)
	events := &wisptest.Recorder{}
	var live []wisp.ToolOutput
	conv, err := conversation.New(context.Background(), &conversation.Options{
		Home: home, Model: m, Named: []string{"ask_user", "run_command"}, Face: wisptest.NewPerson(wisptest.Says(secret)),
		Approver: approveOnce, Events: events, Workspace: ws, NewRunner: sb.newRunner,
		Environ:  []string{"PATH=/usr/bin", "WISP_HOME=" + home, "AWS_SECRET_ACCESS_KEY=x"},
		OnOutput: func(o wisp.ToolOutput) { live = append(live, o) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if reply, err := conv.Respond(context.Background(), "list my PRs"); err != nil || reply.Text != "done" {
		t.Fatalf("Respond = %q, %v", reply.Text, err)
	}
	if err := conv.Close(); err != nil {
		t.Fatal(err)
	}

	real, _ := filepath.EvalSymlinks(ws)
	if sb.workspace != real || sb.settings != (config.Sandbox{Mode: "workspace-write"}) {
		t.Errorf("NewRunner got %q, %+v; want the workspace and the default sandbox settings", sb.workspace, sb.settings)
	}
	specs := sb.ran()
	if len(specs) != 1 {
		t.Fatalf("ran %d commands, want 1", len(specs))
	}
	wantEnv := []string{"GH_TOKEN=" + secret, "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "NO_COLOR=1", "PAGER=cat", "PATH=/usr/bin", "TERM=dumb"}
	if specs[0].Dir != real || specs[0].Command != "gh pr list" || !cmp.Equal(wantEnv, specs[0].Env) {
		t.Errorf("ran %+v; want gh pr list in the workspace with env %q", specs[0], wantEnv)
	}

	sent, _ := json.Marshal(m.Requests())
	recorded, _ := json.Marshal(events.Events(""))
	shown, _ := json.Marshal(live)
	for what, b := range map[string][]byte{"the model": sent, "the events": recorded, "the live view": shown} {
		if strings.Contains(string(b), secret) {
			t.Errorf("%s holds the secret", what)
		}
		if !strings.Contains(string(b), "[REDACTED:session:GH_TOKEN]") && what != "the events" {
			t.Errorf("%s has no marker of the secret: %s", what, b)
		}
	}
	for path, l := range leaks(t, home, nil, secret) {
		t.Errorf("%s holds %v", path, l)
	}

	recs, err := audit.Read(filepath.Join(home, "audit"), audit.Filter{KindPrefix: "command"})
	if err != nil {
		t.Fatal(err)
	}
	decided := events.Events(wisp.KindApprovalDecided)
	if len(recs) != 2 || recs[0].Kind != wisp.KindCommandStarted || recs[1].Kind != wisp.KindCommandEnded || len(decided) != 1 {
		t.Fatalf("audit --kind command = %+v; want command.started and command.ended, after one approval", recs)
	}
	id := decided[0].Data.(wisp.ApprovalDecidedData).ApprovalID
	for _, r := range recs {
		if r.Approval != id || !strings.Contains(string(r.Data), `"approvalID":"`+id+`"`) {
			t.Errorf("%s: approval %q, data %s; want the approval %s", r.Kind, r.Approval, r.Data, id)
		}
	}
}

// Unattended, a command that must be asked is refused and never runs.
func TestRunCommandUnattended(t *testing.T) {
	sb := &sandbox{}
	m := model(t, `{"tool_calls":[{"name":"run_command","arguments":{"command":"rm -rf build"}}]}`, `{"content":"ok"}`)
	conv, err := conversation.New(context.Background(), &conversation.Options{
		Home: t.TempDir(), Model: m, Named: []string{"run_command"}, Workspace: t.TempDir(), NewRunner: sb.newRunner,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer conv.Close()
	if _, err := conv.Respond(context.Background(), "clean"); err != nil {
		t.Fatal(err)
	}
	reqs := m.Requests()
	last := reqs[len(reqs)-1].Messages
	if got := last[len(last)-1].Content; !strings.HasPrefix(got, "error: not approved: ") || len(sb.ran()) != 0 {
		t.Errorf("the model read %q and %d commands ran; want a refusal, nothing run", got, len(sb.ran()))
	}
}

// run_command is off by default, on with tools.run_command or when
// named, in the program's runner or wisp's sandbox, never without a
// workspace, and dropped by tools.disabled.
func TestRunCommandOffered(t *testing.T) {
	for _, c := range []struct {
		name      string
		config    string
		named     []string
		runner    bool
		workspace bool
		want      []string
		option    string // want an OptionError for it
	}{
		{name: "off by default", runner: true, workspace: true, want: nil},
		{name: "on", config: `{"tools":{"run_command":true}}`, runner: true, workspace: true, want: []string{"run_command"}},
		{name: "named", named: []string{"run_command"}, runner: true, workspace: true, want: []string{"run_command"}},
		{name: "on, in wisp's sandbox", config: `{"tools":{"run_command":true}}`, workspace: true, want: []string{"run_command"}},
		{name: "on, but no workspace", config: `{"tools":{"run_command":true}}`, runner: true, want: nil},
		{name: "named, in wisp's sandbox", named: []string{"run_command"}, workspace: true, want: []string{"run_command"}},
		{name: "named, but no workspace", named: []string{"run_command"}, runner: true, option: "Workspace"},
		{name: "named and disabled", config: `{"tools":{"disabled":["run_command"]}}`, named: []string{"run_command", "ask"}, want: []string{"ask"}},
	} {
		home := t.TempDir()
		if c.config != "" {
			if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(c.config), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		opts := &conversation.Options{Home: home, Model: model(t, `{"content":"ok"}`), Named: c.named}
		if c.runner {
			opts.NewRunner = (&sandbox{}).newRunner
		}
		if c.workspace {
			opts.Workspace = t.TempDir()
		}
		conv, err := conversation.New(context.Background(), opts)
		if c.option != "" {
			var oe *conversation.OptionError
			if !errors.As(err, &oe) || oe.Option != c.option {
				t.Errorf("%s: New = %v, want an OptionError for %s", c.name, err, c.option)
			}
			if conv != nil {
				conv.Close()
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if diff := cmp.Diff(c.want, conv.Tools().Names()); diff != "" {
			t.Errorf("%s: tools (-want +got):\n%s", c.name, diff)
		}
		conv.Close()
	}
}
