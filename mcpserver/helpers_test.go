package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/agent/threadfile"
	"github.com/wisp-agent/wisp/mcpserver"
	"github.com/wisp-agent/wisp/models/script"
	"github.com/wisp-agent/wisp/tools"
)

// funcTool is a tool whose call is a function. Its calls need no approval
// of the agent's guard: one that must be approved asks the gate itself.
type funcTool struct {
	name, desc string
	schema     string
	call       func(ctx context.Context, c wisp.Call) (wisp.Result, error)
}

func (t funcTool) Name() string            { return t.name }
func (t funcTool) Description() string     { return t.desc }
func (t funcTool) Schema() json.RawMessage { return json.RawMessage(t.schema) }
func (t funcTool) Call(ctx context.Context, c wisp.Call) (wisp.Result, error) {
	return t.call(ctx, c)
}
func (funcTool) Action(context.Context, wisp.Call) (wisp.Action, error) {
	return wisp.Action{NoApproval: true}, nil
}

// ctxKey carries what OnCall put in a respond call's context.
type ctxKey struct{}

// fixture is a server over a real agent and a scripted model, with an echo
// tool and an opt-in ask tool that announces its question with Notify and
// answers it itself.
type fixture struct {
	srv   *mcpserver.Server
	model wisp.Model
	dir   threadfile.Dir

	mu     sync.Mutex
	named  [][]string // what each Agent call was asked for
	got    [][]string // the tools each agent got
	onCall []string   // the thread ids OnCall saw
	seen   []string   // the OnCall values the ask tool found in its context
	audits []string   // the threads the audit hook was asked for
}

type fixtureOptions struct {
	model wisp.Model
	audit bool
	home  string // the wisp home: threads under it, and Options.Home; empty: threads in a temp folder
	// configure, when set, changes the server's options before New.
	configure func(*mcpserver.Options)
}

// testToken is the bearer token the test servers require over HTTP.
const testToken = "test-token-0123456789abcdefghijklmnopqrstuvwxyz"

// withToken makes an HTTP client send testToken.
func withToken() transport.StreamableHTTPCOption {
	return transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + testToken})
}

func newFixture(t *testing.T, fo fixtureOptions) *fixture {
	t.Helper()
	f := &fixture{model: fo.model, dir: threadfile.Dir{Path: t.TempDir()}}
	if fo.home != "" {
		f.dir.Path = filepath.Join(fo.home, "threads")
	}
	reg := tools.NewRegistry()
	echo := funcTool{name: "echo", desc: "Echo text.",
		schema: `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`,
		call: func(_ context.Context, c wisp.Call) (wisp.Result, error) {
			var a struct{ Text string }
			_ = json.Unmarshal(c.Arguments, &a)
			return wisp.Result{Content: a.Text}, nil
		}}
	ask := funcTool{name: "ask", desc: "Ask the person.",
		schema: `{"type":"object","properties":{"question":{"type":"string"}},"required":["question"]}`,
		call: func(ctx context.Context, c wisp.Call) (wisp.Result, error) {
			var a struct{ Question string }
			_ = json.Unmarshal(c.Arguments, &a)
			v, _ := ctx.Value(ctxKey{}).(string)
			f.mu.Lock()
			f.seen = append(f.seen, v)
			f.mu.Unlock()
			if err := f.srv.Notify(ctx, "wisp: the model asks: "+a.Question); err != nil {
				return wisp.Result{}, err
			}
			return wisp.Result{Content: "answer: b", Facts: []wisp.Fact{{Subject: "answer", Name: a.Question, Value: "b", Source: wisp.SourcePerson}}}, nil
		}}
	if err := reg.Add(echo); err != nil {
		t.Fatal(err)
	}
	if err := reg.AddOptIn(ask); err != nil {
		t.Fatal(err)
	}
	var ids atomic.Int64
	opts := &mcpserver.Options{
		Token:   testToken,
		Threads: f.dir,
		Home:    fo.home,
		Name:    "wisp-test",
		Version: "1.2.3",
		NewID:   func() string { return fmt.Sprintf("t-%08x", ids.Add(1)) },
		// A new agent for every call, as the CLI builds one per tool list:
		// the thread lives in the store between calls.
		Conversations: mcpserver.ConversationsFunc(func(_ context.Context, named []string) (wisp.Agent, error) {
			f.mu.Lock()
			f.named = append(f.named, named)
			f.mu.Unlock()
			set, err := reg.Select(tools.Selection{Named: named})
			if err != nil {
				return nil, err
			}
			f.mu.Lock()
			f.got = append(f.got, set.Names())
			f.mu.Unlock()
			var n atomic.Int64
			return agent.New(f.model, &agent.Options{Tools: set, Store: f.dir, Notifier: f.srv.Notifier(),
				NewID: func() string { return fmt.Sprint(n.Add(1)) }}), nil
		}),
		OnCall: func(ctx context.Context, thread string) context.Context {
			f.mu.Lock()
			f.onCall = append(f.onCall, thread)
			f.mu.Unlock()
			return context.WithValue(ctx, ctxKey{}, "call on "+thread)
		},
	}
	if fo.audit {
		opts.Audit = func(thread string) ([]byte, error) {
			f.mu.Lock()
			f.audits = append(f.audits, thread)
			f.mu.Unlock()
			return []byte(`{"kind":"turn.started","thread":"` + thread + `"}` + "\n"), nil
		}
	}
	if fo.configure != nil {
		fo.configure(opts)
	}
	f.srv = mcpserver.New(opts)
	return f
}

// client returns an initialised in-process client.
func (f *fixture) client(t *testing.T, opts ...client.ClientOption) *client.Client {
	t.Helper()
	c, err := client.NewInProcessClientWithOptions(f.srv.MCP(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx := t.Context()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var ir mcp.InitializeRequest
	ir.Params.ClientInfo = mcp.Implementation{Name: "wisp-test-client", Version: "0"}
	if _, err := c.Initialize(ctx, ir); err != nil {
		t.Fatalf("Initialize: %v", err)
	}
	return c
}

// respond calls the respond tool and returns its result; it fails the
// test when the call fails or does not return within patience.
func respond(t *testing.T, c *client.Client, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	return goRespond(t, c, args).wait(t)
}

// A respondCall is a call of the respond tool running on a goroutine of
// its own.
type respondCall struct {
	args map[string]any
	done chan respondDone
}

type respondDone struct {
	res *mcp.CallToolResult
	err error
}

// goRespond calls the respond tool on a goroutine of its own, with the
// test's context; wait takes its result. The goroutine never fails the
// test itself, so a call that fails cannot leave wait without an answer.
func goRespond(t *testing.T, c *client.Client, args map[string]any) *respondCall {
	ctx := t.Context()
	rc := &respondCall{args: args, done: make(chan respondDone, 1)}
	go func() {
		var req mcp.CallToolRequest
		req.Params.Name = "respond"
		req.Params.Arguments = args
		res, err := c.CallTool(ctx, req)
		rc.done <- respondDone{res, err}
	}()
	return rc
}

// wait returns the call's result; it fails the test when the call failed,
// or has not returned within patience.
func (rc *respondCall) wait(t *testing.T) *mcp.CallToolResult {
	t.Helper()
	d := receive(t, rc.done, fmt.Sprintf("respond(%v) returning", rc.args))
	if d.err != nil {
		t.Fatalf("CallTool(respond, %v): %v", rc.args, d.err)
	}
	return d.res
}

// patience is the longest a test waits for something that must happen,
// such as a call returning: a minute, or less when the test binary's
// -timeout comes sooner, so that the test fails saying what never
// happened rather than hanging until the binary is stopped.
func patience(t *testing.T) time.Duration {
	d := time.Minute
	if deadline, ok := t.Deadline(); ok {
		d = min(d, time.Until(deadline)*9/10)
	}
	return d
}

// receive returns what ch delivers; it fails the test, saying what never
// happened, when nothing comes within patience.
func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	timer := time.NewTimer(patience(t))
	defer timer.Stop()
	select {
	case v := <-ch:
		return v
	case <-timer.C:
		t.Fatalf("%s: never happened", what)
	}
	var zero T
	return zero
}

// text joins a result's text blocks, one a line.
func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := mcp.AsTextContent(c); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// structured decodes a result's structured content.
func structured(t *testing.T, res *mcp.CallToolResult) mcpserver.RespondResult {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var out mcpserver.RespondResult
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
	return out
}

// steps is a script of plain replies.
func steps(replies ...string) []script.Step {
	var s []script.Step
	for _, r := range replies {
		s = append(s, script.Step{Content: r})
	}
	return s
}
