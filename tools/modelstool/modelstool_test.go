package modelstool_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/config"
	"github.com/wisp-agent/wisp/models"
	"github.com/wisp-agent/wisp/models/mlx"
	"github.com/wisp-agent/wisp/models/mlx/mlxtest"
	"github.com/wisp-agent/wisp/models/ollama"
	"github.com/wisp-agent/wisp/models/ollama/ollamatest"
	"github.com/wisp-agent/wisp/policy"
	"github.com/wisp-agent/wisp/tools/modelstool"
	"github.com/wisp-agent/wisp/wisptest"
)

type approvals struct{ answer policy.Outcome }

func (a approvals) Ask(ctx context.Context, r policy.Request) (policy.Outcome, error) {
	return a.answer, nil
}

func tool(t *testing.T, extra int) wisp.Tool {
	t.Helper()
	home := t.TempDir()
	mlxtest.Write(t, home, mlxtest.Qwen3Tools("mlx-community", "Qwen3-4B-4bit"))
	for i := range extra {
		mlxtest.Write(t, home, mlxtest.NoTools("org", "Filler-"+strings.Repeat("x", 40)+string(rune('a'+i%26))+string(rune('a'+i/26))))
	}
	a := models.New(&models.Options{
		Backends: []models.Backend{mlx.New(home)},
		Settings: config.Store{Path: filepath.Join(home, "config.json"), LockPath: filepath.Join(home, "lock")},
	})
	return modelstool.New(a, "mlx:Qwen3-4B-4bit")
}

// call runs one call of tl as the agent does, through a guard at which
// the person answers answer.
func call(t *testing.T, tl wisp.Tool, answer policy.Outcome, args string) wisp.Result {
	t.Helper()
	r, err := agent.CallTool(context.Background(), approvals{answer}, tl, wisp.Call{Name: "models", Thread: "t", Turn: 1, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// The schema is what the model sees: pinned, byte for byte.
func TestSchemaGolden(t *testing.T) {
	wisptest.SchemaGolden(t, modelstool.New(nil, ""), filepath.Join("testdata", "schema.json"), *update)
}

func TestDescriptionWordForWord(t *testing.T) {
	const want = "The models wisp can run: list, show NAME, or ask the person to pull REPO (an MLX model from Hugging Face, `<organisation>/<name>`), enable NAME, disable NAME, or check NAME. A pull runs in the background; its end arrives as a note, so never call again to see how it goes."
	if got := modelstool.New(nil, "").Description(); got != want {
		t.Errorf("description =\n %q\nwant\n %q", got, want)
	}
}

func TestReplies(t *testing.T) {
	approved := policy.Outcome{Approved: true, ID: "a1", Scope: wisp.ScopeOnce}
	tests := []struct {
		name, args string
		answer     policy.Outcome
		prefix     string
		isError    bool
	}{
		{"list marks this conversation's model", `{"action":"list"}`, approved, "* mlx:Qwen3-4B-4bit  mlx  4.0B", false},
		{"show", `{"action":"show","name":"mlx-community/Qwen3-4B-4bit"}`, approved, "name: mlx:Qwen3-4B-4bit\nruntime: mlx", false},
		{"enable approved", `{"action":"enable","name":"qwen3-4b-4bit"}`, approved, "mlx:Qwen3-4B-4bit is enabled: wisp may run it\nchecked: ", false},
		{"enable declined", `{"action":"enable","name":"mlx:Qwen3-4B-4bit"}`, policy.Outcome{Reason: "the person declined"}, "error: not approved: the person declined", true},
		{"check", `{"action":"check","name":"mlx:Qwen3-4B-4bit"}`, approved, "mlx:Qwen3-4B-4bit passed its check", false},
		{"disable when disabled", `{"action":"disable","name":"mlx:Qwen3-4B-4bit"}`, approved, "mlx:Qwen3-4B-4bit is already disabled; nothing changed", false},
		{"trust refused", `{"action":"trust","name":"mlx-community"}`, approved, "error: trusting a publisher is the person's alone: ", true},
		{"switch refused", `{"action":"switch","name":"mlx:Qwen3-4B-4bit"}`, approved, "error: switch is not offered to the model", true},
		{"unknown action", `{"action":"delete","name":"x"}`, approved, `error: unknown action "delete"; action is list, show, pull, enable, disable or check`, true},
		{"show without a name", `{"action":"show"}`, approved, "error: show needs a name: a model is named ollama:NAME[:TAG] or mlx:NAME", true},
		{"a name that is no model", `{"action":"show","name":"nope"}`, approved, `error: no model is named "nope"; a model is named`, true},
		{"pull", `{"action":"pull","name":"mlx-community/Qwen3-4B-4bit"}`, approved, "error: pulling models is not set up here", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, tool(t, 0), tc.answer, tc.args)
			if !strings.HasPrefix(r.Content, tc.prefix) || r.IsError != tc.isError {
				t.Errorf("models %s = (%q, error %v), want a reply starting %q (error %v)", tc.args, r.Content, r.IsError, tc.prefix, tc.isError)
			}
			if len(r.Content) > models.MaxReply {
				t.Errorf("reply is %d bytes, over 4 KiB", len(r.Content))
			}
		})
	}
}

// Every reply is at most 4 KiB, whatever the listing holds.
func TestReplyBound(t *testing.T) {
	tl := tool(t, 30)
	for _, args := range []string{`{"action":"list"}`, `{"action":"list","page":2}`} {
		r := call(t, tl, policy.Outcome{}, args)
		if r.IsError || len(r.Content) > models.MaxReply {
			t.Errorf("%s: %d bytes, error %v", args, len(r.Content), r.IsError)
		}
	}
	if r := call(t, tl, policy.Outcome{}, `{"action":"list"}`); !strings.Contains(r.Content, "page 1 of 2; list with page 2 for more") {
		t.Errorf("first page lacks the footer:\n%s", r.Content)
	}
}

// Through the tool, every model of a crowded listing is on exactly one
// page, every page is within 4 KiB, and each ends with its footer.
func TestListPagesThroughTheTool(t *testing.T) {
	var many []ollamatest.Model
	for i := range 70 {
		caps := []string{"completion", "tools"}
		if i%4 == 0 {
			caps = []string{"completion"}
		}
		name := fmt.Sprintf("hf.co/%s/Model-%02d-GGUF:%s", strings.Repeat("publisher", 4+i%9), i, strings.Repeat("Q4_K_M", 1+i%11))
		many = append(many, ollamatest.Model{Name: name, ParameterSize: "8.0B", Size: 4_900_000_000, ContextLength: 32768, Capabilities: caps})
	}
	srv := ollamatest.NewServer(t, many...)
	ol, err := ollama.New(srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	tl := modelstool.New(models.New(&models.Options{Backends: []models.Backend{ol},
		Settings: config.Store{Path: filepath.Join(home, "config.json"), LockPath: filepath.Join(home, "lock")}}), "")
	seen := map[string]int{}
	pages := 0
	for page := 1; pages == 0 || page <= pages; page++ {
		r := call(t, tl, policy.Outcome{}, fmt.Sprintf(`{"action":"list","page":%d}`, page))
		if r.IsError {
			t.Fatalf("list page %d = %q", page, r.Content)
		}
		if len(r.Content) > models.MaxReply || strings.Contains(r.Content, "(cut at 4 KiB)") {
			t.Errorf("page %d is %d bytes (cut: %v), over or at the cap", page, len(r.Content), strings.Contains(r.Content, "cut at"))
		}
		lines := strings.Split(strings.TrimSuffix(r.Content, "\n"), "\n")
		last := lines[len(lines)-1]
		var p, of int
		if _, err := fmt.Sscanf(last, "page %d of %d", &p, &of); err != nil || p != page || (pages != 0 && of != pages) {
			t.Fatalf("page %d ends %q, want its footer (page %d of %d)", page, last, page, pages)
		}
		pages = of
		if want := fmt.Sprintf("; list with page %d for more", page+1); page < pages && !strings.HasSuffix(last, want) {
			t.Errorf("page %d ends %q, want it to say %q", page, last, want)
		}
		for _, l := range lines[:len(lines)-1] {
			if f := strings.Fields(l); len(f) > 1 && strings.HasPrefix(f[0], "ollama:") {
				seen[f[0]]++
			} else if l != "    cannot be used: cannot call tools" {
				t.Errorf("page %d has the line %q", page, l)
			}
		}
	}
	if pages < 2 {
		t.Errorf("the listing has %d pages, want several", pages)
	}
	for _, m := range many {
		if n := seen["ollama:"+m.Name]; n != 1 {
			t.Errorf("ollama:%s is on %d pages, want 1", m.Name, n)
		}
	}
	if r := call(t, tl, policy.Outcome{}, fmt.Sprintf(`{"action":"list","page":%d}`, pages+1)); !r.IsError {
		t.Errorf("a page past the last = %q, want an error", r.Content)
	}
}

// show of a model that cannot call tools says it is not usable, and why.
func TestShowModelWithoutTools(t *testing.T) {
	home := t.TempDir()
	mlxtest.Write(t, home, mlxtest.NoTools("mlx-community", "SmolLM-135M-4bit"))
	tl := modelstool.New(models.New(&models.Options{Backends: []models.Backend{mlx.New(home)},
		Settings: config.Store{Path: filepath.Join(home, "config.json"), LockPath: filepath.Join(home, "lock")}}), "")
	r := call(t, tl, policy.Outcome{}, `{"action":"show","name":"mlx:SmolLM-135M-4bit"}`)
	if !strings.HasSuffix(r.Content, "\nusable: no: cannot call tools\n") {
		t.Errorf("show = %q, want it to end usable: no: cannot call tools", r.Content)
	}
	r = call(t, tl, policy.Outcome{}, `{"action":"list"}`)
	if !strings.Contains(r.Content, "  completion\n    cannot be used: cannot call tools\n") {
		t.Errorf("list = %q, want the model followed by why it cannot be used", r.Content)
	}
}

// A check or an enable the model fails comes back as an error line that
// carries Ollama's own reason, the same the person reads.
func TestFailedCheckSaysTheServersReason(t *testing.T) {
	home := t.TempDir()
	srv := ollamatest.NewServer(t, ollamatest.Model{Name: "broken:latest", ContextLength: 8192,
		Capabilities: []string{"completion", "tools"}, LoadError: ollamatest.LineMissingTensor})
	ol, err := ollama.New(srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	tl := modelstool.New(models.New(&models.Options{Backends: []models.Backend{ol},
		Settings: config.Store{Path: filepath.Join(home, "config.json"), LockPath: filepath.Join(home, "lock")}}), "")
	yes := policy.Outcome{Approved: true, ID: "ap1", Scope: wisp.ScopeOnce}
	for _, action := range []string{"check", "enable"} {
		r := call(t, tl, yes, `{"action":"`+action+`","name":"broken"}`)
		want := "error: ollama:broken:latest failed its check: the model does not answer (1-token probe): ollama at " + srv.URL +
			" failed on /api/chat (500 Internal Server Error: llama runner process has terminated: error loading model: missing tensor 'blk.0.ffn_up.weight'"
		if !r.IsError || !strings.HasPrefix(r.Content, want) {
			t.Errorf("%s of a model that cannot load = %q\nwant it to begin %q", action, r.Content, want)
		}
	}
}

// actions is a wisp.ModelActions of its own: it says what it was asked,
// and by whom.
type actions struct{ asked []string }

func (a *actions) note(what string, by wisp.Actor) {
	a.asked = append(a.asked, what+" by "+by.String())
}
func (a *actions) List(ctx context.Context, page int) (wisp.Listing, error) {
	a.asked = append(a.asked, fmt.Sprintf("list %d", page))
	return wisp.Listing{Models: []wisp.ModelInfo{{Name: "fake:one", Runtime: "fake", Usable: true}}, Page: page, Pages: 1}, nil
}
func (a *actions) Show(ctx context.Context, name string) (wisp.ModelInfo, error) {
	a.asked = append(a.asked, "show "+name)
	return wisp.ModelInfo{Name: name, Runtime: "fake"}, nil
}
func (a *actions) Pull(ctx context.Context, repo string, by wisp.Actor) (wisp.PullStarted, error) {
	a.note("pull "+repo, by)
	return wisp.PullStarted{Repo: repo}, nil
}
func (a *actions) Enable(ctx context.Context, name string, by wisp.Actor) (wisp.Change, error) {
	a.note("enable "+name, by)
	return wisp.Change{Name: name, Lines: []string{name + " is enabled"}}, nil
}
func (a *actions) Disable(ctx context.Context, name string, by wisp.Actor) (wisp.Change, error) {
	a.note("disable "+name, by)
	return wisp.Change{Name: name, Lines: []string{name + " is disabled"}}, nil
}
func (a *actions) Check(ctx context.Context, name string, by wisp.Actor) (wisp.Change, error) {
	a.note("check "+name, by)
	return wisp.Change{Name: name, Lines: []string{name + " passed"}}, nil
}
func (a *actions) Trust(ctx context.Context, publisher string, by wisp.Actor) error {
	a.note("trust "+publisher, by)
	return fmt.Errorf("not here")
}

// asking is a guard that approves every request and keeps them.
type asking struct{ got []policy.Request }

func (a *asking) Ask(ctx context.Context, r policy.Request) (policy.Outcome, error) {
	a.got = append(a.got, r)
	return policy.Outcome{Approved: true, ID: fmt.Sprintf("a%d", len(a.got)), Scope: wisp.ScopeOnce}, nil
}

// The tool takes any wisp.ModelActions, and acts on it as the model; a
// ModelActions that does not say what its changes do has them asked about
// as the model spelt them.
func TestOwnModelActions(t *testing.T) {
	a, g := &actions{}, &asking{}
	tl := modelstool.New(a, "fake:one")
	run := func(args string) wisp.Result {
		t.Helper()
		r, err := agent.CallTool(context.Background(), g, tl, wisp.Call{Name: "models", Thread: "t", Turn: 1, Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, args := range []string{`{"action":"list"}`, `{"action":"enable","name":"fake:two"}`, `{"action":"disable","name":"fake:two"}`, `{"action":"check","name":"fake:one"}`, `{"action":"trust","name":"org"}`, `{"action":"pull","name":"org/m"}`} {
		run(args)
	}
	want := []string{"list 1", "enable fake:two by model", "disable fake:two by model", "check fake:one by model", "trust org by model", "pull org/m by model"}
	if diff := cmp.Diff(want, a.asked); diff != "" {
		t.Errorf("what the tool asked of its actions (-want +got):\n%s", diff)
	}
	session, once := []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession}, []wisp.Scope{wisp.ScopeOnce}
	request := func(verb, name string, scopes []wisp.Scope) policy.Request {
		return policy.Request{Thread: "t", Turn: 1, Kind: "modelAction", Command: "models " + verb + " " + name, Pattern: "models " + verb + " *",
			Text: "the model asks to " + verb + " " + name, Scopes: scopes, AlwaysAsk: true}
	}
	wantAsked := []policy.Request{request("enable", "fake:two", session), request("disable", "fake:two", session), request("check", "fake:one", session), request("pull", "org/m", once)}
	if diff := cmp.Diff(wantAsked, g.got); diff != "" {
		t.Errorf("what the guard was asked (-want +got):\n%s", diff)
	}
	if r := run(`{"action":"enable","name":"fake:two"}`); r.Content != "fake:two is enabled\n" || r.IsError {
		t.Errorf("enable = %+v, want the change's lines", r)
	}
}

// Through the guard, the person is asked once about a change, in the
// words of *models.Actions, and the change runs under that approval; a
// call that changes nothing asks no one.
func TestAskedOnceThroughTheGuard(t *testing.T) {
	g := &asking{}
	tl := tool(t, 0)
	for _, args := range []string{`{"action":"list"}`, `{"action":"show","name":"mlx:Qwen3-4B-4bit"}`, `{"action":"enable","name":"qwen3-4b-4bit"}`,
		`{"action":"enable","name":"mlx:Qwen3-4B-4bit"}`, `{"action":"trust","name":"mlx-community"}`, `{"action":"enable","name":"nope"}`} {
		if _, err := agent.CallTool(context.Background(), g, tl, wisp.Call{Name: "models", Thread: "t", Turn: 1, Arguments: json.RawMessage(args)}); err != nil {
			t.Fatal(err)
		}
	}
	want := []policy.Request{{Thread: "t", Turn: 1, Kind: "modelAction", Command: "models enable mlx:Qwen3-4B-4bit", Pattern: "models enable *",
		Text:   "adds mlx:Qwen3-4B-4bit to models.enabled in config.json, after checking that it can call tools",
		Scopes: []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession}, AlwaysAsk: true}}
	if diff := cmp.Diff(want, g.got); diff != "" {
		t.Errorf("what the guard was asked (-want +got):\n%s", diff)
	}
}

// Called without the agent's guard, the tool makes no change the model
// asks for: it has no approval.
func TestNoChangeWithoutTheGuard(t *testing.T) {
	r, err := tool(t, 0).Call(context.Background(), wisp.Call{Name: "models", Arguments: json.RawMessage(`{"action":"enable","name":"mlx:Qwen3-4B-4bit"}`)})
	if err != nil || r.Content != "error: not approved: no person can approve here" || !r.IsError {
		t.Errorf("enable without the guard = %+v, %v; want it refused", r, err)
	}
}

// A change the settings file could not keep is a failed write, not a
// refusal the model may read and work around: the call ends the turn with
// models.ErrNotSaved, and the model is told nothing was enabled.
func TestSettingsNotSavedEndsTheTurn(t *testing.T) {
	home := t.TempDir()
	mlxtest.Write(t, home, mlxtest.Qwen3Tools("mlx-community", "Qwen3-4B-4bit"))
	a := models.New(&models.Options{
		Backends: []models.Backend{mlx.New(home)},
		// config.json's folder does not exist, so no save can succeed.
		Settings: config.Store{Path: filepath.Join(home, "gone", "config.json"), LockPath: filepath.Join(home, "lock")},
	})
	tl := modelstool.New(a, "")
	r, err := agent.CallTool(context.Background(), approvals{policy.Outcome{Approved: true, ID: "a1", Scope: wisp.ScopeOnce}}, tl,
		wisp.Call{Name: "models", Thread: "t", Turn: 1, Arguments: json.RawMessage(`{"action":"enable","name":"mlx:Qwen3-4B-4bit"}`)})
	if !errors.Is(err, models.ErrNotSaved) {
		t.Fatalf("enable with settings that cannot be saved = (%+v, %v), want models.ErrNotSaved", r, err)
	}
}
