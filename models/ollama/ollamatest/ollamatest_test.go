package ollamatest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"

	"github.com/wisp-agent/wisp/models/ollama/ollamatest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

var (
	qwen = ollamatest.Model{
		Name: "qwen3:4b", Size: 2_497_293_931, Family: "qwen3", ParameterSize: "4.0B",
		Quantization: "Q4_K_M", ContextLength: 40960, Capabilities: []string{"completion", "tools", "thinking"},
		License: "Apache License\nVersion 2.0", Template: "{{ .Prompt }}", ChatReply: "Hi there, friend.",
	}
	gemma = ollamatest.Model{Name: "gemma3:latest", Size: 3_338_801_804, Family: "gemma3", ParameterSize: "4.3B", Quantization: "Q4_K_M"}
	embed = ollamatest.Model{Name: "nomic-embed-text:latest", Size: 274_302_450, Family: "nomic-bert", Capabilities: []string{"embedding"}}
)

// client is Ollama's own client pointed at s, so these tests prove that it
// decodes what the fake sends.
func client(t *testing.T, s *ollamatest.Server) *api.Client {
	t.Helper()
	t.Setenv("OLLAMA_AUTH", "false") // Ollama's client would otherwise sign requests.
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	return api.NewClient(u, http.DefaultClient)
}

// The wire form of every answer is pinned: field names are Ollama's.
func TestWireGolden(t *testing.T) {
	tests := []struct {
		name, method, path, body string
		listCaps                 bool
	}{
		{name: "root", method: "GET", path: "/"},
		{name: "version", method: "GET", path: "/api/version"},
		{name: "tags", method: "GET", path: "/api/tags"},
		{name: "tags_capabilities", method: "GET", path: "/api/tags", listCaps: true},
		{name: "show", method: "POST", path: "/api/show", body: `{"model":"qwen3:4b"}`},
		{name: "show_missing", method: "POST", path: "/api/show", body: `{"model":"nope"}`},
		{name: "chat_stream", method: "POST", path: "/api/chat", body: `{"model":"qwen3:4b","messages":[{"role":"user","content":"hi"}]}`},
		{name: "chat_num_predict", method: "POST", path: "/api/chat", body: `{"model":"qwen3:4b","messages":[{"role":"user","content":"hi"}],"options":{"num_predict":1}}`},
		{name: "chat_nostream", method: "POST", path: "/api/chat", body: `{"model":"qwen3:4b","messages":[{"role":"user","content":"hi"}],"stream":false}`},
		{name: "chat_missing", method: "POST", path: "/api/chat", body: `{"model":"nope","messages":[{"role":"user","content":"hi"}]}`},
		{name: "chat_embedding", method: "POST", path: "/api/chat", body: `{"model":"nomic-embed-text","messages":[{"role":"user","content":"hi"}]}`},
		{name: "unknown_route", method: "GET", path: "/api/nothing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ollamatest.NewServer(t, qwen, embed)
			s.ListCapabilities(tt.listCaps)
			req, err := http.NewRequest(tt.method, s.URL+tt.path, strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			got := fmt.Sprintf("%s\n%s\n\n%s", resp.Status, resp.Header.Get("Content-Type"), body)

			file := filepath.Join("testdata", tt.name+".golden")
			if *update {
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("%s %s answer (-want +got):\n%s", tt.method, tt.path, diff)
			}
		})
	}
}

// Ollama's own client reads the fake's list, show and version.
func TestOllamaClientReadsTheFake(t *testing.T) {
	s := ollamatest.NewServer(t, qwen, gemma)
	c := client(t, s)
	ctx := t.Context()

	if err := c.Heartbeat(ctx); err != nil {
		t.Errorf("Heartbeat() = %v, want nil", err)
	}
	v, err := c.Version(ctx)
	if err != nil || v != ollamatest.Version {
		t.Errorf("Version() = %q, %v, want %q, nil", v, err, ollamatest.Version)
	}

	lr, err := c.List(ctx)
	if err != nil {
		t.Fatalf("List() = %v", err)
	}
	type entry struct {
		Name, Model, Family, ParameterSize, Quantization string
		Size                                             int64
		DigestLen                                        int
	}
	var got []entry
	for _, m := range lr.Models {
		got = append(got, entry{m.Name, m.Model, m.Details.Family, m.Details.ParameterSize, m.Details.QuantizationLevel, m.Size, len(m.Digest)})
	}
	want := []entry{
		{"qwen3:4b", "qwen3:4b", "qwen3", "4.0B", "Q4_K_M", 2_497_293_931, 64},
		{"gemma3:latest", "gemma3:latest", "gemma3", "4.3B", "Q4_K_M", 3_338_801_804, 64},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("List() (-want +got):\n%s", diff)
	}

	sr, err := c.Show(ctx, &api.ShowRequest{Model: "qwen3:4b"})
	if err != nil {
		t.Fatalf("Show() = %v", err)
	}
	wantShow := &api.ShowResponse{
		License:   "Apache License\nVersion 2.0",
		Modelfile: "# Modelfile generated by \"ollama show\"\n# To build a new Modelfile based on this, replace FROM with:\n# FROM qwen3:4b\n\nFROM qwen3:4b\nTEMPLATE \"\"\"{{ .Prompt }}\"\"\"\nLICENSE \"\"\"Apache License\nVersion 2.0\"\"\"\n",
		Template:  "{{ .Prompt }}",
		Details: api.ModelDetails{
			Format: "gguf", Family: "qwen3", Families: []string{"qwen3"}, ParameterSize: "4.0B", QuantizationLevel: "Q4_K_M",
		},
		ModelInfo:    map[string]any{"general.architecture": "qwen3", "qwen3.context_length": float64(40960)},
		Capabilities: []model.Capability{"completion", "tools", "thinking"},
		ModifiedAt:   time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
	}
	if diff := cmp.Diff(wantShow, sr); diff != "" {
		t.Errorf("Show(qwen3:4b) (-want +got):\n%s", diff)
	}

	// A model given no capabilities can complete, and nothing else.
	sr, err = c.Show(ctx, &api.ShowRequest{Model: "gemma3"})
	if err != nil {
		t.Fatalf("Show(gemma3) = %v", err)
	}
	if diff := cmp.Diff([]model.Capability{"completion"}, sr.Capabilities); diff != "" {
		t.Errorf("Show(gemma3).Capabilities (-want +got):\n%s", diff)
	}

	_, err = c.Show(ctx, &api.ShowRequest{Model: "nope"})
	var se api.StatusError
	if !errors.As(err, &se) || se.StatusCode != http.StatusNotFound || se.ErrorMessage != "model 'nope' not found" {
		t.Errorf("Show(nope) = %v, want StatusError 404 \"model 'nope' not found\"", err)
	}
}

// Chat answers stream word by word and end with a message marked done;
// num_predict keeps that many words, with done_reason "length".
func TestOllamaClientChats(t *testing.T) {
	tests := []struct {
		name       string
		stream     bool
		options    map[string]any
		want       []string
		wantReason string
		wantEval   int
	}{
		{name: "stream", stream: true, want: []string{"Hi", " there,", " friend.", ""}, wantReason: "stop", wantEval: 3},
		{name: "stream num_predict 1", stream: true, options: map[string]any{"num_predict": 1}, want: []string{"Hi", ""}, wantReason: "length", wantEval: 1},
		{name: "no stream", want: []string{"Hi there, friend."}, wantReason: "stop", wantEval: 3},
		{name: "no stream num_predict 2", options: map[string]any{"num_predict": 2}, want: []string{"Hi there,"}, wantReason: "length", wantEval: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ollamatest.NewServer(t, qwen)
			c := client(t, s)
			req := &api.ChatRequest{
				Model:    "qwen3:4b",
				Messages: []api.Message{{Role: "user", Content: "say hi"}},
				Stream:   &tt.stream,
				Options:  tt.options,
			}
			var got []string
			var last api.ChatResponse
			err := c.Chat(t.Context(), req, func(r api.ChatResponse) error {
				got = append(got, r.Message.Content)
				last = r
				return nil
			})
			if err != nil {
				t.Fatalf("Chat() = %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Chat() contents (-want +got):\n%s", diff)
			}
			if !last.Done || last.DoneReason != tt.wantReason || last.Message.Role != "assistant" {
				t.Errorf("Chat() last = done %v, reason %q, role %q; want true, %q, assistant", last.Done, last.DoneReason, last.Message.Role, tt.wantReason)
			}
			if last.EvalCount != tt.wantEval || last.PromptEvalCount != 2 {
				t.Errorf("Chat() counts = eval %d, prompt %d; want %d, 2", last.EvalCount, last.PromptEvalCount, tt.wantEval)
			}
			if chats := s.Chats(); len(chats) != 1 || chats[0].Model != "qwen3:4b" || chats[0].Messages[0].Content != "say hi" {
				t.Errorf("Chats() = %+v, want the one request", chats)
			}
		})
	}
}

// rawChat posts a streamed chat and returns the lines read and the read
// error.
func rawChat(ctx context.Context, t *testing.T, s *ollamatest.Server, body string) ([]string, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, "POST", s.URL+"/api/chat", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var lines []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines, sc.Err()
}

const hi = `{"model":"qwen3:4b","messages":[{"role":"user","content":"hi"}]}`

// TruncateChat ends the stream cleanly after one chunk, with nothing done.
func TestTruncateChat(t *testing.T) {
	s := ollamatest.NewServer(t, qwen)
	s.TruncateChat(true)
	lines, err := rawChat(t.Context(), t, s, hi)
	if err != nil || len(lines) != 1 || strings.Contains(lines[0], `"done":true`) {
		t.Errorf("truncated chat = %q, %v; want one line not done, nil", lines, err)
	}
	s.TruncateChat(false)
	lines, err = rawChat(t.Context(), t, s, hi)
	if err != nil || len(lines) != 4 || !strings.Contains(lines[3], `"done":true`) {
		t.Errorf("chat after TruncateChat(false) = %q, %v; want four lines ending done", lines, err)
	}
}

// AbortChat drops the connection after one chunk.
func TestAbortChat(t *testing.T) {
	s := ollamatest.NewServer(t, qwen)
	s.AbortChat(true)
	lines, err := rawChat(t.Context(), t, s, hi)
	if !errors.Is(err, io.ErrUnexpectedEOF) || len(lines) != 1 {
		t.Errorf("aborted chat = %q, %v; want one line, unexpected EOF", lines, err)
	}
}

// HoldChat keeps the stream open after one chunk until the client goes.
func TestHoldChat(t *testing.T) {
	s := ollamatest.NewServer(t, qwen)
	s.HoldChat(true)
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	lines, err := rawChat(ctx, t, s, hi)
	if !errors.Is(err, context.DeadlineExceeded) || len(lines) != 1 {
		t.Errorf("held chat = %q, %v; want one line, then the deadline", lines, err)
	}
}

// Stopping the server ends a held chat instead of waiting for it.
func TestStopEndsHeldChat(t *testing.T) {
	s, stop := ollamatest.Start(qwen)
	s.HoldChat(true)
	req, err := http.NewRequest("POST", s.URL+"/api/chat", strings.NewReader(hi))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
		t.Fatalf("reading the first chunk: %v", err)
	}
	stopped := make(chan struct{})
	go func() { stop(); stop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("stop() did not return while a chat was held")
	}
	if _, err := http.Get(s.URL); err == nil {
		t.Error("GET / after stop() succeeded, want a connection error")
	}
}

// SetDown drops connections; Fail answers a path with a status.
func TestDownAndFail(t *testing.T) {
	s := ollamatest.NewServer(t, qwen)
	c := client(t, s)
	ctx := t.Context()

	s.SetDown(true)
	if _, err := c.List(ctx); err == nil {
		t.Error("List() while down = nil error, want one")
	}
	s.SetDown(false)
	if _, err := c.List(ctx); err != nil {
		t.Errorf("List() after SetDown(false) = %v", err)
	}

	s.Fail("/api/show", http.StatusInternalServerError)
	_, err := c.Show(ctx, &api.ShowRequest{Model: "qwen3:4b"})
	var se api.StatusError
	if !errors.As(err, &se) || se.StatusCode != 500 || se.ErrorMessage != "internal server error" {
		t.Errorf("Show() while failing = %v, want StatusError 500", err)
	}
	if _, err := c.List(ctx); err != nil {
		t.Errorf("List() while /api/show fails = %v, want nil", err)
	}
	s.Fail("/api/show", 0)
	if _, err := c.Show(ctx, &api.ShowRequest{Model: "qwen3:4b"}); err != nil {
		t.Errorf("Show() after Fail(0) = %v", err)
	}

	want := []string{"GET /api/tags", "GET /api/tags", "POST /api/show", "GET /api/tags", "POST /api/show"}
	if diff := cmp.Diff(want, s.Requests()); diff != "" {
		t.Errorf("Requests() (-want +got):\n%s", diff)
	}
}

// A chat with no messages loads the model, as Ollama's does.
func TestChatWithoutMessagesLoads(t *testing.T) {
	s := ollamatest.NewServer(t, qwen)
	resp, err := http.Post(s.URL+"/api/chat", "application/json", strings.NewReader(`{"model":"qwen3:4b"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got api.ChatResponse
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if !got.Done || got.DoneReason != "load" {
		t.Errorf("chat without messages = done %v, reason %q; want true, load", got.Done, got.DoneReason)
	}
}

// A request that is not JSON is refused with Ollama's error shape.
func TestBadRequest(t *testing.T) {
	s := ollamatest.NewServer(t, qwen)
	for _, path := range []string{"/api/show", "/api/chat"} {
		resp, err := http.Post(s.URL+path, "application/json", bytes.NewBufferString("{"))
		if err != nil {
			t.Fatal(err)
		}
		var e struct{ Error string }
		json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		if resp.StatusCode != 400 || e.Error == "" {
			t.Errorf("POST %s {: %d %q, want 400 with an error", path, resp.StatusCode, e.Error)
		}
	}
}
