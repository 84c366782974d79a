package agent_test

import (
	"encoding/json"
	"testing"

	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/models/script"
	"github.com/wisp-agent/wisp/policy/secrets"
	"github.com/wisp-agent/wisp/policy/secrets/secretstest"
	"github.com/wisp-agent/wisp/wisptest"
)

// What a model puts in a tool call, as the call's name or id, as a key of
// its arguments or as a value only its key shows to be secret, reaches
// the events the agent records (the audit log, the screen) only as
// markers.
func TestRedactToolCalls(t *testing.T) {
	cases := secretstest.Corpus()
	var calls []script.ToolCall
	for _, c := range cases {
		args, err := json.Marshal(map[string]any{c.Text: "x", c.Key: c.Value, "list": []string{c.Text}})
		if err != nil {
			t.Fatal(err)
		}
		calls = append(calls, script.ToolCall{ID: c.Text, Name: c.Text, Arguments: args})
	}
	calls = append(calls, script.ToolCall{ID: "c0", Name: "echo", Arguments: json.RawMessage(`{"text": not JSON ` + cases[0].Text + `}`)})
	var steps []script.Step // a message makes at most agent.MaxToolCalls calls
	for rest := calls; len(rest) > 0; rest = rest[min(len(rest), agent.MaxToolCalls):] {
		steps = append(steps, script.Step{ToolCalls: rest[:min(len(rest), agent.MaxToolCalls)]})
	}
	m := script.New("t", append(steps, script.Step{Content: "done"}))
	r := secrets.NewRedactor()
	events := &wisptest.Recorder{}
	a := agent.New(m, &agent.Options{Tools: set(t, echo{}), Events: events, MaxSteps: len(steps) + 1,
		Redact: func(s string) string { out, _ := r.Redact(s); return out }})
	if _, err := a.Respond(t.Context(), "t", "go"); err != nil {
		t.Fatal(err)
	}
	recorded, err := json.Marshal(events.Events(""))
	if err != nil {
		t.Fatal(err)
	}
	if leaks := secretstest.Leaks(recorded, cases); leaks != nil {
		t.Errorf("the recorded events hold %d cases of the corpus: %v", len(leaks), leaks)
	}
	if n := len(events.Events("tool.call")); n != len(calls) {
		t.Errorf("%d tool.call events, want %d", n, len(calls))
	}
}
