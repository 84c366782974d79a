package ollamatest_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ollama/ollama/api"

	"github.com/wisp-agent/wisp/models/ollama/ollamatest"
)

// scripted is a model with a dialogue: thinking and two tool calls, then
// an answer.
func scripted() ollamatest.Model {
	m := qwen
	m.Replies = []ollamatest.Reply{
		{Thinking: "Need the time.", Content: "Looking.", ToolCalls: []ollamatest.ToolCall{
			{ID: "call_a", Name: "get_time", Arguments: `{"tz":"UTC","verbose":true}`},
			{Name: "get_date"},
		}},
		{Content: "It is noon."},
	}
	return m
}

// The wire form of scripted replies is pinned: thinking, content, tool
// calls in one chunk, then done; "think": false leaves the thinking out.
func TestRepliesWireGolden(t *testing.T) {
	tests := []struct{ name, body string }{
		{name: "chat_script", body: `{"model":"qwen3:4b","messages":[{"role":"user","content":"hi"}]}`},
		{name: "chat_script_nothink", body: `{"model":"qwen3:4b","messages":[{"role":"user","content":"hi"}],"think":false}`},
		{name: "chat_script_nostream", body: `{"model":"qwen3:4b","messages":[{"role":"user","content":"hi"}],"stream":false}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ollamatest.NewServer(t, scripted())
			resp, err := http.Post(s.URL+"/api/chat", "application/json", strings.NewReader(tt.body))
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
				t.Errorf("POST /api/chat %s (-want +got):\n%s", tt.body, diff)
			}
		})
	}
}

// Ollama's own client reads the scripted replies in turn, then ChatReply;
// Rewind starts them again.
func TestRepliesInTurn(t *testing.T) {
	s := ollamatest.NewServer(t, scripted())
	c := client(t, s)
	type answer struct {
		Thinking, Content string
		Calls             []string
	}
	chat := func() answer {
		t.Helper()
		var a answer
		err := c.Chat(t.Context(), &api.ChatRequest{Model: "qwen3:4b", Messages: []api.Message{{Role: "user", Content: "hi"}}}, func(r api.ChatResponse) error {
			a.Thinking += r.Message.Thinking
			a.Content += r.Message.Content
			for _, tc := range r.Message.ToolCalls {
				a.Calls = append(a.Calls, fmt.Sprintf("%d %s %s %s", tc.Function.Index, tc.ID, tc.Function.Name, tc.Function.Arguments.String()))
			}
			return nil
		})
		if err != nil {
			t.Fatalf("Chat() = %v", err)
		}
		return a
	}
	first := answer{Thinking: "Need the time.", Content: "Looking.", Calls: []string{
		`0 call_a get_time {"tz":"UTC","verbose":true}`, `1  get_date {}`,
	}}
	want := []answer{first, {Content: "It is noon."}, {Content: "Hi there, friend."}, {Content: "Hi there, friend."}}
	var got []answer
	for range want {
		got = append(got, chat())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
	s.Rewind()
	if diff := cmp.Diff(first, chat()); diff != "" {
		t.Errorf("answer after Rewind (-want +got):\n%s", diff)
	}
}

// Garbage sends a line that is not JSON after the first chunk; StreamError
// sends Ollama's error line there. Both end the answer; off, they are gone.
func TestGarbageAndStreamError(t *testing.T) {
	tests := []struct {
		name string
		set  func(s *ollamatest.Server, on bool)
		want string
	}{
		{name: "garbage", set: func(s *ollamatest.Server, on bool) { s.Garbage(on) }, want: "<html><body>It works!</body></html>"},
		{
			name: "stream error",
			set: func(s *ollamatest.Server, on bool) {
				msg := ""
				if on {
					msg = "model runner has unexpectedly stopped"
				}
				s.StreamError(msg)
			},
			want: `{"error":"model runner has unexpectedly stopped"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ollamatest.NewServer(t, qwen)
			tt.set(s, true)
			lines, err := rawChat(t.Context(), t, s, hi)
			if err != nil || len(lines) != 2 || lines[1] != tt.want {
				t.Errorf("chat = %q, %v; want a chunk, then %s", lines, err, tt.want)
			}
			tt.set(s, false)
			lines, err = rawChat(t.Context(), t, s, hi)
			if err != nil || len(lines) != 4 || !strings.Contains(lines[3], `"done":true`) {
				t.Errorf("chat after switching off = %q, %v; want four lines ending done", lines, err)
			}
		})
	}
}

// A scripted tool call whose arguments are not an object fails the
// request with status 500 and says which.
func TestRepliesBadArguments(t *testing.T) {
	m := qwen
	m.Replies = []ollamatest.Reply{{ToolCalls: []ollamatest.ToolCall{{Name: "x", Arguments: `[1]`}}}}
	s := ollamatest.NewServer(t, m)
	resp, err := http.Post(s.URL+"/api/chat", "application/json", strings.NewReader(hi))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var e struct{ Error string }
	if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 500 || !strings.HasPrefix(e.Error, "ollamatest: reply 1 of qwen3:4b: the arguments of tool call 1 (x) are not a JSON object") {
		t.Errorf("chat = %d %q, want 500 naming reply 1's call", resp.StatusCode, e.Error)
	}
}
