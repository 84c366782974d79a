package openai_test

import (
	"context"
	"fmt"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/models/openai"
	"github.com/wisp-agent/wisp/models/openai/openaitest"
)

func ExampleChat_Chat() {
	// A fake server stands in for "mlx_lm.server --model PATH"; a program
	// passes WISP_MLX_URL instead of srv.URL.
	srv := openaitest.Start(openaitest.Reply{
		Reasoning: "The person wants the notes.",
		Content:   "Let me read them.",
		ToolCalls: []openaitest.ToolCall{{Name: "read_file", Arguments: `{"path": "notes.md"}`}},
	})
	defer srv.Close()

	c, err := openai.New(srv.URL, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	model := c.ChatModel("/models/chat-4bit")
	req := wisp.ChatRequest{Messages: []wisp.Message{{Role: wisp.RoleUser, Content: "What do my notes say?"}}}
	resp, err := model.Chat(context.Background(), req, func(d wisp.ChatDelta) {
		fmt.Printf("delta %q %q\n", d.Thinking, d.Content)
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("thinking: %s\n", resp.Thinking)
	fmt.Printf("reply: %s\n", resp.Message.Content)
	for _, tc := range resp.Message.ToolCalls {
		fmt.Printf("call %s %s(%s)\n", tc.ID, tc.Name, tc.Arguments)
	}
	// Output:
	// delta "The " ""
	// delta "person " ""
	// delta "wants " ""
	// delta "the " ""
	// delta "notes." ""
	// delta "" "Let "
	// delta "" "me "
	// delta "" "read "
	// delta "" "them."
	// thinking: The person wants the notes.
	// reply: Let me read them.
	// call call_1 read_file({"path": "notes.md"})
}
