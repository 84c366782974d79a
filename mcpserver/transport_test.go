package mcpserver_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wisp-agent/wisp/mcpserver"
	"github.com/wisp-agent/wisp/models/script"
)

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`

func TestHTTPRefusesOtherHosts(t *testing.T) {
	tests := []struct {
		name, host, origin string
		want               int
	}{
		{name: "127.0.0.1", host: "127.0.0.1:8765", want: http.StatusOK},
		{name: "localhost", host: "localhost:8765", want: http.StatusOK},
		{name: "localhost no port", host: "localhost", want: http.StatusOK},
		{name: "::1", host: "[::1]:8765", want: http.StatusOK},
		{name: "loopback origin", host: "127.0.0.1:8765", origin: "http://localhost:3000", want: http.StatusOK},
		{name: "evil host", host: "evil.example", want: http.StatusForbidden},
		{name: "evil host with port", host: "evil.example:8765", want: http.StatusForbidden},
		{name: "localhost lookalike", host: "localhost.evil.example:8765", want: http.StatusForbidden},
		{name: "other address", host: "192.168.1.10:8765", want: http.StatusForbidden},
		{name: "evil origin", host: "127.0.0.1:8765", origin: "http://evil.example", want: http.StatusForbidden},
		{name: "evil origin on loopback port", host: "localhost:8765", origin: "http://evil.example:8765", want: http.StatusForbidden},
		{name: "null origin", host: "127.0.0.1:8765", origin: "null", want: http.StatusForbidden},
		{name: "file origin", host: "127.0.0.1:8765", origin: "file://", want: http.StatusForbidden},
	}
	f := newFixture(t, fixtureOptions{model: script.New("s", nil)})
	h := f.srv.HTTPHandler()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "http://"+tt.host+mcpserver.EndpointPath, strings.NewReader(initializeBody))
			req.Host = tt.host
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Authorization", "Bearer "+testToken)
			if tt.origin != "" {
				req.Header.Set("Origin", tt.origin)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tt.want {
				t.Errorf("POST Host %q Origin %q = %d %q, want %d", tt.host, tt.origin, rec.Code, rec.Body.String(), tt.want)
			}
		})
	}
}

func TestHTTPRoundTrip(t *testing.T) {
	f := newFixture(t, fixtureOptions{model: script.New("s", steps("over http"))})
	ts := httptest.NewServer(f.srv.HTTPHandler())
	defer ts.Close()
	tr, err := transport.NewStreamableHTTP(ts.URL+mcpserver.EndpointPath, withToken())
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
		t.Fatalf("Initialize: %v", err)
	}
	res := respond(t, c, map[string]any{"prompt": "hi", "thread_id": "h1"})
	want := mcpserver.RespondResult{Reply: "over http", ThreadID: "h1", Turn: 1}
	if diff := cmp.Diff(want, structured(t, res)); diff != "" {
		t.Errorf("respond over HTTP (-want +got):\n%s", diff)
	}
}

// TestStdio speaks raw JSON-RPC to ServeStdio over pipes, as a 2025-era
// host does.
func TestStdio(t *testing.T) {
	f := newFixture(t, fixtureOptions{model: script.New("s", steps("over stdio"))})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- f.srv.ServeStdio(t.Context(), inR, outW); outW.Close() }()

	lines := bufio.NewScanner(outR)
	lines.Buffer(nil, 1<<20)
	send := func(msg string) {
		t.Helper()
		if _, err := io.WriteString(inW, msg+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	// reply reads lines until the response with id, skipping notifications.
	reply := func(id int) map[string]any {
		t.Helper()
		for lines.Scan() {
			var m map[string]any
			if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
				t.Fatalf("stdout line %q: %v", lines.Text(), err)
			}
			if got, ok := m["id"].(float64); ok && int(got) == id {
				return m
			}
		}
		t.Fatalf("no response %d on stdout: %v", id, lines.Err())
		return nil
	}

	send(initializeBody)
	init := reply(1)
	if got := jsonRoundTrip(t, init["result"].(map[string]any)["serverInfo"]); !cmp.Equal(got, map[string]any{"name": "wisp-test", "version": "1.2.3"}) {
		t.Errorf("serverInfo = %v", got)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"respond","arguments":{"prompt":"hi","thread_id":"s1"}}}`)
	got := reply(2)
	want := map[string]any{
		"jsonrpc": "2.0",
		"id":      float64(2),
		"result": map[string]any{
			"content":           []any{map[string]any{"type": "text", "text": "over stdio\n\nthread: s1"}},
			"structuredContent": map[string]any{"reply": "over stdio", "thread_id": "s1", "turn": float64(1)},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tools/call (-want +got):\n%s", diff)
	}

	inW.Close()
	if err := receive(t, done, "ServeStdio returning"); err != nil {
		t.Errorf("ServeStdio = %v, want nil when input ends", err)
	}
}
