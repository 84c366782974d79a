package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/config"
	"github.com/wisp-agent/wisp/inquiry/terminal"
	"github.com/wisp-agent/wisp/models/ollama/ollamatest"
)

// A chat line over the limit is refused with one line saying so, never cut
// and sent; the chat goes on with the next line.
func TestChatLineTooLong(t *testing.T) {
	srv, stop := ollamatest.Start(ollamatest.Model{
		Name: "plain:1b", Family: "qwen3", ParameterSize: "1.0B", ContextLength: 8192,
		Capabilities: []string{"completion", "tools"}, Replies: []ollamatest.Reply{{Content: "hello to you"}},
	})
	defer stop()
	home := t.TempDir()
	cfg := config.Default()
	cfg.Models.Enabled = []string{"ollama:plain:1b"}
	if err := config.Save(filepath.Join(home, "config.json"), cfg); err != nil {
		t.Fatal(err)
	}
	env := testEnv(home)
	env.getenv = func(k string) string {
		if k == "WISP_HOME" {
			return home
		}
		if k == "OLLAMA_HOST" {
			return srv.URL
		}
		return ""
	}
	long := strings.Repeat("y", terminal.MaxLine+1)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"chat", "--model", "ollama:plain:1b", "--tool", ""}, strings.NewReader(long+"\nhello\n"), &stdout, &stderr, env)
	if code != 0 {
		t.Fatalf("chat = exit %d: %s", code, stderr.String())
	}
	if got := strings.Count(stdout.String(), terminal.LineTooLong+"\n"); got != 1 {
		t.Errorf("chat said %q %d times, want once:\n%.2000s", terminal.LineTooLong, got, stdout.String())
	}
	if !strings.Contains(stdout.String(), "hello to you") {
		t.Errorf("the next line did not reach the model:\n%.2000s", stdout.String())
	}
	chats, err := json.Marshal(srv.Chats())
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(chats, []byte("yyyy")) {
		t.Errorf("the model was sent part of the long line")
	}
	asked := 0
	for _, c := range srv.Chats() {
		if len(c.Messages) > 0 { // not the request that loads the model
			asked++
		}
	}
	if asked != 1 {
		t.Errorf("the model was asked %d times, want once", asked)
	}
}
