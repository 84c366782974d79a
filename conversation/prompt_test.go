package conversation_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/config"
	"github.com/wisp-agent/wisp/conversation"
	"github.com/wisp-agent/wisp/models"
	"github.com/wisp-agent/wisp/models/mlx"
	"github.com/wisp-agent/wisp/models/mlx/mlxtest"
	"github.com/wisp-agent/wisp/models/ollama"
	"github.com/wisp-agent/wisp/models/ollama/ollamatest"
	"github.com/wisp-agent/wisp/models/openai/openaitest"
	"github.com/wisp-agent/wisp/prompt"
	"github.com/wisp-agent/wisp/tools"
	"github.com/wisp-agent/wisp/wisptest"
)

// project returns a workspace inside a repository whose root and
// workspace each hold an AGENTS.md.
func project(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	ws := filepath.Join(root, "cmd")
	for path, text := range map[string]string{
		".git/HEAD":     "ref: refs/heads/main\n",
		"AGENTS.md":     "Run make check before a commit.\n",
		"cmd/AGENTS.md": "The CLI stays under 1,200 lines.\n",
	} {
		p := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// enable writes settings to home that enable the models named.
func enable(t *testing.T, home string, names ...string) {
	t.Helper()
	cfg := config.Default()
	cfg.Models.Enabled = names
	if err := config.Save(filepath.Join(home, "config.json"), cfg); err != nil {
		t.Fatal(err)
	}
}

// The system prompt wisp builds reaches the model at the head of every
// request, on every backend, as each sends it over its wire: the scripted
// model, Ollama's /api/chat, and the OpenAI-style server MLX models run
// on. It holds the rule of ask_user and request_approval and the
// project's AGENTS.md files, named relative to the workspace, nearest
// last.
func TestSystemPromptReachesEveryBackend(t *testing.T) {
	type sent struct{ role, content string }
	for _, c := range []struct {
		name string
		// open returns the options that reach the backend and a
		// function that returns the first message of each request it
		// received.
		open func(t *testing.T, home string) (conversation.Options, func() []sent)
	}{
		{"script", func(t *testing.T, home string) (conversation.Options, func() []sent) {
			m := model(t, `{"content":"one"}`, `{"content":"two"}`)
			return conversation.Options{Model: m}, func() []sent {
				var out []sent
				for _, r := range m.Requests() {
					out = append(out, sent{string(r.Messages[0].Role), r.Messages[0].Content})
				}
				return out
			}
		}},
		{"ollama", func(t *testing.T, home string) (conversation.Options, func() []sent) {
			srv := ollamatest.NewServer(t, ollamatest.Model{
				Name: "qwen3:4b", Family: "qwen3", ContextLength: 32768, Capabilities: []string{"completion", "tools"},
				Replies: []ollamatest.Reply{{Content: "one"}, {Content: "two"}},
			})
			b, err := ollama.New(srv.URL, nil)
			if err != nil {
				t.Fatal(err)
			}
			enable(t, home, "ollama:qwen3:4b")
			return conversation.Options{ModelName: "ollama:qwen3:4b", Backends: []models.Backend{b}}, func() []sent {
				var out []sent
				for _, r := range srv.Chats() {
					if len(r.Messages) > 0 {
						out = append(out, sent{r.Messages[0].Role, r.Messages[0].Content})
					}
				}
				return out
			}
		}},
		{"mlx on an openai-compatible server", func(t *testing.T, home string) (conversation.Options, func() []sent) {
			srv := openaitest.NewServer(t, openaitest.Reply{Content: "one"}, openaitest.Reply{Content: "two"})
			mlxtest.Write(t, home, mlxtest.Qwen3Tools("mlx-community", "Qwen3-4B-4bit"))
			b := mlx.New(home)
			b.Server = srv.URL
			enable(t, home, "mlx:Qwen3-4B-4bit")
			return conversation.Options{ModelName: "mlx:Qwen3-4B-4bit", Backends: []models.Backend{b}}, func() []sent {
				var out []sent
				for _, r := range srv.Requests() {
					content := ""
					if r.Messages[0].Content != nil {
						content = *r.Messages[0].Content
					}
					out = append(out, sent{r.Messages[0].Role, content})
				}
				return out
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			o, requests := c.open(t, home)
			o.Home, o.Workspace, o.Named = home, project(t), []string{"ask_user", "request_approval"}
			conv, err := conversation.New(context.Background(), &o)
			if err != nil {
				t.Fatal(err)
			}
			defer conv.Close()
			for _, input := range []string{"hello", "again"} {
				if _, err := conv.Respond(context.Background(), input); err != nil {
					t.Fatal(err)
				}
			}
			system := conv.SystemPrompt()
			ws, err := filepath.EvalSymlinks(o.Workspace)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{
				prompt.Rule,
				"### ../AGENTS.md\nRun make check before a commit.\n\n### AGENTS.md\nThe CLI stays under 1,200 lines.\n",
				"- Workspace: " + ws + " ",
				"- Repository root: ..\n",
			} {
				if !strings.Contains(system, want) {
					t.Errorf("SystemPrompt() does not hold %q:\n%s", want, system)
				}
			}
			want := []sent{{"system", system}, {"system", system}}
			if diff := cmp.Diff(want, requests(), cmp.AllowUnexported(sent{})); diff != "" {
				t.Errorf("the first message of each request (-want +got):\n%s", diff)
			}
		})
	}
}

// An embedder's prompt replaces wisp's, word for word; its instructions
// join wisp's prompt under their own heading. SystemPrompt shows the
// prompt of a conversation without opening its model.
func TestSystemPromptOptions(t *testing.T) {
	ctx := context.Background()
	day := func() time.Time { return time.Date(2026, 12, 1, 17, 0, 0, 0, time.UTC) }
	m := model(t, `{"content":"ok"}`)
	conv, err := conversation.New(ctx, &conversation.Options{Home: t.TempDir(), Model: m, SystemPrompt: "Be a pirate.", Instructions: "ignored"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conv.Respond(ctx, "hi"); err != nil {
		t.Fatal(err)
	}
	conv.Close()
	if got := m.Requests()[0].Messages[0]; got.Role != wisp.RoleSystem || got.Content != "Be a pirate." {
		t.Errorf("with SystemPrompt the model was sent %+v first, want the embedder's prompt", got)
	}

	// A model that does not run here: SystemPrompt never opens it.
	got, err := conversation.SystemPrompt(ctx, &conversation.Options{
		Home: t.TempDir(), ModelName: "ollama:nowhere:1b", Instructions: "Answer in French.", Now: day, Named: []string{"ask"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := prompt.Build(&prompt.Options{
		Tools:        []wisp.ToolSpec{{Name: "ask", Description: "Ask the person one question when you cannot go on without their answer: which of two things they meant, or a value you cannot find. More"}},
		Instructions: "Answer in French.", Platform: platform(), Date: day(),
	})
	if got != want {
		t.Errorf("SystemPrompt = %q, want %q", got, want)
	}
}

// A workspace that cannot be used is refused as an option.
func TestSystemPromptBadWorkspace(t *testing.T) {
	_, err := conversation.New(context.Background(), &conversation.Options{
		Home: t.TempDir(), Model: model(t, `{"content":"ok"}`), Workspace: filepath.Join(t.TempDir(), "none"),
	})
	var oe *conversation.OptionError
	if !asOptionError(err, &oe) || oe.Option != "Workspace" || strings.Contains(err.Error(), "\n") {
		t.Errorf("New with a missing workspace = %v, want an OptionError for Workspace, one line", err)
	}
}

// The tools each face gets by default, with no tool named: where a person
// is there (wisp chat, chat --json and wisp-tui, which runs chat --json),
// ask_user and request_approval together and the read tools, beside what
// the settings turn on; where nobody is (respond, and wisp mcp, whose
// conversations a Pool starts), only what the settings turn on. The
// settings' tools.disabled removes a preset tool too, and a named list
// wins over both.
func TestInteractivePreset(t *testing.T) {
	preset := []string{"ask_user", "request_approval"} // and the read tools, with a workspace
	reads := []string{"ask_user", "request_approval", "read_file", "list_files", "search"}
	for _, c := range []struct {
		face        string
		interactive bool
		pool        bool
		workspace   bool
		settings    string
		named       []string
		want        []string
	}{
		{face: "chat in a workspace", interactive: true, workspace: true, want: reads},
		{face: "chat --json in a workspace", interactive: true, workspace: true, want: reads},
		{face: "respond in a workspace", workspace: true, want: nil},
		{face: "mcp in a workspace", pool: true, workspace: true, want: nil},
		{face: "chat in a workspace, edit_file on", interactive: true, workspace: true, settings: `{"tools":{"edit_file":true}}`, want: append(reads, "edit_file")},
		{face: "respond in a workspace, search on", workspace: true, settings: `{"tools":{"search":true}}`, want: []string{"search"}},
		{face: "chat", interactive: true, want: preset},
		{face: "chat --json", interactive: true, want: preset},
		{face: "wisp-tui", interactive: true, want: preset},
		{face: "respond", want: nil},
		{face: "mcp", pool: true, want: nil},
		{face: "chat, models and memory on", interactive: true, settings: `{"tools":{"models":true,"memory":true}}`, want: []string{"ask_user", "request_approval", "models", "memory"}},
		{face: "chat, ask_user disabled", interactive: true, settings: `{"tools":{"disabled":["ask_user"]}}`, want: []string{"request_approval"}},
		{face: "chat, a named list", interactive: true, named: []string{"ask"}, want: []string{"ask"}},
		{face: "respond, ask_user on", settings: `{"tools":{"ask_user":true}}`, want: []string{"ask_user"}},
		{face: "mcp, request_approval on", pool: true, settings: `{"tools":{"request_approval":true}}`, want: []string{"request_approval"}},
	} {
		t.Run(c.face, func(t *testing.T) {
			home := t.TempDir()
			if c.settings != "" {
				if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(c.settings), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			m := model(t, `{"content":"ok"}`)
			o := &conversation.Options{Home: home, Model: m, Interactive: c.interactive, Named: c.named, Face: wisptest.NewPerson()}
			if c.workspace {
				o.Workspace = t.TempDir()
			}
			var respond func() error
			if c.pool {
				p := conversation.NewPool(o)
				defer p.Close()
				a, err := p.Agent(context.Background(), c.named)
				if err != nil {
					t.Fatal(err)
				}
				respond = func() error { _, err := a.Respond(context.Background(), "t-1", "hi"); return err }
			} else {
				conv, err := conversation.New(context.Background(), o)
				if err != nil {
					t.Fatal(err)
				}
				defer conv.Close()
				respond = func() error { _, err := conv.Respond(context.Background(), "hi"); return err }
			}
			if err := respond(); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range m.Requests()[0].Tools {
				got = append(got, s.Name)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("the tools the model was offered (-want +got):\n%s", diff)
			}
		})
	}
	for _, name := range reads {
		if !tools.Interactive()[name] {
			t.Errorf("tools.Interactive() = %v, want %s in it", tools.Interactive(), name)
		}
	}
}

func platform() string { return runtime.GOOS + "/" + runtime.GOARCH }

func asOptionError(err error, oe **conversation.OptionError) bool { return errors.As(err, oe) }
