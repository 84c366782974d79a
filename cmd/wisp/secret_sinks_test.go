//go:build unix

package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/config"
	"github.com/wisp-agent/wisp/models/ollama/ollamatest"
)

// A secret typed into an ask_user secret question appears nowhere but in
// the session's vault: not in what the model is sent, not on the
// terminal, not in the audit log, the thread, the pending folder or the
// config; the model gets session:GH_TOKEN.
func TestSecretReachesNoSink(t *testing.T) {
	const secret = "ghp_Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lm9Nb"
	srv, home := vaultModel(t,
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "ask_user", Arguments: `{"secret":{"name":"GH_TOKEN","question":"Which token should I use to open the pull request?"}}`}}},
		ollamatest.Reply{Content: "Stored; I will pass session:GH_TOKEN to the tool that opens it."},
	)
	configBefore, _ := os.ReadFile(filepath.Join(home, "config.json"))

	run := startPTY(t, home, "chat", "--model", "ollama:vault:1b", "--tool", "ask_user")
	run.waitFor("› ")
	run.press("Open the pull request.\r")
	run.waitFor("type the secret")
	run.press(secret + "\r")
	run.waitFor("Stored; I will pass session:GH_TOKEN")
	run.press("\x04")
	if code := run.exit(); code != 0 {
		t.Fatalf("chat exited %d:\n%s", code, run.shown())
	}

	// The terminal: the card, but never the value (echo was off).
	shown := run.shown()
	if strings.Contains(shown, secret) {
		t.Errorf("the terminal showed the secret:\n%s", shown)
	}
	if !strings.Contains(shown, "secret GH_TOKEN") || !strings.Contains(shown, "Which token should I use to open the pull request?") {
		t.Errorf("the terminal did not show the secret question:\n%s", shown)
	}
	// What the model was sent: the reference, never the value.
	chats, err := json.Marshal(srv.Chats())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(chats), secret) {
		t.Errorf("the model was sent the secret: %s", chats)
	}
	if !strings.Contains(string(chats), "session:GH_TOKEN") {
		t.Errorf("the model was not sent the reference: %s", chats)
	}
	// Every file under the wisp home: audit, threads, pending, config.
	var files int
	err = filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		if strings.Contains(string(b), secret) {
			t.Errorf("%s holds the secret", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 3 {
		t.Errorf("only %d files under the home; the audit log and the thread should be there", files)
	}
	audit, err := os.ReadFile(filepath.Join(home, "audit", "audit.jsonl"))
	if err == nil && !strings.Contains(string(audit), "session:GH_TOKEN") {
		t.Errorf("the audit log does not record the reference")
	}
	if configAfter, _ := os.ReadFile(filepath.Join(home, "config.json")); string(configAfter) != string(configBefore) {
		t.Errorf("the config changed:\n%s", configAfter)
	}
}

// A multi-line credential pasted at the secret prompt: its first line is
// the secret; the rest is dropped, never sent to the model as messages.
func TestPastedKeyIsNotAMessage(t *testing.T) {
	srv, home := vaultModel(t,
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "ask_user", Arguments: `{"secret":{"name":"DEPLOY_KEY","question":"Which deploy key?"}}`}}},
		ollamatest.Reply{Content: "Stored."},
		ollamatest.Reply{Content: "ok"},
	)
	run := startPTY(t, home, "chat", "--model", "ollama:vault:1b", "--tool", "ask_user")
	run.waitFor("› ")
	run.press("Deploy.\r")
	run.waitFor("type the secret")
	run.press("-----BEGIN OPENSSH PRIVATE KEY-----\rb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\rQyNTUxOQAAACBmZWVkZmFjZWJlZWZjYWZlMDAxMTIyMzM0NDU1NjY3Nzg4OTkwMA\r")
	run.waitFor("Stored.")
	run.press("\x04")
	if code := run.exit(); code != 0 {
		t.Fatalf("chat exited %d:\n%s", code, run.shown())
	}
	chats, _ := json.Marshal(srv.Chats())
	for _, part := range []string{"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW", "QyNTUxOQAAACBmZWVkZmFjZWJlZWZjYWZlMDAxMTIyMzM0NDU1NjY3Nzg4OTkwMA"} {
		if strings.Contains(string(chats), part) || strings.Contains(run.shown(), part) {
			t.Errorf("part of the pasted key reached the model or the screen: %q", part)
		}
	}
}

// vaultModel starts a fake Ollama whose model ollama:vault:1b plays
// replies, points OLLAMA_HOST at it, and returns it with a wisp home
// where that model is enabled.
func vaultModel(t *testing.T, replies ...ollamatest.Reply) (*ollamatest.Server, string) {
	t.Helper()
	srv, stop := ollamatest.Start(ollamatest.Model{
		Name: "vault:1b", Family: "qwen3", ParameterSize: "1.0B", ContextLength: 8192,
		Capabilities: []string{"completion", "tools"}, Replies: replies,
	})
	t.Cleanup(stop)
	t.Setenv("OLLAMA_HOST", srv.URL)
	home := t.TempDir()
	cfg := config.Default()
	cfg.Models.Enabled = []string{"ollama:vault:1b"}
	if err := config.Save(filepath.Join(home, "config.json"), cfg); err != nil {
		t.Fatal(err)
	}
	return srv, home
}
