package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/agent/threadfile"
	"github.com/wisp-agent/wisp/inquiry"
	"github.com/wisp-agent/wisp/inquiry/pending"
	"github.com/wisp-agent/wisp/mcpserver"
	"github.com/wisp-agent/wisp/models/script"
	"github.com/wisp-agent/wisp/tools"
	"github.com/wisp-agent/wisp/tools/ask"
	"github.com/wisp-agent/wisp/wisptest"
)

// qfix is a server whose conversations ask through the server's own
// Face: a real desk, the real ask tool, the pending folder, the Inbox,
// and a hold the test ends by hand.
type qfix struct {
	srv   *mcpserver.Server
	model *script.Model
	store pending.Store
	dir   threadfile.Dir
	rec   *wisptest.Recorder

	mu    sync.Mutex
	holds []chan time.Time
	waits []time.Duration
}

// The question every script here asks.
const (
	askQuestion = "Which config did you mean?"
	askArgs     = `{"question":"Which config did you mean?","options":["~/.wisp/config.json","./wisp.json"]}`
)

func askStep() script.Step {
	return script.Step{ToolCalls: []script.ToolCall{{Name: "ask", Arguments: json.RawMessage(askArgs)}}}
}

func newQFix(t *testing.T, elicitation bool, steps ...script.Step) *qfix {
	t.Helper()
	return newQFixWitnessed(t, elicitation, false, steps...)
}

// newQFixWitnessed is newQFix whose pending folder, when witnessed, has
// the recorder as its Witness.
func newQFixWitnessed(t *testing.T, elicitation, witnessed bool, steps ...script.Step) *qfix {
	t.Helper()
	f := &qfix{
		model: script.New("s", steps),
		store: pending.Store{Dir: filepath.Join(t.TempDir(), "pending")},
		dir:   threadfile.Dir{Path: t.TempDir()},
		rec:   &wisptest.Recorder{},
	}
	if witnessed {
		f.store.Witness = f.rec
	}
	var ids atomic.Int64
	f.srv = mcpserver.New(&mcpserver.Options{
		Token:       testToken,
		Threads:     f.dir,
		Pending:     f.store,
		Elicitation: elicitation,
		Events:      f.rec,
		NewID:       func() string { return fmt.Sprintf("t-%08x", ids.Add(1)) },
		After: func(d time.Duration) <-chan time.Time {
			f.mu.Lock()
			defer f.mu.Unlock()
			c := make(chan time.Time)
			f.holds = append(f.holds, c)
			f.waits = append(f.waits, d)
			return c
		},
		Conversations: mcpserver.ConversationsFunc(func(_ context.Context, named []string) (wisp.Agent, error) {
			desk := inquiry.NewDesk(f.srv.Face(), &inquiry.Options{Session: "s1", Events: f.rec})
			reg := tools.NewRegistry()
			if err := reg.AddOptIn(ask.New(desk)); err != nil {
				return nil, err
			}
			set, err := reg.Select(tools.Selection{Named: named})
			if err != nil {
				return nil, err
			}
			return agent.New(f.model, &agent.Options{Tools: set, Store: f.dir, Events: f.rec, Session: "s1",
				Inbox: pending.Inbox(f.store, desk)}), nil
		}),
	})
	t.Cleanup(func() {
		f.endHolds()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := f.srv.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return f
}

// endHolds ends every hold begun so far: the questions park.
func (f *qfix) endHolds() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.holds {
		select {
		case <-c:
		default:
			close(c)
		}
	}
}

// waitFiled waits for a question to be filed and returns it.
func (f *qfix) waitFiled(t *testing.T) pending.Question {
	t.Helper()
	var qs []pending.Question
	eventually(t, "a question filed", func() bool {
		var err error
		if qs, err = f.store.List(); err != nil {
			t.Fatal(err)
		}
		return len(qs) > 0
	})
	return qs[0]
}

// waitSaved waits for thread to be saved at turn.
func (f *qfix) waitSaved(t *testing.T, thread string, turn int) {
	t.Helper()
	eventually(t, fmt.Sprintf("thread %s saved at turn %d", thread, turn), func() bool {
		st, ok, err := f.dir.Load(thread)
		if err != nil {
			t.Fatal(err)
		}
		return ok && st.Turn == turn
	})
}

// eventually polls cond every 10 ms until it holds, and fails the test
// when it still does not after 5 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for range 500 {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s: never happened", what)
}

// answer files an answer as wisp questions answer does at a terminal.
func (f *qfix) answer(t *testing.T, q pending.Question, outcome wisp.Outcome, text string) {
	t.Helper()
	if err := f.store.Answer(t.Context(), pending.Answer{ID: q.ID, Digest: q.Digest, Outcome: outcome, Text: text, From: pending.FromTerminal}); err != nil {
		t.Fatalf("Answer: %v", err)
	}
}

// notes collects a client's logging notifications.
type notes struct {
	mu  sync.Mutex
	got []string
}

func (n *notes) on(c *client.Client) {
	c.OnNotification(func(m mcp.JSONRPCNotification) {
		if m.Method != "notifications/message" {
			return
		}
		if s, ok := m.Params.AdditionalFields["data"].(string); ok {
			n.mu.Lock()
			n.got = append(n.got, s)
			n.mu.Unlock()
		}
	})
}

func (n *notes) all() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.got)
}

// lastUserMessages returns the user messages of the model's last request.
func lastUserMessages(m *script.Model) []string {
	reqs := m.Requests()
	var out []string
	for _, msg := range reqs[len(reqs)-1].Messages {
		if msg.Role == wisp.RoleUser {
			out = append(out, msg.Content)
		}
	}
	return out
}

// toolResults returns the tool results the model saw in its last request.
func toolResults(m *script.Model) []string {
	reqs := m.Requests()
	var out []string
	for _, msg := range reqs[len(reqs)-1].Messages {
		if msg.Role == wisp.RoleTool {
			out = append(out, msg.Content)
		}
	}
	return out
}

func TestQuestionParksThenReachesTheNextTurn(t *testing.T) {
	f := newQFix(t, false,
		askStep(),
		script.Step{Content: "I will wait for your answer."},
		script.Step{Content: "Using ./wisp.json."},
	)
	c := f.client(t)
	var n notes
	n.on(c)
	if err := c.SetLevel(t.Context(), mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelNotice}}); err != nil {
		t.Fatal(err)
	}

	running := goRespond(t, c, map[string]any{"prompt": "Replace the config.", "tools": []string{"ask"}})
	q := f.waitFiled(t)
	if q.Text != askQuestion || q.Thread != "t-00000001" || q.Turn != 1 {
		t.Errorf("filed %+v", q)
	}
	f.endHolds()
	res := running.wait(t)

	parked := inquiry.LineParked(askQuestion, q.ID)
	if got := toolResults(f.model); !slices.Equal(got, []string{parked}) {
		t.Errorf("the model read %q, want %q", got, parked)
	}
	want := mcpserver.RespondResult{Reply: "I will wait for your answer.", ThreadID: "t-00000001", Turn: 1,
		Waiting: []mcpserver.WaitingQuestion{{ID: q.ID, Question: askQuestion}}}
	if diff := cmp.Diff(want, structured(t, res)); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	if !strings.Contains(text(res), parked) {
		t.Errorf("result text %q lacks the waiting line %q", text(res), parked)
	}
	if got, want := n.all(), []string{"wisp: the model asks: " + askQuestion + " — wisp questions answer " + q.ID}; !slices.Equal(got, want) {
		t.Errorf("notifications %q, want %q", got, want)
	}
	f.mu.Lock()
	if !slices.Equal(f.waits, []time.Duration{mcpserver.DefaultHold}) {
		t.Errorf("holds %v, want one of %v", f.waits, mcpserver.DefaultHold)
	}
	f.mu.Unlock()

	// Answered at a terminal after the turn parked.
	f.answer(t, q, wisp.OutcomeChose, "./wisp.json")
	res = respond(t, c, map[string]any{"prompt": "Go on.", "thread_id": "t-00000001", "tools": []string{"ask"}})
	late := inquiry.LineLate(askQuestion, q.ID, "chose: ./wisp.json")
	if got := lastUserMessages(f.model); !slices.Contains(got, late) {
		t.Errorf("the model's turn 2 read %q, want the note %q", got, late)
	}
	if got := structured(t, res); got.Reply != "Using ./wisp.json." || got.Turn != 2 || got.Waiting != nil || got.Flags != nil {
		t.Errorf("turn 2 result %+v", got)
	}
	recs, err := f.store.Filed("")
	if err != nil || len(recs) != 0 {
		t.Errorf("after the answer was taken the folder holds %+v (%v), want nothing", recs, err)
	}
	st, _, err := f.dir.Load("t-00000001")
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Facts) != 1 || st.Facts[0].Value != "./wisp.json" || st.Facts[0].Source != wisp.SourcePerson || st.Facts[0].Turn != 2 {
		t.Errorf("thread facts %+v, want the answer as a fact of turn 2", st.Facts)
	}
	var kinds []string
	for _, e := range f.rec.Events("inquiry.") {
		kinds = append(kinds, fmt.Sprintf("%s@%d", e.Kind(), e.Turn))
	}
	if diff := cmp.Diff([]string{"inquiry.requested@1", "inquiry.parked@1", "inquiry.settled@2"}, kinds); diff != "" {
		t.Errorf("inquiry events (-want +got):\n%s", diff)
	}
	settled := f.rec.Events(wisp.KindInquirySettled)[0]
	if d := settled.Data.(wisp.InquirySettledData); d.Answer != "./wisp.json" || d.Outcome != "chose" || settled.Source != wisp.SourcePerson {
		t.Errorf("inquiry.settled %+v", settled)
	}
}

func TestQuestionAnsweredWithinTheHold(t *testing.T) {
	f := newQFix(t, false, askStep(), script.Step{Content: "Done."})
	c := f.client(t)
	running := goRespond(t, c, map[string]any{"prompt": "Replace the config.", "tools": []string{"ask"}})
	q := f.waitFiled(t)
	f.answer(t, q, wisp.OutcomeChose, "~/.wisp/config.json")
	res := running.wait(t)
	if got, want := toolResults(f.model), []string{inquiry.LineChose("~/.wisp/config.json")}; !slices.Equal(got, want) {
		t.Errorf("the model read %q, want %q", got, want)
	}
	if got := structured(t, res); got.Waiting != nil || got.Reply != "Done." {
		t.Errorf("result %+v, want the reply and nothing waiting", got)
	}
	if recs, _ := f.store.Filed(""); len(recs) != 0 {
		t.Errorf("the folder still holds %+v", recs)
	}
}

func TestSecondQuestionWhileOneIsParked(t *testing.T) {
	f := newQFix(t, false,
		askStep(), script.Step{Content: "Waiting."},
		script.Step{ToolCalls: []script.ToolCall{{Name: "ask", Arguments: json.RawMessage(`{"question":"Another thing?"}`)}}},
		script.Step{Content: "Still waiting."},
	)
	c := f.client(t)
	running := goRespond(t, c, map[string]any{"prompt": "Go.", "tools": []string{"ask"}})
	f.waitFiled(t)
	f.endHolds()
	running.wait(t)
	respond(t, c, map[string]any{"prompt": "And?", "thread_id": "t-00000001", "tools": []string{"ask"}})
	got := toolResults(f.model)
	if last := got[len(got)-1]; last != inquiry.ErrLineWaiting {
		t.Errorf("a second question while one is parked got %q, want %q", last, inquiry.ErrLineWaiting)
	}
}

// elicitor is a client's dialog: it answers every elicitation with
// respond, after waiting for gate when it is set.
type elicitor struct {
	gate    chan struct{}
	respond func(mcp.ElicitationRequest) *mcp.ElicitationResult

	mu   sync.Mutex
	seen []mcp.ElicitationRequest
}

func (e *elicitor) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	e.mu.Lock()
	e.seen = append(e.seen, req)
	e.mu.Unlock()
	if e.gate != nil {
		select {
		case <-e.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return e.respond(req), nil
}

// waitShown waits until the dialog has been shown once.
func (e *elicitor) waitShown(t *testing.T) {
	t.Helper()
	eventually(t, "the dialog shown", func() bool { return len(e.requests()) > 0 })
}

func (e *elicitor) requests() []mcp.ElicitationRequest {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.seen)
}

func accept(content map[string]any) func(mcp.ElicitationRequest) *mcp.ElicitationResult {
	return func(mcp.ElicitationRequest) *mcp.ElicitationResult {
		return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: content}}
	}
}

func action(a mcp.ElicitationResponseAction) func(mcp.ElicitationRequest) *mcp.ElicitationResult {
	return func(mcp.ElicitationRequest) *mcp.ElicitationResult {
		return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: a}}
	}
}

// The two protocol eras a client may speak.
type eraCase struct {
	name    string
	version string
}

var eras = []eraCase{
	{"2026-07-28", ""}, // the client's default, with input requests
	{"2025-11-25", "2025-11-25"},
}

// httpClient connects over streamable HTTP, in the era given.
func (f *qfix) httpClient(t *testing.T, version string, opts ...client.ClientOption) *client.Client {
	t.Helper()
	hs := httptest.NewServer(f.srv.HTTPHandler())
	t.Cleanup(hs.Close)
	tr, err := transport.NewStreamableHTTP(hs.URL+mcpserver.EndpointPath, withToken())
	if err != nil {
		t.Fatal(err)
	}
	if version != "" {
		opts = append(opts, client.WithProtocolVersion(version))
	}
	c := client.NewClient(tr, opts...)
	t.Cleanup(func() { c.Close() })
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	var ir mcp.InitializeRequest
	ir.Params.ClientInfo = mcp.Implementation{Name: "wisp-test-client", Version: "0"}
	if version != "" {
		ir.Params.ProtocolVersion = version
	}
	if _, err := c.Initialize(t.Context(), ir); err != nil {
		t.Fatalf("Initialize: %v", err)
	}
	return c
}

func TestElicitation(t *testing.T) {
	cases := []struct {
		name     string
		respond  func(mcp.ElicitationRequest) *mcp.ElicitationResult
		wantLine string // what the model reads; "" for parked
	}{
		{"accept a choice", accept(map[string]any{"answer": "./wisp.json"}), "chose: ./wisp.json"},
		{"accept none of these", accept(map[string]any{"answer": inquiry.NoneOfThese}), inquiry.LineChoseNone},
		{"decline", action(mcp.ElicitationResponseActionDecline), inquiry.LineDeclined},
		{"cancel", action(mcp.ElicitationResponseActionCancel), ""},
		{"accept something not offered", accept(map[string]any{"answer": "/etc/passwd"}), ""},
		{"accept arrow keys", accept(map[string]any{"answer": "\x1b[B\x1b[B"}), ""},
		{"accept an option spelt otherwise", accept(map[string]any{"answer": " ./WISP.json"}), "chose: ./wisp.json"},
		{"accept a malformed form", accept(map[string]any{"answer": 2, "extra": true}), ""},
	}
	for _, era := range eras {
		for _, tc := range cases {
			for _, witnessed := range []bool{false, true} {
				name := era.name + "/" + tc.name
				if witnessed {
					name += "/witnessed"
				}
				elicitationCase(t, name, era, witnessed, tc.respond, tc.wantLine)
			}
		}
	}
}

// elicitationCase is one case of TestElicitation: the dialog gives what
// respond returns; the model reads wantLine ("" for parked). Witnessed,
// the pending folder has the recorder as its Witness, which records the
// dialog's answer, bound to its file, before it is filed.
func elicitationCase(t *testing.T, name string, era eraCase, witnessed bool, respondWith func(mcp.ElicitationRequest) *mcp.ElicitationResult, wantLine string) {
	tc := struct {
		respond  func(mcp.ElicitationRequest) *mcp.ElicitationResult
		wantLine string
	}{respondWith, wantLine}
	t.Run(name, func(t *testing.T) {
		f := newQFixWitnessed(t, true, witnessed, askStep(), script.Step{Content: "Done."})
		e := &elicitor{respond: tc.respond}
		c := f.httpClient(t, era.version, client.WithElicitationHandler(e))
		running := goRespond(t, c, map[string]any{"prompt": "Go.", "tools": []string{"ask"}})
		if tc.wantLine == "" {
			f.waitFiled(t)
			// The dialog's answer was not taken: the question waits until the hold ends.
			e.waitShown(t)
			time.Sleep(50 * time.Millisecond)
			f.endHolds()
		}
		res := running.wait(t)
		requested := f.rec.Events(wisp.KindInquiryRequested)
		if len(requested) != 1 {
			t.Fatalf("inquiry.requested %+v, want one", requested)
		}
		id := requested[0].Data.(wisp.InquiryRequestedData).ID
		want := tc.wantLine
		if want == "" {
			want = inquiry.LineParked(askQuestion, id)
		}
		if got := toolResults(f.model); !slices.Equal(got, []string{want}) {
			t.Errorf("the model read %q, want %q", got, want)
		}
		reqs := e.requests()
		if len(reqs) != 1 {
			t.Fatalf("the dialog was shown %d times, want once", len(reqs))
		}
		msg := reqs[0].Params.Message
		for _, part := range []string{askQuestion, "not private", "wisp://threads/t-00000001", "wisp questions answer " + id} {
			if !strings.Contains(msg, part) {
				t.Errorf("dialog message %q lacks %q", msg, part)
			}
		}
		schema, _ := json.Marshal(reqs[0].Params.RequestedSchema)
		if !strings.Contains(string(schema), `"const":"./wisp.json"`) || !strings.Contains(string(schema), `"const":"none of these"`) {
			t.Errorf("dialog schema %s does not offer the options and none of these", schema)
		}
		if res.IsError {
			t.Errorf("respond failed: %s", text(res))
		}
		answered := f.rec.Events(wisp.KindInquiryAnswered)
		var d wisp.InquiryAnsweredData
		if len(answered) == 1 {
			d = answered[0].Data.(wisp.InquiryAnsweredData)
		}
		switch {
		case tc.wantLine == "" && len(answered) != 0:
			t.Errorf("inquiry.answered %+v for an answer that was not taken", answered)
		case tc.wantLine != "" && (len(answered) != 1 || d.From != "elicitation" || answered[0].Source != wisp.SourcePerson || answered[0].Thread != "t-00000001"):
			t.Errorf("inquiry.answered %+v, want one from the dialog", answered)
		case tc.wantLine != "" && witnessed && (d.FileSHA256 == "" || d.PID == 0 || d.Terminal != ""):
			t.Errorf("inquiry.answered %+v, want the file's SHA-256 and the server's pid, and no terminal", answered)
		case tc.wantLine != "" && !witnessed && d.FileSHA256 != "":
			t.Errorf("inquiry.answered %+v names a file though nothing witnesses it", answered)
		}
	})
}

func TestElicitationNeedsSettingAndCapability(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name+"/setting off", func(t *testing.T) {
			f := newQFix(t, false, askStep(), script.Step{Content: "Done."})
			e := &elicitor{respond: accept(map[string]any{"answer": "./wisp.json"})}
			c := f.httpClient(t, era.version, client.WithElicitationHandler(e))
			running := goRespond(t, c, map[string]any{"prompt": "Go.", "tools": []string{"ask"}})
			f.waitFiled(t)
			f.endHolds()
			running.wait(t)
			if n := len(e.requests()); n != 0 {
				t.Errorf("with inquiry.elicitation off the dialog was shown %d times", n)
			}
		})
		t.Run(era.name+"/no capability", func(t *testing.T) {
			f := newQFix(t, true, askStep(), script.Step{Content: "Done."})
			c := f.httpClient(t, era.version)
			running := goRespond(t, c, map[string]any{"prompt": "Go.", "tools": []string{"ask"}})
			q := f.waitFiled(t)
			f.endHolds()
			res := running.wait(t)
			if got := structured(t, res); len(got.Waiting) != 1 || got.Waiting[0].ID != q.ID {
				t.Errorf("result %+v, want the question waiting", got)
			}
		})
	}
}

// The first answer wins: the person answers at a terminal while the
// client's dialog is open; the dialog's later answer is not used.
func TestFirstAnswerWins(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			f := newQFix(t, true, askStep(), script.Step{Content: "Done."})
			e := &elicitor{gate: make(chan struct{}), respond: accept(map[string]any{"answer": "~/.wisp/config.json"})}
			c := f.httpClient(t, era.version, client.WithElicitationHandler(e))
			running := goRespond(t, c, map[string]any{"prompt": "Go.", "tools": []string{"ask"}})
			q := f.waitFiled(t)
			e.waitShown(t)
			f.answer(t, q, wisp.OutcomeChose, "./wisp.json")
			close(e.gate)
			res := running.wait(t)
			if got, want := toolResults(f.model), []string{"chose: ./wisp.json"}; !slices.Equal(got, want) {
				t.Errorf("the model read %q, want the terminal's answer %q", got, want)
			}
			if res.IsError {
				t.Errorf("respond failed: %s", text(res))
			}
			answered := f.rec.Events(wisp.KindInquirySettled)
			if len(answered) != 1 || answered[0].Data.(wisp.InquirySettledData).Answer != "./wisp.json" {
				t.Errorf("inquiry.settled %+v", answered)
			}
		})
	}
}

// client returns an initialised in-process client of the question fixture.
func (f *qfix) client(t *testing.T, opts ...client.ClientOption) *client.Client {
	t.Helper()
	c, err := client.NewInProcessClientWithOptions(f.srv.MCP(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	var ir mcp.InitializeRequest
	ir.Params.ClientInfo = mcp.Implementation{Name: "wisp-test-client", Version: "0"}
	if _, err := c.Initialize(t.Context(), ir); err != nil {
		t.Fatalf("Initialize: %v", err)
	}
	return c
}

// A client that goes away mid-turn leaves the question parked at once,
// the turn ended and saved, and the question answerable at a terminal.
func TestClientGoesAwayMidTurn(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			f := newQFix(t, false, askStep(), script.Step{Content: "Waiting."}, script.Step{Content: "Thanks."})
			c := f.httpClient(t, era.version)
			ctx, cancel := context.WithCancel(t.Context())
			errs := make(chan error, 1)
			go func() {
				var req mcp.CallToolRequest
				req.Params.Name = "respond"
				req.Params.Arguments = map[string]any{"prompt": "Go.", "tools": []string{"ask"}}
				_, err := c.CallTool(ctx, req)
				errs <- err
			}()
			q := f.waitFiled(t)
			cancel()
			receive(t, errs, "the cancelled call returning")
			// No hold ends here: the turn parks because its caller left.
			f.waitSaved(t, "t-00000001", 1)
			if got := toolResults(f.model); !slices.Equal(got, []string{inquiry.LineParked(askQuestion, q.ID)}) {
				t.Errorf("the model read %q, want the waiting line", got)
			}
			if qs, err := f.store.List(); err != nil || len(qs) != 1 || qs[0].ID != q.ID {
				t.Errorf("waiting questions %+v (%v), want %s still answerable", qs, err, q.ID)
			}
			f.answer(t, q, wisp.OutcomeChose, "./wisp.json")
			c2 := f.client(t)
			res := respond(t, c2, map[string]any{"prompt": "Go on.", "thread_id": "t-00000001", "tools": []string{"ask"}})
			if got := structured(t, res); got.Turn != 2 || got.Reply != "Thanks." {
				t.Errorf("turn 2 %+v", got)
			}
			if got := lastUserMessages(f.model); !slices.Contains(got, inquiry.LineLate(askQuestion, q.ID, "chose: ./wisp.json")) {
				t.Errorf("turn 2 read %q, want the late answer", got)
			}
		})
	}
}

// Requests a client should not send get an error and change nothing; the
// server goes on serving.
func TestMalformedRequests(t *testing.T) {
	f := newQFix(t, true, askStep(), script.Step{Content: "Waiting."}, script.Step{Content: "Fine."})
	c := f.client(t)
	running := goRespond(t, c, map[string]any{"prompt": "Go.", "tools": []string{"ask"}})
	q := f.waitFiled(t)
	f.endHolds()
	running.wait(t)

	call := func(params string) string {
		raw := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":` + params + `}`
		resp := f.srv.MCP().HandleMessage(t.Context(), json.RawMessage(raw))
		b, err := json.Marshal(resp)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	cases := []struct{ name, params, want string }{
		{"forged state", `{"name":"respond","arguments":{"prompt":"x"},"requestState":"wisp1:t-00000001:question:` + q.ID + `:0000000000000000","inputResponses":{"question":{"action":"accept","content":{"answer":"./wisp.json"}}}}`,
			"is no longer put through this dialog"},
		{"state not ours", `{"name":"respond","arguments":{"prompt":"x"},"requestState":"hello"}`, "not one this server gave"},
		{"state for another thread", `{"name":"respond","arguments":{"prompt":"x","thread_id":"t-9"},"requestState":"wisp1:t-00000001:question:` + q.ID + `:0000000000000000"}`, "not one this server gave"},
		{"responses without state", `{"name":"respond","arguments":{"prompt":"x"},"inputResponses":{"question":{"action":"accept"}}}`, "not one this server gave"},
		{"arguments not an object", `{"name":"respond","arguments":"x"}`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := call(tc.params)
			if !strings.Contains(got, `"isError":true`) && !strings.Contains(got, `"error"`) {
				t.Errorf("got %s, want an error", got)
			}
			if tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("got %s, want it to say %q", got, tc.want)
			}
		})
	}
	for _, raw := range []string{`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":`, `[]`, `{"jsonrpc":"2.0","id":9}`} {
		_ = f.srv.MCP().HandleMessage(t.Context(), json.RawMessage(raw))
	}
	// Nothing answered the question, and the thread goes on.
	if qs, _ := f.store.List(); len(qs) != 1 {
		t.Errorf("waiting questions %+v, want the one still waiting", qs)
	}
	res := respond(t, c, map[string]any{"prompt": "Go on.", "thread_id": "t-00000001", "tools": []string{"ask"}})
	if got := structured(t, res); got.Reply != "Fine." || got.Turn != 2 {
		t.Errorf("after bad requests, turn 2 %+v", got)
	}
}

// A dialog the client never answers holds nothing up: the hold ends, the
// turn parks, and the question stays answerable at a terminal.
func TestDialogNeverAnswered(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			f := newQFix(t, true, askStep(), script.Step{Content: "Waiting."})
			e := &elicitor{gate: make(chan struct{}), respond: accept(map[string]any{"answer": "./wisp.json"})}
			c := f.httpClient(t, era.version, client.WithElicitationHandler(e))
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			results := make(chan *mcp.CallToolResult, 1)
			go func() {
				var req mcp.CallToolRequest
				req.Params.Name = "respond"
				req.Params.Arguments = map[string]any{"prompt": "Go.", "tools": []string{"ask"}}
				res, _ := c.CallTool(ctx, req)
				results <- res
			}()
			q := f.waitFiled(t)
			e.waitShown(t)
			f.endHolds()
			if era.version != "" {
				// The 2025-era call holds apart from the dialog and returns.
				res := receive(t, results, "the 2025-era call returning")
				if got := structured(t, res); len(got.Waiting) != 1 || got.Waiting[0].ID != q.ID {
					t.Errorf("result %+v, want the question waiting", got)
				}
			}
			// However the client waits, the turn ends and parks.
			f.waitSaved(t, "t-00000001", 1)
			if got := toolResults(f.model); !slices.Equal(got, []string{inquiry.LineParked(askQuestion, q.ID)}) {
				t.Errorf("the model read %q, want the waiting line", got)
			}
			if qs, _ := f.store.List(); len(qs) != 1 {
				t.Errorf("waiting questions %+v, want the question", qs)
			}
			cancel()
		})
	}
}
