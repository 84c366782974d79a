package mcpserver_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/agent/threadfile"
	"github.com/wisp-agent/wisp/inquiry"
	"github.com/wisp-agent/wisp/inquiry/mcpface"
	"github.com/wisp-agent/wisp/inquiry/pending"
	"github.com/wisp-agent/wisp/mcpserver"
	"github.com/wisp-agent/wisp/models/script"
	"github.com/wisp-agent/wisp/tools"
	"github.com/wisp-agent/wisp/tools/ask"
)

// On a 2026-07-28 connection, a question asked while the client owes a
// retry (the first was answered at a terminal while its dialog was up)
// is announced and put to the dialog with that retry.
func TestSecondQuestionReachesTheRetry(t *testing.T) {
	second := script.Step{ToolCalls: []script.ToolCall{{Name: "ask", Arguments: json.RawMessage(`{"question":"And the port?"}`)}}}
	f := newQFix(t, true, askStep(), second, script.Step{Content: "Done."})
	e := &elicitor{gate: make(chan struct{}), respond: accept(map[string]any{"answer": "./wisp.json"})}
	// In process: mcp-go v1.2.1's streamable HTTP server can drop a
	// notification sent just before a call returns, which is not what
	// this test is about.
	c := f.client(t, client.WithElicitationHandler(e))
	var n notes
	n.on(c)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		var req mcp.CallToolRequest
		req.Params.Name = "respond"
		req.Params.Arguments = map[string]any{"prompt": "Go.", "tools": []string{"ask"}}
		req.Params.Meta = &mcp.Meta{AdditionalFields: map[string]any{"io.modelcontextprotocol/logLevel": "notice"}}
		_, _ = c.CallTool(ctx, req)
	}()
	q := f.waitFiled(t)
	e.waitShown(t)
	f.answer(t, q, wisp.OutcomeChose, "./wisp.json")
	eventually(t, "the second question filed", func() bool {
		qs, _ := f.store.List()
		return len(qs) == 1 && qs[0].ID != q.ID
	})
	close(e.gate) // the client retries with its (now stale) answer
	eventually(t, "the second question in the dialog", func() bool {
		reqs := e.requests()
		return len(reqs) == 2 && strings.Contains(reqs[1].Params.Message, "And the port?")
	})
	eventually(t, "the second question announced", func() bool {
		return slices.ContainsFunc(n.all(), func(s string) bool { return strings.Contains(s, "And the port?") })
	})
	f.endHolds()
}

// On a 2026-07-28 connection, a question put to the dialog while the
// client owes a retry, and answered at a terminal before the retry came,
// is not put to the dialog with it.
func TestAnsweredQuestionNotPutWithTheRetry(t *testing.T) {
	second := script.Step{ToolCalls: []script.ToolCall{{Name: "ask", Arguments: json.RawMessage(`{"question":"And the port?"}`)}}}
	f := newQFix(t, true, askStep(), second, script.Step{Content: "Done."})
	e := &elicitor{gate: make(chan struct{}), respond: accept(map[string]any{"answer": "./wisp.json"})}
	c := f.httpClient(t, "", client.WithElicitationHandler(e))
	results := make(chan *mcp.CallToolResult, 1)
	go func() { results <- respond(t, c, map[string]any{"prompt": "Go.", "tools": []string{"ask"}}) }()
	q := f.waitFiled(t)
	e.waitShown(t)
	f.answer(t, q, wisp.OutcomeChose, "./wisp.json")
	var q2 pending.Question
	eventually(t, "the second question filed", func() bool {
		qs, _ := f.store.List()
		if len(qs) == 1 && qs[0].ID != q.ID {
			q2 = qs[0]
			return true
		}
		return false
	})
	f.answer(t, q2, wisp.OutcomeAnswered, "8080")
	f.waitSaved(t, "t-00000001", 1)
	close(e.gate) // the client retries with its (now stale) answer
	res := <-results
	if got := structured(t, res); got.Reply != "Done." {
		t.Errorf("result %+v, want the turn's reply", got)
	}
	if reqs := e.requests(); len(reqs) != 1 {
		t.Errorf("the dialog was shown %d times, want once: the second question was answered before the retry", len(reqs))
	}
}

// An answer taken within the turn stays on file until the thread is saved
// with it: a crash in between loses nothing.
func TestInTurnAnswerStaysOnFileUntilSaved(t *testing.T) {
	block := make(chan struct{})
	sm := script.New("s", []script.Step{askStep(), {Content: "Done."}})
	var steps atomic.Int64
	model := wisp.ModelFunc(func(ctx context.Context, req wisp.ChatRequest, stream func(wisp.ChatDelta)) (wisp.ChatResponse, error) {
		if steps.Add(1) == 2 {
			<-block // the model's next step, or a long command
		}
		return sm.Chat(ctx, req, stream)
	})
	dir := threadfile.Dir{Path: t.TempDir()}
	store := pending.Store{Dir: filepath.Join(t.TempDir(), "pending")}
	var srv *mcpserver.Server
	srv = mcpserver.New(&mcpserver.Options{Threads: dir, Pending: store,
		After: func(time.Duration) <-chan time.Time { return make(chan time.Time) },
		Conversations: mcpserver.ConversationsFunc(func(_ context.Context, named []string) (wisp.Agent, error) {
			desk := inquiry.NewDesk(srv.Face(), nil)
			reg := tools.NewRegistry()
			if err := reg.AddOptIn(ask.New(desk)); err != nil {
				return nil, err
			}
			set, err := reg.Select(tools.Selection{Named: named})
			if err != nil {
				return nil, err
			}
			return agent.New(model, &agent.Options{Tools: set, Store: dir, Inbox: pending.Inbox(store, desk)}), nil
		})})
	c := newInProcess(t, srv)
	running := goRespond(t, c, map[string]any{"prompt": "Go.", "thread_id": "t1", "tools": []string{"ask"}})
	var qs []pending.Question
	eventually(t, "a question filed", func() bool { qs, _ = store.List(); return len(qs) == 1 })
	if err := store.Answer(t.Context(), pending.Answer{ID: qs[0].ID, Digest: qs[0].Digest, Outcome: wisp.OutcomeChose, Text: "./wisp.json", From: pending.FromTerminal}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the model's next step", func() bool { return steps.Load() == 2 })
	if recs, _ := store.Filed(""); len(recs) != 1 || !recs[0].Answered {
		t.Errorf("while the turn runs and its thread is unsaved, the folder holds %+v; want the answer still on file", recs)
	}
	close(block)
	running.wait(t)
	if recs, _ := store.Filed(""); len(recs) != 0 {
		t.Errorf("after the turn was saved the folder still holds %+v", recs)
	}
	if st, ok, _ := dir.Load("t1"); !ok || len(st.Facts) != 1 {
		t.Errorf("thread %+v, want the answer among its facts", st)
	}
}

// A run whose owed retry never comes is dropped after a while.
func TestRunWithoutRetryIsDropped(t *testing.T) {
	f := newQFix(t, true, askStep(), script.Step{Content: "Done."})
	mcpserver.SetRetryKeep(f.srv, 50*time.Millisecond)
	e := &elicitor{gate: make(chan struct{}), respond: accept(map[string]any{"answer": "./wisp.json"})}
	c := f.httpClient(t, "", client.WithElicitationHandler(e))
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		var req mcp.CallToolRequest
		req.Params.Name = "respond"
		req.Params.Arguments = map[string]any{"prompt": "Go.", "tools": []string{"ask"}}
		_, _ = c.CallTool(ctx, req)
	}()
	q := f.waitFiled(t)
	e.waitShown(t)
	cancel() // the host drops the retry
	f.answer(t, q, wisp.OutcomeChose, "./wisp.json")
	f.waitSaved(t, "t-00000001", 1)
	eventually(t, "the run dropped", func() bool { return mcpserver.Runs(f.srv) == 0 })
}

// The 2025-era dialog of a question answered at a terminal is withdrawn.
func TestDialogWithdrawnWhenAnsweredElsewhere(t *testing.T) {
	f := newQFix(t, true, askStep(), script.Step{Content: "Done."})
	e := &elicitor{gate: make(chan struct{}), respond: accept(map[string]any{"answer": "./wisp.json"})}
	c := f.httpClient(t, "2025-11-25", client.WithElicitationHandler(e))
	running := goRespond(t, c, map[string]any{"prompt": "Go.", "tools": []string{"ask"}})
	q := f.waitFiled(t)
	e.waitShown(t)
	f.answer(t, q, wisp.OutcomeChose, "./wisp.json")
	running.wait(t)
	eventually(t, "the dialog withdrawn", func() bool { return mcpserver.OpenDialogs(f.srv) == 0 })
	close(e.gate)
}

// Close refuses an approval that waits, rather than waiting out its hold.
func TestCloseEndsApprovalWait(t *testing.T) {
	f := newAFix(t, true, false, enableSteps()...)
	c := newInProcess(t, f.srv)
	running := goRespond(t, c, map[string]any{"prompt": "Enable it."})
	f.waitFiled(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := f.srv.Close(ctx); err != nil {
		t.Fatalf("Close: %v: the turn waiting on an approval did not end", err)
	}
	if got := f.results(); len(got) != 1 || !strings.Contains(got[0], mcpface.ReasonCallerGone) {
		t.Errorf("enable returned %q, want a refusal because the caller went away", got)
	}
	running.wait(t)
}
