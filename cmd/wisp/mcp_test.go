package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/version"
)

// The real binary over stdio, as an MCP host runs it: initialize, a respond
// call that starts a thread, a second that continues it, and the thread
// resource.
func TestMCPStdio(t *testing.T) {
	bin, err := exec.LookPath("wisp")
	if err != nil {
		t.Fatal("the wisp test command is not on PATH:", err)
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "s.jsonl")
	os.WriteFile(script, []byte(`{"content":"Hello from wisp."}`+"\n"+`{"content":"Still here."}`+"\n"), 0o600)
	cmd := exec.Command(bin, "mcp", "--model", "script:"+script)
	cmd.Env = append(os.Environ(), "WISP_HOME="+filepath.Join(dir, "home"), "OLLAMA_HOST=127.0.0.1:1")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stdout)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	call := func(id int, method string, params any) map[string]any {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if _, err := stdin.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
		done := make(chan map[string]any, 1)
		go func() {
			for lines.Scan() {
				var m map[string]any
				if json.Unmarshal(lines.Bytes(), &m) == nil && m["id"] == float64(id) {
					done <- m
					return
				}
			}
			done <- nil
		}()
		select {
		case m := <-done:
			if m == nil {
				t.Fatalf("%s: the server closed its output", method)
			}
			return m
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: no answer", method)
			return nil
		}
	}
	init := call(1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "test", "version": "1"}})
	if init["result"] == nil {
		t.Fatalf("initialize = %v", init)
	}
	// The server's info says the version wisp --version prints.
	if info, _ := init["result"].(map[string]any)["serverInfo"].(map[string]any); info["name"] != "wisp" || info["version"] != version.String() {
		t.Errorf("serverInfo = %v, want wisp at %q", info, version.String())
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")

	structured := func(m map[string]any) map[string]any {
		t.Helper()
		r, _ := m["result"].(map[string]any)
		sc, _ := r["structuredContent"].(map[string]any)
		if sc == nil {
			t.Fatalf("respond = %v", m)
		}
		return sc
	}
	first := structured(call(2, "tools/call", map[string]any{"name": "respond", "arguments": map[string]any{"prompt": "Say hello"}}))
	thread, _ := first["thread_id"].(string)
	if first["reply"] != "Hello from wisp." || !strings.HasPrefix(thread, "t-") || first["turn"] != float64(1) {
		t.Fatalf("first respond = %v", first)
	}
	second := structured(call(3, "tools/call", map[string]any{"name": "respond", "arguments": map[string]any{"prompt": "Again", "thread_id": thread}}))
	if second["reply"] != "Still here." || second["turn"] != float64(2) {
		t.Errorf("second respond = %v", second)
	}
	res := call(4, "resources/read", map[string]any{"uri": "wisp://threads/" + thread})
	text, _ := json.Marshal(res)
	if !strings.Contains(string(text), "Say hello") || !strings.Contains(string(text), "Still here.") {
		t.Errorf("thread resource = %s", text)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("wisp mcp ended with %v after its input closed", err)
	}
}
