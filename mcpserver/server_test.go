package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/agent/threadfile"
	"github.com/wisp-agent/wisp/internal/version"
	"github.com/wisp-agent/wisp/mcpserver"
	"github.com/wisp-agent/wisp/models/script"
)

func TestInitialize(t *testing.T) {
	f := newFixture(t, fixtureOptions{model: script.New("s", nil)})
	res := initialize(t, f.srv)
	if diff := cmp.Diff(mcp.Implementation{Name: "wisp-test", Version: "1.2.3"}, res.ServerInfo); diff != "" {
		t.Errorf("server info (-want +got):\n%s", diff)
	}
	caps := res.Capabilities
	if caps.Tools == nil || caps.Resources == nil || caps.Logging == nil {
		t.Errorf("capabilities = %+v, want tools, resources and logging", caps)
	}
}

// Without Options.Name and Version the server names itself wisp, at the
// version its build recorded: the line wisp --version prints.
func TestInitializeDefaultInfo(t *testing.T) {
	res := initialize(t, mcpserver.New(&mcpserver.Options{Threads: threadfile.Dir{Path: t.TempDir()}}))
	want := mcp.Implementation{Name: "wisp", Version: version.String()}
	if diff := cmp.Diff(want, res.ServerInfo); diff != "" {
		t.Errorf("server info (-want +got):\n%s", diff)
	}
}

// initialize connects an in-process client to srv and returns what its
// initialize request got.
func initialize(t *testing.T, srv *mcpserver.Server) *mcp.InitializeResult {
	t.Helper()
	c, err := client.NewInProcessClient(srv.MCP())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	var ir mcp.InitializeRequest
	ir.Params.ClientInfo = mcp.Implementation{Name: "t", Version: "0"}
	res, err := c.Initialize(t.Context(), ir)
	if err != nil {
		t.Fatalf("Initialize: %v", err)
	}
	return res
}

// wantRespondTool is respond's entry in tools/list, as it goes on the wire.
const wantRespondTool = `{
  "annotations": {"destructiveHint": false, "idempotentHint": false, "openWorldHint": false, "readOnlyHint": false, "title": "Ask wisp"},
  "description": "Runs one turn of wisp's local agent on a thread: wisp's model reads the prompt and the thread so far, may run its tools, and replies. The reply and the thread_id come back; pass the thread_id again to continue the same conversation. Without thread_id a new thread starts; a thread_id wisp has never seen starts a thread of that name. tools names the tools wisp's model may use on this turn (left out: every tool the person's settings allow; an empty list: none). Any question wisp's model asks goes to the person, never to you: if they have not answered within a minute, the turn parks it, the result lists it under waiting, and their answer reaches the thread's next turn. Each thread is readable as the resource wisp://threads/{thread_id}.",
  "inputSchema": {
    "type": "object",
    "properties": {
      "prompt": {"type": "string", "minLength": 1, "maxLength": 100000, "description": "What to say to wisp's agent on this turn."},
      "thread_id": {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$", "description": "The thread to continue, as an earlier call returned it; left out, a new thread starts."},
      "tools": {"type": "array", "items": {"type": "string"}, "description": "The tools wisp's agent may use on this turn; left out, every tool the settings allow."}
    },
    "required": ["prompt"],
    "additionalProperties": false
  },
  "name": "respond",
  "outputSchema": {
    "type": "object",
    "properties": {
      "reply": {"type": "string", "description": "wisp's reply"},
      "thread_id": {"type": "string", "description": "the thread the turn ran on"},
      "turn": {"type": "integer", "description": "the turn's number on the thread, from 1"},
      "flags": {"type": "array", "items": {"type": "string"}, "description": "claims in the reply that the turn cannot back"},
      "waiting": {
        "type": "array",
        "description": "questions wisp's model asked that wait for the person; their answers reach the thread's next turn",
        "items": {
          "type": "object",
          "properties": {"question_id": {"type": "string"}, "question": {"type": "string"}},
          "required": ["question_id", "question"]
        }
      }
    },
    "required": ["reply", "thread_id", "turn"]
  }
}`

func TestListTools(t *testing.T) {
	f := newFixture(t, fixtureOptions{model: script.New("s", nil)})
	// The wire form, straight from the server.
	resp := f.srv.MCP().HandleMessage(t.Context(), json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	raw, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Result struct {
			Tools []any `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("tools/list: %s: %v", raw, err)
	}
	var want any
	if err := json.Unmarshal([]byte(wantRespondTool), &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]any{want}, got.Result.Tools); diff != "" {
		t.Errorf("tools/list (-want +got):\n%s", diff)
	}

	// And as a client sees it.
	c := f.client(t)
	lt, err := c.ListTools(t.Context(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(lt.Tools) != 1 || lt.Tools[0].Name != "respond" {
		t.Fatalf("ListTools = %+v, want respond alone", lt.Tools)
	}
	no := false
	wantAnn := mcp.ToolAnnotation{Title: "Ask wisp", ReadOnlyHint: &no, DestructiveHint: &no, IdempotentHint: &no, OpenWorldHint: &no}
	if diff := cmp.Diff(wantAnn, lt.Tools[0].Annotations); diff != "" {
		t.Errorf("annotations (-want +got):\n%s", diff)
	}
}

func TestRespondNewThread(t *testing.T) {
	f := newFixture(t, fixtureOptions{model: script.New("s", steps("hello there"))})
	c := f.client(t)
	res := respond(t, c, map[string]any{"prompt": "hi"})
	if res.IsError {
		t.Fatalf("respond: error result %q", text(res))
	}
	want := mcpserver.RespondResult{Reply: "hello there", ThreadID: "t-00000001", Turn: 1}
	if diff := cmp.Diff(want, structured(t, res)); diff != "" {
		t.Errorf("structured content (-want +got):\n%s", diff)
	}
	if got, want := text(res), "hello there\n\nthread: t-00000001"; got != want {
		t.Errorf("text = %q, want %q", got, want)
	}
	st, ok, err := f.dir.Load("t-00000001")
	if err != nil || !ok || st.Turn != 1 {
		t.Errorf("thread file: turn %d, ok %v, err %v; want turn 1 saved", st.Turn, ok, err)
	}
	if diff := cmp.Diff([]string{"t-00000001"}, f.onCall); diff != "" {
		t.Errorf("OnCall threads (-want +got):\n%s", diff)
	}
}

// Any wisp.Agent serves, not only *agent.Agent: one of one's own, which
// is no Holder, runs the turns respond calls ask for.
func TestRespondWithAnyAgent(t *testing.T) {
	var mu sync.Mutex
	turns := map[string]int{}
	f := newFixture(t, fixtureOptions{configure: func(o *mcpserver.Options) {
		o.Conversations = mcpserver.ConversationsFunc(func(context.Context, []string) (wisp.Agent, error) {
			return wisp.AgentFunc(func(ctx context.Context, thread, input string) (wisp.Reply, error) {
				mu.Lock()
				defer mu.Unlock()
				turns[thread]++
				return wisp.Reply{Thread: thread, Turn: turns[thread], Text: "you said: " + input}, nil
			}), nil
		})
	}})
	c := f.client(t)
	first := structured(t, respond(t, c, map[string]any{"prompt": "hi"}))
	second := structured(t, respond(t, c, map[string]any{"prompt": "again", "thread_id": first.ThreadID}))
	want := []mcpserver.RespondResult{
		{Reply: "you said: hi", ThreadID: "t-00000001", Turn: 1},
		{Reply: "you said: again", ThreadID: "t-00000001", Turn: 2},
	}
	if diff := cmp.Diff(want, []mcpserver.RespondResult{first, second}); diff != "" {
		t.Errorf("respond with an agent of one's own (-want +got):\n%s", diff)
	}
}

func TestRespondSkipsUsedIDs(t *testing.T) {
	f := newFixture(t, fixtureOptions{model: script.New("s", steps("one", "two"))})
	c := f.client(t)
	// A caller names the thread the next new id would be.
	respond(t, c, map[string]any{"prompt": "a", "thread_id": "t-00000001"})
	res := respond(t, c, map[string]any{"prompt": "b"})
	if got := structured(t, res); got.ThreadID == "t-00000001" || got.Turn != 1 {
		t.Errorf("new thread = %s turn %d, want a fresh id at turn 1", got.ThreadID, got.Turn)
	}
}

func TestRespondContinuesThread(t *testing.T) {
	model := script.New("s", steps("one", "two"))
	f := newFixture(t, fixtureOptions{model: model})
	c := f.client(t)
	first := structured(t, respond(t, c, map[string]any{"prompt": "first"}))
	res := respond(t, c, map[string]any{"prompt": "second", "thread_id": first.ThreadID})
	if res.IsError {
		t.Fatalf("respond: error result %q", text(res))
	}
	want := mcpserver.RespondResult{Reply: "two", ThreadID: first.ThreadID, Turn: 2}
	if diff := cmp.Diff(want, structured(t, res)); diff != "" {
		t.Errorf("structured content (-want +got):\n%s", diff)
	}
	reqs := model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("model saw %d requests, want 2", len(reqs))
	}
	wantMsgs := []wisp.Message{
		{Role: wisp.RoleUser, Content: "first"},
		{Role: wisp.RoleAssistant, Content: "one"},
		{Role: wisp.RoleUser, Content: "second"},
	}
	if diff := cmp.Diff(wantMsgs, reqs[1].Messages); diff != "" {
		t.Errorf("second turn's messages (-want +got):\n%s", diff)
	}
}

func TestRespondToolLists(t *testing.T) {
	tests := []struct {
		name      string
		tools     any // the tools argument; nil leaves it out
		wantNamed []string
		wantGot   []string // the agent's tools; nil when no agent is built
		wantError string
	}{
		{name: "left out", wantNamed: nil, wantGot: []string{"echo"}},
		{name: "null", tools: "null", wantNamed: nil, wantGot: []string{"echo"}},
		{name: "echo", tools: []string{"echo"}, wantNamed: []string{"echo"}, wantGot: []string{"echo"}},
		{name: "none", tools: []string{}, wantNamed: []string{}, wantGot: []string{}},
		{name: "opt-in named", tools: []string{"ask"}, wantNamed: []string{"ask"}, wantGot: []string{"ask"}},
		{name: "unknown", tools: []string{"echo", "run_command"}, wantNamed: []string{"echo", "run_command"},
			wantError: `error: respond's tools argument names "run_command", which is not one of wisp's tools (echo, ask); ` +
				`name tools from that list, or leave tools out for every tool the person's settings allow`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{model: script.New("s", steps("ok"))})
			c := f.client(t)
			args := map[string]any{"prompt": "hi"}
			switch v := tt.tools.(type) {
			case nil:
			case string:
				args["tools"] = nil
			default:
				args["tools"] = v
			}
			res := respond(t, c, args)
			if tt.wantError != "" {
				if !res.IsError || text(res) != tt.wantError {
					t.Errorf("respond(tools %v) = %q (isError %v), want error %q", tt.tools, text(res), res.IsError, tt.wantError)
				}
			} else if res.IsError {
				t.Fatalf("respond(tools %v): error result %q", tt.tools, text(res))
			}
			if diff := cmp.Diff([][]string{tt.wantNamed}, f.named); diff != "" {
				t.Errorf("Agent named (-want +got):\n%s", diff)
			}
			if tt.wantGot != nil {
				if diff := cmp.Diff([][]string{tt.wantGot}, f.got, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("agent's tools (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestRespondBadArguments(t *testing.T) {
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"no prompt", map[string]any{}, "error: prompt is required: a string of 1 to 100000 characters"},
		{"empty prompt", map[string]any{"prompt": ""}, "error: prompt is required: a string of 1 to 100000 characters"},
		{"prompt not a string", map[string]any{"prompt": 3}, "error: prompt is required: a string of 1 to 100000 characters"},
		{"long prompt", map[string]any{"prompt": strings.Repeat("é", 100001)}, "error: prompt has 100001 characters; the most is 100000"},
		{"bad thread id", map[string]any{"prompt": "hi", "thread_id": "../etc"},
			`error: thread_id "../etc" is not a thread id: a thread id is 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit; pass one an earlier call returned, or leave it out for a new thread`},
		{"empty thread id", map[string]any{"prompt": "hi", "thread_id": ""},
			`error: thread_id "" is not a thread id: a thread id is 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit; pass one an earlier call returned, or leave it out for a new thread`},
		{"thread id a number", map[string]any{"prompt": "hi", "thread_id": 7},
			`error: thread_id 7 is not a thread id: a thread id is 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit; pass one an earlier call returned, or leave it out for a new thread`},
		{"tools a string", map[string]any{"prompt": "hi", "tools": "echo"}, "error: tools must be a list of tool names"},
		{"tools with a number", map[string]any{"prompt": "hi", "tools": []any{"echo", 1}}, "error: tools must be a list of tool names; 1 is not a name"},
		{"unknown argument", map[string]any{"prompt": "hi", "model": "x"}, `error: unknown argument "model"; respond takes prompt, thread_id and tools`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := script.New("s", steps("ok"))
			f := newFixture(t, fixtureOptions{model: model})
			res := respond(t, f.client(t), tt.args)
			if !res.IsError || text(res) != tt.want {
				t.Errorf("respond(%v) = %q (isError %v), want error %q", tt.args, text(res), res.IsError, tt.want)
			}
			if len(f.named) != 0 || model.Remaining() != 1 {
				t.Errorf("respond(%v) built %d agents and ran %d steps, want none", tt.args, len(f.named), 1-model.Remaining())
			}
		})
	}
}

func TestRespondFailedTurn(t *testing.T) {
	f := newFixture(t, fixtureOptions{model: script.New("s", nil)})
	res := respond(t, f.client(t), map[string]any{"prompt": "hi", "thread_id": "work"})
	want := "error: model: script s: the script has no message left after 0 messages; add a line for the model's next message\nthread: work"
	if !res.IsError || text(res) != want {
		t.Errorf("respond = %q (isError %v), want error %q", text(res), res.IsError, want)
	}
}

func TestThreadResource(t *testing.T) {
	model := script.New("s", []script.Step{
		{ToolCalls: []script.ToolCall{{Name: "ask", Arguments: json.RawMessage(`{"question":"Which?"}`)}}},
		{Content: "You chose b."},
	})
	f := newFixture(t, fixtureOptions{model: model, audit: true})
	c := f.client(t)
	res := respond(t, c, map[string]any{"prompt": "pick", "tools": []string{"ask"}})
	if res.IsError {
		t.Fatalf("respond: error result %q", text(res))
	}
	id := structured(t, res).ThreadID

	tests := []struct {
		uri, mime, want string
		wantAudits      []string
	}{
		{
			uri:  "wisp://threads/" + id,
			mime: "application/json",
			want: `{"thread_id":"t-00000001","turn":1,"messages":[` +
				`{"role":"user","content":"pick"},` +
				`{"role":"assistant","content":"","tool_calls":[{"name":"ask","arguments":{"question":"Which?"}}]},` +
				`{"role":"tool","content":"answer: b","tool":"ask"},` +
				`{"role":"assistant","content":"You chose b."}],` +
				`"facts":["c1 answer \"Which?\" = b"]}`,
		},
		{
			uri:        "wisp://threads/" + id + "/audit",
			mime:       "application/jsonl",
			want:       `{"kind":"turn.started","thread":"t-00000001"}` + "\n",
			wantAudits: []string{"t-00000001"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.uri, func(t *testing.T) {
			f.audits = nil
			var req mcp.ReadResourceRequest
			req.Params.URI = tt.uri
			rr, err := c.ReadResource(t.Context(), req)
			if err != nil {
				t.Fatalf("ReadResource(%s): %v", tt.uri, err)
			}
			if len(rr.Contents) != 1 {
				t.Fatalf("ReadResource(%s) = %d contents, want 1", tt.uri, len(rr.Contents))
			}
			tc, ok := mcp.AsTextResourceContents(rr.Contents[0])
			if !ok {
				t.Fatalf("ReadResource(%s) = %T, want text", tt.uri, rr.Contents[0])
			}
			got := mcp.TextResourceContents{URI: tc.URI, MIMEType: tc.MIMEType, Text: tc.Text}
			want := mcp.TextResourceContents{URI: tt.uri, MIMEType: tt.mime, Text: tt.want}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("ReadResource(%s) (-want +got):\n%s", tt.uri, diff)
			}
			if diff := cmp.Diff(tt.wantAudits, f.audits); diff != "" {
				t.Errorf("audit hook calls (-want +got):\n%s", diff)
			}
		})
	}
}

func TestThreadResourceErrors(t *testing.T) {
	f := newFixture(t, fixtureOptions{model: script.New("s", nil), audit: true})
	c := f.client(t)
	tests := []struct{ uri, want string }{
		{"wisp://threads/t-nope", "thread t-nope: no such thread"},
		{"wisp://threads/t-nope/audit", "thread t-nope: no such thread"},
		{"wisp://threads/..", "is not"},
	}
	for _, tt := range tests {
		var req mcp.ReadResourceRequest
		req.Params.URI = tt.uri
		_, err := c.ReadResource(t.Context(), req)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ReadResource(%s) = %v, want an error with %q", tt.uri, err, tt.want)
		}
	}
	if len(f.audits) != 0 {
		t.Errorf("audit hook called for %v, want never for unknown threads", f.audits)
	}
}

func TestResourceTemplates(t *testing.T) {
	tests := []struct {
		audit bool
		want  []string
	}{
		{false, []string{"wisp://threads/{thread_id}"}},
		{true, []string{"wisp://threads/{thread_id}", "wisp://threads/{thread_id}/audit"}},
	}
	for _, tt := range tests {
		f := newFixture(t, fixtureOptions{model: script.New("s", nil), audit: tt.audit})
		res, err := f.client(t).ListResourceTemplates(t.Context(), mcp.ListResourceTemplatesRequest{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, rt := range res.ResourceTemplates {
			got = append(got, rt.URITemplate.Raw())
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("templates with audit %v (-want +got):\n%s", tt.audit, diff)
		}
	}
}

func TestConcurrentThreads(t *testing.T) {
	const n = 8
	f := newFixture(t, fixtureOptions{model: script.New("s", steps(strings.Split(strings.Repeat("ok ", n), " ")[:n]...))})
	c := f.client(t)
	var wg sync.WaitGroup
	results := make([]mcpserver.RespondResult, n)
	for i := range n {
		wg.Go(func() {
			res := respond(t, c, map[string]any{"prompt": "hi", "thread_id": fmt.Sprintf("w%d", i)})
			if res.IsError {
				t.Errorf("respond on w%d: %q", i, text(res))
			}
			results[i] = structured(t, res)
		})
	}
	wg.Wait()
	for i, r := range results {
		want := mcpserver.RespondResult{Reply: "ok", ThreadID: fmt.Sprintf("w%d", i), Turn: 1}
		if diff := cmp.Diff(want, r); diff != "" {
			t.Errorf("thread w%d (-want +got):\n%s", i, diff)
		}
	}
}

// gateModel holds its first call until a second arrives or a while
// passes, so calls that could overlap do.
type gateModel struct {
	script  *script.Model
	mu      sync.Mutex
	calls   int
	second  chan struct{}
	overlap bool
}

func (g *gateModel) Chat(ctx context.Context, req wisp.ChatRequest, stream func(wisp.ChatDelta)) (wisp.ChatResponse, error) {
	g.mu.Lock()
	g.calls++
	first := g.calls == 1
	if !first && g.calls == 2 {
		close(g.second)
	}
	g.mu.Unlock()
	if first {
		select {
		case <-g.second:
			g.mu.Lock()
			g.overlap = true
			g.mu.Unlock()
		case <-time.After(300 * time.Millisecond):
		}
	}
	return g.script.Chat(ctx, req, stream)
}

func TestSameThreadSerialised(t *testing.T) {
	g := &gateModel{script: script.New("s", steps("a", "b")), second: make(chan struct{})}
	f := newFixture(t, fixtureOptions{model: g})
	c := f.client(t)
	var wg sync.WaitGroup
	turns := make([]int, 2)
	for i := range 2 {
		wg.Go(func() {
			res := respond(t, c, map[string]any{"prompt": "hi", "thread_id": "same"})
			if res.IsError {
				t.Errorf("respond: %q", text(res))
			}
			turns[i] = structured(t, res).Turn
		})
	}
	wg.Wait()
	if g.overlap {
		t.Errorf("two turns on one thread reached the model at once")
	}
	if turns[0]+turns[1] != 3 {
		t.Errorf("turns = %v, want 1 and 2", turns)
	}
}

func TestNotify(t *testing.T) {
	tests := []struct {
		name string
		opts []client.ClientOption
	}{
		{"2026-07-28", nil},
		{"2025-11-25", []client.ClientOption{client.WithLegacyProtocolOnly()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := script.New("s", []script.Step{
				{ToolCalls: []script.ToolCall{{Name: "ask", Arguments: json.RawMessage(`{"question":"Which config?"}`)}}},
				{Content: "done"},
			})
			f := newFixture(t, fixtureOptions{model: model})
			c := f.client(t, tt.opts...)
			got := make(chan mcp.JSONRPCNotification, 10)
			c.OnNotification(func(n mcp.JSONRPCNotification) {
				if n.Method == "notifications/message" {
					got <- n
				}
			})
			if err := c.SetLevel(t.Context(), mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelNotice}}); err != nil {
				t.Fatalf("SetLevel: %v", err)
			}
			res := respond(t, c, map[string]any{"prompt": "go", "tools": []string{"ask"}, "thread_id": "q1"})
			if res.IsError {
				t.Fatalf("respond: %q", text(res))
			}
			select {
			case n := <-got:
				want := map[string]any{"level": "notice", "logger": "wisp", "data": "wisp: the model asks: Which config?"}
				if diff := cmp.Diff(want, jsonRoundTrip(t, n.Params.AdditionalFields)); diff != "" {
					t.Errorf("notification (-want +got):\n%s", diff)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("no notifications/message arrived")
			}
			if diff := cmp.Diff([]string{"call on q1"}, f.seen); diff != "" {
				t.Errorf("the tool's context from OnCall (-want +got):\n%s", diff)
			}
		})
	}
}

// jsonRoundTrip returns v as JSON decodes it.
func jsonRoundTrip(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// The thread resource names a notice's kind, and only a notice's: a
// person's prompt that starts as a notice does is a message.
func TestThreadResourceKinds(t *testing.T) {
	f := newFixture(t, fixtureOptions{model: script.New("s", nil)})
	st := agent.ThreadState{Turn: 1, Messages: []agent.ThreadRecord{
		{Kind: agent.RecordCondensed, Message: wisp.Message{Role: wisp.RoleSystem, Content: "[wisp: 2 earlier messages of this thread were condensed away; the facts above keep what was learned]"}},
		{Kind: agent.RecordNotice, Message: wisp.Message{Role: wisp.RoleUser, Content: "[wisp: the pull of org/x finished]"}},
		{Message: wisp.Message{Role: wisp.RoleUser, Content: "[wisp: the pull of org/y finished]"}},
		{Message: wisp.Message{Role: wisp.RoleAssistant, Content: "ok"}},
	}}
	if err := f.dir.Save("k", st); err != nil {
		t.Fatal(err)
	}
	c := f.client(t)
	var req mcp.ReadResourceRequest
	req.Params.URI = "wisp://threads/k"
	rr, err := c.ReadResource(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	tc, _ := mcp.AsTextResourceContents(rr.Contents[0])
	var got mcpserver.Thread
	if err := json.Unmarshal([]byte(tc.Text), &got); err != nil {
		t.Fatal(err)
	}
	want := []mcpserver.ThreadMessage{
		{Kind: "condensed", Role: "system", Content: st.Messages[0].Content},
		{Kind: "notice", Role: "user", Content: "[wisp: the pull of org/x finished]"},
		{Role: "user", Content: "[wisp: the pull of org/y finished]"},
		{Role: "assistant", Content: "ok"},
	}
	if diff := cmp.Diff(want, got.Messages); diff != "" {
		t.Errorf("wisp://threads/k messages (-want +got):\n%s", diff)
	}
}

// What the calling agent's model reads never names where this machine
// keeps wisp's files: a thread file that cannot be read is named
// threads/<id>.json, any other path under the home is written
// $WISP_HOME, and so is one in a notification.
func TestNoHomeInWhatTheCallerReads(t *testing.T) {
	home := t.TempDir()
	threads := filepath.Join(home, "threads")
	if err := os.MkdirAll(filepath.Join(threads, "folder.json"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(threads, "cut.json"), []byte(`{"version":2,"turn":1,"mess`), 0o600); err != nil {
		t.Fatal(err)
	}
	model := script.New("s", []script.Step{
		{ToolCalls: []script.ToolCall{{Name: "ask", Arguments: json.RawMessage(`{"question":"Use ` + home + `/config.json?"}`)}}},
		{Content: "done"},
	})
	f := newFixture(t, fixtureOptions{model: model, home: home})
	c := f.client(t)
	got := make(chan string, 10)
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == "notifications/message" {
			got <- fmt.Sprint(n.Params.AdditionalFields["data"])
		}
	})
	if err := c.SetLevel(t.Context(), mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelNotice}}); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ thread, want string }{
		{"cut", "error: thread cut: its file threads/cut.json is damaged (it ends before its JSON does); move the file aside to start the thread afresh\nthread: cut"},
		{"folder", "error: thread folder: thread file $WISP_HOME/threads/folder.json is not a regular file"},
	}
	for _, tc := range tests {
		res := respond(t, c, map[string]any{"prompt": "go", "thread_id": tc.thread})
		if got := text(res); !res.IsError || !strings.HasPrefix(got, tc.want) || strings.Contains(got, home) {
			t.Errorf("respond on thread %s = %q (isError %v), want an error starting %q, without %q", tc.thread, got, res.IsError, tc.want, home)
		}
	}
	if res := respond(t, c, map[string]any{"prompt": "go", "tools": []string{"ask"}}); res.IsError {
		t.Fatalf("respond: %q", text(res))
	}
	select {
	case n := <-got:
		if want := "wisp: the model asks: Use $WISP_HOME/config.json?"; n != want {
			t.Errorf("notification = %q, want %q", n, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no notification arrived")
	}
}

// A respond call on a thread another process holds tells its caller that
// it waits, and the caller's cancel ends the wait before the turn starts;
// so does one on a thread another call of this server holds.
func TestRespondWaitsForItsThread(t *testing.T) {
	model := script.New("s", steps("one", "two"))
	f := newFixture(t, fixtureOptions{model: model})
	c := f.client(t)
	got := make(chan string, 10)
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == "notifications/message" {
			data, _ := n.Params.AdditionalFields["data"].(string)
			got <- data
		}
	})
	if err := c.SetLevel(t.Context(), mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelNotice}}); err != nil {
		t.Fatalf("SetLevel: %v", err)
	}
	unlock, err := f.dir.Lock(t.Context(), "held", nil) // as another process does
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		var req mcp.CallToolRequest
		req.Params.Name = "respond"
		req.Params.Arguments = map[string]any{"prompt": "hi", "thread_id": "held"}
		_, err := c.CallTool(ctx, req)
		done <- err
	}()
	if msg := receive(t, got, "the thread's wait told"); msg != "wisp: thread held is busy with another turn; waiting…" {
		t.Errorf("notification %q, want the thread's wait", msg)
	}
	cancel()
	receive(t, done, "the cancelled call returning")
	unlock()
	res := respond(t, c, map[string]any{"prompt": "again", "thread_id": "held"})
	if r := structured(t, res); res.IsError || r.Turn != 1 || r.Reply != "one" {
		t.Errorf("respond once the thread was free = %+v (%q); want turn 1, the model's first reply: the call that was cancelled while it waited ran no turn", r, text(res))
	}
}
