package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/models/openai"
	"github.com/wisp-agent/wisp/models/openai/openaitest"
)

const testModel = "mlx-community/test-4bit"

func ptr[T any](v T) *T { return &v }

// chat runs one Chat against srv and returns its answer, the deltas it
// streamed and its error.
func chat(t *testing.T, url string, opts *openai.Options, model string, req wisp.ChatRequest) (wisp.ChatResponse, []wisp.ChatDelta, error) {
	t.Helper()
	c, err := openai.New(url, opts)
	if err != nil {
		t.Fatalf("New(%q) = %v", url, err)
	}
	var deltas []wisp.ChatDelta
	resp, err := c.ChatModel(model).Chat(context.Background(), req, func(d wisp.ChatDelta) { deltas = append(deltas, d) })
	return resp, deltas, err
}

func TestChat(t *testing.T) {
	hi := []wisp.Message{{Role: wisp.RoleUser, Content: "hi"}}
	wireHi := []openaitest.Message{{Role: "user", Content: ptr("hi")}}
	tests := []struct {
		name       string
		model      string
		reply      openaitest.Reply
		unstreamed bool
		req        wisp.ChatRequest
		want       wisp.ChatResponse
		wantDeltas []wisp.ChatDelta
		wantReq    openaitest.Request
	}{{
		name:  "plain",
		model: testModel,
		reply: openaitest.Reply{Content: "Hello there, friend."},
		req:   wisp.ChatRequest{Messages: hi},
		want:  wisp.ChatResponse{Message: wisp.Message{Role: wisp.RoleAssistant, Content: "Hello there, friend."}},
		wantDeltas: []wisp.ChatDelta{
			{Content: "Hello "}, {Content: "there, "}, {Content: "friend."},
		},
		wantReq: openaitest.Request{Model: testModel, Stream: true, Messages: wireHi},
	}, {
		name:  "reasoning apart",
		model: testModel,
		reply: openaitest.Reply{Reasoning: "six times seven", Content: "42"},
		req:   wisp.ChatRequest{Messages: hi},
		want: wisp.ChatResponse{
			Message:  wisp.Message{Role: wisp.RoleAssistant, Content: "42"},
			Thinking: "six times seven",
		},
		wantDeltas: []wisp.ChatDelta{
			{Thinking: "six "}, {Thinking: "times "}, {Thinking: "seven"}, {Content: "42"},
		},
		wantReq: openaitest.Request{Model: testModel, Stream: true, Messages: wireHi},
	}, {
		name:  "one tool call with arguments split across chunks",
		model: testModel,
		reply: openaitest.Reply{ToolCalls: []openaitest.ToolCall{{Name: "read_file", Arguments: `{"path": "notes/ünïcode.txt", "lines": 20}`}}},
		req:   wisp.ChatRequest{Messages: hi},
		want: wisp.ChatResponse{Message: wisp.Message{Role: wisp.RoleAssistant, ToolCalls: []wisp.ToolCall{
			{ID: "call_1", Name: "read_file", Arguments: json.RawMessage(`{"path": "notes/ünïcode.txt", "lines": 20}`)},
		}}},
		wantReq: openaitest.Request{Model: testModel, Stream: true, Messages: wireHi},
	}, {
		name:  "content then two tool calls interleaved by index",
		model: testModel,
		reply: openaitest.Reply{Content: "Reading both.", ToolCalls: []openaitest.ToolCall{
			{Name: "read_file", Arguments: `{"path": "a.txt"}`},
			{ID: "fixed-id", Name: "list_dir", Arguments: `{"dir": "notes", "depth": 2}`},
		}},
		req: wisp.ChatRequest{Messages: hi},
		want: wisp.ChatResponse{Message: wisp.Message{Role: wisp.RoleAssistant, Content: "Reading both.", ToolCalls: []wisp.ToolCall{
			{ID: "call_1", Name: "read_file", Arguments: json.RawMessage(`{"path": "a.txt"}`)},
			{ID: "fixed-id", Name: "list_dir", Arguments: json.RawMessage(`{"dir": "notes", "depth": 2}`)},
		}}},
		wantDeltas: []wisp.ChatDelta{{Content: "Reading "}, {Content: "both."}},
		wantReq:    openaitest.Request{Model: testModel, Stream: true, Messages: wireHi},
	}, {
		name:  "arguments that are not JSON kept as a JSON string",
		model: testModel,
		reply: openaitest.Reply{ToolCalls: []openaitest.ToolCall{{Name: "read_file", Arguments: `{"path": "a.txt"`}, {Name: "now", Arguments: ""}}},
		req:   wisp.ChatRequest{Messages: hi},
		want: wisp.ChatResponse{Message: wisp.Message{Role: wisp.RoleAssistant, ToolCalls: []wisp.ToolCall{
			{ID: "call_1", Name: "read_file", Arguments: json.RawMessage(`"{\"path\": \"a.txt\""`)},
			{ID: "call_2", Name: "now", Arguments: json.RawMessage(`{}`)},
		}}},
		wantReq: openaitest.Request{Model: testModel, Stream: true, Messages: wireHi},
	}, {
		name:  "tool results in history",
		model: testModel,
		reply: openaitest.Reply{Content: "It says hello."},
		req: wisp.ChatRequest{Messages: []wisp.Message{
			{Role: wisp.RoleSystem, Content: "Be brief."},
			{Role: wisp.RoleUser, Content: "What does a.txt say?"},
			{Role: wisp.RoleAssistant, ToolCalls: []wisp.ToolCall{
				{ID: "call_9", Name: "read_file", Arguments: json.RawMessage(`{"path":"a.txt"}`)},
				{ID: "call_10", Name: "now"},
				{ID: "call_11", Name: "read_file", Arguments: json.RawMessage(`{"path": "a`)},
			}},
			{Role: wisp.RoleTool, ToolCallID: "call_9", Name: "read_file", Content: "hello"},
			{Role: wisp.RoleTool, ToolCallID: "call_10", Name: "now", Content: ""},
		}},
		want:       wisp.ChatResponse{Message: wisp.Message{Role: wisp.RoleAssistant, Content: "It says hello."}},
		wantDeltas: []wisp.ChatDelta{{Content: "It "}, {Content: "says "}, {Content: "hello."}},
		wantReq: openaitest.Request{Model: testModel, Stream: true, Messages: []openaitest.Message{
			{Role: "system", Content: ptr("Be brief.")},
			{Role: "user", Content: ptr("What does a.txt say?")},
			{Role: "assistant", Content: ptr(""), ToolCalls: []openaitest.WireCall{
				{ID: "call_9", Type: "function", Function: openaitest.Function{Name: "read_file", Arguments: `{"path":"a.txt"}`}},
				{ID: "call_10", Type: "function", Function: openaitest.Function{Name: "now", Arguments: `{}`}},
				{ID: "call_11", Type: "function", Function: openaitest.Function{Name: "read_file", Arguments: `"{\"path\": \"a"`}},
			}},
			{Role: "tool", ToolCallID: "call_9", Name: "read_file", Content: ptr("hello")},
			{Role: "tool", ToolCallID: "call_10", Name: "now", Content: ptr("")},
		}},
	}, {
		name:  "tools sent with parameters",
		reply: openaitest.Reply{Content: "ok"},
		req: wisp.ChatRequest{Messages: hi, Tools: []wisp.ToolSpec{
			{Name: "read_file", Description: "Read a file.", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
			{Name: "now", Description: "The time."},
		}},
		want:       wisp.ChatResponse{Message: wisp.Message{Role: wisp.RoleAssistant, Content: "ok"}},
		wantDeltas: []wisp.ChatDelta{{Content: "ok"}},
		wantReq: openaitest.Request{Stream: true, Messages: wireHi, Tools: []openaitest.Tool{
			{Type: "function", Function: openaitest.ToolFunction{Name: "read_file", Description: "Read a file.",
				Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}},
			{Type: "function", Function: openaitest.ToolFunction{Name: "now", Description: "The time.",
				Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}},
		}},
	}, {
		name:       "a server that ignores stream",
		model:      testModel,
		unstreamed: true,
		reply: openaitest.Reply{Reasoning: "look first", Content: "Reading it.", ToolCalls: []openaitest.ToolCall{
			{Name: "read_file", Arguments: `{"path": "a.txt"}`},
			{Name: "read_file", Arguments: `{"path": "b.txt"}`},
		}},
		req: wisp.ChatRequest{Messages: hi},
		want: wisp.ChatResponse{
			Message: wisp.Message{Role: wisp.RoleAssistant, Content: "Reading it.", ToolCalls: []wisp.ToolCall{
				{ID: "call_1", Name: "read_file", Arguments: json.RawMessage(`{"path": "a.txt"}`)},
				{ID: "call_2", Name: "read_file", Arguments: json.RawMessage(`{"path": "b.txt"}`)},
			}},
			Thinking: "look first",
		},
		wantDeltas: []wisp.ChatDelta{{Content: "Reading it.", Thinking: "look first"}},
		wantReq:    openaitest.Request{Model: testModel, Stream: true, Messages: wireHi},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := openaitest.NewServer(t, tt.reply)
			srv.Unstreamed(tt.unstreamed)
			got, deltas, err := chat(t, srv.URL, nil, tt.model, tt.req)
			if err != nil {
				t.Fatalf("Chat = %v", err)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Chat answer (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantDeltas, deltas, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("streamed deltas (-want +got):\n%s", diff)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("server got %d requests, want 1", len(reqs))
			}
			if diff := cmp.Diff(tt.wantReq, reqs[0], cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
		})
	}
}

func TestChatOptions(t *testing.T) {
	hi := wisp.ChatRequest{Messages: []wisp.Message{{Role: wisp.RoleUser, Content: "hi"}}}
	tests := []struct {
		name      string
		opts      *openai.Options
		wantAuth  string
		wantLimit *int
	}{
		{name: "nil options", opts: nil},
		{name: "API key and max tokens", opts: &openai.Options{APIKey: "k-123", MaxTokens: 4096}, wantAuth: "Bearer k-123", wantLimit: ptr(4096)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := openaitest.NewServer(t, openaitest.Reply{Content: "ok"})
			if _, _, err := chat(t, srv.URL, tt.opts, testModel, hi); err != nil {
				t.Fatal(err)
			}
			got := srv.Requests()[0]
			if got.Authorization != tt.wantAuth {
				t.Errorf("Authorization = %q, want %q", got.Authorization, tt.wantAuth)
			}
			if diff := cmp.Diff(tt.wantLimit, got.MaxTokens); diff != "" {
				t.Errorf("max_tokens (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := openai.New("", &openai.Options{MaxTokens: -1}); err == nil {
		t.Errorf("New with MaxTokens -1 succeeded; want an error")
	}
}

// closedURL returns the URL of a port nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	l.Close()
	return url
}

// rawServer answers chat requests with body as it is.
func rawServer(t *testing.T, contentType, body string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestChatFailures(t *testing.T) {
	hi := wisp.ChatRequest{Messages: []wisp.Message{{Role: wisp.RoleUser, Content: "hi"}}}
	const chunk = `data: {"choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}` + "\n\n"
	tests := []struct {
		name string
		// setup returns the server's URL and what the line says of it.
		setup      func(t *testing.T) (url, shown string)
		want       string // the error line; {url} stands for the server's URL
		wantIs     error
		wantStatus int
		wantAnswer wisp.ChatResponse
	}{{
		name:   "server down",
		setup:  func(t *testing.T) (string, string) { u := closedURL(t); return u, u },
		want:   `the MLX server is not answering at {url} (connection refused); start it with "mlx_lm.server --model PATH", or set WISP_MLX_URL`,
		wantIs: openai.ErrUnreachable,
	}, {
		name: "HTTP error with its message",
		setup: func(t *testing.T) (string, string) {
			srv := openaitest.NewServer(t)
			srv.Fail(http.StatusInternalServerError)
			return srv.URL, srv.URL
		},
		want:       `the MLX server at {url} failed on /v1/chat/completions (HTTP 500: openaitest: chat failed as told (500)); see the mlx_lm.server log`,
		wantStatus: 500,
	}, {
		name: "no reply left",
		setup: func(t *testing.T) (string, string) {
			srv := openaitest.NewServer(t)
			return srv.URL, srv.URL
		},
		want:       `the MLX server at {url} failed on /v1/chat/completions (HTTP 500: openaitest: no reply left for request 1); see the mlx_lm.server log`,
		wantStatus: 500,
	}, {
		name: "HTTP error in OpenAI's shape",
		setup: func(t *testing.T) (string, string) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"error": {"message": "model  not\nfound", "type": "invalid_request_error"}}`))
			}))
			t.Cleanup(srv.Close)
			return srv.URL, srv.URL
		},
		want:       `the MLX server at {url} failed on /v1/chat/completions (HTTP 400: model not found); see the mlx_lm.server log`,
		wantStatus: 400,
	}, {
		name: "refused key",
		setup: func(t *testing.T) (string, string) {
			srv := openaitest.NewServer(t)
			srv.Fail(http.StatusUnauthorized)
			return srv.URL, srv.URL
		},
		want:       `the MLX server at {url} failed on /v1/chat/completions (HTTP 401: openaitest: chat failed as told (401)); check the API key the server expects`,
		wantStatus: 401,
	}, {
		name: "wrong path",
		setup: func(t *testing.T) (string, string) {
			srv := openaitest.NewServer(t)
			return srv.URL + "/elsewhere", srv.URL + "/elsewhere"
		},
		want:       `the MLX server at {url} failed on /v1/chat/completions (HTTP 404: Not Found); check that WISP_MLX_URL points at mlx_lm.server`,
		wantStatus: 404,
	}, {
		name: "stream cut before finish_reason",
		setup: func(t *testing.T) (string, string) {
			srv := openaitest.NewServer(t, openaitest.Reply{Content: "Hello there", ToolCalls: []openaitest.ToolCall{{Name: "x", Arguments: `{"a": 1}`}}})
			srv.Truncate(true)
			return srv.URL, srv.URL
		},
		want:   `the MLX server at {url} broke off its answer on /v1/chat/completions (the answer ended before it was finished); see the mlx_lm.server log`,
		wantIs: openai.ErrIncomplete,
	}, {
		name: "stream cut mid-event",
		setup: func(t *testing.T) (string, string) {
			u := rawServer(t, "text/event-stream", chunk+`data: {"choices":[{"index":0,"delta":{"content":"lo"},"fin`)
			return u, u
		},
		want:   `the MLX server at {url} broke off its answer on /v1/chat/completions (the answer ended before it was finished); see the mlx_lm.server log`,
		wantIs: openai.ErrIncomplete,
	}, {
		name: "empty answer",
		setup: func(t *testing.T) (string, string) {
			u := rawServer(t, "text/event-stream", "")
			return u, u
		},
		want:   `the MLX server at {url} broke off its answer on /v1/chat/completions (the answer ended before it was finished); see the mlx_lm.server log`,
		wantIs: openai.ErrIncomplete,
	}, {
		name: "[DONE] without finish_reason",
		setup: func(t *testing.T) (string, string) {
			u := rawServer(t, "text/event-stream", chunk+"data: [DONE]\n\n")
			return u, u
		},
		want:   `the MLX server at {url} ended its answer on /v1/chat/completions without a finish_reason (the answer ended before it was finished); see the mlx_lm.server log`,
		wantIs: openai.ErrIncomplete,
	}, {
		name: "garbage, not SSE",
		setup: func(t *testing.T) (string, string) {
			srv := openaitest.NewServer(t, openaitest.Reply{Content: "hi"})
			srv.Garbage(true)
			return srv.URL, srv.URL
		},
		want: `the MLX server at {url} answered /v1/chat/completions with something that is not an OpenAI-style answer ` +
			`(line "<html><body>It works!</body></html>" is not a server-sent event); check that WISP_MLX_URL points at mlx_lm.server`,
	}, {
		name: "garbage, data not JSON",
		setup: func(t *testing.T) (string, string) {
			u := rawServer(t, "text/event-stream", "data: hello\n\n")
			return u, u
		},
		want: `the MLX server at {url} answered /v1/chat/completions with something that is not an OpenAI-style answer ` +
			`(data "hello": invalid character 'h' looking for beginning of value); check that WISP_MLX_URL points at mlx_lm.server`,
	}, {
		name: "garbage, JSON without a message",
		setup: func(t *testing.T) (string, string) {
			u := rawServer(t, "application/json", `{"object": "list", "data": []}`)
			return u, u
		},
		want: `the MLX server at {url} answered /v1/chat/completions with something that is not an OpenAI-style answer ` +
			`(no choices[0].message); check that WISP_MLX_URL points at mlx_lm.server`,
	}, {
		name: "error mid-stream",
		setup: func(t *testing.T) (string, string) {
			u := rawServer(t, "text/event-stream", chunk+`data: {"error": {"message": "out of memory"}}`+"\n\n")
			return u, u
		},
		want: `the MLX server at {url} failed mid-answer on /v1/chat/completions (out of memory); see the mlx_lm.server log`,
	}, {
		name: "connection closed without an answer",
		setup: func(t *testing.T) (string, string) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				conn, _, err := w.(http.Hijacker).Hijack()
				if err == nil {
					conn.Close()
				}
			}))
			t.Cleanup(srv.Close)
			return srv.URL, srv.URL
		},
		want: `the MLX server at {url} dropped the request on /v1/chat/completions without answering (connection closed); see the mlx_lm.server log`,
	}, {
		name: "token limit",
		setup: func(t *testing.T) (string, string) {
			srv := openaitest.NewServer(t, openaitest.Reply{Reasoning: "so long", Content: "The answer is", FinishReason: "length"})
			return srv.URL, srv.URL
		},
		want:   `the model "mlx-community/test-4bit" stopped at the token limit (finish_reason "length": the answer reached the token limit); raise Options.MaxTokens (mlx_lm.server's own default is 512 tokens)`,
		wantIs: openai.ErrTokenLimit,
		wantAnswer: wisp.ChatResponse{
			Message:  wisp.Message{Role: wisp.RoleAssistant, Content: "The answer is"},
			Thinking: "so long",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, shown := tt.setup(t)
			got, _, err := chat(t, url, nil, testModel, hi)
			if err == nil {
				t.Fatalf("Chat = %+v, nil; want an error", got)
			}
			if want := strings.ReplaceAll(tt.want, "{url}", shown); err.Error() != want {
				t.Errorf("Chat error =\n%s\nwant\n%s", err, want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("Chat error %q is not one line", err)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("errors.Is(%v, %v) = false", err, tt.wantIs)
			}
			var se *openai.StatusError
			if errors.As(err, &se) != (tt.wantStatus != 0) || (se != nil && se.StatusCode != tt.wantStatus) {
				t.Errorf("errors.As(%v, *StatusError) = %+v, want status %d", err, se, tt.wantStatus)
			}
			if diff := cmp.Diff(tt.wantAnswer, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("answer with the error (-want +got):\n%s", diff)
			}
		})
	}
}

func TestChatBadSchema(t *testing.T) {
	srv := openaitest.NewServer(t)
	req := wisp.ChatRequest{Tools: []wisp.ToolSpec{{Name: "bad", Schema: json.RawMessage(`{"type":`)}}}
	_, _, err := chat(t, srv.URL, nil, testModel, req)
	const want = `openai: the schema of tool "bad" is not valid JSON; fix the tool's Schema`
	if err == nil || err.Error() != want {
		t.Errorf("Chat with a bad schema = %v, want %s", err, want)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("server got %d requests, want none", n)
	}
}

func TestChatCancel(t *testing.T) {
	hi := wisp.ChatRequest{Messages: []wisp.Message{{Role: wisp.RoleUser, Content: "hi"}}}
	stopped := errors.New("the person stopped the turn")
	tests := []struct {
		name string
		// cancelAt is the delta at which the stream cancels ctx; "" means
		// another goroutine cancels once the last delta has arrived and
		// Chat waits on the held stream.
		cancelAt string
		wantN    int // the deltas streamed
	}{
		{name: "from the stream callback", cancelAt: "two ", wantN: 2},
		{name: "while waiting on the stream", wantN: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := openaitest.NewServer(t, openaitest.Reply{Content: "one two three"})
			srv.Hold(true)
			c, err := openai.New(srv.URL, nil)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			var n int
			last := make(chan struct{})
			go func() {
				<-last
				cancel(stopped)
			}()
			resp, err := c.ChatModel(testModel).Chat(ctx, hi, func(d wisp.ChatDelta) {
				n++
				switch {
				case tt.cancelAt != "" && d.Content == tt.cancelAt:
					cancel(stopped)
				case tt.cancelAt == "" && d.Content == "three":
					close(last)
				}
			})
			if err != stopped {
				t.Errorf("Chat = %+v, %v; want %v", resp, err, stopped)
			}
			if n != tt.wantN {
				t.Errorf("Chat streamed %d deltas, want %d", n, tt.wantN)
			}
		})
	}

	t.Run("before the request", func(t *testing.T) {
		srv := openaitest.NewServer(t, openaitest.Reply{Content: "hi"})
		c, err := openai.New(srv.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(stopped)
		if _, err := c.ChatModel(testModel).Chat(ctx, hi, nil); err != stopped {
			t.Errorf("Chat = %v, want %v", err, stopped)
		}
		if n := len(srv.Requests()); n != 0 {
			t.Errorf("server got %d requests, want none", n)
		}
	})
}
