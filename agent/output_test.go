package agent_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/models/script"
)

// printer is a tool that prints its text through the call's Output as it
// runs; its calls change nothing.
type printer struct{ echo }

func (printer) Name() string { return "print" }
func (p printer) Call(ctx context.Context, c wisp.Call) (wisp.Result, error) {
	if c.Output != nil {
		c.Output(wisp.ToolOutput{Thread: c.Thread, CallID: c.ID, Tool: c.Name, Stream: "stdout", Text: "partial"})
	}
	return p.echo.Call(ctx, c)
}

// What a tool prints as it runs reaches Options.OnOutput, and a call runs
// with no Output when nobody watches.
func TestToolOutput(t *testing.T) {
	steps := func() []script.Step {
		return []script.Step{{ToolCalls: []script.ToolCall{{ID: "c1", Name: "print", Arguments: []byte(`{"text":"x"}`)}}}, {Content: "done"}}
	}
	var got []wisp.ToolOutput
	a := agent.New(script.New("t", steps()), &agent.Options{Tools: set(t, printer{}), OnOutput: func(o wisp.ToolOutput) { got = append(got, o) }})
	if _, err := a.Respond(context.Background(), "t1", "go"); err != nil {
		t.Fatal(err)
	}
	want := []wisp.ToolOutput{{Thread: "t1", CallID: "c1", Tool: "print", Stream: "stdout", Text: "partial"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("OnOutput got (-want +got):\n%s", diff)
	}

	quiet := agent.New(script.New("t", steps()), &agent.Options{Tools: set(t, printer{})})
	if r, err := quiet.Respond(context.Background(), "t1", "go"); err != nil || r.Text != "done" {
		t.Errorf("Respond with no OnOutput = %q, %v; want done, nil", r.Text, err)
	}
}
