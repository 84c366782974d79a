package threadfile_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/agent/threadfile"
	"github.com/wisp-agent/wisp/tools"
	"github.com/wisp-agent/wisp/wisptest"
)

// The agent's limits fit what a thread file holds: the most a thread keeps
// (older turns up to MaxThreadBytes, then one more step) and a whole turn.
func TestLimitsFitTheFile(t *testing.T) {
	if most := agent.MaxThreadBytes + agent.MaxStepBytes; most >= threadfile.MaxFile {
		t.Errorf("a thread may take %d bytes, and a thread file holds %d", most, threadfile.MaxFile)
	}
	if turn := agent.MaxTurnBytes + agent.MaxStepBytes; turn >= agent.MaxThreadBytes {
		t.Errorf("a turn may take %d bytes, more than the %d a thread is condensed to", turn, agent.MaxThreadBytes)
	}
	if agent.MaxInputBytes >= agent.MaxTurnBytes {
		t.Errorf("the input alone (%d) may fill a turn (%d)", agent.MaxInputBytes, agent.MaxTurnBytes)
	}
}

// echoTool returns 100 KiB of control characters, 600 KiB as a thread
// file stores them: a result to cut.
type echoTool struct{}

func (echoTool) Name() string        { return "echo" }
func (echoTool) Description() string { return "echoes" }
func (echoTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)
}
func (echoTool) Call(context.Context, wisp.Call) (wisp.Result, error) {
	return wisp.Result{Content: strings.Repeat("\x01", 100<<10)}, nil
}
func (echoTool) Action(context.Context, wisp.Call) (wisp.Action, error) {
	return wisp.Action{NoApproval: true}, nil
}

// The worst a model can send, every step of every turn (the longest text,
// the most calls with the longest arguments, text that the file must
// escape), never makes its thread too large to load.
func TestWorstModelCannotBrickItsThread(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a thread of some 38 MB")
	}
	reg := tools.NewRegistry()
	if err := reg.Add(echoTool{}); err != nil {
		t.Fatal(err)
	}
	set, _ := reg.Select(tools.Selection{})
	args := json.RawMessage(`{"text":"` + strings.Repeat("<", (agent.MaxArgumentsBytes-11)/6) + `"}`)
	var calls []wisp.ToolCall
	for range agent.MaxToolCalls + 10 {
		calls = append(calls, wisp.ToolCall{Name: "echo", Arguments: args})
	}
	text := strings.Repeat("<", 300<<10)
	worst := wisp.ModelFunc(func(ctx context.Context, req wisp.ChatRequest, stream func(wisp.ChatDelta)) (wisp.ChatResponse, error) {
		return wisp.ChatResponse{Message: wisp.Message{Content: text, ToolCalls: calls}}, nil
	})
	d := threadfile.Dir{Path: t.TempDir()}
	// The thread is already near the size it is condensed to; the turn
	// takes it past, step after step, until the turn is too large.
	var old []agent.ThreadRecord
	for range 120 {
		old = append(old, agent.ThreadRecord{Message: wisp.Message{Role: wisp.RoleUser, Content: "more"}},
			agent.ThreadRecord{Message: wisp.Message{Role: wisp.RoleAssistant, Content: strings.Repeat("r", 250<<10)}})
	}
	if err := d.Save("worst", agent.ThreadState{Turn: 120, Messages: old}); err != nil {
		t.Fatal(err)
	}
	rec := &wisptest.Recorder{}
	a := agent.New(worst, &agent.Options{Store: d, Tools: set, MaxSteps: 64, MaxHistory: 1 << 20, Events: rec})
	_, err := a.Respond(t.Context(), "worst", strings.Repeat("&", agent.MaxInputBytes))
	if !errors.Is(err, agent.ErrTurnTooLarge) {
		t.Fatalf("Respond = %v, want ErrTurnTooLarge", err)
	}
	st, ok, err := d.Load("worst")
	if err != nil || !ok || st.Turn != 121 {
		t.Fatalf("after the turn the thread loads as turn %d, %v, %v; want turn 121", st.Turn, ok, err)
	}
	fi, _ := os.Stat(filepath.Join(d.Path, "worst.json"))
	if fi.Size() > agent.MaxThreadBytes+agent.MaxStepBytes {
		t.Errorf("the thread file takes %d bytes, more than %d", fi.Size(), agent.MaxThreadBytes+agent.MaxStepBytes)
	}
	if ev := rec.Events(wisp.KindCondensed); len(ev) == 0 || ev[0].Data.(wisp.CondensedData).Reason != "size" {
		t.Errorf("thread.condensed = %+v; want the thread condensed for its size", ev)
	}
}

// Save refuses to write a thread file larger than Load reads; the file
// stays as it was.
func TestSaveRefusesWhatWouldNotLoad(t *testing.T) {
	threadfile.SetMaxFile(t, 4096)
	d := threadfile.Dir{Path: t.TempDir()}
	small := agent.ThreadState{Turn: 1, Messages: []agent.ThreadRecord{{Message: wisp.Message{Role: wisp.RoleUser, Content: "hi"}}}}
	if err := d.Save("t", small); err != nil {
		t.Fatal(err)
	}
	big := agent.ThreadState{Turn: 2, Messages: []agent.ThreadRecord{{Message: wisp.Message{Role: wisp.RoleUser, Content: strings.Repeat("x", 4096)}}}}
	if err := d.Save("t", big); err == nil || !strings.Contains(err.Error(), "a thread file holds at most 4096") {
		t.Errorf("Save of a thread too large to load = %v", err)
	}
	if st, ok, err := d.Load("t"); err != nil || !ok || st.Turn != 1 {
		t.Errorf("Load after the refused Save = turn %d, %v, %v; want turn 1", st.Turn, ok, err)
	}
}
