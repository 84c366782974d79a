package conversation_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/audit"
	"github.com/wisp-agent/wisp/config"
	"github.com/wisp-agent/wisp/conversation"
	wispsandbox "github.com/wisp-agent/wisp/sandbox"
	"github.com/wisp-agent/wisp/tools"
	"github.com/wisp-agent/wisp/tools/runcommand"
	"github.com/wisp-agent/wisp/tools/runcommand/sandboxed"
	"github.com/wisp-agent/wisp/wisptest"
)

// TestMain makes the test binary able to run commands in wisp's sandbox,
// which re-executes it as a launcher.
func TestMain(m *testing.M) {
	wispsandbox.Main()
	os.Exit(m.Run())
}

func needSandbox(t *testing.T) {
	t.Helper()
	if s := wispsandbox.Probe(context.Background()); !s.Confined {
		t.Skipf("no sandbox here: %s", s.Reason)
	}
}

// approvals is a person who approves every request once, and keeps them.
type approvals struct {
	mu   sync.Mutex
	reqs []wisp.ApprovalRequest
}

func (a *approvals) Approve(ctx context.Context, r wisp.ApprovalRequest) (wisp.Decision, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reqs = append(a.reqs, r)
	return wisp.Decision{Scope: wisp.ScopeOnce, Provenance: wisp.FromPerson}, nil
}

func (a *approvals) commands() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for _, r := range a.reqs {
		out = append(out, r.Command)
	}
	return out
}

// notifier hands every notice to f.
type notifier func(wisp.Notice)

func (f notifier) Notify(_ context.Context, n wisp.Notice) error {
	f(n)
	return nil
}

// call is a model's step that runs one command line.
func call(line string, env map[string]string) string {
	args := map[string]any{"command": line}
	if env != nil {
		args["env"] = env
	}
	b, _ := json.Marshal(map[string]any{"tool_calls": []any{map[string]any{"name": "run_command", "arguments": args}}})
	return string(b)
}

// sandboxFixture is a wisp home inside a person's home folder, a
// workspace apart, and a server on loopback that counts its requests.
type sandboxFixture struct {
	home, wispHome, ws string
	hits               *atomic.Int32
	url                string
}

func newSandboxFixture(t *testing.T) sandboxFixture {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := sandboxFixture{home: filepath.Join(dir, "person"), ws: filepath.Join(dir, "ws"), hits: &atomic.Int32{}}
	f.wispHome = filepath.Join(f.home, ".wisp")
	for _, d := range []string{f.wispHome, f.ws} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(f.wispHome, "config.json"), []byte(`{"tools":{"run_command":true}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.hits.Add(1)
		fmt.Fprintln(w, "reached")
	}))
	t.Cleanup(srv.Close)
	f.url = srv.URL
	return f
}

// Through a conversation in wisp's own sandbox, with real commands: a
// safe command runs without asking; a moderate one asks and runs once
// approved; an approved command still cannot write the wisp home nor
// reach a server on loopback; a secret the person gave reaches the
// command by reference and never the model; the audit log has each
// command's start and end.
func TestSandboxedCommands(t *testing.T) {
	needSandbox(t)
	f := newSandboxFixture(t)
	const secret = "tok-Qm3Wz8Xc1Vb5Nn7Lk2Jh"
	// The model writes a script in the workspace, then runs it: the
	// script writes the wisp home, which the judge cannot see.
	planted := "echo '{}' > " + filepath.Join(f.wispHome, "config.json")
	m := model(t,
		call("ls", nil),
		call("mkdir built && echo ok > built/out.txt", nil),
		call("echo \""+planted+"\" > w.sh && sh w.sh", nil),
		call("curl -sS -m 5 "+f.url, nil),
		`{"tool_calls":[{"name":"ask_user","arguments":{"secret":{"name":"GH_TOKEN","question":"Which token?"}}}]}`,
		call(`printf %s "$GH_TOKEN" > token.txt`, map[string]string{"GH_TOKEN": "session:GH_TOKEN"}),
		`{"content":"done"}`)
	person := &approvals{}
	var notices []wisp.Notice
	conv, err := conversation.New(context.Background(), &conversation.Options{
		Home: f.wispHome, Model: m, Named: []string{"ask_user", "run_command"}, Workspace: f.ws,
		Face: wisptest.NewPerson(wisptest.Says(secret)), Approver: person,
		Environ:  []string{"PATH=/usr/bin:/bin", "HOME=" + f.home},
		Notifier: notifier(func(n wisp.Notice) { notices = append(notices, n) }),
	})
	if err != nil {
		t.Fatal(err)
	}
	if reply, err := conv.Respond(context.Background(), "go"); err != nil || reply.Text != "done" {
		t.Fatalf("Respond = %q, %v", reply.Text, err)
	}
	if err := conv.Close(); err != nil {
		t.Fatal(err)
	}
	if len(notices) != 0 {
		t.Errorf("notices %+v, want none: the sandbox is here", notices)
	}

	wantAsked := []string{
		"run_command mkdir built && echo ok > built/out.txt",
		"run_command echo \"" + planted + "\" > w.sh && sh w.sh",
		"run_command curl -sS -m 5 " + f.url,
		`run_command -e GH_TOKEN -- printf %s "$GH_TOKEN" > token.txt`,
	}
	if diff := cmp.Diff(wantAsked, person.commands()); diff != "" {
		t.Errorf("the person was asked (-want +got):\n%s", diff)
	}
	for _, r := range person.reqs {
		if !strings.Contains(r.Text, "sandbox: workspace-write") {
			t.Errorf("request %q does not name the sandbox: %q", r.Command, r.Text)
		}
	}
	if b, err := os.ReadFile(filepath.Join(f.ws, "built", "out.txt")); err != nil || string(b) != "ok\n" {
		t.Errorf("built/out.txt = %q, %v; want the approved command's output", b, err)
	}
	if b, _ := os.ReadFile(filepath.Join(f.wispHome, "config.json")); !strings.Contains(string(b), "run_command") {
		t.Errorf("the approved script changed the wisp home's config.json: %q", b)
	}
	if n := f.hits.Load(); n != 0 {
		t.Errorf("the server on loopback was reached %d times", n)
	}
	if b, err := os.ReadFile(filepath.Join(f.ws, "token.txt")); err != nil || string(b) != secret {
		t.Errorf("token.txt = %q, %v; want the secret, set by reference", b, err)
	}
	sent, _ := json.Marshal(m.Requests())
	if strings.Contains(string(sent), secret) {
		t.Errorf("the model was sent the secret")
	}
	results := toolResults(m.Requests())
	if len(results) != 6 {
		t.Fatalf("the model read %d results, want 6: %q", len(results), results)
	}
	for i, ok := range []bool{true, true, false, false, true, true} {
		if i == 4 {
			continue // ask_user's
		}
		if got := strings.HasPrefix(results[i], "exit status 0 "); got != ok || !strings.HasPrefix(results[i], "exit status ") {
			t.Errorf("result %d = %q, want success %v", i, results[i], ok)
		}
	}

	recs, err := audit.Read(filepath.Join(f.wispHome, "audit"), audit.Filter{KindPrefix: "command."})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 10 {
		t.Fatalf("audit has %d command records, want 10 (five commands)", len(recs))
	}
	var ended wisp.CommandEndedData
	if err := json.Unmarshal(recs[1].Data, &ended); err != nil || ended.Mode != "workspace-write" || ended.ApprovalID == "" {
		t.Errorf("command.ended = %+v, %v; want mode workspace-write and an approval id", ended, err)
	}
}

// toolResults returns what the model read of each tool call, in order.
func toolResults(reqs []wisp.ChatRequest) []string {
	if len(reqs) == 0 {
		return nil
	}
	var out []string
	for _, msg := range reqs[len(reqs)-1].Messages {
		if msg.Role == wisp.RoleTool {
			out = append(out, msg.Content)
		}
	}
	return out
}

// Unattended, a safe command runs and a dangerous one is refused and
// never runs.
func TestSandboxedUnattended(t *testing.T) {
	needSandbox(t)
	f := newSandboxFixture(t)
	m := model(t, call("ls", nil), call("curl -sS -m 5 "+f.url, nil), `{"content":"done"}`)
	conv, err := conversation.New(context.Background(), &conversation.Options{
		Home: f.wispHome, Model: m, Workspace: f.ws, Environ: []string{"PATH=/usr/bin:/bin", "HOME=" + f.home},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer conv.Close()
	if _, err := conv.Respond(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	results := toolResults(m.Requests())
	if len(results) != 2 || !strings.HasPrefix(results[0], "exit status 0") || !strings.HasPrefix(results[1], "error: not approved: no person can approve here") {
		t.Errorf("the model read %q; want ls run and curl refused", results)
	}
	if n := f.hits.Load(); n != 0 {
		t.Errorf("the server was reached %d times", n)
	}
}

// Where no sandbox can be had, the person is told once, as the
// conversation starts, and every command is asked, a safe one too;
// unattended, every one is refused. With the sandbox turned off by the
// person, nobody is told, and every command is still asked.
func TestNoSandbox(t *testing.T) {
	f := newSandboxFixture(t)
	unavailable := func(workspace string, s config.Sandbox) (runcommand.Runner, error) {
		return sandboxed.New(context.Background(), &sandboxed.Options{
			Workspace: workspace, WispHome: f.wispHome, Mode: s.Mode, Network: s.Network,
			Probe: func(context.Context) wispsandbox.Support {
				return wispsandbox.Support{Reason: "user namespaces are off"}
			},
		})
	}
	for _, tc := range []struct {
		name     string
		config   string
		approver bool
		notices  []wisp.Notice
		asked    []string
		result   string
	}{
		{"attended", `{"tools":{"run_command":true}}`, true,
			[]wisp.Notice{{Kind: wisp.NoticeSandbox, Text: conversation.LineNoSandbox + "user namespaces are off"}},
			[]string{"run_command ls"}, "exit status 0"},
		{"unattended", `{"tools":{"run_command":true}}`, false,
			[]wisp.Notice{{Kind: wisp.NoticeSandbox, Text: conversation.LineNoSandbox + "user namespaces are off"}},
			nil, "error: not approved: no person can approve here"},
		{"turned off", `{"tools":{"run_command":true},"sandbox":{"mode":"off"}}`, true, nil, []string{"run_command ls"}, "exit status 0"},
	} {
		if err := os.WriteFile(filepath.Join(f.wispHome, "config.json"), []byte(tc.config), 0o600); err != nil {
			t.Fatal(err)
		}
		m := model(t, call("ls", nil), `{"content":"done"}`)
		person := &approvals{}
		var notices []wisp.Notice
		o := &conversation.Options{
			Home: f.wispHome, Model: m, Workspace: f.ws, NewRunner: unavailable, Environ: []string{"PATH=/usr/bin:/bin"},
			Notifier: notifier(func(n wisp.Notice) {
				n.Thread = ""
				notices = append(notices, n)
			}),
		}
		if tc.approver {
			o.Approver = person
		}
		conv, err := conversation.New(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conv.Respond(context.Background(), "go"); err != nil {
			t.Fatal(err)
		}
		conv.Close()
		if diff := cmp.Diff(tc.notices, notices); diff != "" {
			t.Errorf("%s: notices (-want +got):\n%s", tc.name, diff)
		}
		if diff := cmp.Diff(tc.asked, person.commands()); diff != "" {
			t.Errorf("%s: asked (-want +got):\n%s", tc.name, diff)
		}
		for _, r := range person.reqs {
			if !strings.Contains(r.Text, "sandbox: none") {
				t.Errorf("%s: request %q does not say there is no sandbox: %q", tc.name, r.Command, r.Text)
			}
		}
		if results := toolResults(m.Requests()); len(results) != 1 || !strings.HasPrefix(results[0], tc.result) {
			t.Errorf("%s: the model read %q, want %q", tc.name, results, tc.result)
		}
	}
}

// A workspace wisp's sandbox refuses (the root folder, one inside the
// wisp home) is an OptionError for Workspace when the conversation would
// run commands there, and no error when it would not.
func TestSandboxRefusesWorkspace(t *testing.T) {
	home := t.TempDir()
	inside := filepath.Join(home, "ws")
	if err := os.Mkdir(inside, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, ws := range []string{"/", inside} {
		_, err := conversation.New(context.Background(), &conversation.Options{
			Home: home, Model: model(t, `{"content":"ok"}`), Named: []string{"run_command"}, Workspace: ws,
		})
		var oe *conversation.OptionError
		if !errors.As(err, &oe) || oe.Option != "Workspace" {
			t.Errorf("workspace %s: New = %v, want an OptionError for Workspace", ws, err)
		}
		conv, err := conversation.New(context.Background(), &conversation.Options{
			Home: home, Model: model(t, `{"content":"ok"}`), Named: []string{}, Workspace: ws,
		})
		if err != nil {
			t.Errorf("workspace %s, no run_command: New = %v", ws, err)
			continue
		}
		conv.Close()
	}
}

// A tool list that names a tool no one has is told the known tools,
// run_command among them, though the conversation would not have run
// it; and a conversation given every tool does not get it unless the
// settings turn it on.
func TestRunCommandKnown(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	_, err := conversation.New(context.Background(), &conversation.Options{
		Home: home, Model: model(t, `{"content":"ok"}`), Named: []string{"shell"}, Workspace: ws,
	})
	var unknown *tools.UnknownToolError
	if !errors.As(err, &unknown) || !slices.Contains(unknown.Known, "run_command") {
		t.Errorf("New(shell) = %v, want an UnknownToolError that knows run_command", err)
	}
	for _, interactive := range []bool{false, true} {
		conv, err := conversation.New(context.Background(), &conversation.Options{
			Home: home, Model: model(t, `{"content":"ok"}`), Workspace: ws, Interactive: interactive,
		})
		if err != nil {
			t.Fatal(err)
		}
		if conv.Tools().Has("run_command") {
			t.Errorf("interactive %v: the conversation got run_command, which the settings leave off", interactive)
		}
		conv.Close()
	}
}
