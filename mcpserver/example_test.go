package mcpserver_test

import (
	"context"
	"fmt"
	"os"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/agent/threadfile"
	"github.com/wisp-agent/wisp/mcpserver"
	"github.com/wisp-agent/wisp/models/script"
	"github.com/wisp-agent/wisp/tools"
)

func Example() {
	dir, _ := os.MkdirTemp("", "wisp-threads")
	defer os.RemoveAll(dir)
	threads := threadfile.Dir{Path: dir}
	model := script.New("example", []script.Step{{Content: "Hello from wisp."}})
	reg := tools.NewRegistry()

	srv := mcpserver.New(&mcpserver.Options{
		Threads: threads,
		NewID:   func() string { return "t-00c0ffee" },
		Conversations: mcpserver.ConversationsFunc(func(_ context.Context, named []string) (wisp.Agent, error) {
			set, err := reg.Select(tools.Selection{Named: named})
			if err != nil {
				return nil, err
			}
			return agent.New(model, &agent.Options{Tools: set, Store: threads}), nil
		}),
	})

	ctx := context.Background()
	c, _ := client.NewInProcessClient(srv.MCP())
	defer c.Close()
	_ = c.Start(ctx)
	var ir mcp.InitializeRequest
	ir.Params.ClientInfo = mcp.Implementation{Name: "example", Version: "0"}
	if _, err := c.Initialize(ctx, ir); err != nil {
		fmt.Println(err)
		return
	}
	var call mcp.CallToolRequest
	call.Params.Name = "respond"
	call.Params.Arguments = map[string]any{"prompt": "Say hello."}
	res, err := c.CallTool(ctx, call)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Content[0].(mcp.TextContent).Text)
	// Output:
	// Hello from wisp.
	//
	// thread: t-00c0ffee
}
