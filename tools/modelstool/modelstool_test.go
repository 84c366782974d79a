package modelstool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/config"
	"github.com/wisp-agent/wisp/models"
	"github.com/wisp-agent/wisp/models/mlx"
	"github.com/wisp-agent/wisp/models/mlx/mlxtest"
	"github.com/wisp-agent/wisp/models/ollama"
	"github.com/wisp-agent/wisp/models/ollama/ollamatest"
	"github.com/wisp-agent/wisp/policy"
	"github.com/wisp-agent/wisp/tools/modelstool"
)

type approvals struct{ answer policy.Outcome }

func (a approvals) Ask(ctx context.Context, r policy.Request) (policy.Outcome, error) {
	return a.answer, nil
}

func tool(t *testing.T, answer policy.Outcome, extra int) *modelstool.Tool {
	t.Helper()
	home := t.TempDir()
	mlxtest.Write(t, home, mlxtest.Qwen3Tools("mlx-community", "Qwen3-4B-4bit"))
	for i := range extra {
		mlxtest.Write(t, home, mlxtest.NoTools("org", "Filler-"+strings.Repeat("x", 40)+string(rune('a'+i%26))+string(rune('a'+i/26))))
	}
	a := models.New(&models.Options{
		Backends:  []models.Backend{mlx.New(home)},
		Settings:  config.Store{Path: filepath.Join(home, "config.json"), LockPath: filepath.Join(home, "lock")},
		Approvals: approvals{answer},
	})
	return modelstool.New(a, "mlx:Qwen3-4B-4bit")
}

func call(t *testing.T, tl *modelstool.Tool, args string) wisp.Result {
	t.Helper()
	r, err := tl.Call(context.Background(), wisp.Call{Name: "models", Thread: "t", Turn: 1, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestDescriptionWordForWord(t *testing.T) {
	const want = "The models wisp can run: list, show NAME, or ask the person to pull REPO (an MLX model from Hugging Face, `<organisation>/<name>`), enable NAME, disable NAME, or check NAME. A pull runs in the background; its end arrives as a note, so never call again to see how it goes."
	if got := (&modelstool.Tool{}).Description(); got != want {
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
			r := call(t, tool(t, tc.answer, 0), tc.args)
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
	tl := tool(t, policy.Outcome{}, 30)
	for _, args := range []string{`{"action":"list"}`, `{"action":"list","page":2}`} {
		r := call(t, tl, args)
		if r.IsError || len(r.Content) > models.MaxReply {
			t.Errorf("%s: %d bytes, error %v", args, len(r.Content), r.IsError)
		}
	}
	if r := call(t, tl, `{"action":"list"}`); !strings.Contains(r.Content, "page 1 of 2; list with page 2 for more") {
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
		r := call(t, tl, fmt.Sprintf(`{"action":"list","page":%d}`, page))
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
	if r := call(t, tl, fmt.Sprintf(`{"action":"list","page":%d}`, pages+1)); !r.IsError {
		t.Errorf("a page past the last = %q, want an error", r.Content)
	}
}

// show of a model that cannot call tools says it is not usable, and why.
func TestShowModelWithoutTools(t *testing.T) {
	home := t.TempDir()
	mlxtest.Write(t, home, mlxtest.NoTools("mlx-community", "SmolLM-135M-4bit"))
	tl := modelstool.New(models.New(&models.Options{Backends: []models.Backend{mlx.New(home)},
		Settings: config.Store{Path: filepath.Join(home, "config.json"), LockPath: filepath.Join(home, "lock")}}), "")
	r := call(t, tl, `{"action":"show","name":"mlx:SmolLM-135M-4bit"}`)
	if !strings.HasSuffix(r.Content, "\nusable: no: cannot call tools\n") {
		t.Errorf("show = %q, want it to end usable: no: cannot call tools", r.Content)
	}
	r = call(t, tl, `{"action":"list"}`)
	if !strings.Contains(r.Content, "  completion\n    cannot be used: cannot call tools\n") {
		t.Errorf("list = %q, want the model followed by why it cannot be used", r.Content)
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
		Settings:  config.Store{Path: filepath.Join(home, "gone", "config.json"), LockPath: filepath.Join(home, "lock")},
		Approvals: approvals{policy.Outcome{Approved: true, ID: "a1", Scope: wisp.ScopeOnce}},
	})
	tl := modelstool.New(a, "")
	r, err := tl.Call(context.Background(), wisp.Call{Name: "models", Thread: "t", Turn: 1,
		Arguments: json.RawMessage(`{"action":"enable","name":"mlx:Qwen3-4B-4bit"}`)})
	if !errors.Is(err, models.ErrNotSaved) {
		t.Fatalf("enable with settings that cannot be saved = (%+v, %v), want models.ErrNotSaved", r, err)
	}
}
