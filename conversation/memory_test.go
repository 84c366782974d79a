package conversation_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/conversation"
	"github.com/wisp-agent/wisp/home"
	"github.com/wisp-agent/wisp/policy/secrets/secretstest"
	"github.com/wisp-agent/wisp/tools/memory"
)

// A fact the model remembers, with the person's approval, is offered in
// the system prompt of every later conversation that has the memory
// tool, a credential in it only as its marker; a conversation without
// the tool is offered none; a fact the person forgot is offered no more.
func TestMemoryAcrossConversations(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	token := secretstest.Corpus()[0]
	args, _ := json.Marshal(map[string]string{"action": "remember", "text": "Deploys use the key " + token.Text + " and go through staging."})
	var asked []wisp.ApprovalRequest
	approve := wisp.ApproverFunc(func(ctx context.Context, r wisp.ApprovalRequest) (wisp.Decision, error) {
		asked = append(asked, r)
		return wisp.Decision{Scope: wisp.ScopeOnce, Provenance: wisp.FromPerson}, nil
	})
	day := func() time.Time { return time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC) }
	open := func(named []string, steps ...string) *conversation.Conversation {
		t.Helper()
		steps = append(steps, `{"content":"ok"}`)
		c, err := conversation.New(ctx, &conversation.Options{Home: dir, Model: model(t, steps...), Named: named, Approver: approve, Now: day})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}

	first := open([]string{"memory"}, fmt.Sprintf(`{"tool_calls":[{"name":"memory","arguments":%s}]}`, args), `{"content":"kept"}`)
	if strings.Contains(first.SystemPrompt(), "## Remembered facts") {
		t.Errorf("the first conversation was offered facts before any was kept:\n%s", first.SystemPrompt())
	}
	if _, err := first.Respond(ctx, "remember how we deploy"); err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || asked[0].Command != "memory remember" || strings.Contains(asked[0].Text, token.Text) {
		t.Fatalf("the person was asked %+v, want memory remember once, the key as a marker", asked)
	}

	later := open([]string{"memory"}).SystemPrompt()
	if !strings.Contains(later, "## Remembered facts") || !strings.Contains(later, "- m1 (2026-12-01): Deploys use the key [REDACTED:") || !strings.Contains(later, "go through staging.") {
		t.Errorf("a later conversation was not offered the fact:\n%s", later)
	}
	if l := secretstest.Leaks([]byte(later), []secretstest.Case{token}); l != nil {
		t.Errorf("the system prompt holds the key: %v", l)
	}
	if without := open([]string{"ask"}).SystemPrompt(); strings.Contains(without, "staging") {
		t.Errorf("a conversation without the memory tool was offered the fact:\n%s", without)
	}

	h, err := home.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := memory.RunCommand(ctx, h.Memory(nil), []string{"forget", "m1"}); err != nil || !strings.HasPrefix(out, "forgot m1: ") {
		t.Fatalf("the person's forget = %q, %v", out, err)
	}
	if after := open([]string{"memory"}).SystemPrompt(); strings.Contains(after, "staging") {
		t.Errorf("a fact the person forgot is still offered:\n%s", after)
	}
}

// The system prompt offers the newest facts within the caps, not all.
func TestMemoryOfferedWithinTheCap(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	h, err := home.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= memory.MaxOfferedFacts+5; i++ {
		if _, _, err := h.Memory(nil).Remember(ctx, memory.Fact{Text: fmt.Sprintf("fact number %d.", i), Source: memory.SourceModel}); err != nil {
			t.Fatal(err)
		}
	}
	c, err := conversation.New(ctx, &conversation.Options{Home: dir, Model: model(t, `{"content":"ok"}`), Named: []string{"memory"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got := c.SystemPrompt()
	if n := strings.Count(got, ": fact number "); n != memory.MaxOfferedFacts {
		t.Errorf("the prompt offers %d facts, want %d", n, memory.MaxOfferedFacts)
	}
	newest, oldest := fmt.Sprintf("fact number %d.", memory.MaxOfferedFacts+5), "fact number 5."
	if !strings.Contains(got, newest) || strings.Contains(got, ": "+oldest) {
		t.Errorf("the prompt does not offer the newest facts (%q in, %q out):\n%s", newest, oldest, got)
	}
}

// A memory file that is not the person's own stops a conversation with
// the memory tool with the one line that says how to mend it.
func TestMemoryFileRefused(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("file modes say nothing of who may write here")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "memory.json"), []byte(`{"version":1,"seq":1,"facts":[]}`), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, "memory.json"), 0o666); err != nil {
		t.Fatal(err)
	}
	_, err := conversation.New(context.Background(), &conversation.Options{Home: dir, Model: model(t, `{"content":"ok"}`), Named: []string{"memory"}})
	want := fmt.Sprintf("memory file %s is writable by others; run chmod 600 %s", filepath.Join(dir, "memory.json"), filepath.Join(dir, "memory.json"))
	if err == nil || err.Error() != want {
		t.Errorf("New = %v, want %q", err, want)
	}
}
