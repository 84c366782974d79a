package agent_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/inquiry"
	"github.com/wisp-agent/wisp/models/script"
	"github.com/wisp-agent/wisp/tools"
	"github.com/wisp-agent/wisp/tools/ask"
	"github.com/wisp-agent/wisp/wisptest"
)

// An agent whose model asks the person which config they meant, and goes on
// in the same turn with the answer. The model is scripted and the person is
// a scripted face; swap in a real model and a face of your own.
func Example() {
	model := script.New("demo", []script.Step{
		{ToolCalls: []script.ToolCall{{Name: "ask", Arguments: json.RawMessage(
			`{"question":"Which config did you mean?","options":["~/.wisp/config.json","./wisp.json"]}`)}}},
		{Content: "Replacing ./wisp.json with the new defaults."},
	})
	person := wisptest.NewPerson(wisptest.ChoosesNth(2))

	desk := inquiry.NewDesk(person, nil)
	reg := tools.NewRegistry()
	if err := reg.AddOptIn(ask.New(desk)); err != nil {
		panic(err)
	}
	set, err := reg.Select(tools.Selection{Named: []string{"ask"}})
	if err != nil {
		panic(err)
	}
	a := agent.New(model, &agent.Options{Tools: set})

	reply, err := a.Respond(context.Background(), "thread-1", "Replace the config with the new defaults.")
	if err != nil {
		panic(err)
	}
	req := model.Requests()[1]
	fmt.Println("the model got:", req.Messages[len(req.Messages)-1].Content)
	fmt.Println("reply:", reply.Text)
	fmt.Println("fact:", reply.Facts[0])
	// Output:
	// the model got: chose: ./wisp.json
	// reply: Replacing ./wisp.json with the new defaults.
	// fact: c1 answer "Which config did you mean?" = ./wisp.json
}
