package mcpserver_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/agent/threadfile"
	"github.com/wisp-agent/wisp/mcpserver"
	"github.com/wisp-agent/wisp/models/script"
	"github.com/wisp-agent/wisp/policy"
	"github.com/wisp-agent/wisp/policy/outofband"
	"github.com/wisp-agent/wisp/tools"
)

// afix is a server whose conversations have one tool, enable, that asks
// the policy gate, answered by the server's Approver.
type afix struct {
	srv   *mcpserver.Server
	model *script.Model
	store outofband.Store

	mu    sync.Mutex
	holds []chan time.Time
	got   []string // what each call of enable returned
}

func newAFix(t *testing.T, outOfBand, elicitation bool, steps ...script.Step) *afix {
	t.Helper()
	f := &afix{model: script.New("s", steps), store: outofband.Store{Dir: filepath.Join(t.TempDir(), "approvals")}}
	dir := threadfile.Dir{Path: t.TempDir()}
	var ids atomic.Int64
	f.srv = mcpserver.New(&mcpserver.Options{
		Token:       testToken,
		Threads:     dir,
		Approvals:   f.store,
		OutOfBand:   outOfBand,
		Elicitation: elicitation,
		NewID:       func() string { return fmt.Sprintf("t-%08x", ids.Add(1)) },
		After: func(time.Duration) <-chan time.Time {
			f.mu.Lock()
			defer f.mu.Unlock()
			c := make(chan time.Time)
			f.holds = append(f.holds, c)
			return c
		},
		Conversations: mcpserver.ConversationsFunc(func(context.Context, []string) (wisp.Agent, error) {
			rows, err := policy.NewClassifier(policy.Rule{Pattern: "models enable *", Rating: policy.Moderate, Reason: "changes the models"})
			if err != nil {
				return nil, err
			}
			gate := policy.NewGate(&policy.GateOptions{Approver: f.srv.Approver(), Session: "s1", Threshold: policy.Moderate, Classifier: rows})
			enable := funcTool{name: "enable", desc: "Enable a model.", schema: `{"type":"object"}`,
				call: func(ctx context.Context, c wisp.Call) (wisp.Result, error) {
					out, err := gate.Ask(ctx, policy.Request{Thread: c.Thread, Turn: c.Turn, Kind: "modelAction",
						Command: "models enable ollama:qwen3:4b", Pattern: "models enable *", Text: "adds ollama:qwen3:4b to models.enabled",
						Scopes: []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession}, AlwaysAsk: true})
					if err != nil {
						return wisp.Result{}, err
					}
					line := "enabled"
					if !out.Approved {
						line = policy.LineNotApproved + out.Reason
					}
					f.mu.Lock()
					f.got = append(f.got, line)
					f.mu.Unlock()
					return wisp.Result{Content: line}, nil
				}}
			reg := tools.NewRegistry()
			if err := reg.Add(enable); err != nil {
				return nil, err
			}
			set, err := reg.Select(tools.Selection{})
			if err != nil {
				return nil, err
			}
			return agent.New(f.model, &agent.Options{Tools: set, Store: dir, Session: "s1"}), nil
		}),
	})
	t.Cleanup(func() {
		f.mu.Lock()
		for _, c := range f.holds {
			select {
			case <-c:
			default:
				close(c)
			}
		}
		f.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = f.srv.Close(ctx)
	})
	return f
}

func (f *afix) results() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.got)
}

// waitFiled waits for an approval request to be filed and returns it.
// The request's hold begins before it is filed, so by then it is among
// f.holds, and closing those ends it.
func (f *afix) waitFiled(t *testing.T) outofband.Request {
	t.Helper()
	var rs []outofband.Request
	eventually(t, "an approval request filed", func() bool {
		var err error
		if rs, err = f.store.List(); err != nil {
			t.Fatal(err)
		}
		return len(rs) > 0
	})
	return rs[0]
}

// endHold waits until the request's hold has begun, then ends it as a
// clock would. The request is filed and announced before its hold
// begins, so a test that saw it filed waits here too.
func (f *afix) endHold(t *testing.T) {
	t.Helper()
	eventually(t, "the request's hold begun", func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return len(f.holds) > 0
	})
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, h := range f.holds {
		close(h)
	}
	f.holds = nil
}

func enableSteps() []script.Step {
	return []script.Step{{ToolCalls: []script.ToolCall{{Name: "enable", Arguments: []byte(`{}`)}}}, {Content: "Done."}}
}

func TestApprovalOutOfBand(t *testing.T) {
	t.Run("approved at a terminal", func(t *testing.T) {
		f := newAFix(t, true, false, enableSteps()...)
		c := newInProcess(t, f.srv)
		running := goRespond(t, c, map[string]any{"prompt": "Enable qwen."})
		req := f.waitFiled(t)
		if req.Command != "models enable ollama:qwen3:4b" || req.Thread != "t-00000001" {
			t.Errorf("filed %+v", req)
		}
		if err := f.store.Decide(t.Context(), outofband.Decision{ID: req.ID, Digest: req.Digest, Scope: wisp.ScopeOnce, From: outofband.FromTerminal}); err != nil {
			t.Fatal(err)
		}
		running.wait(t)
		if got := f.results(); !slices.Equal(got, []string{"enabled"}) {
			t.Errorf("enable returned %q, want it approved", got)
		}
	})
	t.Run("silence refuses", func(t *testing.T) {
		f := newAFix(t, true, false, enableSteps()...)
		c := newInProcess(t, f.srv)
		running := goRespond(t, c, map[string]any{"prompt": "Enable qwen."})
		req := f.waitFiled(t)
		f.endHold(t)
		running.wait(t)
		got := f.results()
		if len(got) != 1 || !strings.HasPrefix(got[0], policy.LineNotApproved+"no answer within") {
			t.Errorf("enable returned %q, want a refusal for silence", got)
		}
		if err := f.store.Decide(t.Context(), outofband.Decision{ID: req.ID, Digest: req.Digest, Scope: wisp.ScopeOnce, From: outofband.FromTerminal}); err == nil {
			t.Error("a late approval was filed after the request was refused")
		}
	})
	t.Run("out of band off", func(t *testing.T) {
		f := newAFix(t, false, true, enableSteps()...)
		c := newInProcess(t, f.srv)
		respond(t, c, map[string]any{"prompt": "Enable qwen."})
		got := f.results()
		if len(got) != 1 || !strings.HasPrefix(got[0], policy.LineNotApproved+"no person can approve here") {
			t.Errorf("enable returned %q, want it refused at once", got)
		}
		if rs, _ := f.store.List(); len(rs) != 0 {
			t.Errorf("requests filed with approval.outOfBand off: %+v", rs)
		}
	})
}

func TestApprovalDialog(t *testing.T) {
	cases := []struct {
		name    string
		respond func(mcp.ElicitationRequest) *mcp.ElicitationResult
		want    string
	}{
		{"approve once", accept(map[string]any{"decision": "once"}), "enabled"},
		{"approve for the session", accept(map[string]any{"decision": "session"}), "enabled"},
		{"deny", accept(map[string]any{"decision": "deny"}), policy.LineNotApproved + policy.ReasonDeclined},
		{"decline", action(mcp.ElicitationResponseActionDecline), policy.LineNotApproved + policy.ReasonDeclined},
		{"a scope not offered", accept(map[string]any{"decision": "always"}), policy.LineNotApproved + "no answer within"},
		{"cancel", action(mcp.ElicitationResponseActionCancel), policy.LineNotApproved + "no answer within"},
	}
	for _, era := range eras {
		for _, tc := range cases {
			t.Run(era.name+"/"+tc.name, func(t *testing.T) {
				f := newAFix(t, true, true, enableSteps()...)
				e := &elicitor{respond: tc.respond}
				hf := &qfix{srv: f.srv}
				c := hf.httpClient(t, era.version, client.WithElicitationHandler(e))
				running := goRespond(t, c, map[string]any{"prompt": "Enable qwen."})
				if strings.HasPrefix(tc.want, policy.LineNotApproved+"no answer") {
					f.waitFiled(t)
					e.waitShown(t)
					f.endHold(t)
				}
				res := running.wait(t)
				got := f.results()
				if len(got) != 1 || !strings.HasPrefix(got[0], tc.want) {
					t.Errorf("enable returned %q, want %q", got, tc.want)
				}
				reqs := e.requests()
				if len(reqs) != 1 || !strings.Contains(reqs[0].Params.Message, "models enable ollama:qwen3:4b") {
					t.Errorf("the dialog saw %+v, want the command once", reqs)
				}
				if res.IsError {
					t.Errorf("respond failed: %s", text(res))
				}
			})
		}
	}
}

// newInProcess returns an initialised in-process client of srv.
func newInProcess(t *testing.T, srv *mcpserver.Server) *client.Client {
	t.Helper()
	return (&qfix{srv: srv}).client(t)
}
