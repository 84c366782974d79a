package ollama_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/models/ollama"
	"github.com/wisp-agent/wisp/models/ollama/ollamatest"
)

func ExampleBackend_ChatModel() {
	// A fake Ollama that calls a tool, then answers; a program passes
	// OLLAMA_HOST instead of srv.URL.
	srv, stop := ollamatest.Start(ollamatest.Model{
		Name:         "qwen3:4b",
		Capabilities: []string{"completion", "tools", "thinking"},
		Replies: []ollamatest.Reply{
			{Thinking: "I need the clock.", ToolCalls: []ollamatest.ToolCall{{ID: "call_1", Name: "get_time", Arguments: `{"tz":"UTC"}`}}},
			{Content: "It is noon."},
		},
	})
	defer stop()

	b, err := ollama.New(srv.URL, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	model := b.ChatModel("qwen3:4b", &ollama.ChatOptions{ContextTokens: 8192})
	req := wisp.ChatRequest{
		Messages: []wisp.Message{{Role: wisp.RoleUser, Content: "What time is it?"}},
		Tools: []wisp.ToolSpec{{Name: "get_time", Description: "The time in a zone.",
			Schema: json.RawMessage(`{"type":"object","properties":{"tz":{"type":"string"}},"required":["tz"]}`)}},
	}
	ctx := context.Background()
	for {
		resp, err := model.Chat(ctx, req, func(d wisp.ChatDelta) {
			if d.Content != "" {
				fmt.Printf("[%s]", d.Content)
			}
		})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println()
		if resp.Thinking != "" {
			fmt.Println("thought:", resp.Thinking)
		}
		req.Messages = append(req.Messages, resp.Message)
		if len(resp.Message.ToolCalls) == 0 {
			fmt.Println("answer:", resp.Message.Content)
			return
		}
		for _, c := range resp.Message.ToolCalls {
			fmt.Printf("call %s %s(%s)\n", c.ID, c.Name, c.Arguments)
			req.Messages = append(req.Messages, wisp.Message{Role: wisp.RoleTool, ToolCallID: c.ID, Name: c.Name, Content: "12:00"})
		}
	}
	// Output:
	//
	// thought: I need the clock.
	// call call_1 get_time({"tz":"UTC"})
	// [It][ is][ noon.]
	// answer: It is noon.
}
