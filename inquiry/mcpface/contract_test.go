package mcpface_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/agent/threadfile"
	"github.com/wisp-agent/wisp/inquiry/facetest"
	"github.com/wisp-agent/wisp/inquiry/pending"
	"github.com/wisp-agent/wisp/mcpserver"
	"github.com/wisp-agent/wisp/models/script"
	"github.com/wisp-agent/wisp/tools"
)

// The two protocol eras a client may speak: 2026-07-28, the client's
// default, where a form goes out as an input request and comes back with
// the call's retry; and 2025-11-25, where it is an elicitation/create
// request.
var eras = []struct{ name, version string }{
	{"2026-07-28", ""},
	{"2025-11-25", "2025-11-25"},
}

// A turn is a server whose every respond call runs one job through the
// face, inside the turn, with the mcpface.Session the server gives it,
// and a client over an in-memory transport whose dialog a simulated
// person answers.
type turn struct {
	srv   *mcpserver.Server
	store pending.Store
	c     *client.Client
	jobs  chan job

	mu     sync.Mutex
	forms  []mcp.ElicitationRequest // what the dialog was shown
	notes  []string                 // the notifications the client got
	onNote func(string)
}

// A job runs in a turn: ctx is the turn's, ended also when the test's
// context ends.
type job struct {
	ctx context.Context
	run func(ctx context.Context)
}

// newTurn starts a server with elicitation on and a client that declared
// form elicitation, speaking version ("" for the newest); reply is the
// person at the dialog: given the n-th form shown (from 0), it returns the
// reply, or nil to leave the dialog unanswered.
func newTurn(t *testing.T, version string, reply func(n int, req mcp.ElicitationRequest) *mcp.ElicitationResult) *turn {
	t.Helper()
	tt := &turn{store: pending.Store{Dir: filepath.Join(t.TempDir(), "pending")}, jobs: make(chan job, 1)}
	threads := threadfile.Dir{Path: t.TempDir()}
	faceTool := tool{name: "face", call: func(ctx context.Context, _ wisp.Call) (wisp.Result, error) {
		j := <-tt.jobs
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		stop := context.AfterFunc(j.ctx, func() { cancel(context.Cause(j.ctx)) })
		defer stop()
		j.run(ctx)
		return wisp.Result{Content: "done"}, nil
	}}
	tt.srv = mcpserver.New(&mcpserver.Options{
		Threads:     threads,
		Pending:     tt.store,
		Elicitation: true,
		Conversations: mcpserver.ConversationsFunc(func(context.Context, []string) (wisp.Agent, error) {
			reg := tools.NewRegistry()
			if err := reg.Add(faceTool); err != nil {
				return nil, err
			}
			set, err := reg.Select(tools.Selection{})
			if err != nil {
				return nil, err
			}
			model := script.New("s", []script.Step{
				{ToolCalls: []script.ToolCall{{Name: "face", Arguments: json.RawMessage(`{}`)}}},
				{Content: "Done."},
			})
			return agent.New(model, &agent.Options{Tools: set, Store: threads}), nil
		}),
	})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := tt.srv.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
	})

	var shown sync.Mutex
	n := 0
	handler := elicitFunc(func(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
		shown.Lock()
		i := n
		n++
		shown.Unlock()
		tt.mu.Lock()
		tt.forms = append(tt.forms, req)
		tt.mu.Unlock()
		if r := reply(i, req); r != nil {
			return r, nil
		}
		<-ctx.Done() // the person never answers
		return nil, ctx.Err()
	})
	opts := []client.ClientOption{client.WithElicitationHandler(handler)}
	if version != "" {
		opts = append(opts, client.WithProtocolVersion(version))
	}
	c, err := client.NewInProcessClientWithOptions(tt.srv.MCP(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.OnNotification(func(m mcp.JSONRPCNotification) {
		if m.Method != "notifications/message" {
			return
		}
		if s, ok := m.Params.AdditionalFields["data"].(string); ok {
			tt.mu.Lock()
			tt.notes = append(tt.notes, s)
			on := tt.onNote
			tt.mu.Unlock()
			if on != nil {
				on(s)
			}
		}
	})
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	var ir mcp.InitializeRequest
	ir.Params.ClientInfo = mcp.Implementation{Name: "wisp-test-client", Version: "0"}
	ir.Params.ProtocolVersion = version
	res, err := c.Initialize(t.Context(), ir)
	if err != nil {
		t.Fatalf("Initialize: %v", err)
	}
	if want := cmp.Or(version, mcp.LATEST_PROTOCOL_VERSION); res.ProtocolVersion != want {
		t.Fatalf("the client speaks protocol %s, want %s", res.ProtocolVersion, want)
	}
	if version != "" {
		if err := c.SetLevel(t.Context(), mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelNotice}}); err != nil {
			t.Fatal(err)
		}
	}
	tt.c = c
	return tt
}

// run runs f in a turn of a new respond call, ended also when ctx ends.
func (tt *turn) run(ctx context.Context, f func(ctx context.Context)) {
	tt.jobs <- job{ctx: ctx, run: f}
	go func() {
		var req mcp.CallToolRequest
		req.Params.Name = "respond"
		req.Params.Arguments = map[string]any{"prompt": "Go."}
		req.Params.Meta = &mcp.Meta{AdditionalFields: map[string]any{"io.modelcontextprotocol/logLevel": "notice"}}
		_, _ = tt.c.CallTool(context.Background(), req)
	}()
}

// screen is what the client showed the person: each form's message, the
// titles and descriptions of its fields and choices (not the values a
// choice sends back), and the notifications.
func (tt *turn) screen() string {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	var lines []string
	for _, f := range tt.forms {
		lines = append(lines, f.Params.Message)
		lines = append(lines, shownWords(f.Params.RequestedSchema)...)
	}
	lines = append(lines, tt.notes...)
	return strings.Join(lines, "\n")
}

// shownWords returns the titles and descriptions in a requested schema.
func shownWords(schema any) []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				if s, ok := e.(string); ok && (k == "title" || k == "description") {
					out = append(out, s)
				}
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	b, _ := json.Marshal(schema)
	var v any
	_ = json.Unmarshal(b, &v)
	walk(v)
	return out
}

// elicitFunc adapts a function to client.ElicitationHandler.
type elicitFunc func(context.Context, mcp.ElicitationRequest) (*mcp.ElicitationResult, error)

func (f elicitFunc) Elicit(ctx context.Context, r mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	return f(ctx, r)
}

// tool is a tool whose call is a function. It only asks the face, so its
// calls need no approval.
type tool struct {
	name string
	call func(ctx context.Context, c wisp.Call) (wisp.Result, error)
}

func (t tool) Name() string            { return t.name }
func (t tool) Description() string     { return "Run the test's job." }
func (t tool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (t tool) Call(ctx context.Context, c wisp.Call) (wisp.Result, error) {
	return t.call(ctx, c)
}
func (tool) Action(context.Context, wisp.Call) (wisp.Action, error) {
	return wisp.Action{NoApproval: true}, nil
}

func accept(content map[string]any) *mcp.ElicitationResult {
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: content}}
}

func decline() *mcp.ElicitationResult {
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionDecline}}
}

// questionID is the ID the contract's questions are filed under: the
// pending folder takes the desk's IDs, 8 hex digits.
const questionID = "a1b2c3d4"

// askFace is the face as the contract suite asks it: each question put in
// a turn of its own, under an ID the pending folder takes. The answer's
// file is the face's own business: FileSHA256 is checked, then left out.
type askFace struct {
	t  *testing.T
	tt *turn
}

func (a askFace) Ask(ctx context.Context, q wisp.Question) (wisp.Answer, error) {
	q.ID = questionID
	type result struct {
		a   wisp.Answer
		err error
	}
	done := make(chan result, 1)
	a.tt.run(ctx, func(ctx context.Context) {
		got, err := a.tt.srv.Face().Ask(ctx, q)
		done <- result{got, err}
	})
	r := <-done
	if r.err == nil && r.a.Provenance == wisp.FromPerson && len(r.a.FileSHA256) != 64 {
		a.t.Errorf("Ask(%q) = %+v, want the SHA-256 of the answer's file", q.Text, r.a)
	}
	r.a.FileSHA256 = ""
	return r.a, r.err
}

// questionReply is the person's act at a question's dialog.
func questionReply(p facetest.Person, req mcp.ElicitationRequest) *mcp.ElicitationResult {
	switch p.Act {
	case facetest.Choose:
		return accept(map[string]any{"answer": choices(req)[p.Option]})
	case facetest.ChooseNone:
		return accept(map[string]any{"answer": "none of these"})
	case facetest.Type:
		return accept(map[string]any{"answer": p.Text})
	case facetest.Decline:
		return decline()
	}
	return nil
}

// choices returns the values of the choice a question's form offers.
func choices(req mcp.ElicitationRequest) []string {
	b, _ := json.Marshal(req.Params.RequestedSchema)
	var s struct {
		Properties struct {
			Answer struct {
				OneOf []struct {
					Const string `json:"const"`
				} `json:"oneOf"`
			} `json:"answer"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(b, &s)
	var out []string
	for _, c := range s.Properties.Answer.OneOf {
		out = append(out, c.Const)
	}
	return out
}

// atTerminal plays acts as the person at wisp questions answer, as the
// face's line told them to: each act the terminal would refuse is asked
// again there, and the first that fits is filed.
func atTerminal(t *testing.T, store pending.Store, acts []facetest.Person) {
	qs, err := store.List()
	if err != nil || len(qs) != 1 {
		t.Errorf("the question to answer at the terminal: %+v, %v", qs, err)
		return
	}
	q := qs[0]
	wq := wisp.Question{Options: q.Options}
	for _, p := range acts {
		var a wisp.Answer
		switch p.Act {
		case facetest.Choose:
			a = wisp.Answer{Outcome: wisp.OutcomeChose, Text: q.Options[p.Option]}
		case facetest.ChooseNone:
			a = wisp.Answer{Outcome: wisp.OutcomeChoseNone}
		case facetest.Decline:
			a = wisp.Answer{Outcome: wisp.OutcomeDeclined}
		case facetest.Type:
			if a, err = wq.Typed(p.Text); err != nil {
				continue // the terminal says what it takes, and reads again
			}
		default:
			return
		}
		if err := store.Answer(context.Background(), pending.Answer{ID: q.ID, Digest: q.Digest, Outcome: a.Outcome, Text: a.Text, From: pending.FromTerminal}); err != nil {
			t.Errorf("answering at the terminal: %v", err)
		}
		return
	}
}

// TestContract runs the face contract suite over an in-memory transport,
// in both protocol eras: the person's first act is at the client's
// dialog; when the face refuses it ("it still waits: wisp questions
// answer ID"), the next acts are at the terminal, as the line says.
func TestContract(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			facetest.Run(t, func(t *testing.T, p facetest.Person) facetest.Harness {
				acts := p.Acts()
				var tt *turn
				tt = newTurn(t, era.version, func(n int, req mcp.ElicitationRequest) *mcp.ElicitationResult {
					return questionReply(acts[0], req)
				})
				var once sync.Once
				tt.onNote = func(line string) {
					if strings.Contains(line, "still waits: wisp questions answer") {
						once.Do(func() { go atTerminal(t, tt.store, acts[1:]) })
					}
				}
				return facetest.Harness{Face: askFace{t: t, tt: tt}, Screen: tt.screen}
			}, &facetest.Options{NoInterrupt: true})
		})
	}
}

// cardFace is the face as the card contract suite asks it: each card put
// in a turn of its own.
type cardFace struct{ tt *turn }

func (c cardFace) AskCard(ctx context.Context, card wisp.Card) ([]wisp.CardAnswer, error) {
	type result struct {
		a   []wisp.CardAnswer
		err error
	}
	done := make(chan result, 1)
	c.tt.run(ctx, func(ctx context.Context) {
		got, err := c.tt.srv.Face().AskCard(ctx, card)
		done <- result{got, err}
	})
	r := <-done
	return r.a, r.err
}

// cardReply is what the person does with the n-th form of card c: round
// n of each question's acts (the last act once they run out); nil, to
// leave the form unanswered, when one of them is silent.
func cardReply(c wisp.Card, people []facetest.Person, n int) *mcp.ElicitationResult {
	content := map[string]any{}
	declines := 0
	for i, p := range people {
		acts := p.Acts()
		a := acts[min(n, len(acts)-1)]
		q := c.Questions[i]
		field := fmt.Sprintf("q%d", i+1)
		switch a.Act {
		case facetest.Silent, facetest.Interrupt:
			return nil
		case facetest.Decline:
			declines++
		case facetest.Choose:
			if q.Multi {
				content[field] = []any{q.Options[a.Option].Label}
			} else {
				content[field] = q.Options[a.Option].Label
			}
		case facetest.ChooseSeveral:
			var labels []any
			for _, o := range a.Options {
				labels = append(labels, q.Options[o].Label)
			}
			content[field] = labels
		case facetest.Type:
			if q.Other {
				content[field+"_other"] = a.Text
			} else {
				content[field] = a.Text
			}
		}
	}
	if declines == len(people) {
		return decline()
	}
	return accept(content)
}

// TestContractCards runs the card contract suite over an in-memory
// transport, in both protocol eras. A secret's card never reaches the
// client: the face reads no secret.
func TestContractCards(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			facetest.RunCards(t, func(t *testing.T, acts []facetest.Person) facetest.CardHarness {
				var card wisp.Card
				var mu sync.Mutex
				tt := newTurn(t, era.version, func(n int, req mcp.ElicitationRequest) *mcp.ElicitationResult {
					mu.Lock()
					defer mu.Unlock()
					return cardReply(card, acts, n)
				})
				face := cardFaceFunc(func(ctx context.Context, c wisp.Card) ([]wisp.CardAnswer, error) {
					mu.Lock()
					card = c
					mu.Unlock()
					return cardFace{tt: tt}.AskCard(ctx, c)
				})
				return facetest.CardHarness{Face: face, Screen: tt.screen}
			}, &facetest.Options{NoInterrupt: true, NoSecrets: true})
		})
	}
}

// cardFaceFunc adapts a function to wisp.CardInquirer.
type cardFaceFunc func(ctx context.Context, c wisp.Card) ([]wisp.CardAnswer, error)

func (f cardFaceFunc) AskCard(ctx context.Context, c wisp.Card) ([]wisp.CardAnswer, error) {
	return f(ctx, c)
}
