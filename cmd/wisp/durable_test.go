package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gofrs/flock"

	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/agent/threadfile"
	"github.com/wisp-agent/wisp/conversation"
	"github.com/wisp-agent/wisp/inquiry/jsonl"
)

// watchedWriter keeps what is written and tells when it holds a text.
type watchedWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
}

func watchFor(want string) *watchedWriter {
	return &watchedWriter{want: want, seen: make(chan struct{})}
}

func (w *watchedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	had := strings.Contains(w.buf.String(), w.want)
	w.buf.Write(p)
	if !had && strings.Contains(w.buf.String(), w.want) {
		close(w.seen)
	}
	return len(p), nil
}

func (w *watchedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// respondWhileHeld runs wisp respond on thread t while hold holds what it
// needs, waits for the line that says it waits, presses Ctrl-C, and
// returns the exit status and what wisp wrote to stderr.
func respondWhileHeld(t *testing.T, home, waitLine string) (int, string) {
	t.Helper()
	script := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(script, []byte(`{"content":"reply"}`+"\n"), 0o600)
	ctrlC := make(chan os.Signal, 1)
	env := testEnv(home)
	env.interrupts = ctrlC
	stderr := watchFor(waitLine)
	code := make(chan int, 1)
	go func() {
		var stdout bytes.Buffer
		code <- run(context.Background(), []string{"respond", "--model", "script:" + script, "--thread", "t", "hi"}, strings.NewReader(""), &stdout, stderr, env)
	}()
	select {
	case <-stderr.seen:
	case c := <-code:
		t.Fatalf("wisp respond ended (exit %d) without saying it waits: %q", c, stderr.String())
	}
	ctrlC <- os.Interrupt
	return <-code, stderr.String()
}

// A turn on a thread another process holds says it waits, and Ctrl-C ends
// the wait: nothing of the turn is kept.
func TestRespondWaitsForItsThread(t *testing.T) {
	home := t.TempDir()
	checkExit(t, testEnv(home), "", []string{"config", "list"}, 0) // makes the home
	d := threadfile.Dir{Path: filepath.Join(home, "threads"), Locks: filepath.Join(home, "locks")}
	unlock, err := d.Lock(t.Context(), "t", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	code, stderr := respondWhileHeld(t, home, "wisp: thread t is busy with another turn; waiting… (Ctrl-C stops it)\n")
	if code == 0 || !strings.HasSuffix(stderr, "wisp: the person stopped the turn\n") {
		t.Errorf("wisp respond stopped while it waited = exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(home, "threads", "t.json")); !os.IsNotExist(err) {
		t.Errorf("the thread was saved by a turn that never ran: %v", err)
	}
}

// A turn that waits for the audit log, which a stopped wisp audit --verify
// keeps locked, says so, and Ctrl-C ends the wait: nothing of the turn is
// kept.
func TestRespondWaitsForTheAuditLog(t *testing.T) {
	home := t.TempDir()
	checkExit(t, testEnv(home), "", []string{"audit", "--verify"}, 0) // makes the home and the log
	fl := flock.New(filepath.Join(home, "audit", "audit.lock"))
	if err := fl.RLock(); err != nil {
		t.Fatal(err)
	}
	defer fl.Close()
	code, stderr := respondWhileHeld(t, home, "wisp: "+conversation.LineAuditBusy+" (Ctrl-C stops it)\n")
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	last := lines[len(lines)-1]
	if code != 130 || !strings.HasPrefix(last, "wisp: the audit log could not be written: audit: the log is locked: ") ||
		!strings.HasSuffix(last, "; nothing of this turn was kept") {
		t.Errorf("wisp respond stopped while it waited for the audit log = exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(home, "threads", "t.json")); !os.IsNotExist(err) {
		t.Errorf("the thread was saved by a turn the audit log never saw: %v", err)
	}
}

// wisp chat --json says with a waiting note that a turn waits for the
// audit log, and cancel ends the wait: the turn's end says nothing of it
// was kept.
func TestChatJSONWaitsForTheAuditLog(t *testing.T) {
	home := t.TempDir()
	checkExit(t, testEnv(home), "", []string{"audit", "--verify"}, 0) // makes the home and the log
	script := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(script, []byte(`{"content":"reply"}`+"\n"), 0o600)
	p := startChatJSON(t, home, "--model", "script:"+script)
	if _, ok := p.next().(jsonl.Hello); !ok {
		t.Fatal("no hello")
	}
	fl := flock.New(filepath.Join(home, "audit", "audit.lock"))
	if err := fl.RLock(); err != nil {
		t.Fatal(err)
	}
	defer fl.Close()
	p.send(`{"type":"message","text":"hi"}`)
	for {
		l := p.next()
		if n, ok := l.(jsonl.Note); ok {
			if n.Kind != jsonl.NoteWaiting || n.Text != conversation.LineAuditBusy {
				t.Errorf("note %+v, want the audit log's wait", n)
			}
			break
		}
		if _, ok := l.(jsonl.End); ok {
			t.Fatalf("the turn ended without saying it waits: %+v", l)
		}
	}
	p.send(`{"type":"cancel"}`)
	for {
		if end, ok := p.next().(jsonl.End); ok {
			if !strings.HasPrefix(end.Error, "the audit log could not be written: ") || !strings.HasSuffix(end.Error, "; nothing of this turn was kept") {
				t.Errorf("end %+v, want an error that nothing of the turn was kept", end)
			}
			break
		}
	}
	if code := p.exit(); code != 1 {
		t.Errorf("wisp chat --json exited %d, want 1", code)
	}
}

// wisp respond reads no more of its prompt than a turn takes, and refuses
// a longer one with one line, before anything runs.
func TestRespondRefusesALongPrompt(t *testing.T) {
	var stdout, stderr bytes.Buffer
	stdin := strings.NewReader(strings.Repeat("x", agent.MaxInputBytes+1))
	code := run(context.Background(), []string{"respond", "--model", "script:none.jsonl", "-"}, stdin, &stdout, &stderr, testEnv(t.TempDir()))
	const want = "wisp: the prompt is longer than 1048576 bytes, the most one turn takes; shorten it\n"
	if code != 2 || stderr.String() != want {
		t.Errorf("wisp respond - with a long prompt = exit %d, %q; want exit 2, %q", code, stderr.String(), want)
	}
}
