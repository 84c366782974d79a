package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for a writer and a reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A setting applies from the next conversation, never to one already
// running: turning tools.ask off in the middle of a chat leaves that chat's
// ask in place, and the next chat has none.
func TestSettingAppliesFromNextConversation(t *testing.T) {
	home := t.TempDir()
	env := environ{
		getenv:     func(k string) string { return map[string]string{"WISP_HOME": home}[k] },
		userHome:   func() (string, error) { return "", errors.New("no home in tests") },
		interrupts: make(chan os.Signal),
	}
	wisp := func(stdin io.Reader, stdout io.Writer, args ...string) int {
		var stderr bytes.Buffer
		code := run(context.Background(), args, stdin, stdout, &stderr, env)
		if code != 0 {
			t.Logf("wisp %s: %s", strings.Join(args, " "), stderr.String())
		}
		return code
	}
	if code := wisp(nil, io.Discard, "config", "set", "tools.ask", "true"); code != 0 {
		t.Fatalf("config set = exit %d", code)
	}
	script := filepath.Join(t.TempDir(), "s.jsonl")
	step := `{"content":"","tool_calls":[{"name":"ask","arguments":{"question":"Q%d?"}}]}` + "\n" + `{"content":"ok"}` + "\n"
	if err := os.WriteFile(script, []byte(strings.ReplaceAll(step, "%d", "1")+strings.ReplaceAll(step, "%d", "2")), 0o600); err != nil {
		t.Fatal(err)
	}

	r, w := io.Pipe()
	out := &syncBuffer{}
	done := make(chan int)
	go func() { done <- wisp(r, out, "chat", "--model", "script:"+script) }()
	waitFor := func(s string) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !strings.Contains(out.String(), s); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("chat never printed %q:\n%s", s, out)
			}
		}
	}
	io.WriteString(w, "first\nanswer one\n")
	waitFor("answer: answer one")
	if code := wisp(nil, io.Discard, "config", "set", "tools.ask", "false"); code != 0 {
		t.Fatalf("config set = exit %d", code)
	}
	io.WriteString(w, "second\nanswer two\n")
	waitFor("answer: answer two")
	w.Close()
	if code := <-done; code != 0 {
		t.Fatalf("chat = exit %d:\n%s", code, out)
	}
	if n := strings.Count(out.String(), "? the model asks"); n != 2 {
		t.Errorf("the running chat asked %d questions, want 2 (the setting must not change it):\n%s", n, out)
	}

	// The next conversation reads the new setting.
	var next bytes.Buffer
	wisp(strings.NewReader("third\n"), &next, "chat", "--model", "script:"+script)
	if !strings.Contains(next.String(), `there is no tool named "ask"`) {
		t.Errorf("the next chat still had ask:\n%s", next.String())
	}
}
