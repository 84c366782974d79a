package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/models/script"
	"github.com/wisp-agent/wisp/wisptest"
)

// stored is how many bytes s takes in a thread file.
func stored(s string) int {
	b, _ := json.Marshal(s)
	return len(b)
}

// flood is a model that streams text in 64 KiB pieces, as a model server
// does, until it has sent size bytes or its ctx ends, and counts what it
// sent.
type flood struct {
	size int
	sent atomic.Int64
}

func (f *flood) Chat(ctx context.Context, _ wisp.ChatRequest, stream func(wisp.ChatDelta)) (wisp.ChatResponse, error) {
	piece := strings.Repeat("a", 64<<10)
	var all strings.Builder
	for all.Len() < f.size {
		if ctx.Err() != nil {
			return wisp.ChatResponse{}, context.Cause(ctx)
		}
		stream(wisp.ChatDelta{Content: piece})
		f.sent.Add(int64(len(piece)))
		all.WriteString(piece)
	}
	return wisp.ChatResponse{Message: wisp.Message{Content: all.String()}}, nil
}

// A model that replies at great length is stopped once it passes what a
// thread keeps of one message: the reply is cut there, with a note, the
// person sees no more than that, and the thread keeps it.
func TestLongReplyIsStopped(t *testing.T) {
	m := &flood{size: 70 << 20}
	var shown atomic.Int64
	var last atomic.Value
	store := &memStore{}
	a := agent.New(m, &agent.Options{Store: store, OnDelta: func(_ string, d wisp.ChatDelta) {
		shown.Add(int64(len(d.Content)))
		last.Store(d.Content)
	}})
	reply, err := a.Respond(t.Context(), "t", "tell me everything")
	if err != nil {
		t.Fatal(err)
	}
	if sent := m.sent.Load(); sent > agent.MaxMessageBytes+64<<10 {
		t.Errorf("the model sent %d bytes before it was stopped; want it stopped near %d", sent, agent.MaxMessageBytes)
	}
	note := agent.LineStoppedLong(agent.MaxMessageBytes)
	if !strings.HasSuffix(reply.Text, note) || stored(reply.Text) > agent.MaxMessageBytes {
		t.Errorf("reply of %d bytes ends %q; want at most %d stored, ending %q", len(reply.Text), reply.Text[max(0, len(reply.Text)-120):], agent.MaxMessageBytes, note)
	}
	if got := shown.Load(); got > agent.MaxMessageBytes+1+int64(len(note)) || last.Load() != note {
		t.Errorf("the person was shown %d bytes, last %q; want at most the kept reply, its note last", got, last.Load())
	}
	st, _, _ := store.Load("t")
	if got := st.Messages[1].Content; got != reply.Text {
		t.Errorf("the thread keeps a reply of %d bytes, want the cut one", len(got))
	}
}

// A reply that comes whole, past the limit, is cut with a note that says
// how long it was.
func TestLongWholeReplyIsCut(t *testing.T) {
	long := strings.Repeat("<", 200<<10) // 1.2 MB as the thread stores it
	a := agent.New(script.New("t", []script.Step{{Content: long}}), nil)
	reply, err := a.Respond(t.Context(), "t", "go")
	if err != nil {
		t.Fatal(err)
	}
	note := agent.LineCut(stored(long), agent.MaxMessageBytes)
	if !strings.HasSuffix(reply.Text, note) || stored(reply.Text) > agent.MaxMessageBytes || stored(reply.Text) < agent.MaxMessageBytes-6 {
		t.Errorf("reply takes %d stored and ends %q; want just under %d, ending %q", stored(reply.Text), reply.Text[len(reply.Text)-100:], agent.MaxMessageBytes, note)
	}
}

// A message's tool calls are bounded: no more than MaxToolCalls, each with
// arguments no longer than MaxArgumentsBytes (a longer one does not run),
// and ids and names of a sane length. A tool's result is cut like a reply.
func TestToolCallsAreBounded(t *testing.T) {
	var calls []script.ToolCall
	for i := range agent.MaxToolCalls + 4 {
		calls = append(calls, script.ToolCall{ID: fmt.Sprint("c", i), Name: "echo", Arguments: json.RawMessage(`{"text":"x"}`)})
	}
	calls[1].Arguments = json.RawMessage(`{"text":"` + strings.Repeat("&", 11<<10) + `"}`) // 66 KiB stored
	calls[2].ID = strings.Repeat("i", 200)
	calls[3].Name = strings.Repeat("n", 1000)
	calls[4].Arguments = json.RawMessage(`{"text":"big"}`)
	var ran atomic.Int32
	big := funcTool{name: "echo", call: func(_ context.Context, c wisp.Call) (wisp.Result, error) {
		ran.Add(1)
		var a struct{ Text string }
		_ = json.Unmarshal(c.Arguments, &a)
		if a.Text == "big" {
			return wisp.Result{Content: strings.Repeat("\x01", 100<<10)}, nil // 600 KiB stored
		}
		return wisp.Result{Content: "ok"}, nil
	}}
	store := &memStore{}
	m := script.New("t", []script.Step{{Content: "calling", ToolCalls: calls}, {Content: "done"}})
	a := agent.New(m, &agent.Options{Tools: set(t, big), Store: store, NewID: ids()})
	if _, err := a.Respond(t.Context(), "t", "go"); err != nil {
		t.Fatal(err)
	}
	st, _, _ := store.Load("t")
	msg := st.Messages[1]
	if len(msg.ToolCalls) != agent.MaxToolCalls || !strings.HasSuffix(msg.Content, agent.LineDroppedCalls(4)) {
		t.Errorf("the message keeps %d calls and says %q; want %d and the note", len(msg.ToolCalls), msg.Content, agent.MaxToolCalls)
	}
	if got := ran.Load(); got != agent.MaxToolCalls-2 { // the long arguments, and the unknown name
		t.Errorf("%d calls ran, want %d", got, agent.MaxToolCalls-2)
	}
	results := st.Messages[2 : 2+agent.MaxToolCalls]
	if got, want := results[1].Content, agent.LineArgumentsTooLong(66<<10+len(`{"text":""}`)); got != want || string(msg.ToolCalls[1].Arguments) != "{}" {
		t.Errorf("the call with long arguments keeps %s and got %q; want {} and %q", msg.ToolCalls[1].Arguments, got, want)
	}
	if id := msg.ToolCalls[2].ID; id != "call_1" || results[2].ToolCallID != id {
		t.Errorf("the call with a long id has id %q, its result %q; want call_1 for both", id, results[2].ToolCallID)
	}
	if n := len(msg.ToolCalls[3].Name); n > 128 {
		t.Errorf("the call with a long name keeps %d bytes of it", n)
	}
	if got := results[4].Content; stored(got) > agent.MaxMessageBytes || !strings.HasSuffix(got, agent.LineCut(stored(strings.Repeat("\x01", 100<<10)), agent.MaxMessageBytes)) {
		t.Errorf("the long result takes %d stored, ending %q", stored(got), got[max(0, len(got)-100):])
	}
}

// funcTool is a tool whose call is a function, taking {"text": string}.
type funcTool struct {
	name string
	call func(ctx context.Context, c wisp.Call) (wisp.Result, error)
}

func (f funcTool) Name() string        { return f.name }
func (f funcTool) Description() string { return "a test tool" }
func (f funcTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)
}
func (f funcTool) Call(ctx context.Context, c wisp.Call) (wisp.Result, error) { return f.call(ctx, c) }
func (funcTool) Action(context.Context, wisp.Call) (wisp.Action, error) {
	return wisp.Action{NoApproval: true}, nil
}

// The person's input is bounded too: longer input is cut with a note, and
// the person is told.
func TestLongInputIsCut(t *testing.T) {
	p := wisptest.NewPerson()
	m := script.New("t", []script.Step{{Content: "ok"}})
	a := agent.New(m, &agent.Options{Notifier: p})
	long := strings.Repeat("x", agent.MaxInputBytes+10)
	if _, err := a.Respond(t.Context(), "t", long); err != nil {
		t.Fatal(err)
	}
	msgs := m.Requests()[0].Messages
	got := msgs[len(msgs)-1].Content
	if stored(got) > agent.MaxInputBytes || !strings.HasSuffix(got, agent.LineCut(stored(long), agent.MaxInputBytes)) {
		t.Errorf("the model read %d bytes ending %q", len(got), got[len(got)-100:])
	}
	if n := p.Notices(); len(n) != 1 || n[0].Kind != "cut" {
		t.Errorf("notices %+v, want one that the input was cut", n)
	}
}

// A turn that grows past MaxTurnBytes ends after its step, and is kept as
// far as it went.
func TestTurnTooLarge(t *testing.T) {
	var calls []script.ToolCall
	for range agent.MaxToolCalls {
		calls = append(calls, script.ToolCall{Name: "echo", Arguments: json.RawMessage(`{"text":"x"}`)})
	}
	steps := make([]script.Step, 20)
	for i := range steps {
		steps[i] = script.Step{ToolCalls: calls}
	}
	fat := funcTool{name: "echo", call: func(context.Context, wisp.Call) (wisp.Result, error) {
		return wisp.Result{Content: strings.Repeat("z", 250<<10)}, nil
	}}
	store := &memStore{}
	a := agent.New(script.New("t", steps), &agent.Options{Tools: set(t, fat), Store: store, MaxSteps: 20})
	_, err := a.Respond(t.Context(), "t", "go")
	if err == nil || !strings.Contains(err.Error(), "the turn grew too large") {
		t.Fatalf("Respond = %v, want ErrTurnTooLarge", err)
	}
	st, _, _ := store.Load("t")
	size := 0
	for _, m := range st.Messages {
		b, _ := json.Marshal(m)
		size += len(b)
	}
	if st.Turn != 1 || size > agent.MaxTurnBytes+agent.MaxStepBytes || size < agent.MaxTurnBytes {
		t.Errorf("the thread keeps turn %d of %d bytes; want turn 1 kept, between %d and %d", st.Turn, size, agent.MaxTurnBytes, agent.MaxTurnBytes+agent.MaxStepBytes)
	}
}

// A thread that grows past MaxThreadBytes is condensed, oldest turns
// first, before the model is asked.
func TestThreadCondensedBySize(t *testing.T) {
	reply := strings.Repeat("r", 250<<10)
	var msgs []agent.ThreadRecord
	for i := range 140 { // 35 MiB
		msgs = append(msgs, agent.ThreadRecord{Message: wisp.Message{Role: wisp.RoleUser, Content: fmt.Sprint("turn ", i)}},
			agent.ThreadRecord{Message: wisp.Message{Role: wisp.RoleAssistant, Content: reply}})
	}
	store := &memStore{m: map[string]agent.ThreadState{"t": {Turn: 140, Messages: msgs}}}
	rec := &wisptest.Recorder{}
	a := agent.New(script.New("t", []script.Step{{Content: "ok"}}), &agent.Options{Store: store, Events: rec, MaxHistory: 1000})
	if _, err := a.Respond(t.Context(), "t", "go"); err != nil {
		t.Fatal(err)
	}
	ev := rec.Events(wisp.KindCondensed)
	if len(ev) != 1 || ev[0].Data.(wisp.CondensedData).Reason != "size" {
		t.Fatalf("thread.condensed = %+v, want one, for size", ev)
	}
	st, _, _ := store.Load("t")
	b, _ := json.Marshal(st)
	if len(b) > agent.MaxThreadBytes || len(b) < agent.MaxThreadBytes-2*len(reply) {
		t.Errorf("the thread takes %d bytes; want just under %d", len(b), agent.MaxThreadBytes)
	}
}

// A model that thinks at great length is stopped too: thinking is shown,
// never kept, and never fills the memory.
func TestLongThinkingIsStopped(t *testing.T) {
	var sent atomic.Int64
	m := wisp.ModelFunc(func(ctx context.Context, _ wisp.ChatRequest, stream func(wisp.ChatDelta)) (wisp.ChatResponse, error) {
		piece := strings.Repeat("t", 64<<10)
		for range 1 << 12 {
			if ctx.Err() != nil {
				return wisp.ChatResponse{}, context.Cause(ctx)
			}
			stream(wisp.ChatDelta{Thinking: piece})
			sent.Add(int64(len(piece)))
		}
		return wisp.ChatResponse{Message: wisp.Message{Content: "done"}}, nil
	})
	reply, err := agent.New(m, nil).Respond(t.Context(), "t", "think")
	if err != nil {
		t.Fatal(err)
	}
	if got := sent.Load(); got > agent.MaxThinkingBytes+64<<10 {
		t.Errorf("the model thought %d bytes before it was stopped; want near %d", got, agent.MaxThinkingBytes)
	}
	if reply.Text != agent.LineStoppedThinking() {
		t.Errorf("reply = %q, want %q", reply.Text, agent.LineStoppedThinking())
	}
}
