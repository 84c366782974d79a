package models_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/config"
	"github.com/wisp-agent/wisp/models"
	"github.com/wisp-agent/wisp/models/hf"
	"github.com/wisp-agent/wisp/models/hf/hubtest"
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

// asker is a person at the approval gate.
type asker interface {
	Ask(ctx context.Context, r policy.Request) (policy.Outcome, error)
}

// guard makes a change the model asks for as the models tool does under
// the agent's guard: Action says what the change would do; unless it needs
// no approval, person is asked, on thread at turn; and change runs under
// the approval the person gave, or not at all. What Action held is let go
// when change returns.
func guard(ctx context.Context, person asker, actions *models.Actions, thread string, turn int, verb, name string, change func(context.Context) error) error {
	act, err := actions.Action(ctx, verb, name)
	if err != nil {
		return err
	}
	if act.Release != nil {
		defer act.Release()
	}
	if !act.NoApproval {
		out, err := person.Ask(ctx, policy.Request{Thread: thread, Turn: turn, Kind: act.Kind, Command: act.Command,
			Pattern: act.Pattern, Text: act.Text, Scopes: act.Scopes, AlwaysAsk: act.AlwaysAsk})
		if err != nil {
			return err
		}
		if !out.Approved {
			return fmt.Errorf("%w: %s", wisp.ErrNotApproved, out.Reason)
		}
		ctx = models.WithApproval(ctx, wisp.Approval{ID: out.ID, Command: act.Command})
	}
	return change(ctx)
}

// digest is the digest the fake Ollama gives a model of this name.
func digest(name string) string {
	sum := sha256.Sum256([]byte(name))
	return hex.EncodeToString(sum[:])
}

type fixture struct {
	actions   *models.Actions
	opts      *models.Options
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
	f.opts = &models.Options{
		Backends: []models.Backend{ol, mlx.New(home)},
		Settings: f.store,
		Events:   f.events,
		Session:  "s1",
		Current:  "ollama:qwen3:4b",
	}
	f.actions = models.New(f.opts)
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
	want := `  mlx:Qwen3-4B-4bit  mlx  4.0B  size  context 40,960 max, 40,960 in use  disabled  completion, tools, thinking
  mlx:SmolLM-135M-4bit  mlx  4.0B  size  context 40,960 max, 40,960 in use  disabled  completion
    cannot be used: cannot call tools
  ollama:gemma3:latest  ollama  4.3B  3.3 GB  context 131,072 max  disabled  completion, vision
    cannot be used: cannot call tools
  ollama:granite4.1:8b  ollama  8.2B  4.9 GB  context 131,072 max  disabled  completion, tools
* ollama:qwen3:4b  ollama  4.0B  2.5 GB  context 40,960 max, 4,096 in use  enabled  completion, tools, thinking
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

// With a backend that does not answer, a name whose prefix is no
// runtime is said to be so first, before the backend's outage; a name of
// the runtime that did not answer gets the outage alone.
func TestResolveUnknownRuntime(t *testing.T) {
	ol, err := ollama.New("127.0.0.1:1", nil)
	if err != nil {
		t.Fatal(err)
	}
	a := models.New(&models.Options{Backends: []models.Backend{ol, mlx.New(t.TempDir())},
		Settings: config.Store{Path: filepath.Join(t.TempDir(), "config.json")}})
	_, err = a.Resolve(context.Background(), "nope:x")
	const want = `no model is named "nope:x" ("nope" is not a runtime; ollama: ollama is not answering at http://127.0.0.1:1 (connection refused); start it with "ollama serve", or set OLLAMA_HOST); a model is named ollama:NAME[:TAG] or mlx:NAME as models list shows it, or an MLX repository as ORGANISATION/NAME`
	if err == nil || err.Error() != want || !errors.Is(err, models.ErrBadName) {
		t.Errorf("Resolve(nope:x) with Ollama down = %v, want %q", err, want)
	}
	if _, err := a.Resolve(context.Background(), "ollama:qwen3:4b"); err == nil || errors.Is(err, models.ErrBadName) || !strings.Contains(err.Error(), "is not answering") {
		t.Errorf("Resolve(ollama:qwen3:4b) with Ollama down = %v, want the outage alone", err)
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
		if diff := cmp.Diff([]string{"ollama:granite4.1:8b@" + digest("granite4.1:8b")}, f.enabled(t)); diff != "" {
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
	t.Run("a model that cannot call tools is refused, saying why", func(t *testing.T) {
		f := newFixture(t)
		for name, why := range map[string]string{
			"gemma3":               "ollama:gemma3:latest failed its check: the model cannot take tools: ollama answers a chat that offers one with 400 Bad Request: registry.ollama.ai/library/gemma3:latest does not support tools",
			"mlx:SmolLM-135M-4bit": "mlx:SmolLM-135M-4bit failed its check: cannot call tools",
		} {
			_, err := f.actions.Enable(ctx, name, wisp.ActorPerson)
			var ce *models.CheckError
			if !errors.As(err, &ce) || !errors.Is(err, models.ErrCheckFailed) {
				t.Fatalf("Enable(%s) = %v, want a *CheckError", name, err)
			}
			if diff := cmp.Diff([]string{why, "nothing changed: a model that fails its check cannot serve the agent"}, ce.Change.Lines[:2]); diff != "" {
				t.Errorf("Enable(%s) lines (-want +got):\n%s", name, diff)
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
		_, err := f.actions.Check(ctx, "qwen3:4b", wisp.ActorPerson)
		var ce *models.CheckError
		if !errors.As(err, &ce) {
			t.Fatalf("Check = %v, want a *CheckError", err)
		}
		ch := ce.Change
		why := "ollama:qwen3:4b failed its check: the model does not answer (1-token probe): ollama at " + f.ollama.URL + " ended its answer on /api/chat early (no message marked done); see the ollama server log"
		if ch.Lines[0] != why || ch.Lines[len(ch.Lines)-1] != "ollama:qwen3:4b is now disabled: wisp will not run it" {
			t.Errorf("lines = %q", ch.Lines)
		}
		if got := f.enabled(t); len(got) != 0 {
			t.Errorf("models.enabled = %q after a failed check", got)
		}
	})
}

func TestModelAsksThePerson(t *testing.T) {
	ctx := models.WithCall(context.Background(), "t1", 3)
	enable := func(f *fixture) func(context.Context) error {
		return func(ctx context.Context) error {
			_, err := f.actions.Enable(ctx, "qwen3:4b", wisp.ActorModel)
			return err
		}
	}
	t.Run("approved", func(t *testing.T) {
		f := newFixture(t)
		if err := guard(ctx, f.approvals, f.actions, "t1", 3, "enable", "qwen3:4b", enable(f)); err != nil {
			t.Fatal(err)
		}
		want := []policy.Request{{Thread: "t1", Turn: 3, Kind: "modelAction", Command: "models enable ollama:qwen3:4b", Pattern: "models enable *",
			Text: "adds ollama:qwen3:4b to models.enabled in config.json, after checking that it can call tools", Scopes: []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession}, AlwaysAsk: true}}
		if diff := cmp.Diff(want, f.approvals.requests); diff != "" {
			t.Errorf("approval requests (-want +got):\n%s", diff)
		}
		for _, e := range f.events.Events("") {
			if e.Approval != "ap1" || e.Source != wisp.SourceTool || e.Thread != "t1" || e.Turn != 3 {
				t.Errorf("%s: approval %q source %q at %s/%d; want ap1, tool, t1/3", e.Kind(), e.Approval, e.Source, e.Thread, e.Turn)
			}
		}
		// Enabled now: asking again changes nothing, and asks no one.
		if err := guard(ctx, f.approvals, f.actions, "t1", 3, "enable", "qwen3:4b", enable(f)); err != nil || len(f.approvals.requests) != 1 {
			t.Errorf("enable again = %v, after %d requests; want no new request", err, len(f.approvals.requests))
		}
	})
	t.Run("declined: nothing changes", func(t *testing.T) {
		f := newFixture(t)
		f.approvals.answer = policy.Outcome{Reason: "the person declined"}
		err := guard(ctx, f.approvals, f.actions, "t1", 3, "enable", "qwen3:4b", enable(f))
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
	t.Run("without an approval of it, nothing changes", func(t *testing.T) {
		f := newFixture(t)
		other := models.WithApproval(ctx, wisp.Approval{ID: "ap9", Command: "models enable ollama:granite4.1:8b"})
		for _, tc := range []struct {
			ctx  context.Context
			want string
		}{
			{ctx, "not approved: no person can approve here"},
			{other, "not approved: approval ap9 was for models enable ollama:granite4.1:8b, not models enable ollama:qwen3:4b; ask again"},
		} {
			if err := enable(f)(tc.ctx); err == nil || err.Error() != tc.want || !errors.Is(err, wisp.ErrNotApproved) {
				t.Errorf("Enable = %v, want %q", err, tc.want)
			}
		}
		if got := f.enabled(t); len(got) != 0 || len(f.events.Kinds()) != 0 {
			t.Errorf("an enable without its approval changed %q and recorded %v", got, f.events.Kinds())
		}
	})
	t.Run("what the person is asked", func(t *testing.T) {
		f := newFixture(t)
		if _, err := f.actions.Enable(ctx, "granite4.1:8b", wisp.ActorPerson); err != nil {
			t.Fatal(err)
		}
		session := []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession}
		free := wisp.Action{NoApproval: true}
		for _, tc := range []struct {
			verb, name string
			want       wisp.Action
		}{
			{"enable", "QWEN3:4B", wisp.Action{Kind: "modelAction", Command: "models enable ollama:qwen3:4b", Pattern: "models enable *",
				Text: "adds ollama:qwen3:4b to models.enabled in config.json, after checking that it can call tools", Scopes: session, AlwaysAsk: true}},
			{"disable", "granite4.1:8b", wisp.Action{Kind: "modelAction", Command: "models disable ollama:granite4.1:8b", Pattern: "models disable *",
				Text: "removes ollama:granite4.1:8b from models.enabled in config.json", Scopes: session, AlwaysAsk: true}},
			{"check", "granite4.1:8b", wisp.Action{Kind: "modelAction", Command: "models check ollama:granite4.1:8b", Pattern: "models check *",
				Text: "checks ollama:granite4.1:8b; if it fails, removes it from models.enabled in config.json", Scopes: session, AlwaysAsk: true}},
			{"check", "mlx:Qwen3-4B-4bit", wisp.Action{Kind: "modelAction", Command: "models check mlx:Qwen3-4B-4bit", Pattern: "models check *",
				Text: "checks mlx:Qwen3-4B-4bit; config.json does not change unless it fails", Scopes: session, AlwaysAsk: true}},
			{"enable", "granite4.1:8b", free},
			{"disable", "qwen3:4b", free},
			{"enable", "no-such-model", free},
			{"pull", "mlx-community/Qwen3-4B-4bit", free}, // pulls are not set up here
			{"frobnicate", "qwen3:4b", wisp.Action{Kind: "modelAction", Command: "models frobnicate ollama:qwen3:4b", AlwaysAsk: true}},
		} {
			got, err := f.actions.Action(ctx, tc.verb, tc.name)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Action(%s %s) (-want +got):\n%s", tc.verb, tc.name, diff)
			}
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

// show says every fact and whether the model is usable; a model that
// cannot call tools is not, and says why.
func TestShow(t *testing.T) {
	f := newFixture(t)
	tests := []struct{ name, want string }{
		{"qwen3:4b", `name: ollama:qwen3:4b
runtime: ollama
parameters: 4.0B
quantization: Q4_K_M
size: 2.5 GB
context: 40,960
context in use: the server's own default, known once it has loaded the model
state: disabled
capabilities: completion, tools, thinking
licence: Apache License 2.0
usable: yes
`},
		{"gemma3", `name: ollama:gemma3:latest
runtime: ollama
parameters: 4.3B
quantization: Q4_K_M
size: 3.3 GB
context: 131,072
context in use: the server's own default, known once it has loaded the model
state: disabled
capabilities: completion, vision
usable: no: cannot call tools
`},
	}
	for _, tc := range tests {
		m, err := f.actions.Show(context.Background(), tc.name)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, models.FormatInfo(m)); diff != "" {
			t.Errorf("show %s (-want +got):\n%s", tc.name, diff)
		}
	}
	// The model that cannot call tools is still refused as the agent's
	// with the words that say what to do.
	f.actions.Enable(context.Background(), "qwen3:4b", wisp.ActorPerson)
	if err := f.store.Update(context.Background(), func(c *config.Config) error {
		return c.Set("models.enabled", "ollama:gemma3:latest")
	}); err != nil {
		t.Fatal(err)
	}
	_, err := f.actions.Runnable(context.Background(), "gemma3")
	if want := "ollama:gemma3:latest cannot call tools, so it cannot serve the agent; pick a model that can (wisp models list)"; err == nil || err.Error() != want {
		t.Errorf("Runnable(gemma3) = %v, want %q", err, want)
	}
}

// crowd is an Ollama with n models whose names are long, some that cannot
// call tools, and an MLX folder beside it.
func crowd(t *testing.T, n int) *models.Actions {
	t.Helper()
	var many []ollamatest.Model
	for i := range n {
		caps := []string{"completion", "tools", "thinking"}
		if i%3 == 0 {
			caps = []string{"completion", "vision"}
		}
		name := fmt.Sprintf("registry.example.com/%s/model-%03d:%s", strings.Repeat("team", 5+i%17), i, strings.Repeat("q", 10+(i*7)%60))
		many = append(many, ollamatest.Model{Name: name, ParameterSize: "7.6B", Size: 4_700_000_000, ContextLength: 131072, Capabilities: caps})
	}
	srv := ollamatest.NewServer(t, many...)
	ol, err := ollama.New(srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	return models.New(&models.Options{Backends: []models.Backend{ol, mlx.New(home)},
		Settings: config.Store{Path: filepath.Join(home, "c.json"), LockPath: filepath.Join(home, "c.lock")}})
}

// Every model is on exactly one page, every page fits the cap with its
// footer, and the pages agree on how many there are.
func TestPagesFitTheCap(t *testing.T) {
	for _, n := range []int{1, 20, 21, 57} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			a := crowd(t, n)
			seen := map[string]int{}
			l, err := a.List(context.Background(), 1)
			if err != nil {
				t.Fatal(err)
			}
			pages := l.Pages
			for page := 1; page <= pages; page++ {
				l, err := a.List(context.Background(), page)
				if err != nil {
					t.Fatalf("List(%d) = %v", page, err)
				}
				if l.Page != page || l.Pages != pages {
					t.Errorf("List(%d) = page %d of %d, want page %d of %d", page, l.Page, l.Pages, page, pages)
				}
				if len(l.Models) == 0 || len(l.Models) > models.PageSize {
					t.Errorf("page %d has %d models, want 1 to %d", page, len(l.Models), models.PageSize)
				}
				out := models.FormatListing(l, "")
				if len(out) > models.MaxReply {
					t.Errorf("page %d is %d bytes, over %d", page, len(out), models.MaxReply)
				}
				want := fmt.Sprintf("page %d of %d; list with page %d for more\n", page, pages, page+1)
				if page == pages {
					want = fmt.Sprintf("page %d of %d\n", page, pages)
				}
				if pages > 1 && !strings.HasSuffix(out, want) {
					t.Errorf("page %d ends %q, want %q", page, out[max(0, len(out)-80):], want)
				}
				for _, m := range l.Models {
					seen[m.Name]++
					if !strings.Contains(out, "  "+m.Name+"  ") {
						t.Errorf("page %d does not show %s", page, m.Name)
					}
				}
			}
			if len(seen) != n {
				t.Errorf("the pages show %d models, want %d", len(seen), n)
			}
			for name, c := range seen {
				if c != 1 {
					t.Errorf("%s is on %d pages, want 1", name, c)
				}
			}
			if _, err := a.List(context.Background(), pages+1); err == nil {
				t.Errorf("List(%d) succeeded past the last page", pages+1)
			}
		})
	}
}

// A line that could never fit is cut, alone on its page, and the footer
// still shows; many backends that did not answer take a bounded room.
func TestPagesOutsizedLines(t *testing.T) {
	l := wisp.Listing{Page: 1, Pages: 2, Models: []wisp.ModelInfo{{Name: "ollama:" + strings.Repeat("é", 3000), Runtime: "ollama", Usable: true}}}
	for range 9 {
		l.Unreachable = append(l.Unreachable, "far: "+strings.Repeat("x", 2000))
	}
	out := models.FormatListing(l, "")
	if len(out) > models.MaxReply || !strings.HasSuffix(out, "(6 more backends did not answer)\npage 1 of 2; list with page 2 for more\n") {
		t.Errorf("listing is %d bytes ending %q", len(out), out[max(0, len(out)-120):])
	}
	if !utf8.ValidString(out) {
		t.Error("the cut listing is not valid UTF-8")
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
		// A Hub whose weights stall part-way, so that the first pull runs
		// until the test ends it.
		hub := hubtest.NewServer(t, hubRepo(mlxtest.Qwen3Tools("mlx-community", "Pull-Me-4bit"), "apache-2.0"))
		hub.Stall("mlx-community/Pull-Me-4bit/model-00002-of-00002.safetensors", 1)
		client, err := hf.NewClient(&hf.ClientOptions{Endpoint: hub.URL})
		if err != nil {
			t.Fatal(err)
		}
		opts := *f.opts
		opts.Pull = &models.PullOptions{Hub: client, Store: hf.Store{Home: t.TempDir()}}
		f.actions = models.New(&opts)
		t.Cleanup(f.actions.Close)
		return modeltest.Harness{
			Actions:    f.actions,
			ToolModel:  "mlx:Qwen3-4B-4bit",
			PlainModel: "ollama:gemma3:latest",
			Crowded:    func(t *testing.T) (wisp.ModelActions, int) { return crowd(t, 57), 57 },
			Repo:       "mlx-community/Pull-Me-4bit",
		}
	})
}
