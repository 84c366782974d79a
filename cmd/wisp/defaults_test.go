package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ollama/ollama/api"

	"github.com/wisp-agent/wisp/models/ollama/ollamatest"
	"github.com/wisp-agent/wisp/prompt"
)

// The tools each face offers the model when no --tool is given: where a
// person is there (chat, chat --json, which wisp-tui runs), the
// interactive preset; where nobody is (respond, chat --yes), only what the
// settings turn on, here nothing. Every request starts with the system
// prompt, which holds the rule whenever the preset is there.
func TestDefaultToolsByFace(t *testing.T) {
	preset := []string{"ask_user", "request_approval", "read_file", "list_files", "search"}
	for _, c := range []struct {
		name  string
		args  []string
		stdin string
		want  []string
	}{
		{"chat", []string{"chat"}, "hi\n", preset},
		{"chat --json", []string{"chat", "--json"}, `{"type":"message","text":"hi"}` + "\n", preset},
		{"chat --yes", []string{"chat", "--yes"}, "hi\n", nil},
		{"respond", []string{"respond", "hi"}, "", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv, home := vaultModel(t, ollamatest.Reply{Content: "ok"})
			env := testEnv(home)
			env.getenv = func(k string) string {
				return map[string]string{"WISP_HOME": home, "OLLAMA_HOST": srv.URL}[k]
			}
			var stdout, stderr bytes.Buffer
			args := append(c.args, "--model", "ollama:vault:1b", "--workspace", t.TempDir())
			if code := run(context.Background(), args, strings.NewReader(c.stdin), &stdout, &stderr, env); code != 0 {
				t.Fatalf("wisp %s = exit %d:\n%s%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
			}
			var chats []api.ChatRequest
			for _, c := range srv.Chats() {
				if len(c.Messages) > 0 { // not the request that loads the model
					chats = append(chats, c)
				}
			}
			if len(chats) == 0 {
				t.Fatalf("wisp %s sent the model nothing", strings.Join(args, " "))
			}
			var got []string
			for _, tool := range chats[0].Tools {
				got = append(got, tool.Function.Name)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("wisp %s offered the model (-want +got):\n%s", strings.Join(args, " "), diff)
			}
			first := chats[0].Messages[0]
			if first.Role != "system" || !strings.HasPrefix(first.Content, prompt.Identity) {
				t.Errorf("wisp %s sent first %s: %.80q, want the system prompt", strings.Join(args, " "), first.Role, first.Content)
			}
			if rule := strings.Contains(first.Content, prompt.Rule); rule != (c.want != nil) {
				t.Errorf("wisp %s: the system prompt states the rule: %v, want %v", strings.Join(args, " "), rule, c.want != nil)
			}
		})
	}
}

// wisp chat --show-prompt prints the system prompt the chat would send,
// without reaching the model: the rule, the workspace and its AGENTS.md.
func TestShowPrompt(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	ws, err := filepath.EvalSymlinks(ws)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(ws, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "AGENTS.md"), []byte("Run make check.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := testEnv(home)
	env.getenv = func(k string) string {
		return map[string]string{"WISP_HOME": home, "OLLAMA_HOST": "127.0.0.1:1"}[k]
	}
	var stdout, stderr bytes.Buffer
	args := []string{"chat", "--show-prompt", "--model", "ollama:qwen3:4b", "--workspace", ws}
	if code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr, env); code != 0 {
		t.Fatalf("wisp %s = exit %d:\n%s", strings.Join(args, " "), code, stderr.String())
	}
	for _, want := range []string{prompt.Identity + "\n", prompt.Rule, "- Workspace: " + ws, "### AGENTS.md\nRun make check.\n"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("wisp %s printed no %q:\n%s", strings.Join(args, " "), want, stdout.String())
		}
	}
}
