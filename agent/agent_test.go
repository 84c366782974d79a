package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/models/script"
	"github.com/wisp-agent/wisp/tools"
	"github.com/wisp-agent/wisp/wisptest"
)

// echo is a tool that returns its argument and, when asked, a fact. Its
// calls change nothing, so they need no approval.
type echo struct{ fail error }

func (echo) Action(context.Context, wisp.Call) (wisp.Action, error) {
	return wisp.Action{NoApproval: true}, nil
}

func (echo) Name() string        { return "echo" }
func (echo) Description() string { return "echoes text" }
func (echo) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"},"fact":{"type":"boolean"}},"required":["text"],"additionalProperties":false}`)
}
func (e echo) Call(ctx context.Context, c wisp.Call) (wisp.Result, error) {
	if e.fail != nil {
		return wisp.Result{}, e.fail
	}
	var a struct {
		Text string
		Fact bool
	}
	_ = json.Unmarshal(c.Arguments, &a)
	r := wisp.Result{Content: "echo: " + a.Text}
	if a.Fact {
		r.Facts = []wisp.Fact{{Subject: "answer", Name: "Q?", Value: a.Text, Source: wisp.SourcePerson}}
	}
	return r, nil
}

func set(t *testing.T, tls ...wisp.Tool) *tools.Set {
	t.Helper()
	r := tools.NewRegistry()
	for _, tl := range tls {
		if err := r.Add(tl); err != nil {
			t.Fatal(err)
		}
	}
	s, err := r.Select(tools.Selection{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func call(name, args string) script.Step {
	return script.Step{ToolCalls: []script.ToolCall{{Name: name, Arguments: json.RawMessage(args)}}}
}

func ids() func() string {
	n := 0
	return func() string { n++; return fmt.Sprint(n) }
}

func TestTurnLoop(t *testing.T) {
	m := script.New("t", []script.Step{
		call("echo", `{"text":"one"}`),
		call("nope", `{}`),
		call("echo", `{"text":5}`),
		{Content: "All done."},
	})
	rec := &wisptest.Recorder{}
	a := agent.New(m, &agent.Options{Tools: set(t, echo{}), Events: rec, System: "be brief", NewID: ids(), Session: "s1"})
	reply, err := a.Respond(context.Background(), "t1", "go")
	if err != nil {
		t.Fatal(err)
	}
	if reply.Text != "All done." || reply.Turn != 1 || reply.Thread != "t1" {
		t.Errorf("reply = %+v", reply)
	}
	reqs := m.Requests()
	if len(reqs) != 4 {
		t.Fatalf("model saw %d requests, want 4", len(reqs))
	}
	last := reqs[3].Messages
	var got []string
	for _, msg := range last {
		got = append(got, string(msg.Role)+": "+msg.Content)
	}
	want := []string{
		"system: be brief",
		"user: go",
		"assistant: ",
		"tool: echo: one",
		"assistant: ",
		`tool: error: there is no tool named "nope" in this conversation; its tools are: echo`,
		"assistant: ",
		"tool: error: the arguments for echo do not match its schema: at /text: got number, want string; send arguments that match it",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("messages of the last request (-want +got):\n%s", diff)
	}
	if last[3].ToolCallID != "call_1" || last[2].ToolCalls[0].ID != "call_1" {
		t.Errorf("tool result not tied to its call: %+v / %+v", last[2], last[3])
	}
	if diff := cmp.Diff([]wisp.ToolSpec{wisp.SpecOf(echo{})}, reqs[0].Tools); diff != "" {
		t.Errorf("tools offered (-want +got):\n%s", diff)
	}
	wantKinds := []string{"turn.started",
		"model.message", "tool.call", "tool.result",
		"model.message", "tool.call", "tool.result",
		"model.message", "tool.call", "tool.result",
		"model.message", "turn.ended"}
	if diff := cmp.Diff(wantKinds, rec.Kinds()); diff != "" {
		t.Errorf("event kinds (-want +got):\n%s", diff)
	}
	for _, e := range rec.Events("") {
		if e.Session != "s1" || e.Thread != "t1" || e.Turn != 1 {
			t.Errorf("event %s placed at %s/%s/%d", e.Kind(), e.Session, e.Thread, e.Turn)
		}
	}
}

func TestStepLimit(t *testing.T) {
	steps := make([]script.Step, 5)
	for i := range steps {
		steps[i] = call("echo", `{"text":"again"}`)
	}
	a := agent.New(script.New("t", steps), &agent.Options{Tools: set(t, echo{}), MaxSteps: 3})
	_, err := a.Respond(context.Background(), "t", "loop")
	if !errors.Is(err, wisp.ErrStepLimit) {
		t.Fatalf("Respond = %v, want ErrStepLimit", err)
	}
}

func TestFailures(t *testing.T) {
	a := agent.New(script.New("t", []script.Step{{Content: "one"}}), nil)
	if _, err := a.Respond(context.Background(), "t", "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Respond(context.Background(), "t", "b"); !errors.Is(err, wisp.ErrScriptExhausted) {
		t.Errorf("second turn = %v, want ErrScriptExhausted", err)
	}
	// A tool whose face fails ends the turn with the error.
	a = agent.New(script.New("t", []script.Step{call("echo", `{"text":"x"}`)}), &agent.Options{Tools: set(t, echo{fail: wisp.ErrInterrupted})})
	if _, err := a.Respond(context.Background(), "t", "a"); !errors.Is(err, wisp.ErrInterrupted) {
		t.Errorf("Respond with a stopped tool = %v, want ErrInterrupted", err)
	}
	// No tools at all: a call comes back as an error the model reads.
	m := script.New("t", []script.Step{call("echo", `{}`), {Content: "ok"}})
	a = agent.New(m, nil)
	if _, err := a.Respond(context.Background(), "t", "a"); err != nil {
		t.Fatal(err)
	}
	if got := m.Requests()[1].Messages[2].Content; got != `error: there is no tool named "echo" in this conversation; it has no tools` {
		t.Errorf("result = %q", got)
	}
}

func TestFactsSurviveCondensing(t *testing.T) {
	steps := []script.Step{call("echo", `{"text":"./wisp.json","fact":true}`), {Content: "noted"}}
	for range 10 {
		steps = append(steps, script.Step{Content: "more"})
	}
	m := script.New("t", steps)
	a := agent.New(m, &agent.Options{Tools: set(t, echo{}), MaxHistory: 6})
	reply, err := a.Respond(context.Background(), "t", "first")
	if err != nil {
		t.Fatal(err)
	}
	if len(reply.Facts) != 1 || reply.Facts[0].ID != "c1" {
		t.Fatalf("reply facts = %+v, want one fact c1", reply.Facts)
	}
	for i := range 10 {
		if _, err := a.Respond(context.Background(), "t", fmt.Sprint("turn ", i)); err != nil {
			t.Fatal(err)
		}
	}
	reqs := m.Requests()
	last := reqs[len(reqs)-1].Messages
	if len(last) > 6+2 {
		t.Errorf("last request has %d messages; condensing should keep it near 6", len(last))
	}
	if !strings.Contains(last[0].Content, `c1 answer "Q?" = ./wisp.json`) {
		t.Errorf("first message after condensing = %q, want the thread's facts", last[0].Content)
	}
	if !strings.HasPrefix(last[1].Content, "[wisp: ") || !strings.Contains(last[1].Content, "condensed") {
		t.Errorf("second message = %q, want the condensing note", last[1].Content)
	}
	for _, msg := range last {
		if msg.Content == "first" {
			t.Errorf("the first turn's input survived condensing")
		}
	}
	if got := a.Facts("t"); len(got) != 1 {
		t.Errorf("Facts = %+v, want the one fact", got)
	}
}

func TestVerificationPass(t *testing.T) {
	tests := []struct {
		name  string
		steps []script.Step
		flag  bool
	}{
		{"claim without an answer", []script.Step{{Content: "Done, as you confirmed."}}, true},
		{"claimed choice without an answer", []script.Step{{Content: "I used ./wisp.json, which you chose."}}, true},
		{"claim after an answer", []script.Step{call("echo", `{"text":"x","fact":true}`), {Content: "Done, as you confirmed."}}, false},
		{"no claim", []script.Step{{Content: "I replaced ./wisp.json."}}, false},
		{"you asked is not a claim", []script.Step{{Content: "Replaced it as you asked."}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &wisptest.Recorder{}
			p := wisptest.NewPerson()
			a := agent.New(script.New("t", tc.steps), &agent.Options{Tools: set(t, echo{}), Events: rec, Notifier: p})
			reply, err := a.Respond(context.Background(), "t", "go")
			if err != nil {
				t.Fatal(err)
			}
			flagged := len(reply.Flags) > 0
			if flagged != tc.flag {
				t.Errorf("flags = %v, want flagged %v", reply.Flags, tc.flag)
			}
			if got := len(rec.Events(wisp.KindVerificationFlag)) > 0; got != tc.flag {
				t.Errorf("verification.flagged recorded = %v, want %v", got, tc.flag)
			}
			if got := len(p.Notices()) > 0; got != tc.flag {
				t.Errorf("person told = %v, want %v", got, tc.flag)
			}
		})
	}
}

func TestConcurrentThreads(t *testing.T) {
	m := wisp.ModelFunc(func(ctx context.Context, req wisp.ChatRequest, _ func(wisp.ChatDelta)) (wisp.ChatResponse, error) {
		return wisp.ChatResponse{Message: wisp.Message{Content: req.Messages[len(req.Messages)-1].Content}}, nil
	})
	a := agent.New(m, nil)
	done := make(chan error)
	for i := range 8 {
		go func() {
			for j := range 20 {
				r, err := a.Respond(context.Background(), fmt.Sprint("t", i%3), fmt.Sprint(i, j))
				if err == nil && r.Text != fmt.Sprint(i, j) {
					err = fmt.Errorf("reply %q to %d%d", r.Text, i, j)
				}
				if err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

// A turn stopped in the middle of its tool calls leaves a result for every
// call, so the next turn's request is well formed.
func TestStoppedTurnKeepsResults(t *testing.T) {
	m := script.New("t", []script.Step{
		{ToolCalls: []script.ToolCall{{Name: "echo", Arguments: json.RawMessage(`{"text":"a"}`)}, {Name: "echo", Arguments: json.RawMessage(`{"text":"b"}`)}}},
		{Content: "next turn"},
	})
	a := agent.New(m, &agent.Options{Tools: set(t, echo{fail: wisp.ErrInterrupted}), NewID: ids()})
	if _, err := a.Respond(context.Background(), "t", "go"); !errors.Is(err, wisp.ErrInterrupted) {
		t.Fatalf("Respond = %v, want ErrInterrupted", err)
	}
	if _, err := a.Respond(context.Background(), "t", "again"); err != nil {
		t.Fatal(err)
	}
	msgs := m.Requests()[1].Messages
	var got []string
	for _, msg := range msgs {
		got = append(got, string(msg.Role)+" "+msg.ToolCallID+" "+msg.Content)
	}
	want := []string{"user  go", "assistant  ", "tool call_" + "1 " + agent.LineStopped, "tool call_2 " + agent.LineStopped, "user  again"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("next turn's messages (-want +got):\n%s", diff)
	}
}

// A notice is no turn of its own: the model reads it with the next turn.
func TestNote(t *testing.T) {
	m := script.New("t", []script.Step{{Content: "a"}, {Content: "b"}})
	rec := &wisptest.Recorder{}
	a := agent.New(m, &agent.Options{Events: rec})
	if _, err := a.Respond(context.Background(), "t", "one"); err != nil {
		t.Fatal(err)
	}
	a.Note("t", "[wisp: the pull finished]")
	r, err := a.Respond(context.Background(), "t", "two")
	if err != nil || r.Turn != 2 {
		t.Fatalf("Respond = %+v, %v; want turn 2 (a notice is no turn)", r, err)
	}
	var got []string
	for _, msg := range m.Requests()[1].Messages {
		got = append(got, msg.Content)
	}
	if diff := cmp.Diff([]string{"one", "a", "[wisp: the pull finished]", "two"}, got); diff != "" {
		t.Errorf("second request (-want +got):\n%s", diff)
	}
	if n := len(rec.Events(wisp.KindNotice)); n != 1 {
		t.Errorf("%d thread.notice events, want 1", n)
	}
}

// When a thread would not fit the model's context, older turns are
// condensed: the system prompt, the facts, the notices and the current
// turn are kept, and each condensing is recorded.
func TestCondenseToContext(t *testing.T) {
	long := strings.Repeat("word ", 200) // about 250 tokens
	steps := []script.Step{call("echo", `{"text":"./wisp.json","fact":true}`), {Content: "noted"}}
	for range 6 {
		steps = append(steps, script.Step{Content: long})
	}
	steps = append(steps, script.Step{Content: "last"})
	m := script.New("t", steps)
	rec := &wisptest.Recorder{}
	a := agent.New(m, &agent.Options{Tools: set(t, echo{}), System: "be brief", ContextTokens: 1200, Events: rec})
	if _, err := a.Respond(context.Background(), "t", "first"); err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		if _, err := a.Respond(context.Background(), "t", fmt.Sprint("turn ", i, " ", long)); err != nil {
			t.Fatal(err)
		}
		if i == 2 {
			a.Note("t", "[wisp: the pull of org/x finished]")
		}
	}
	if _, err := a.Respond(context.Background(), "t", "current question"); err != nil {
		t.Fatal(err)
	}
	reqs := m.Requests()
	last := reqs[len(reqs)-1].Messages
	var contents []string
	total := 0
	for _, msg := range last {
		contents = append(contents, msg.Content)
		total += len(msg.Content)
	}
	joined := strings.Join(contents, "\n")
	for _, want := range []string{"be brief", `c1 answer "Q?" = ./wisp.json`, "[wisp: the pull of org/x finished]", "current question", "condensed away"} {
		if !strings.Contains(joined, want) {
			t.Errorf("the last request lacks %q", want)
		}
	}
	if strings.Contains(joined, "first") {
		t.Error("the first turn survived; nothing was condensed")
	}
	if total/4 > 1200 {
		t.Errorf("the last request holds about %d tokens, over the 1200 of the context", total/4)
	}
	if len(rec.Events(wisp.KindCondensed)) == 0 {
		t.Error("no thread.condensed event")
	}
}

// sized is a model whose runner has less context than the agent was told
// the model takes, as Ollama's runner has when it loads a model at its
// own default.
type sized struct {
	*script.Model
	tokens int
	asked  int
}

func (s *sized) ContextTokens(context.Context) int {
	s.asked++
	return s.tokens
}

// The context the runner has, when the model says, decides when to
// condense, not the most the model takes; a model that cannot tell (0)
// leaves it to Options.ContextTokens.
func TestCondenseToRunnerContext(t *testing.T) {
	long := strings.Repeat("word ", 200) // about 250 tokens
	for _, tc := range []struct {
		name      string
		runner    int
		condensed bool
	}{
		{"the runner has 1,200 of the model's 40,960", 1200, true},
		{"the runner cannot tell", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var steps []script.Step
			for range 8 {
				steps = append(steps, script.Step{Content: long})
			}
			m := &sized{Model: script.New("t", steps), tokens: tc.runner}
			rec := &wisptest.Recorder{}
			a := agent.New(m, &agent.Options{ContextTokens: 40960, Events: rec})
			for i := range 8 {
				if _, err := a.Respond(context.Background(), "t", fmt.Sprint("turn ", i, " ", long)); err != nil {
					t.Fatal(err)
				}
			}
			if got := len(rec.Events(wisp.KindCondensed)) > 0; got != tc.condensed {
				t.Errorf("condensed = %v, want %v", got, tc.condensed)
			}
			if m.asked < 8 {
				t.Errorf("the model was asked for its runner's context %d times, want once a step (8)", m.asked)
			}
			reqs := m.Requests()
			total := 0
			for _, msg := range reqs[len(reqs)-1].Messages {
				total += len(msg.Content)
			}
			if tc.condensed && total/4 > tc.runner {
				t.Errorf("the last request holds about %d tokens, over the runner's %d", total/4, tc.runner)
			}
		})
	}
}

// asker is a tool that asks the person, and so summarises its calls
// without their words.
type asker struct{ echo }

func (asker) Name() string                   { return "asker" }
func (asker) Summary(json.RawMessage) string { return "a question" }

// A tool.call event carries what a face shows of the call: the tool's
// summary when it gives one, never the words it asks with; another tool's
// call has none, and a face shows its arguments.
func TestToolCallSummary(t *testing.T) {
	m := script.New("t", []script.Step{
		call("asker", `{"text":"What is your GitHub token?"}`),
		call("echo", `{"text":"one"}`),
		{Content: "done"},
	})
	rec := &wisptest.Recorder{}
	a := agent.New(m, &agent.Options{Tools: set(t, asker{}, echo{}), Events: rec})
	if _, err := a.Respond(context.Background(), "t1", "go"); err != nil {
		t.Fatal(err)
	}
	type shown struct {
		Name    string
		Summary *string
		Shown   string
	}
	var got []shown
	for _, e := range rec.Events(wisp.KindToolCall) {
		d := e.Data.(wisp.ToolCallData)
		got = append(got, shown{d.Name, d.Summary, d.Shown()})
	}
	summary := "a question"
	want := []shown{{"asker", &summary, "a question"}, {"echo", nil, `{"text":"one"}`}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tool.call summaries (-want +got):\n%s", diff)
	}
}

// A notice is a record of its own kind, never recognised by its text: a
// person's message that starts as a notice does is condensed away with
// its turn, while wisp's notice is kept; the store holds each as what it
// is.
func TestMessageLikeANoticeIsAMessage(t *testing.T) {
	var steps []script.Step
	for range 10 {
		steps = append(steps, script.Step{Content: "ok"})
	}
	m := script.New("t", steps)
	store := &memStore{}
	a := agent.New(m, &agent.Options{MaxHistory: 6, Store: store})
	const typed, notice = "[wisp: the pull of org/typed finished]", "[wisp: the pull of org/real finished]"
	if _, err := a.Respond(context.Background(), "t", typed); err != nil {
		t.Fatal(err)
	}
	a.Note("t", notice)
	if _, err := a.Respond(context.Background(), "t", "two"); err != nil {
		t.Fatal(err)
	}
	st, _, _ := store.Load("t")
	var got []string
	for _, r := range st.Messages {
		got = append(got, string(r.Kind)+" "+r.Content)
	}
	want := []string{" " + typed, " ok", "notice " + notice, " two", " ok"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the stored records (-want +got):\n%s", diff)
	}
	for i := range 5 {
		if _, err := a.Respond(context.Background(), "t", fmt.Sprint("turn ", i)); err != nil {
			t.Fatal(err)
		}
	}
	reqs := m.Requests()
	var last []string
	for _, msg := range reqs[len(reqs)-1].Messages {
		last = append(last, msg.Content)
	}
	joined := strings.Join(last, "\n")
	if strings.Contains(joined, "org/typed") {
		t.Errorf("the person's message was kept through condensing as if it were a notice:\n%s", joined)
	}
	if !strings.Contains(joined, notice) || !strings.Contains(joined, "condensed away") {
		t.Errorf("the last request lacks the notice or the condensing note:\n%s", joined)
	}
	st, _, _ = store.Load("t")
	if st.Messages[0].Kind != agent.RecordCondensed || st.Messages[0].Role != wisp.RoleSystem {
		t.Errorf("the first stored record = %+v, want the condensing note", st.Messages[0])
	}
}

// The model never reads where this machine keeps wisp's files: a tool's
// result and a notice that name the home reach it, the thread and the
// events with the home written $WISP_HOME.
func TestHomeHidden(t *testing.T) {
	const home = "/home/ann/.wisp"
	m := script.New("t", []script.Step{call("echo", `{"text":"cannot link `+home+`/models/mlx/q: it is a folder"}`), {Content: "a"}, {Content: "b"}})
	store := &memStore{}
	rec := &wisptest.Recorder{}
	a := agent.New(m, &agent.Options{Tools: set(t, echo{}), Store: store, Events: rec, Home: home})
	if _, err := a.Respond(context.Background(), "t", "link it"); err != nil {
		t.Fatal(err)
	}
	a.Note("t", "[wisp: the pull failed: cannot write "+home+"/hub/blobs/x: disk full]")
	if _, err := a.Respond(context.Background(), "t", "and now?"); err != nil {
		t.Fatal(err)
	}
	reqs := m.Requests()
	var seen []string
	for _, msg := range reqs[len(reqs)-1].Messages {
		seen = append(seen, msg.Content)
	}
	joined := strings.Join(seen, "\n")
	for _, want := range []string{"echo: cannot link $WISP_HOME/models/mlx/q: it is a folder", "[wisp: the pull failed: cannot write $WISP_HOME/hub/blobs/x: disk full]"} {
		if !strings.Contains(joined, want) {
			t.Errorf("the model's last request lacks %q:\n%s", want, joined)
		}
	}
	if strings.Contains(joined, home) {
		t.Errorf("the model read the home's path:\n%s", joined)
	}
	// Only the model's own call still holds it, as the model wrote it.
	st, _, _ := store.Load("t")
	for _, r := range st.Messages {
		if r.Role != wisp.RoleAssistant && strings.Contains(r.Content, home) {
			t.Errorf("the thread holds the home's path: %+v", r)
		}
	}
	events, _ := json.Marshal(append(rec.Events(wisp.KindToolResult), rec.Events(wisp.KindNotice)...))
	if strings.Contains(string(events), home) {
		t.Errorf("the events hold the home's path: %s", events)
	}
}
