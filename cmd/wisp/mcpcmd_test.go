//go:build unix

package main

import (
	"bufio"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// startMCPHTTP runs the real wisp mcp --http on a free loopback port and
// returns its endpoint's URL.
func startMCPHTTP(t *testing.T, home string, args ...string) string {
	t.Helper()
	bin, err := exec.LookPath("wisp")
	if err != nil {
		t.Fatal("the wisp test command is not on PATH:", err)
	}
	cmd := exec.Command(bin, append([]string{"mcp", "--http", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), "WISP_HOME="+home, "OLLAMA_HOST=127.0.0.1:1")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	lines := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(stderr)
		for s.Scan() {
			select {
			case lines <- s.Text():
			default:
			}
		}
	}()
	select {
	case line := <-lines:
		url := regexp.MustCompile(`^wisp mcp: serving (http://127\.0\.0\.1:\d+/mcp) to requests with Authorization: Bearer and the token in `).FindStringSubmatch(line)
		if url == nil {
			t.Fatalf("wisp mcp --http said %q", line)
		}
		return url[1]
	case <-time.After(20 * time.Second):
		t.Fatal("wisp mcp --http did not start")
		return ""
	}
}

// The real binary over HTTP: it makes its token file, 0600, under the
// home; a request without the token is refused; a client that sends it is
// served.
func TestMCPHTTPToken(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	script := filepath.Join(dir, "s.jsonl")
	os.WriteFile(script, []byte(`{"content":"Hello over HTTP."}`+"\n"), 0o600)
	url := startMCPHTTP(t, home, "--model", "script:"+script)

	path := filepath.Join(home, "mcp-token")
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatalf("no token file: %v", err)
	}
	if fi.Mode() != 0o600 {
		t.Errorf("token file mode = %v, want -rw-------", fi.Mode())
	}
	data, _ := os.ReadFile(path)
	token := strings.TrimSpace(string(data))

	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") == "" {
		t.Errorf("POST without the token = %d, WWW-Authenticate %q; want 401 with a challenge", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}

	tr, err := transport.NewStreamableHTTP(url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr)
	defer c.Close()
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	var ir mcp.InitializeRequest
	ir.Params.ClientInfo = mcp.Implementation{Name: "t", Version: "0"}
	if _, err := c.Initialize(t.Context(), ir); err != nil {
		t.Fatalf("Initialize with the token: %v", err)
	}
	var call mcp.CallToolRequest
	call.Params.Name = "respond"
	call.Params.Arguments = map[string]any{"prompt": "hi", "thread_id": "h1"}
	res, err := c.CallTool(t.Context(), call)
	if err != nil {
		t.Fatalf("respond with the token: %v", err)
	}
	if sc, _ := res.StructuredContent.(map[string]any); sc["reply"] != "Hello over HTTP." {
		t.Errorf("respond = %+v", res)
	}
}

// The token file is the person's alone, or wisp mcp does not start.
func TestMCPTokenFileRefused(t *testing.T) {
	home := t.TempDir()
	own := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(own, []byte(strings.Repeat("k", 40)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(own, 0o644)
	checkExit(t, testEnv(home), "", []string{"mcp", "--http", "127.0.0.1:0", "--token-file", own}, 1)
	if err := os.WriteFile(filepath.Join(home, "mcp-token"), []byte(strings.Repeat("k", 40)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Join(home, "mcp-token"), 0o640)
	checkExit(t, testEnv(home), "", []string{"mcp", "--http", "127.0.0.1:0"}, 1)
	checkExit(t, testEnv(home), "", []string{"mcp", "--token-file", own}, 2)
}

// An unknown tool in respond's tools gets a line in MCP's terms, never
// the CLI's --tool.
func TestMCPUnknownToolHint(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.jsonl")
	os.WriteFile(script, []byte(`{"content":"unused"}`+"\n"), 0o600)
	p := startMCP(t, filepath.Join(dir, "home"), "--model", "script:"+script)
	p.await(p.request(1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "test", "version": "1"}}))
	p.send(map[string]any{"method": "notifications/initialized"})
	got := p.await(p.request(2, "tools/call", map[string]any{"name": "respond", "arguments": map[string]any{"prompt": "hi", "tools": []string{"shell"}}}))
	want := map[string]any{
		"isError": true,
		"content": []any{map[string]any{"type": "text", "text": `error: respond's tools argument names "shell", which is not one of wisp's tools ` +
			`(ask, ask_user, request_approval, models, memory, read_file, list_files, search, edit_file, scan_secrets, run_command); name tools from that list, or leave tools out for every tool the person's settings allow`}},
	}
	if diff := cmp.Diff(want, got["result"]); diff != "" {
		t.Errorf("respond with tools [shell] (-want +got):\n%s", diff)
	}
}
