package ollama_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/audit"
	"github.com/wisp-agent/wisp/models/ollama"
	"github.com/wisp-agent/wisp/models/ollama/ollamatest"
	"github.com/wisp-agent/wisp/tools"
)

// echoTool returns its text: the cheapest tool there is.
type echoTool struct{}

func (echoTool) Name() string        { return "echo" }
func (echoTool) Description() string { return "Says the text back." }
func (echoTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","description":"what to say"}},"required":["text"]}`)
}
func (echoTool) Call(_ context.Context, c wisp.Call) (wisp.Result, error) {
	var a struct{ Text string }
	if err := json.Unmarshal(c.Arguments, &a); err != nil {
		return wisp.ErrorResult(err.Error()), nil
	}
	return wisp.Result{Content: a.Text}, nil
}
func (echoTool) Action(context.Context, wisp.Call) (wisp.Action, error) {
	return wisp.Action{NoApproval: true}, nil
}

// benchCalls is how many tool calls one benchmarked turn makes.
const benchCalls = 10

// benchReplies are a turn of benchCalls echo calls, then an answer.
func benchReplies() []ollamatest.Reply {
	var rs []ollamatest.Reply
	for i := range benchCalls {
		rs = append(rs, ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{
			{ID: fmt.Sprintf("call_%d", i), Name: "echo", Arguments: fmt.Sprintf(`{"text":"ping %d"}`, i)},
		}})
	}
	return append(rs, ollamatest.Reply{Content: "All ten echoes came back."})
}

// BenchmarkTurn10ToolCalls runs one turn of ten tool calls against a fake
// Ollama that answers at once: through wisp's agent (with the audit log,
// and with an in-memory event sink), and as the same eleven requests made
// directly with Ollama's own client, and with net/http alone (the floor:
// Ollama's client allocates an 8 MB line buffer for every request). The
// difference is wisp's overhead.
func BenchmarkTurn10ToolCalls(b *testing.B) {
	m := qwen
	m.Replies = benchReplies()
	srv := ollamatest.NewServer(b, m)

	wispTurn := func(b *testing.B, events wisp.EventSink) {
		be, err := ollama.New(srv.URL, nil)
		if err != nil {
			b.Fatal(err)
		}
		reg := tools.NewRegistry()
		if err := reg.Add(echoTool{}); err != nil {
			b.Fatal(err)
		}
		set, err := reg.Select(tools.Selection{})
		if err != nil {
			b.Fatal(err)
		}
		model := be.ChatModel("qwen3:4b", nil)
		ctx := b.Context()
		b.ResetTimer()
		for i := 0; b.Loop(); i++ {
			srv.Rewind()
			a := agent.New(model, &agent.Options{Tools: set, Events: events, Session: "bench"})
			r, err := a.Respond(ctx, "t", "echo ten times")
			if err != nil || r.Text != "All ten echoes came back." {
				b.Fatalf("Respond() = %q, %v", r.Text, err)
			}
		}
	}

	// The CLI's policy: decisions, answers, changes and the end of a turn
	// wait for the disk; tool calls and results are written at once and
	// reach it with the next of those.
	syncSome := &audit.Options{Sync: func(kind string) bool {
		switch kind {
		case wisp.KindToolCall, wisp.KindToolResult, wisp.KindModelMessage, wisp.KindTurnStarted:
			return false
		}
		return true
	}}
	b.Run("wisp+audit", func(b *testing.B) {
		log, err := audit.Open(b.TempDir(), syncSome)
		if err != nil {
			b.Fatal(err)
		}
		defer log.Close()
		wispTurn(b, wisp.EventSinkFunc(func(ctx context.Context, e wisp.Event) error {
			_, err := log.Append(ctx, audit.Entry{Kind: e.Kind(), Session: e.Session, Thread: e.Thread, Turn: e.Turn, Source: e.Source, Data: e.Data})
			return err
		}))
	})
	b.Run("wisp+audit-fsync-every-record", func(b *testing.B) {
		log, err := audit.Open(b.TempDir(), nil)
		if err != nil {
			b.Fatal(err)
		}
		defer log.Close()
		wispTurn(b, wisp.EventSinkFunc(func(ctx context.Context, e wisp.Event) error {
			_, err := log.Append(ctx, audit.Entry{Kind: e.Kind(), Session: e.Session, Thread: e.Thread, Turn: e.Turn, Source: e.Source, Data: e.Data})
			return err
		}))
	})

	b.Run("wisp+memory", func(b *testing.B) {
		var mu sync.Mutex
		var kept []wisp.Event
		wispTurn(b, wisp.EventSinkFunc(func(_ context.Context, e wisp.Event) error {
			mu.Lock()
			defer mu.Unlock()
			if len(kept) > 10_000 {
				kept = kept[:0]
			}
			kept = append(kept, e)
			return nil
		}))
	})

	b.Run("direct", func(b *testing.B) {
		b.Setenv("OLLAMA_AUTH", "false") // Ollama's client would otherwise sign requests.
		u, err := url.Parse(srv.URL)
		if err != nil {
			b.Fatal(err)
		}
		c := api.NewClient(u, http.DefaultClient)
		props := api.NewToolPropertiesMap()
		props.Set("text", api.ToolProperty{Type: api.PropertyType{"string"}, Description: "what to say"})
		echo := api.Tool{Type: "function", Function: api.ToolFunction{
			Name: "echo", Description: "Says the text back.",
			Parameters: api.ToolFunctionParameters{Type: "object", Required: []string{"text"}, Properties: props},
		}}
		ctx := b.Context()
		b.ResetTimer()
		for b.Loop() {
			srv.Rewind()
			msgs := []api.Message{{Role: "user", Content: "echo ten times"}}
			for step := 0; ; step++ {
				var text string
				var calls []api.ToolCall
				done := false
				err := c.Chat(ctx, &api.ChatRequest{Model: "qwen3:4b", Messages: msgs, Tools: api.Tools{echo}}, func(r api.ChatResponse) error {
					text += r.Message.Content
					calls = append(calls, r.Message.ToolCalls...)
					done = r.Done
					return nil
				})
				if err != nil || !done {
					b.Fatalf("Chat() = %v, done %v", err, done)
				}
				msgs = append(msgs, api.Message{Role: "assistant", Content: text, ToolCalls: calls})
				if len(calls) == 0 {
					if step != benchCalls || text != "All ten echoes came back." {
						b.Fatalf("step %d answered %q", step, text)
					}
					break
				}
				for _, tc := range calls {
					s, _ := tc.Function.Arguments.Get("text")
					msgs = append(msgs, api.Message{Role: "tool", ToolName: tc.Function.Name, ToolCallID: tc.ID, Content: fmt.Sprint(s)})
				}
			}
		}
	})

	b.Run("direct-http", func(b *testing.B) {
		hc := &http.Client{}
		tool := json.RawMessage(`[{"type":"function","function":{"name":"echo","description":"Says the text back.","parameters":{"type":"object","required":["text"],"properties":{"text":{"type":"string","description":"what to say"}}}}}]`)
		type message struct {
			Role       string          `json:"role"`
			Content    string          `json:"content"`
			ToolCalls  json.RawMessage `json:"tool_calls,omitempty"`
			ToolName   string          `json:"tool_name,omitempty"`
			ToolCallID string          `json:"tool_call_id,omitempty"`
		}
		type call struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments struct {
					Text string `json:"text"`
				} `json:"arguments"`
			} `json:"function"`
		}
		ctx := b.Context()
		b.ResetTimer()
		for b.Loop() {
			srv.Rewind()
			msgs := []message{{Role: "user", Content: "echo ten times"}}
			for step := 0; ; step++ {
				body, err := json.Marshal(map[string]any{"model": "qwen3:4b", "messages": msgs, "tools": tool, "stream": true})
				if err != nil {
					b.Fatal(err)
				}
				req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/api/chat", bytes.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				resp, err := hc.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				var text string
				var calls []call
				done := false
				sc := bufio.NewScanner(resp.Body)
				for sc.Scan() {
					var r struct {
						Message struct {
							Content   string `json:"content"`
							ToolCalls []call `json:"tool_calls"`
						} `json:"message"`
						Done bool `json:"done"`
					}
					if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
						b.Fatal(err)
					}
					text += r.Message.Content
					calls = append(calls, r.Message.ToolCalls...)
					done = r.Done
				}
				resp.Body.Close()
				if sc.Err() != nil || !done {
					b.Fatalf("chat = %v, done %v", sc.Err(), done)
				}
				raw, _ := json.Marshal(calls)
				if len(calls) == 0 {
					raw = nil
				}
				msgs = append(msgs, message{Role: "assistant", Content: text, ToolCalls: raw})
				if len(calls) == 0 {
					if step != benchCalls || text != "All ten echoes came back." {
						b.Fatalf("step %d answered %q", step, text)
					}
					break
				}
				for _, tc := range calls {
					msgs = append(msgs, message{Role: "tool", ToolName: tc.Function.Name, ToolCallID: tc.ID, Content: tc.Function.Arguments.Text})
				}
			}
		}
	})
}
