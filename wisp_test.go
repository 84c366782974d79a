package wisp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wisp-agent/wisp"
)

// A tool from its parts: what the model reads, and the function that runs
// the call. Package tools builds tools from a Go function and its
// argument type, with the schema inferred from the type.
func ExampleToolFunc() {
	var shout wisp.Tool = wisp.ToolFunc{
		Spec: wisp.ToolSpec{
			Name:        "shout",
			Description: "Say a line in capitals.",
			Schema:      json.RawMessage(`{"type":"object","properties":{"line":{"type":"string"}},"required":["line"],"additionalProperties":false}`),
		},
		Func: func(ctx context.Context, c wisp.Call) (wisp.Result, error) {
			var args struct{ Line string }
			if err := json.Unmarshal(c.Arguments, &args); err != nil {
				return wisp.ErrorResult("send {\"line\": \"…\"}"), nil
			}
			return wisp.Result{Content: strings.ToUpper(args.Line)}, nil
		},
	}
	r, err := shout.Call(context.Background(), wisp.Call{Name: "shout", Arguments: json.RawMessage(`{"line":"hello"}`)})
	fmt.Println(shout.Name(), r.Content, err)
	// Output: shout HELLO <nil>
}

// An agent of one's own, where a wisp.Agent is taken (wisp mcp's
// respond tool, say).
func ExampleAgentFunc() {
	var echo wisp.Agent = wisp.AgentFunc(func(ctx context.Context, thread, input string) (wisp.Reply, error) {
		return wisp.Reply{Thread: thread, Turn: 1, Text: "you said: " + input}, nil
	})
	r, err := echo.Respond(context.Background(), "t1", "hello")
	fmt.Println(r.Text, err)
	// Output: you said: hello <nil>
}
