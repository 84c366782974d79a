package runcommand_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/policy"
	"github.com/wisp-agent/wisp/policy/secrets"
	"github.com/wisp-agent/wisp/tools/runcommand"
	"github.com/wisp-agent/wisp/wisptest"
)

// fakeRunner is a scripted Runner: it keeps the specs it is given, prints
// out (each piece a write, on stdout) through Spec.Output, and returns
// res and err.
type fakeRunner struct {
	mu      sync.Mutex
	specs   []runcommand.Spec
	pieces  []string
	res     runcommand.Result
	err     error
	sandbox *runcommand.Sandbox
}

func (f *fakeRunner) Run(ctx context.Context, s runcommand.Spec) (runcommand.Result, error) {
	f.mu.Lock()
	kept := s
	kept.Env = slices.Clone(s.Env)
	f.specs = append(f.specs, kept)
	f.mu.Unlock()
	for _, p := range f.pieces {
		if s.Output != nil {
			s.Output(runcommand.Stdout, []byte(p))
		}
	}
	return f.res, f.err
}

func (f *fakeRunner) ran() []runcommand.Spec {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.specs
}

// confined is a fakeRunner that says how it confines commands.
type confined struct {
	*fakeRunner
	sb runcommand.Sandbox
}

func (c confined) Sandbox() runcommand.Sandbox { return c.sb }

// approving is an agent.Guard that approves every request, and keeps them.
type approving struct {
	mu  sync.Mutex
	got []policy.Request
}

func (a *approving) Ask(ctx context.Context, r policy.Request) (policy.Outcome, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.got = append(a.got, r)
	return policy.Outcome{Approved: true, ID: "7f3a2c1d", Scope: wisp.ScopeOnce}, nil
}

// fixture is a workspace, a session's redactor and vault holding
// GH_TOKEN, and an event recorder.
type fixture struct {
	ws     string
	red    *secrets.Redactor
	vault  *secrets.Vault
	events *wisptest.Recorder
}

const token = "s3cr3t-t0ken-value-XYZ"

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "src", "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	red := secrets.NewRedactor()
	v := secrets.NewVault(red)
	if _, err := v.Put("GH_TOKEN", token); err != nil {
		t.Fatal(err)
	}
	return &fixture{ws: ws, red: red, vault: v, events: &wisptest.Recorder{}}
}

func (f *fixture) tool(t *testing.T, r runcommand.Runner, o *runcommand.Options) wisp.Tool {
	t.Helper()
	var opts runcommand.Options
	if o != nil {
		opts = *o
	}
	opts.Workspace, opts.Runner = f.ws, r
	if opts.Vault == nil {
		opts.Vault = f.vault
	}
	if opts.Redact == nil {
		opts.Redact = f.red.Replace
	}
	opts.Events = f.events
	opts.Session = "s1"
	opts.Now = func() time.Time { return time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC) }
	tl, err := runcommand.New(&opts)
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

// run calls tl through the agent's guard g, with out as the call's
// Output (nil: none).
func run(t *testing.T, tl wisp.Tool, g agent.Guard, args string, out func(wisp.ToolOutput)) (wisp.Result, error) {
	t.Helper()
	return agent.CallTool(context.Background(), g, tl, wisp.Call{
		ID: "c1", Name: runcommand.Name, Arguments: json.RawMessage(args), Session: "s1", Thread: "t1", Turn: 1, Output: out,
	})
}
