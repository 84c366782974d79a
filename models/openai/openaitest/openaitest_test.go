package openaitest_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp/models/openai/openaitest"
)

func TestServerRefuses(t *testing.T) {
	tests := []struct {
		name       string
		body       io.Reader
		wantStatus int
		wantBody   string
	}{
		{name: "unknown field", body: bytes.NewReader([]byte(`{"messages": [], "stream": true, "temprature": 1}`)),
			wantStatus: 400, wantBody: `{"error":"Invalid JSON in request body: json: unknown field \"temprature\""}`},
		{name: "no Content-Length", body: io.MultiReader(strings.NewReader(`{"messages": []}`)),
			wantStatus: 411, wantBody: `{"error":"openaitest: the request has no Content-Length"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := openaitest.NewServer(t, openaitest.Reply{Content: "hi"})
			resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", tt.body)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.wantStatus || strings.TrimSpace(string(b)) != tt.wantBody {
				t.Errorf("POST = %d %s, want %d %s", resp.StatusCode, b, tt.wantStatus, tt.wantBody)
			}
		})
	}
}

func TestServerStream(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Reply{Content: "a b", ToolCalls: []openaitest.ToolCall{{Name: "f", Arguments: `{"k":1}`}}})
	resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m","messages":[],"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	chunk := func(delta, finish string) string {
		return `data: {"choices":[{"delta":` + delta + `,"finish_reason":` + finish + `,"index":0}],"created":0,"id":"chatcmpl-1","model":"m","object":"chat.completion.chunk"}` + "\n\n"
	}
	want := ": keepalive 1/1\n\n" +
		chunk(`{"content":"","role":"assistant"}`, "null") +
		chunk(`{"content":"a "}`, "null") +
		chunk(`{"content":"b"}`, "null") +
		chunk(`{"tool_calls":[{"function":{"arguments":"","name":"f"},"id":"call_1","index":0,"type":"function"}]}`, "null") +
		chunk(`{"tool_calls":[{"function":{"arguments":"{\"k\""},"index":0}]}`, "null") +
		chunk(`{"tool_calls":[{"function":{"arguments":":1}"},"index":0}]}`, "null") +
		chunk(`{}`, `"tool_calls"`) +
		"data: [DONE]\n\n"
	if diff := cmp.Diff(want, string(b)); diff != "" {
		t.Errorf("stream (-want +got):\n%s", diff)
	}
	if got := resp.Header.Get("Content-Type"); got != "text/event-stream" {
		t.Errorf("Content-Type = %q, want text/event-stream", got)
	}
}
