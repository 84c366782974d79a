package models_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/config"
	"github.com/wisp-agent/wisp/models"
	"github.com/wisp-agent/wisp/models/mlx"
	"github.com/wisp-agent/wisp/models/mlx/mlxtest"
	"github.com/wisp-agent/wisp/models/modeltest"
	"github.com/wisp-agent/wisp/models/ollama"
	"github.com/wisp-agent/wisp/models/ollama/ollamatest"
	"github.com/wisp-agent/wisp/policy"
	"github.com/wisp-agent/wisp/wisptest"
)

// approvals is a scripted person at the approval gate.
type approvals struct {
	mu       sync.Mutex
	answer   policy.Outcome
	requests []policy.Request
}

func (a *approvals) Ask(ctx context.Context, r policy.Request) (policy.Outcome, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.requests = append(a.requests, r)
	return a.answer, nil
}

type fixture struct {
	actions   *models.Actions
	store     config.Store
	ollama    *ollamatest.Server
	approvals *approvals
	events    *wisptest.Recorder
}

var ollamaModels = []ollamatest.Model{
	{Name: "qwen3:4b", Size: 2_500_000_000, Family: "qwen3", ParameterSize: "4.0B", Quantization: "Q4_K_M", ContextLength: 40960, Capabilities: []string{"completion", "tools", "thinking"}, License: "Apache License 2.0"},
	{Name: "gemma3:latest", Size: 3_300_000_000, Family: "gemma3", ParameterSize: "4.3B", Quantization: "Q4_K_M", ContextLength: 131072, Capabilities: []string{"completion", "vision"}},
	{Name: "granite4.1:8b", Size: 4_900_000_000, Family: "granite", ParameterSize: "8.2B", Quantization: "Q4_K_M", ContextLength: 131072, Capabilities: []string{"completion", "tools"}},
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	home := t.TempDir()
	mlxtest.Write(t, home, mlxtest.Qwen3Tools("mlx-community", "Qwen3-4B-4bit"))
	mlxtest.Write(t, home, mlxtest.NoTools("mlx-community", "SmolLM-135M-4bit"))
	srv := ollamatest.NewServer(t, ollamaModels...)
	ol, err := ollama.New(srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{
		store:     config.Store{Path: filepath.Join(home, "config.json"), LockPath: filepath.Join(home, "config.lock")},
		ollama:    srv,
		approvals: &approvals{answer: policy.Outcome{Approved: true, ID: "ap1", Scope: wisp.ScopeOnce}},
		events:    &wisptest.Recorder{},
	}
	f.actions = models.New(&models.Options{
		Backends:  []models.Backend{ol, mlx.New(home)},
		Settings:  f.store,
		Approvals: f.approvals,
		Events:    f.events,
		Session:   "s1",
		Current:   "ollama:qwen3:4b",
	})
	return f
}

func (f *fixture) enabled(t *testing.T) []string {
	t.Helper()
	c, err := f.store.Load()
	if err != nil {
		t.Fatal(err)
	}
	return c.Models.Enabled
}

func TestListing(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if _, err := f.actions.Enable(ctx, "qwen3:4b", wisp.ActorPerson); err != nil {
		t.Fatal(err)
	}
	l, err := f.actions.List(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	got := models.FormatListing(l, "ollama:qwen3:4b")
	want := `  mlx:Qwen3-4B-4bit  mlx  4.0B  size  40,960 context  disabled  completion, tools, thinking
  mlx:SmolLM-135M-4bit  mlx  4.0B  size  40,960 context  disabled  completion
  ollama:gemma3:latest  ollama  4.3B  3.3 GB  131,072 context  disabled  completion, vision
  ollama:granite4.1:8b  ollama  8.2B  4.9 GB  131,072 context  disabled  completion, tools
* ollama:qwen3:4b  ollama  4.0B  2.5 GB  40,960 context  enabled  completion, tools, thinking
`
	// MLX sizes depend on the fixture's bytes; compare them apart.
	lines := strings.Split(got, "\n")
	for i, l := range lines {
		if strings.Contains(l, "  mlx  ") {
			parts := strings.Split(l, "  ")
			parts[4] = "size"
			lines[i] = strings.Join(parts, "  ")
		}
	}
	if diff := cmp.Diff(want, strings.Join(lines, "\n")); diff != "" {
		t.Errorf("listing (-want +got):\n%s", diff)
	}

	// An Ollama that is not running is one line; MLX still lists.
	f.ollama.SetDown(true)
	l, err = f.actions.List(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	got = models.FormatListing(l, "")
	if !strings.Contains(got, "mlx:Qwen3-4B-4bit") || !strings.Contains(got, "\n(ollama: ") || strings.Contains(got, "ollama:qwen3") {
		t.Errorf("listing with ollama down:\n%s", got)
	}
	if _, err := f.actions.List(ctx, 2); err == nil || err.Error() != "there is no page 2; pages run from 1 to 1" {
		t.Errorf("List(page 2) = %v", err)
	}
}

func TestPages(t *testing.T) {
	var many []ollamatest.Model
	for i := range 45 {
		many = append(many, ollamatest.Model{Name: fmt.Sprintf("m%02d:latest", i), ParameterSize: "1B", Size: 1e9, ContextLength: 4096, Capabilities: []string{"completion"}})
	}
	srv := ollamatest.NewServer(t, many...)
	ol, _ := ollama.New(srv.URL, nil)
	home := t.TempDir()
	a := models.New(&models.Options{Backends: []models.Backend{ol, mlx.New(home)}, Settings: config.Store{Path: filepath.Join(home, "c.json"), LockPath: filepath.Join(home, "c.lock")}})
	for page, want := range map[int]string{1: "page 1 of 3; list with page 2 for more\n", 2: "page 2 of 3; list with page 3 for more\n", 3: "page 3 of 3\n"} {
		l, err := a.List(context.Background(), page)
		if err != nil {
			t.Fatal(err)
		}
		out := models.FormatListing(l, "")
		if !strings.HasSuffix(out, want) {
			t.Errorf("page %d ends %q, want %q", page, out[max(0, len(out)-60):], want)
		}
		if n := strings.Count(out, "ollama:m"); (page < 3 && n != 20) || (page == 3 && n != 5) {
			t.Errorf("page %d has %d models", page, n)
		}
	}
}

func TestResolveSpellings(t *testing.T) {
	f := newFixture(t)
	tests := []struct{ name, want string }{
		{"ollama:qwen3:4b", "ollama:qwen3:4b"},
		{"OLLAMA:Qwen3:4B", "ollama:qwen3:4b"},
		{"qwen3:4b", "ollama:qwen3:4b"},
		{"gemma3", "ollama:gemma3:latest"},
		{"ollama:gemma3", "ollama:gemma3:latest"},
		{"Gemma3:Latest", "ollama:gemma3:latest"},
		{"mlx:Qwen3-4B-4bit", "mlx:Qwen3-4B-4bit"},
		{"qwen3-4b-4bit", "mlx:Qwen3-4B-4bit"},
		{"mlx-community/Qwen3-4B-4bit", "mlx:Qwen3-4B-4bit"},
		{"MLX-Community/qwen3-4b-4BIT", "mlx:Qwen3-4B-4bit"},
		{"mlx:mlx-community/Qwen3-4B-4bit", "mlx:Qwen3-4B-4bit"},
		{"  granite4.1:8b ", "ollama:granite4.1:8b"},
	}
	for _, tc := range tests {
		m, err := f.actions.Resolve(context.Background(), tc.name)
		if err != nil || m.Name != tc.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", tc.name, m.Name, err, tc.want)
		}
	}
	bad := []struct{ name, want string }{
		{"nope", `no model is named "nope"; a model is named ollama:NAME[:TAG] or mlx:NAME as models list shows it, or an MLX repository as ORGANISATION/NAME`},
		{"", `"" is not a model name: a model is named ollama:NAME[:TAG] or mlx:NAME as models list shows it, or an MLX repository as ORGANISATION/NAME`},
		{"qwen3 4b", `"qwen3 4b" is not a model name: a model is named ollama:NAME[:TAG] or mlx:NAME as models list shows it, or an MLX repository as ORGANISATION/NAME`},
		{"mlx:qwen3:4b", `no model is named "mlx:qwen3:4b"; a model is named ollama:NAME[:TAG] or mlx:NAME as models list shows it, or an MLX repository as ORGANISATION/NAME`},
	}
	for _, tc := range bad {
		_, err := f.actions.Resolve(context.Background(), tc.name)
		if err == nil || err.Error() != tc.want || !errors.Is(err, models.ErrBadName) {
			t.Errorf("Resolve(%q) = %v, want %q", tc.name, err, tc.want)
		}
	}
}

// A disabled model is refused under every spelling.
func TestDisabledRefusedUnderEverySpelling(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	for _, name := range []string{"ollama:qwen3:4b", "QWEN3:4B", "qwen3:4b", "mlx-community/Qwen3-4B-4bit", "qwen3-4b-4bit"} {
		if _, err := f.actions.Runnable(ctx, name); !errors.Is(err, models.ErrDisabled) {
			t.Errorf("Runnable(%q) = %v, want ErrDisabled", name, err)
		}
	}
	if _, err := f.actions.Enable(ctx, "Qwen3:4B", wisp.ActorPerson); err != nil {
		t.Fatal(err)
	}
	if m, err := f.actions.Runnable(ctx, "ollama:QWEN3:4b"); err != nil || m.Name != "ollama:qwen3:4b" {
		t.Errorf("Runnable after enable = %q, %v", m.Name, err)
	}
}

func TestEnableDisableCheck(t *testing.T) {
	ctx := context.Background()
	t.Run("enable checks and writes config", func(t *testing.T) {
		f := newFixture(t)
		ch, err := f.actions.Enable(ctx, "granite4.1:8b", wisp.ActorPerson)
		if err != nil {
			t.Fatal(err)
		}
		if ch.Lines[0] != "ollama:granite4.1:8b is enabled: wisp may run it" || !strings.HasPrefix(ch.Lines[1], "checked: ") {
			t.Errorf("lines = %q", ch.Lines)
		}
		if diff := cmp.Diff([]string{"ollama:granite4.1:8b"}, f.enabled(t)); diff != "" {
			t.Errorf("models.enabled (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"model.verified", "config.change"}, f.events.Kinds()); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}
		if n := len(f.approvals.requests); n != 0 {
			t.Errorf("the person's own enable asked %d approvals", n)
		}
		again, err := f.actions.Enable(ctx, "granite4.1:8b", wisp.ActorPerson)
		if err != nil || again.Lines[0] != "ollama:granite4.1:8b is already enabled; nothing changed" {
			t.Errorf("enable twice = %q, %v", again.Lines, err)
		}
	})
	t.Run("a model that cannot call tools is refused", func(t *testing.T) {
		f := newFixture(t)
		for _, name := range []string{"gemma3", "mlx:SmolLM-135M-4bit"} {
			_, err := f.actions.Enable(ctx, name, wisp.ActorPerson)
			if err == nil || !strings.Contains(err.Error(), "cannot call tools, so it cannot serve the agent; nothing changed") {
				t.Errorf("Enable(%s) = %v", name, err)
			}
		}
		if got := f.enabled(t); len(got) != 0 {
			t.Errorf("models.enabled = %q, want none", got)
		}
	})
	t.Run("disable", func(t *testing.T) {
		f := newFixture(t)
		f.actions.Enable(ctx, "qwen3:4b", wisp.ActorPerson)
		ch, err := f.actions.Disable(ctx, "QWEN3:4b", wisp.ActorPerson)
		if err != nil || ch.Lines[0] != "ollama:qwen3:4b is disabled: wisp will not run it" {
			t.Errorf("Disable = %q, %v", ch.Lines, err)
		}
		if got := f.enabled(t); len(got) != 0 {
			t.Errorf("models.enabled = %q after disable", got)
		}
	})
	t.Run("check failing disables an enabled model", func(t *testing.T) {
		f := newFixture(t)
		f.actions.Enable(ctx, "qwen3:4b", wisp.ActorPerson)
		f.ollama.TruncateChat(true)
		ch, err := f.actions.Check(ctx, "qwen3:4b", wisp.ActorPerson)
		if err != nil {
			t.Fatal(err)
		}
		if ch.Lines[0] != "ollama:qwen3:4b failed its check: it did not pass its check" || ch.Lines[len(ch.Lines)-1] != "ollama:qwen3:4b is now disabled: wisp will not run it" {
			t.Errorf("lines = %q", ch.Lines)
		}
		if got := f.enabled(t); len(got) != 0 {
			t.Errorf("models.enabled = %q after a failed check", got)
		}
	})
}

func TestModelAsksThePerson(t *testing.T) {
	ctx := models.WithCall(context.Background(), "t1", 3)
	t.Run("approved", func(t *testing.T) {
		f := newFixture(t)
		if _, err := f.actions.Enable(ctx, "qwen3:4b", wisp.ActorModel); err != nil {
			t.Fatal(err)
		}
		want := []policy.Request{{Thread: "t1", Turn: 3, Kind: "modelAction", Command: "models enable ollama:qwen3:4b", Pattern: "models enable *",
			Text: "adds ollama:qwen3:4b to models.enabled in config.json, after checking that it can call tools", Scopes: []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession}, AlwaysAsk: true}}
		if diff := cmp.Diff(want, f.approvals.requests); diff != "" {
			t.Errorf("approval requests (-want +got):\n%s", diff)
		}
		for _, e := range f.events.Events("") {
			if e.Approval != "ap1" || e.Source != wisp.SourceTool || e.Thread != "t1" || e.Turn != 3 {
				t.Errorf("%s: approval %q source %q at %s/%d; want ap1, tool, t1/3", e.Kind, e.Approval, e.Source, e.Thread, e.Turn)
			}
		}
	})
	t.Run("declined: nothing changes", func(t *testing.T) {
		f := newFixture(t)
		f.approvals.answer = policy.Outcome{Reason: "the person declined"}
		_, err := f.actions.Enable(ctx, "qwen3:4b", wisp.ActorModel)
		if err == nil || err.Error() != "not approved: the person declined" || !errors.Is(err, wisp.ErrNotApproved) {
			t.Errorf("Enable = %v", err)
		}
		if got := f.enabled(t); len(got) != 0 || len(f.events.Kinds()) != 0 {
			t.Errorf("a declined enable changed %q and recorded %v", got, f.events.Kinds())
		}
		if f.ollama.Requests()[len(f.ollama.Requests())-1] == "POST /api/chat" {
			t.Errorf("a declined enable probed the model")
		}
	})
	t.Run("no approvals at all", func(t *testing.T) {
		home := t.TempDir()
		a := models.New(&models.Options{Backends: []models.Backend{mlx.New(home)}, Settings: config.Store{Path: filepath.Join(home, "c"), LockPath: filepath.Join(home, "l")}})
		mlxtest.Write(t, home, mlxtest.Qwen3Tools("o", "m"))
		if _, err := a.Enable(ctx, "mlx:m", wisp.ActorModel); err == nil || err.Error() != "not approved: no person can approve here" {
			t.Errorf("Enable with no approvals = %v", err)
		}
	})
	t.Run("trust is the person's alone", func(t *testing.T) {
		f := newFixture(t)
		err := f.actions.Trust(ctx, "mlx-community", wisp.ActorModel)
		if !errors.Is(err, models.ErrPersonOnly) || !strings.HasPrefix(err.Error(), "trusting a publisher is the person's alone: ") {
			t.Errorf("Trust by the model = %v", err)
		}
		if err := f.actions.Trust(ctx, "mlx-community", wisp.ActorPerson); err != nil {
			t.Fatal(err)
		}
		c, _ := f.store.Load()
		if diff := cmp.Diff([]string{"mlx-community"}, c.Models.Trusted); diff != "" {
			t.Errorf("trusted (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"config.change", "model.publisher"}, f.events.Kinds()); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}
	})
}

func TestShow(t *testing.T) {
	f := newFixture(t)
	m, err := f.actions.Show(context.Background(), "qwen3:4b")
	if err != nil {
		t.Fatal(err)
	}
	want := `name: ollama:qwen3:4b
runtime: ollama
parameters: 4.0B
quantization: Q4_K_M
size: 2.5 GB
context: 40,960 context
state: disabled
capabilities: completion, tools, thinking
licence: Apache License 2.0
usable: yes
`
	if diff := cmp.Diff(want, models.FormatInfo(m)); diff != "" {
		t.Errorf("show (-want +got):\n%s", diff)
	}
}

func TestClip(t *testing.T) {
	long := strings.Repeat("a line of the listing\n", 400)
	got := models.Clip(long)
	if len(got) > models.MaxReply || !strings.HasSuffix(got, "… (cut at 4 KiB)\n") {
		t.Errorf("Clip = %d bytes ending %q", len(got), got[len(got)-30:])
	}
	if models.Clip("short\n") != "short\n" {
		t.Error("Clip changed a short reply")
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{0: "size unknown", 999: "999 B", 2_300_000_000: "2.3 GB", 1500: "1.5 kB", 73_000_000: "73.0 MB"} {
		if got := models.Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestContract(t *testing.T) {
	modeltest.Run(t, func(t *testing.T) modeltest.Harness {
		f := newFixture(t)
		return modeltest.Harness{
			Actions:    f.actions,
			ToolModel:  "mlx:Qwen3-4B-4bit",
			PlainModel: "ollama:gemma3:latest",
			Approve: func(ok bool) {
				if ok {
					f.approvals.answer = policy.Outcome{Approved: true, ID: "ap1", Scope: wisp.ScopeOnce}
				} else {
					f.approvals.answer = policy.Outcome{Reason: "the person declined"}
				}
			},
		}
	})
}
