//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp/audit"
	"github.com/wisp-agent/wisp/inquiry"
)

// mcpPeer is the real wisp mcp over stdio, driven JSON-RPC line by line
// as a 2025-era host drives it.
type mcpPeer struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin io.WriteCloser

	mu       sync.Mutex
	byID     map[float64]chan map[string]any
	messages []string // notifications/message data
	seen     chan struct{}
}

func startMCP(t *testing.T, home string, args ...string) *mcpPeer {
	t.Helper()
	return startMCPWith(t, home, "127.0.0.1:1", args...)
}

// startMCPWith is startMCP with the Ollama at ollama.
func startMCPWith(t *testing.T, home, ollama string, args ...string) *mcpPeer {
	t.Helper()
	bin, err := exec.LookPath("wisp")
	if err != nil {
		t.Fatal("the wisp test command is not on PATH:", err)
	}
	cmd := exec.Command(bin, append([]string{"mcp"}, args...)...)
	cmd.Env = append(os.Environ(), "WISP_HOME="+home, "OLLAMA_HOST="+ollama)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	p := &mcpPeer{t: t, cmd: cmd, stdin: stdin, byID: map[float64]chan map[string]any{}, seen: make(chan struct{}, 100)}
	go func() {
		lines := bufio.NewScanner(stdout)
		lines.Buffer(make([]byte, 1<<20), 1<<20)
		for lines.Scan() {
			var m map[string]any
			if json.Unmarshal(lines.Bytes(), &m) != nil {
				continue
			}
			p.mu.Lock()
			if id, ok := m["id"].(float64); ok && m["method"] == nil {
				if c := p.byID[id]; c != nil {
					c <- m
				}
			} else if m["method"] == "notifications/message" {
				params, _ := m["params"].(map[string]any)
				if s, ok := params["data"].(string); ok {
					p.messages = append(p.messages, s)
					p.seen <- struct{}{}
				}
			}
			p.mu.Unlock()
		}
	}()
	return p
}

// send writes one JSON-RPC message.
func (p *mcpPeer) send(msg map[string]any) {
	p.t.Helper()
	msg["jsonrpc"] = "2.0"
	b, _ := json.Marshal(msg)
	if _, err := p.stdin.Write(append(b, '\n')); err != nil {
		p.t.Fatal(err)
	}
}

// request sends a request and returns a channel for its response.
func (p *mcpPeer) request(id int, method string, params any) chan map[string]any {
	c := make(chan map[string]any, 1)
	p.mu.Lock()
	p.byID[float64(id)] = c
	p.mu.Unlock()
	p.send(map[string]any{"id": id, "method": method, "params": params})
	return c
}

func (p *mcpPeer) await(c chan map[string]any) map[string]any {
	p.t.Helper()
	select {
	case m := <-c:
		return m
	case <-time.After(20 * time.Second):
		p.t.Fatal("no response from wisp mcp")
		return nil
	}
}

// waitMessage waits for a logging notification that holds s.
func (p *mcpPeer) waitMessage(s string) string {
	p.t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		p.mu.Lock()
		for _, m := range p.messages {
			if strings.Contains(m, s) {
				p.mu.Unlock()
				return m
			}
		}
		p.mu.Unlock()
		select {
		case <-p.seen:
		case <-deadline:
			p.t.Fatalf("no notification with %q", s)
		}
	}
}

// The whole path through the real binaries: wisp mcp files and announces
// the model's question; the client goes away, so the turn parks it; the
// person answers with wisp questions answer at a terminal; the thread's
// next respond call takes the answer as a note, and the audit log holds
// every step.
func TestMCPQuestionAnsweredAtTerminal(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	script := filepath.Join(dir, "s.jsonl")
	os.WriteFile(script, []byte(
		`{"tool_calls":[{"name":"ask","arguments":{"question":"Which config did you mean?","options":["~/.wisp/config.json","./wisp.json"]}}]}`+"\n"+
			`{"content":"I will wait for your answer."}`+"\n"+
			`{"content":"Using ./wisp.json."}`+"\n"), 0o600)
	p := startMCP(t, home, "--model", "script:"+script)
	init := p.await(p.request(1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "test", "version": "1"}}))
	if init["result"] == nil {
		t.Fatalf("initialize = %v", init)
	}
	p.send(map[string]any{"method": "notifications/initialized"})
	p.await(p.request(2, "logging/setLevel", map[string]any{"level": "notice"}))

	first := p.request(3, "tools/call", map[string]any{"name": "respond", "arguments": map[string]any{"prompt": "Replace the config.", "thread_id": "t-mcp1", "tools": []string{"ask"}}})
	note := p.waitMessage("wisp: the model asks")
	id := note[strings.LastIndex(note, " ")+1:]
	if want := "wisp: the model asks: Which config did you mean? — wisp questions answer " + id; note != want {
		t.Errorf("notification %q, want %q", note, want)
	}
	if _, err := os.Stat(filepath.Join(home, "pending", id+".question.json")); err != nil {
		t.Fatalf("the question was not filed: %v", err)
	}
	// The host gives up on the call: the turn parks the question at once.
	p.send(map[string]any{"method": "notifications/cancelled", "params": map[string]any{"requestId": 3, "reason": "the user moved on"}})
	_ = first

	// The person answers at a terminal.
	run := startPTY(t, home, "questions", "answer", id)
	run.waitFor("none of these")
	run.waitFor("wisp://threads/t-mcp1")
	run.press("2\r")
	if code := run.exit(); code != 0 {
		t.Fatalf("wisp questions answer exited %d:\n%s", code, run.shown())
	}

	second := p.await(p.request(4, "tools/call", map[string]any{"name": "respond", "arguments": map[string]any{"prompt": "Go on.", "thread_id": "t-mcp1", "tools": []string{"ask"}}}))
	r, _ := second["result"].(map[string]any)
	sc, _ := r["structuredContent"].(map[string]any)
	if sc["reply"] != "Using ./wisp.json." || sc["turn"] != float64(2) {
		t.Fatalf("second respond = %v", second)
	}
	thread := p.await(p.request(5, "resources/read", map[string]any{"uri": "wisp://threads/t-mcp1"}))
	var got struct {
		Result struct {
			Contents []struct{ Text string } `json:"contents"`
		} `json:"result"`
	}
	b, _ := json.Marshal(thread)
	if err := json.Unmarshal(b, &got); err != nil || len(got.Result.Contents) != 1 {
		t.Fatalf("thread resource %s: %v", b, err)
	}
	var st struct {
		Messages []struct{ Content string } `json:"messages"`
		Facts    []string                   `json:"facts"`
	}
	if err := json.Unmarshal([]byte(got.Result.Contents[0].Text), &st); err != nil {
		t.Fatal(err)
	}
	var contents []string
	for _, m := range st.Messages {
		contents = append(contents, m.Content)
	}
	want := []string{"Replace the config.", "", inquiry.LineParked("Which config did you mean?", id), "I will wait for your answer.",
		inquiry.LineLate("Which config did you mean?", id, "chose: ./wisp.json"), "Go on.", "Using ./wisp.json."}
	if diff := cmp.Diff(want, contents); diff != "" {
		t.Errorf("thread messages (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{`c1 answer "Which config did you mean?" = ./wisp.json`}, st.Facts); diff != "" {
		t.Errorf("thread facts (-want +got):\n%s", diff)
	}
	p.stdin.Close()
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("wisp mcp ended with %v after its input closed", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(home, "pending")); len(entries) > 1 { // the lock file stays
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("pending folder after the answer was taken: %v", names)
	}
	recs, err := audit.Read(filepath.Join(home, "audit"), audit.Filter{KindPrefix: "inquiry."})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, rec := range recs {
		kinds = append(kinds, rec.Kind)
	}
	if got, want := strings.Join(kinds, " "), "inquiry.requested inquiry.parked inquiry.answered inquiry.settled"; got != want {
		t.Errorf("inquiry records %q, want %q", got, want)
	}
}
