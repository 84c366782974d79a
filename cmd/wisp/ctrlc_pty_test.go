//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/audit"
	"github.com/wisp-agent/wisp/internal/cmdline"
	"github.com/wisp-agent/wisp/models/hf/hubtest"
)

// Ctrl-C at wisp models pull's question about a publisher not trusted
// refuses: nothing is fetched, and wisp exits with status 130 at once.
// Asked again, y pulls: no Ctrl-C of before stops it.
func TestCtrlCAtPullQuestion(t *testing.T) {
	repo := hubtest.Repo{ID: "someone/Small-4bit", Files: []hubtest.File{
		{Path: "config.json", Data: []byte(`{"model_type":"qwen3"}`)},
		{Path: "tokenizer_config.json", Data: []byte(`{"chat_template":"<tool_call>{{ tool_call.name }}"}`)},
		{Path: "model.safetensors", Data: []byte(strings.Repeat("w", 4096)), LFS: true},
	}}
	hub := hubtest.NewServer(t, repo)
	t.Setenv("HF_ENDPOINT", hub.URL)
	t.Setenv("OLLAMA_HOST", "127.0.0.1:1")
	home := t.TempDir()
	const question = "someone is not a publisher you trust. Pull it? [y]once [t]rust [n]o › "

	run := startPTY(t, home, "models", "pull", repo.ID)
	run.waitFor(question)
	run.press("\x03")
	if code := run.exit(); code != cmdline.ExitInterrupted {
		t.Errorf("wisp models pull, Ctrl-C at the question = exit %d, want %d:\n%s", code, cmdline.ExitInterrupted, run.shown())
	}
	run.waitFor("wisp: stopped; nothing was pulled (wisp models pull someone/Small-4bit asks again)")
	for _, r := range hub.Requests() {
		if r.Host == "cdn" {
			t.Errorf("the refused pull fetched %s", r.Path)
		}
	}
	if _, err := os.Lstat(filepath.Join(home, "models", "mlx", "Small-4bit")); err == nil {
		t.Errorf("the refused pull linked the model")
	}

	run = startPTY(t, home, "models", "pull", repo.ID)
	run.waitFor(question)
	run.press("y\r")
	run.waitFor("mlx:Small-4bit is ready")
	if code := run.exit(); code != 0 {
		t.Errorf("wisp models pull, y at the question = exit %d, want 0:\n%s", code, run.shown())
	}
}

// Ctrl-C at the chat's approval prompt refuses the request and stops the
// turn; the chat goes on, and the next request is asked and approved, with
// no Ctrl-C of before in its way.
func TestCtrlCAtChatApproval(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "approve.jsonl")
	drop := `{"content":"","tool_calls":[{"name":"request_approval","arguments":{"action":"drop the table sessions_old in staging","reason":"the migration replaces it"}}]}`
	if err := os.WriteFile(script, []byte(drop+"\n"+drop+"\n"+`{"content":"Dropped."}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(dir, "home")
	r := startPTY(t, home, "chat", "--model", "script:"+script, "--tool", "request_approval")
	r.waitFor("Ctrl-D leaves.")
	r.press("Clean up staging.\r")
	r.waitFor("allow? [y]once [n]o › ")
	r.press("\x03")
	r.waitFor("(turn stopped)")
	r.press("Go on.\r")
	r.waitForN("allow? [y]once [n]o › ", 2)
	r.press("y\r")
	r.waitFor("Dropped.")
	r.press("\x04")
	if got := r.exit(); got != 0 {
		t.Errorf("wisp chat = exit %d, want 0:\n%s", got, r.shown())
	}
	recs, err := audit.Read(filepath.Join(home, "audit"), audit.Filter{KindPrefix: wisp.KindApprovalDecided})
	if err != nil {
		t.Fatal(err)
	}
	var decided []string
	for _, rec := range recs {
		decided = append(decided, string(rec.Data))
	}
	if len(decided) != 2 || !strings.Contains(decided[0], `"decision":"refused"`) || !strings.Contains(decided[1], `"decision":"approved"`) {
		t.Errorf("approval.decided records = %q, want the first refused and the second approved", decided)
	}
}

// Ctrl-C at the chat's prompt, with no turn running, leaves the chat with
// exit status 130, as a shell expects, and says nothing more.
func TestCtrlCAtChatPrompt(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "hello.jsonl")
	if err := os.WriteFile(script, []byte(`{"content":"Hello."}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := startPTY(t, filepath.Join(dir, "home"), "chat", "--model", "script:"+script)
	r.waitFor("Ctrl-D leaves.")
	r.press("Hi.\r")
	r.waitForN("› ", 2)
	r.press("\x03")
	if code := r.exit(); code != cmdline.ExitInterrupted {
		t.Errorf("wisp chat, Ctrl-C at the prompt = exit %d, want %d:\n%s", code, cmdline.ExitInterrupted, r.shown())
	}
	if strings.Contains(r.shown(), "wisp:") {
		t.Errorf("wisp chat said more on Ctrl-C at the prompt:\n%s", r.shown())
	}
}
