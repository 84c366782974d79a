package wisp_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/wisp-agent/wisp"
)

// A display of a turn's tool calls is an EventSink that switches on the
// type of each event's data, and passes over the kinds it does not show.
func ExampleEventSinkFunc() {
	display := wisp.EventSinkFunc(func(ctx context.Context, e wisp.Event) error {
		switch d := e.Data.(type) {
		case wisp.ToolCallData:
			fmt.Printf("⚙ %s %s\n", d.Name, d.Shown())
		case wisp.ToolResultData:
			fmt.Printf("↳ %s\n", d.Content)
		}
		return nil
	})
	summary := "a question"
	for _, d := range []wisp.EventData{
		wisp.TurnStartedData{Input: "Which config is live?"},
		wisp.ToolCallData{ID: "c1", Name: "ask", Arguments: json.RawMessage(`{"question":"Which config?"}`), Summary: &summary},
		wisp.ToolResultData{ID: "c1", Name: "ask", Content: "chose: ./wisp.json"},
		wisp.ToolCallData{ID: "c2", Name: "models", Arguments: json.RawMessage(`{"action":"list"}`)},
	} {
		if err := wisp.Record(context.Background(), display, wisp.Event{Thread: "t1", Turn: 1, Data: d}); err != nil {
			fmt.Println(err)
		}
	}
	// Output:
	// ⚙ ask a question
	// ↳ chose: ./wisp.json
	// ⚙ models {"action":"list"}
}
