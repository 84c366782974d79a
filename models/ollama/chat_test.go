package ollama_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/ollama/ollama/api"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/models"
	"github.com/wisp-agent/wisp/models/ollama"
	"github.com/wisp-agent/wisp/models/ollama/ollamatest"
)

// argsAsMap lets go-cmp compare Ollama's tool calls, whose arguments hold
// an unexported ordered map.
var argsAsMap = cmp.Transformer("args", func(a api.ToolCallFunctionArguments) map[string]any { return a.ToMap() })

// args builds Ollama tool-call arguments from a JSON object.
func args(t *testing.T, s string) api.ToolCallFunctionArguments {
	t.Helper()
	a := api.NewToolCallFunctionArguments()
	if err := a.UnmarshalJSON([]byte(s)); err != nil {
		t.Fatal(err)
	}
	return a
}

// chatter returns a Chat on qwen3:4b, which speaks the given replies, and
// the fake behind it.
func chatter(t *testing.T, opts *ollama.ChatOptions, replies ...ollamatest.Reply) (*ollama.Chat, *ollamatest.Server) {
	t.Helper()
	m := qwen
	m.Replies = replies
	b, s := backend(t, m)
	return b.ChatModel("qwen3:4b", opts), s
}

func hello(text string) wisp.ChatRequest {
	return wisp.ChatRequest{Messages: []wisp.Message{{Role: wisp.RoleUser, Content: text}}}
}

// What Chat sends for each shape of conversation, what it streams, and
// the message it returns.
func TestChatShapes(t *testing.T) {
	user := api.Message{Role: "user", Content: "what time is it?"}
	echo := wisp.ToolSpec{
		Name:        "get_time",
		Description: "The current time in a zone.",
		Schema: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["tz"],"properties":{
			"tz":{"type":"string","description":"IANA zone","format":"iana"},
			"verbose":{"type":["boolean","null"]},
			"unit":{"enum":["s","ms"]}}}`),
	}
	tests := []struct {
		name       string
		replies    []ollamatest.Reply
		req        wisp.ChatRequest
		wantSent   []api.Message
		wantTools  string // the JSON of the tools the fake received; "" for none
		wantDeltas []wisp.ChatDelta
		want       wisp.ChatResponse
	}{
		{
			name:       "a plain reply, streamed word by word",
			replies:    []ollamatest.Reply{{Content: "It is noon."}},
			req:        hello("what time is it?"),
			wantSent:   []api.Message{user},
			wantDeltas: []wisp.ChatDelta{{Content: "It"}, {Content: " is"}, {Content: " noon."}},
			want:       wisp.ChatResponse{Message: wisp.Message{Role: wisp.RoleAssistant, Content: "It is noon."}},
		},
		{
			name:       "thinking kept apart from the reply",
			replies:    []ollamatest.Reply{{Thinking: "Check the clock.", Content: "Noon."}},
			req:        hello("what time is it?"),
			wantSent:   []api.Message{user},
			wantDeltas: []wisp.ChatDelta{{Thinking: "Check"}, {Thinking: " the"}, {Thinking: " clock."}, {Content: "Noon."}},
			want: wisp.ChatResponse{
				Message:  wisp.Message{Role: wisp.RoleAssistant, Content: "Noon."},
				Thinking: "Check the clock.",
			},
		},
		{
			name: "a tool call keeps its id and its arguments in order",
			replies: []ollamatest.Reply{{ToolCalls: []ollamatest.ToolCall{
				{ID: "call_x7", Name: "get_time", Arguments: `{"tz":"Europe/Paris","verbose":true,"n":3,"a":null}`},
			}}},
			req:      hello("what time is it?"),
			wantSent: []api.Message{user},
			want: wisp.ChatResponse{Message: wisp.Message{Role: wisp.RoleAssistant, ToolCalls: []wisp.ToolCall{
				{ID: "call_x7", Name: "get_time", Arguments: json.RawMessage(`{"tz":"Europe/Paris","verbose":true,"n":3,"a":null}`)},
			}}},
		},
		{
			name: "two tool calls without ids, after some text",
			replies: []ollamatest.Reply{{Content: "Let me look.", ToolCalls: []ollamatest.ToolCall{
				{Name: "get_time", Arguments: `{"tz":"UTC"}`},
				{Name: "get_date"},
			}}},
			req:        hello("what time is it?"),
			wantSent:   []api.Message{user},
			wantDeltas: []wisp.ChatDelta{{Content: "Let"}, {Content: " me"}, {Content: " look."}},
			want: wisp.ChatResponse{Message: wisp.Message{Role: wisp.RoleAssistant, Content: "Let me look.", ToolCalls: []wisp.ToolCall{
				{ID: "call_1", Name: "get_time", Arguments: json.RawMessage(`{"tz":"UTC"}`)},
				{ID: "call_2", Name: "get_date", Arguments: json.RawMessage(`{}`)},
			}}},
		},
		{
			name:    "a request carrying tools",
			replies: []ollamatest.Reply{{Content: "Noon."}},
			req: wisp.ChatRequest{
				Messages: []wisp.Message{{Role: wisp.RoleUser, Content: "what time is it?"}},
				Tools:    []wisp.ToolSpec{echo, {Name: "get_date", Description: "Today's date."}},
			},
			wantSent: []api.Message{user},
			wantTools: `[{"type":"function","function":{"name":"get_time","description":"The current time in a zone.","parameters":{` +
				`"type":"object","required":["tz"],"properties":{` +
				`"tz":{"type":"string","description":"IANA zone"},` +
				`"verbose":{"type":["boolean","null"]},` +
				`"unit":{"enum":["s","ms"]}}}}},` +
				`{"type":"function","function":{"name":"get_date","description":"Today's date.","parameters":{"type":"object","properties":{}}}}]`,
			wantDeltas: []wisp.ChatDelta{{Content: "Noon."}},
			want:       wisp.ChatResponse{Message: wisp.Message{Role: wisp.RoleAssistant, Content: "Noon."}},
		},
		{
			name:    "a history with tool calls and their results",
			replies: []ollamatest.Reply{{Content: "Noon in Paris."}},
			req: wisp.ChatRequest{Messages: []wisp.Message{
				{Role: wisp.RoleSystem, Content: "Be brief."},
				{Role: wisp.RoleUser, Content: "what time is it?"},
				{Role: wisp.RoleAssistant, Content: "Looking.", ToolCalls: []wisp.ToolCall{
					{ID: "call_1", Name: "get_time", Arguments: json.RawMessage(`{"tz":"Europe/Paris","n":1}`)},
					{ID: "call_2", Name: "get_date"},
				}},
				{Role: wisp.RoleTool, ToolCallID: "call_1", Name: "get_time", Content: "12:00"},
				{Role: wisp.RoleTool, ToolCallID: "call_2", Name: "get_date", Content: "2025-01-02"},
			}},
			wantSent: []api.Message{
				{Role: "system", Content: "Be brief."},
				user,
				{Role: "assistant", Content: "Looking.", ToolCalls: []api.ToolCall{
					{ID: "call_1", Function: api.ToolCallFunction{Index: 0, Name: "get_time", Arguments: args(t, `{"tz":"Europe/Paris","n":1}`)}},
					{ID: "call_2", Function: api.ToolCallFunction{Index: 1, Name: "get_date", Arguments: args(t, `{}`)}},
				}},
				{Role: "tool", ToolName: "get_time", ToolCallID: "call_1", Content: "12:00"},
				{Role: "tool", ToolName: "get_date", ToolCallID: "call_2", Content: "2025-01-02"},
			},
			wantDeltas: []wisp.ChatDelta{{Content: "Noon"}, {Content: " in"}, {Content: " Paris."}},
			want:       wisp.ChatResponse{Message: wisp.Message{Role: wisp.RoleAssistant, Content: "Noon in Paris."}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, s := chatter(t, nil, tt.replies...)
			var deltas []wisp.ChatDelta
			got, err := c.Chat(t.Context(), tt.req, func(d wisp.ChatDelta) { deltas = append(deltas, d) })
			if err != nil {
				t.Fatalf("Chat() = %v", err)
			}
			// Arguments are compared as text: their key order is the point.
			if diff := cmp.Diff(tt.want, got, cmp.Comparer(func(a, b json.RawMessage) bool { return string(a) == string(b) })); diff != "" {
				t.Errorf("Chat() (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantDeltas, deltas); diff != "" {
				t.Errorf("Chat() deltas (-want +got):\n%s", diff)
			}
			chats := s.Chats()
			if len(chats) != 1 {
				t.Fatalf("the fake got %d chats, want 1", len(chats))
			}
			sent := chats[0]
			if sent.Model != "qwen3:4b" || sent.Stream == nil || !*sent.Stream {
				t.Errorf("sent model %q, stream %v; want qwen3:4b, true", sent.Model, sent.Stream)
			}
			if diff := cmp.Diff(tt.wantSent, sent.Messages, argsAsMap); diff != "" {
				t.Errorf("sent messages (-want +got):\n%s", diff)
			}
			for i, m := range sent.Messages {
				for j, tc := range m.ToolCalls {
					want := tt.req.Messages[i].ToolCalls[j].Arguments
					if len(want) > 0 && tc.Function.Arguments.String() != string(want) {
						t.Errorf("sent arguments of message %d call %d = %s, want %s in that order", i, j, tc.Function.Arguments.String(), want)
					}
				}
			}
			var tools string
			if len(sent.Tools) > 0 {
				b, err := json.Marshal(sent.Tools)
				if err != nil {
					t.Fatal(err)
				}
				tools = string(b)
			}
			if diff := cmp.Diff(tt.wantTools, tools); diff != "" {
				t.Errorf("sent tools (-want +got):\n%s", diff)
			}
		})
	}
}

// A nil stream is allowed; the message is whole all the same.
func TestChatNilStream(t *testing.T) {
	c, _ := chatter(t, nil, ollamatest.Reply{Thinking: "Hm.", Content: "Hi there."})
	got, err := c.Chat(t.Context(), hello("hi"), nil)
	want := wisp.ChatResponse{Message: wisp.Message{Role: wisp.RoleAssistant, Content: "Hi there."}, Thinking: "Hm."}
	if err != nil || !cmp.Equal(want, got) {
		t.Errorf("Chat(nil stream) = %+v, %v; want %+v, nil", got, err, want)
	}
}

// ChatOptions reach Ollama as num_ctx, keep_alive and think.
func TestChatOptions(t *testing.T) {
	no, yes := false, true
	tests := []struct {
		name          string
		opts          *ollama.ChatOptions
		wantOptions   map[string]any
		wantKeepAlive *api.Duration
		wantThink     *api.ThinkValue
		wantThinking  string
	}{
		{name: "nil: Ollama decides", wantThinking: "Hm, let me see."},
		{name: "zero: Ollama decides", opts: &ollama.ChatOptions{}, wantThinking: "Hm, let me see."},
		{
			name:          "all set, no thinking",
			opts:          &ollama.ChatOptions{ContextTokens: 8192, KeepAlive: "10m", Think: &no},
			wantOptions:   map[string]any{"num_ctx": float64(8192)},
			wantKeepAlive: &api.Duration{Duration: 10 * time.Minute},
			wantThink:     &api.ThinkValue{Value: false},
		},
		{
			name:          "thinking, kept loaded, seconds",
			opts:          &ollama.ChatOptions{KeepAlive: "-1", Think: &yes},
			wantKeepAlive: &api.Duration{Duration: -1},
			wantThink:     &api.ThinkValue{Value: true},
			wantThinking:  "Hm, let me see.",
		},
		{
			name:          "keep alive in seconds",
			opts:          &ollama.ChatOptions{KeepAlive: "90"},
			wantKeepAlive: &api.Duration{Duration: 90 * time.Second},
			wantThinking:  "Hm, let me see.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, s := chatter(t, tt.opts, ollamatest.Reply{Thinking: "Hm, let me see.", Content: "Yes."})
			got, err := c.Chat(t.Context(), hello("hi"), nil)
			if err != nil {
				t.Fatalf("Chat() = %v", err)
			}
			if got.Thinking != tt.wantThinking || got.Message.Content != "Yes." {
				t.Errorf("Chat() = thinking %q, content %q; want %q, Yes.", got.Thinking, got.Message.Content, tt.wantThinking)
			}
			sent := s.Chats()[0]
			if diff := cmp.Diff(tt.wantOptions, sent.Options); diff != "" {
				t.Errorf("sent options (-want +got):\n%s", diff)
			}
			// "-1" goes out as -1 and comes back as the longest
			// duration: both mean for good.
			forGood := func(d time.Duration) bool { return d < 0 || d == math.MaxInt64 }
			sameKeep := cmp.Comparer(func(a, b api.Duration) bool {
				return a.Duration == b.Duration || (forGood(a.Duration) && forGood(b.Duration))
			})
			if diff := cmp.Diff(tt.wantKeepAlive, sent.KeepAlive, sameKeep); diff != "" {
				t.Errorf("sent keep_alive (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantThink, sent.Think); diff != "" {
				t.Errorf("sent think (-want +got):\n%s", diff)
			}
		})
	}
}

// Settings and requests that cannot work fail before anything is sent,
// with a line that says what to change.
func TestChatRefusesBeforeSending(t *testing.T) {
	tests := []struct {
		name  string
		model string
		opts  *ollama.ChatOptions
		req   wisp.ChatRequest
		want  string
	}{
		{
			name: "no model name", model: " ", req: hello("hi"),
			want: `ollama: the chat model has no name; name one as "ollama list" shows it, such as "qwen3:4b"`,
		},
		{
			name: "a negative context", model: "qwen3:4b", opts: &ollama.ChatOptions{ContextTokens: -1}, req: hello("hi"),
			want: "ollama: a context of -1 tokens cannot be; set ChatOptions.ContextTokens to 0 for Ollama's default, or to a number of tokens such as 8192",
		},
		{
			name: "a keep-alive that is no duration", model: "qwen3:4b", opts: &ollama.ChatOptions{KeepAlive: "forever"}, req: hello("hi"),
			want: `ollama: keep-alive "forever" is not a duration; set ChatOptions.KeepAlive as "5m", "1h", "300" (seconds), "0" (unload at once) or "-1" (keep loaded)`,
		},
		{
			name: "a schema that is not an object", model: "qwen3:4b",
			req: wisp.ChatRequest{Messages: hello("hi").Messages, Tools: []wisp.ToolSpec{{Name: "odd", Schema: json.RawMessage(`true`)}}},
			want: `ollama: tool "odd": its schema does not fit ollama's tool parameters (json: cannot unmarshal bool into Go value of type api.ToolFunctionParameters); ` +
				`give it a JSON Schema object such as {"type":"object","properties":{...}}`,
		},
		{
			name: "tool-call arguments that are not an object", model: "qwen3:4b",
			req: wisp.ChatRequest{Messages: []wisp.Message{
				{Role: wisp.RoleUser, Content: "hi"},
				{Role: wisp.RoleAssistant, ToolCalls: []wisp.ToolCall{{ID: "c", Name: "get_time", Arguments: json.RawMessage(`"UTC"`)}}},
			}},
			want: `ollama: message 2, tool call 1 (get_time): the arguments are not a JSON object: "UTC"; send each call's arguments as a JSON object`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, s := backend(t, qwen)
			got, err := b.ChatModel(tt.model, tt.opts).Chat(t.Context(), tt.req, nil)
			if err == nil || err.Error() != tt.want {
				t.Errorf("Chat() error\n got %v\nwant %s", err, tt.want)
			}
			if !cmp.Equal(wisp.ChatResponse{}, got) {
				t.Errorf("Chat() = %+v with an error, want nothing", got)
			}
			if reqs := s.Requests(); len(reqs) != 0 {
				t.Errorf("requests made = %q, want none", reqs)
			}
		})
	}
}

// Every way a chat fails is an error of one line that says how to mend
// it, never a short answer.
func TestChatFailures(t *testing.T) {
	tests := []struct {
		name   string
		model  string
		set    func(s *ollamatest.Server)
		want   func(url string) string
		wantIs error
	}{
		{
			name:   "the stream ends without done",
			set:    func(s *ollamatest.Server) { s.TruncateChat(true) },
			want:   func(string) string { return "ollama's answer was cut off before it finished; try again" },
			wantIs: nil,
		},
		{
			name:   "the connection drops mid-answer",
			set:    func(s *ollamatest.Server) { s.AbortChat(true) },
			want:   func(string) string { return "ollama's answer was cut off before it finished; try again" },
			wantIs: io.ErrUnexpectedEOF,
		},
		{
			name: "an error line mid-answer",
			set: func(s *ollamatest.Server) {
				s.StreamError("an error was encountered while running the model: CUDA error: out of memory")
			},
			want: func(url string) string {
				return "ollama at " + url + " failed mid-answer: an error was encountered while running the model: CUDA error: out of memory; see the ollama server log, and try again"
			},
		},
		{
			name: "a line that is not JSON",
			set:  func(s *ollamatest.Server) { s.Garbage(true) },
			want: func(string) string {
				return `ollama answered something that is not its API: "<html><body>It works!</body></html>"; check that OLLAMA_HOST points at ollama`
			},
		},
		{
			name: "the server drops the connection",
			set:  func(s *ollamatest.Server) { s.SetDown(true) },
			want: func(url string) string {
				return `ollama is not answering at ` + url + ` (connection closed); start it with "ollama serve", or set OLLAMA_HOST`
			},
			wantIs: ollama.ErrUnreachable,
		},
		{
			name:  "no such model",
			model: "nope:1b",
			want: func(url string) string {
				return `ollama at ` + url + `: no such model "nope:1b"; fetch it with "ollama pull nope:1b", or see "ollama list"`
			},
			wantIs: models.ErrNotFound,
		},
		{
			name: "a 404 that is not about the model",
			set:  func(s *ollamatest.Server) { s.Fail("/api/chat", http.StatusNotFound) },
			want: func(url string) string {
				return "ollama at " + url + " failed on /api/chat (404 Not Found: not found); see the ollama server log"
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, s := backend(t, qwen)
			if tt.set != nil {
				tt.set(s)
			}
			model := "qwen3:4b"
			if tt.model != "" {
				model = tt.model
			}
			got, err := b.ChatModel(model, nil).Chat(t.Context(), hello("hi"), nil)
			want := tt.want(b.URL())
			if err == nil || err.Error() != want {
				t.Errorf("Chat() error\n got %v\nwant %s", err, want)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("Chat() = %v, want it to wrap %v", err, tt.wantIs)
			}
			if tt.model == "" && errors.Is(err, models.ErrNotFound) {
				t.Errorf("Chat() = %v, wraps ErrNotFound for a model the server has", err)
			}
			if !cmp.Equal(wisp.ChatResponse{}, got) {
				t.Errorf("Chat() = %+v with an error, want nothing", got)
			}
		})
	}
}

// Nothing listening reads as not answering.
func TestChatNotRunning(t *testing.T) {
	b, err := ollama.New(closedHost(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.ChatModel("qwen3:4b", nil).Chat(t.Context(), hello("hi"), nil)
	want := `ollama is not answering at ` + b.URL() + ` (connection refused); start it with "ollama serve", or set OLLAMA_HOST`
	if !errors.Is(err, ollama.ErrUnreachable) || err.Error() != want {
		t.Errorf("Chat() = %v, want %s", err, want)
	}
}

// Cancelling mid-answer ends the chat at once with ctx's cause, not with
// the part that arrived.
func TestChatCancelledMidStream(t *testing.T) {
	stop := errors.New("the person pressed stop")
	tests := []struct {
		name   string
		ctx    func(t *testing.T) (context.Context, func())
		wantIs error
	}{
		{
			name: "cancelled",
			ctx: func(t *testing.T) (context.Context, func()) {
				ctx, cancel := context.WithCancel(t.Context())
				return ctx, cancel
			},
			wantIs: context.Canceled,
		},
		{
			name: "cancelled with a cause",
			ctx: func(t *testing.T) (context.Context, func()) {
				ctx, cancel := context.WithCancelCause(t.Context())
				return ctx, func() { cancel(stop) }
			},
			wantIs: stop,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, s := chatter(t, nil, ollamatest.Reply{Content: "one two three"})
			s.HoldChat(true)
			ctx, cancel := tt.ctx(t)
			defer cancel()
			var deltas []wisp.ChatDelta
			got, err := c.Chat(ctx, hello("hi"), func(d wisp.ChatDelta) {
				deltas = append(deltas, d)
				cancel()
			})
			if err != tt.wantIs {
				t.Errorf("Chat() = %v, want exactly %v", err, tt.wantIs)
			}
			if !cmp.Equal(wisp.ChatResponse{}, got) {
				t.Errorf("Chat() = %+v when cancelled, want nothing", got)
			}
			if diff := cmp.Diff([]wisp.ChatDelta{{Content: "one"}}, deltas); diff != "" {
				t.Errorf("deltas before the cancel (-want +got):\n%s", diff)
			}
		})
	}
}

// A slow server is waited for until ctx's deadline, and no longer.
func TestChatDeadline(t *testing.T) {
	c, s := chatter(t, nil, ollamatest.Reply{Content: "one two"})
	s.HoldChat(true)
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	_, err := c.Chat(ctx, hello("hi"), nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Chat() = %v, want the deadline", err)
	}
}

// A ctx done beforehand sends nothing.
func TestChatCancelledBeforehand(t *testing.T) {
	c, s := chatter(t, nil)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := c.Chat(ctx, hello("hi"), nil); err != context.Canceled {
		t.Errorf("Chat() = %v, want context.Canceled", err)
	}
	if reqs := s.Requests(); len(reqs) != 0 {
		t.Errorf("requests made = %q, want none", reqs)
	}
}

// Chat keeps no state: the same Chat serves a conversation step by step,
// and every step is sent whole.
func TestChatSteps(t *testing.T) {
	c, s := chatter(t, nil,
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{ID: "call_a", Name: "get_time", Arguments: `{"tz":"UTC"}`}}},
		ollamatest.Reply{Content: "It is noon."},
	)
	req := hello("what time is it?")
	first, err := c.Chat(t.Context(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Messages = append(req.Messages, first.Message,
		wisp.Message{Role: wisp.RoleTool, ToolCallID: "call_a", Name: "get_time", Content: "12:00"})
	second, err := c.Chat(t.Context(), req, nil)
	if err != nil || second.Message.Content != "It is noon." {
		t.Fatalf("second Chat() = %+v, %v; want It is noon.", second, err)
	}
	chats := s.Chats()
	want := []api.Message{
		{Role: "user", Content: "what time is it?"},
		{Role: "assistant", ToolCalls: []api.ToolCall{{ID: "call_a", Function: api.ToolCallFunction{Name: "get_time", Arguments: args(t, `{"tz":"UTC"}`)}}}},
		{Role: "tool", ToolName: "get_time", ToolCallID: "call_a", Content: "12:00"},
	}
	if len(chats) != 2 {
		t.Fatalf("the fake got %d chats, want 2", len(chats))
	}
	if diff := cmp.Diff(want, chats[1].Messages, argsAsMap, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("second request's messages (-want +got):\n%s", diff)
	}
}

// The model opened for the agent asks for no context unless one is set,
// and tells the agent the context its runner has: loading it first, with
// what every Chat sends, when Ollama has not loaded it, so that the first
// Chat finds it loaded as it would load it.
func TestModelContext(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   *models.RunOptions
		numCtx any
		runner int
	}{
		{"none set", nil, nil, ollamatest.DefaultContext},
		{"a context set", &models.RunOptions{ContextTokens: 16384}, float64(16384), 16384},
		{"more than the model takes", &models.RunOptions{ContextTokens: 65536}, float64(65536), 40960},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, s := backend(t, qwen)
			m, err := b.Model("qwen3:4b", wisp.ModelInfo{Context: 40960}, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			sizer := m.(agent.ContextSizer)
			if n := sizer.ContextTokens(t.Context()); n != tc.runner {
				t.Errorf("ContextTokens() = %d, want %d", n, tc.runner)
			}
			if _, err := m.Chat(t.Context(), hello("hi"), nil); err != nil {
				t.Fatal(err)
			}
			if n := sizer.ContextTokens(t.Context()); n != tc.runner {
				t.Errorf("ContextTokens() after a chat = %d, want %d", n, tc.runner)
			}
			chats := s.Chats()
			if len(chats) != 2 || len(chats[0].Messages) != 0 {
				t.Fatalf("chats = %+v, want a load (no messages) and the chat", chats)
			}
			for i, c := range chats {
				if got := c.Options["num_ctx"]; got != tc.numCtx {
					t.Errorf("request %d: num_ctx %v, want %v", i+1, got, tc.numCtx)
				}
			}
			if diff := cmp.Diff([]ollamatest.Load{{Model: "qwen3:4b", Context: tc.runner}}, s.Loads()); diff != "" {
				t.Errorf("loads (-want +got):\n%s", diff)
			}
		})
	}
	// A model that cannot load cannot say: 0, and the Chat says why.
	broken := qwen
	broken.LoadError = ollamatest.LineMissingTensor
	b, _ := backend(t, broken)
	m, _ := b.Model("qwen3:4b", wisp.ModelInfo{}, nil)
	if n := m.(agent.ContextSizer).ContextTokens(t.Context()); n != 0 {
		t.Errorf("ContextTokens() of a model that cannot load = %d, want 0", n)
	}
}
