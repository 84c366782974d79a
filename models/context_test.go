package models_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/config"
	"github.com/wisp-agent/wisp/models"
	"github.com/wisp-agent/wisp/models/ollama/ollamatest"
)

// wisp never makes Ollama load a model twice: without models.contextLength
// no request asks for a context, the probe of enable included, so the
// server's own setting stands; with it, every request asks for the same.
// The context the runner has is what the listing says is in use, and what
// the model tells the agent to condense to.
func TestOneContextForEveryRequest(t *testing.T) {
	for _, tc := range []struct {
		name    string
		set     int
		numCtx  any // what each request's options hold as num_ctx
		runner  int
		listing string
	}{
		{"the server's own setting", 0, nil, ollamatest.DefaultContext, "context 40,960 max, 4,096 in use"},
		{"models.contextLength", 8192, float64(8192), 8192, "context 40,960 max, 8,192 in use"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			f := newFixture(t)
			if tc.set > 0 {
				if err := f.store.Update(ctx, func(c *config.Config) error {
					c.Models.ContextLength = tc.set
					return nil
				}); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := f.actions.Enable(ctx, "qwen3:4b", wisp.ActorPerson); err != nil {
				t.Fatal(err)
			}
			model, info, err := f.actions.Open(ctx, "qwen3:4b")
			if err != nil {
				t.Fatal(err)
			}
			if info.Context != 40960 {
				t.Errorf("Open: Context = %d, want the model's 40,960", info.Context)
			}
			sizer, ok := model.(agent.ContextSizer)
			if !ok {
				t.Fatalf("the Ollama model %T is no agent.ContextSizer", model)
			}
			if n := sizer.ContextTokens(ctx); n != tc.runner {
				t.Errorf("ContextTokens = %d, want the runner's %d", n, tc.runner)
			}
			if _, err := model.Chat(ctx, wisp.ChatRequest{Messages: []wisp.Message{{Role: wisp.RoleUser, Content: "hi"}}}, nil); err != nil {
				t.Fatal(err)
			}
			chats := f.ollama.Chats()
			if len(chats) < 2 {
				t.Fatalf("%d chats, want the probe and the chat", len(chats))
			}
			for i, c := range chats {
				if got := c.Options["num_ctx"]; got != tc.numCtx {
					t.Errorf("request %d asks num_ctx %v, want %v", i+1, got, tc.numCtx)
				}
			}
			want := []ollamatest.Load{{Model: "qwen3:4b", Context: tc.runner}}
			if diff := cmp.Diff(want, f.ollama.Loads()); diff != "" {
				t.Errorf("loads (-want +got):\n%s", diff)
			}
			m, _ := f.find(t, "ollama:qwen3:4b")
			if m.RunContext != tc.runner {
				t.Errorf("listing RunContext = %d, want %d", m.RunContext, tc.runner)
			}
			if got := listLine(t, f, "ollama:qwen3:4b"); !strings.Contains(got, tc.listing) {
				t.Errorf("listing line %q lacks %q", got, tc.listing)
			}
		})
	}
}

// listLine is the listing's line for the model name.
func listLine(t *testing.T, f *fixture, name string) string {
	t.Helper()
	l, err := f.actions.List(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(models.FormatListing(l, ""), "\n") {
		if strings.HasPrefix(line, "  "+name+"  ") {
			return line
		}
	}
	t.Fatalf("the listing has no line for %s", name)
	return ""
}
