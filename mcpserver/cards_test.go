package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
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
	"github.com/wisp-agent/wisp/mcpserver"
	"github.com/wisp-agent/wisp/models/script"
	"github.com/wisp-agent/wisp/tools"
	"github.com/wisp-agent/wisp/tools/askuser"
	"github.com/wisp-agent/wisp/wisptest"
)

// cfix is a server whose conversations ask ask_user cards through the
// server's own Face: a real desk with a vault, the real ask_user tool,
// and a hold the test ends by hand.
type cfix struct {
	srv   *mcpserver.Server
	model *script.Model
	rec   *wisptest.Recorder

	mu      sync.Mutex
	holds   []chan time.Time
	secrets []string // the names the vault was given values for
}

// The card every script here asks: a choice with a recommended option, a
// multi-select, a choice that takes "something else", and free text.
const cardArgs = `{"questions":[
  {"question":"Which environment?","header":"Env","options":[{"label":"staging","description":"safe to break","recommended":true},{"label":"production","description":"real data"}]},
  {"question":"Which checks?","multiSelect":true,"options":[{"label":"unit","recommended":true},{"label":"lint"}]},
  {"question":"How should it roll out?","allowOther":true,"options":[{"label":"all at once"},{"label":"canary"}]},
  {"question":"Anything it must not touch?"}]}`

func cardStep(args string) script.Step {
	return script.Step{ToolCalls: []script.ToolCall{{Name: askuser.Name, Arguments: json.RawMessage(args)}}}
}

func newCFix(t *testing.T, elicitation bool, steps ...script.Step) *cfix {
	t.Helper()
	f := &cfix{model: script.New("s", steps), rec: &wisptest.Recorder{}}
	dir := threadfile.Dir{Path: t.TempDir()}
	var ids atomic.Int64
	f.srv = mcpserver.New(&mcpserver.Options{
		Token:       testToken,
		Threads:     dir,
		Elicitation: elicitation,
		NewID:       func() string { return fmt.Sprintf("t-%08x", ids.Add(1)) },
		After: func(time.Duration) <-chan time.Time {
			f.mu.Lock()
			defer f.mu.Unlock()
			c := make(chan time.Time)
			f.holds = append(f.holds, c)
			return c
		},
		Conversations: mcpserver.ConversationsFunc(func(_ context.Context, named []string) (wisp.Agent, error) {
			vault := inquiry.VaultFunc(func(name, _ string) (string, error) {
				f.mu.Lock()
				f.secrets = append(f.secrets, name)
				f.mu.Unlock()
				return "session:" + name, nil
			})
			desk := inquiry.NewDesk(f.srv.Face(), &inquiry.Options{Session: "s1", Events: f.rec, Vault: vault})
			reg := tools.NewRegistry()
			if err := reg.AddOptIn(askuser.New(desk)); err != nil {
				return nil, err
			}
			set, err := reg.Select(tools.Selection{Named: []string{askuser.Name}})
			if err != nil {
				return nil, err
			}
			return agent.New(f.model, &agent.Options{Tools: set, Store: dir, Events: f.rec, Session: "s1"}), nil
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

// endHolds ends every hold begun so far: the cards fall back.
func (f *cfix) endHolds() {
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

// holding reports how many holds have begun.
func (f *cfix) holding() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.holds)
}

// connect returns an initialised client of f over transport tr ("http",
// "stdio" or "in-process"), speaking version ("" for the newest).
func (f *cfix) connect(t *testing.T, tr, version string, opts ...client.ClientOption) *client.Client {
	t.Helper()
	if version != "" {
		opts = append(opts, client.WithProtocolVersion(version))
	}
	var c *client.Client
	switch tr {
	case "http":
		qf := &qfix{srv: f.srv}
		return qf.httpClient(t, version, opts...)
	case "stdio":
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- f.srv.ServeStdio(ctx, inR, outW); outW.Close() }()
		t.Cleanup(func() {
			cancel()
			inW.Close()
			<-done
		})
		c = client.NewClient(transport.NewIO(outR, inW, io.NopCloser(strings.NewReader(""))), opts...)
	default:
		var err error
		if c, err = client.NewInProcessClientWithOptions(f.srv.MCP(), opts...); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	var ir mcp.InitializeRequest
	ir.Params.ClientInfo = mcp.Implementation{Name: "wisp-test-client", Version: "0"}
	ir.Params.ProtocolVersion = version
	if _, err := c.Initialize(t.Context(), ir); err != nil {
		t.Fatalf("Initialize: %v", err)
	}
	return c
}

// cardCall runs respond with ask_user and returns what the model read
// from the card: its lines, one a question.
func (f *cfix) cardCall(t *testing.T, c *client.Client) []string {
	t.Helper()
	res := respond(t, c, map[string]any{"prompt": "Migrate.", "tools": []string{askuser.Name}})
	if res.IsError {
		t.Fatalf("respond failed: %s", text(res))
	}
	got := toolResults(f.model)
	if len(got) != 1 {
		t.Fatalf("the model read %q, want one tool result", got)
	}
	return strings.Split(got[0], "\n")
}

// The transports and eras a card goes through.
var cardWays = []struct{ name, transport, version string }{
	{"in-process/2026-07-28", "in-process", ""},
	{"in-process/2025-11-25", "in-process", "2025-11-25"},
	{"http/2026-07-28", "http", ""},
	{"http/2025-11-25", "http", "2025-11-25"},
	{"stdio/2026-07-28", "stdio", ""},
	{"stdio/2025-11-25", "stdio", "2025-11-25"},
}

// With inquiry.elicitation on and a client that takes forms, a card goes
// to the client's dialog as one form, and the person's answers reach the
// model marked as theirs; a declined form declines every question.
func TestCardThroughTheDialog(t *testing.T) {
	answered := accept(map[string]any{"q1": "production", "q2": []any{"unit", "lint"}, "q3_other": "blue-green", "q4": "the audit tables"})
	cases := []struct {
		name  string
		reply func(mcp.ElicitationRequest) *mcp.ElicitationResult
		want  []string
	}{
		{"answered", answered, []string{
			"1 (Env): chose: production (from the person)",
			"2: chose: unit, lint (from the person)",
			"3: answer: blue-green (from the person)",
			"4: answer: the audit tables (from the person)",
		}},
		{"declined", action(mcp.ElicitationResponseActionDecline), []string{
			"1 (Env): " + inquiry.LineDeclined,
			"2: " + inquiry.LineDeclined,
			"3: " + inquiry.LineDeclined,
			"4: " + inquiry.LineDeclined,
		}},
		{"partly answered", accept(map[string]any{"q2": []any{"lint"}}), []string{
			"1 (Env): " + inquiry.LineDeclined,
			"2: chose: lint (from the person)",
			"3: " + inquiry.LineDeclined,
			"4: " + inquiry.LineDeclined,
		}},
	}
	for _, way := range cardWays {
		for _, tc := range cases {
			t.Run(way.name+"/"+tc.name, func(t *testing.T) {
				f := newCFix(t, true, cardStep(cardArgs), script.Step{Content: "Done."})
				e := &elicitor{respond: tc.reply}
				c := f.connect(t, way.transport, way.version, client.WithElicitationHandler(e))
				got := f.cardCall(t, c)
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("the model read (-want +got):\n%s", diff)
				}
				if n := len(e.requests()); n != 1 {
					t.Errorf("the dialog was shown %d times, want once", n)
				}
				settled := f.rec.Events(wisp.KindInquirySettled)
				if len(settled) != 1 {
					t.Fatalf("inquiry.settled %+v, want one", settled)
				}
			})
		}
	}
}

// The form a card goes out as: each question a field, a single choice an
// enum of the labels titled with their descriptions and the recommended
// option as its default, a multi-select an array of that enum, "something
// else" a text field of its own, free text a string.
func TestCardForm(t *testing.T) {
	f := newCFix(t, true, cardStep(cardArgs), script.Step{Content: "Done."})
	e := &elicitor{respond: action(mcp.ElicitationResponseActionDecline)}
	c := f.connect(t, "in-process", "", client.WithElicitationHandler(e))
	f.cardCall(t, c)
	reqs := e.requests()
	if len(reqs) != 1 {
		t.Fatalf("the dialog was shown %d times, want once", len(reqs))
	}
	b, err := json.Marshal(reqs[0].Params.RequestedSchema)
	if err != nil {
		t.Fatal(err)
	}
	var got any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	var want any
	if err := json.Unmarshal([]byte(`{"type":"object","properties":{
	  "q1":{"type":"string","title":"Question 1 (Env)","description":"Which environment?",
	        "oneOf":[{"const":"staging","title":"staging — safe to break (recommended)"},{"const":"production","title":"production — real data"}],
	        "default":"staging"},
	  "q2":{"type":"array","title":"Question 2","description":"Which checks?",
	        "items":{"anyOf":[{"const":"unit","title":"unit (recommended)"},{"const":"lint","title":"lint"}]},
	        "maxItems":2,"default":["unit"]},
	  "q3":{"type":"string","title":"Question 3","description":"How should it roll out?",
	        "oneOf":[{"const":"all at once","title":"all at once"},{"const":"canary","title":"canary"}]},
	  "q3_other":{"type":"string","title":"Question 3: something else","description":"Your own answer to question 3, instead of an option.","maxLength":2000},
	  "q4":{"type":"string","title":"Question 4","description":"Anything it must not touch?","maxLength":2000}}}`), &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the card's form (-want +got):\n%s", diff)
	}
	msg := reqs[0].Params.Message
	for _, part := range []string{"the model asks 4 questions", "1. Question 1 (Env): Which environment?", "not private", "wisp://threads/t-00000001", "within 1 min"} {
		if !strings.Contains(msg, part) {
			t.Errorf("the form's message %q lacks %q", msg, part)
		}
	}
}

// A card falls back at once, marked as nobody's answer, when the dialog
// cannot show it: inquiry.elicitation is off, or the client declared no
// form elicitation; a secret never goes to the dialog and is declined.
func TestCardFallsBackAtOnce(t *testing.T) {
	fallback := []string{
		"1 (Env): fallback: staging (the recommended option; no person can answer here, so the person did not choose it)",
		"2: fallback: unit (the recommended option; no person can answer here, so the person did not choose it)",
		"3: fallback: all at once (the first option; no person can answer here, so the person did not choose it)",
		"4: no person can answer here; this question has no default. Do not guess what the person would say",
	}
	secret := `{"secret":{"name":"GH_TOKEN","question":"Which token should open the pull request?"}}`
	for _, era := range eras {
		cases := []struct {
			name        string
			elicitation bool
			handler     bool
			args        string
			want        []string
		}{
			{"setting off", false, true, cardArgs, fallback},
			{"no capability", true, false, cardArgs, fallback},
			{"a secret", true, true, secret, []string{
				"1: " + inquiry.LineSecretDeclined("GH_TOKEN", wisp.FromUnattended, 0),
			}},
		}
		for _, tc := range cases {
			t.Run(era.name+"/"+tc.name, func(t *testing.T) {
				f := newCFix(t, tc.elicitation, cardStep(tc.args), script.Step{Content: "Done."})
				e := &elicitor{respond: accept(map[string]any{"q1": "production"})}
				var opts []client.ClientOption
				if tc.handler {
					opts = append(opts, client.WithElicitationHandler(e))
				}
				c := f.connect(t, "http", era.version, opts...)
				got := f.cardCall(t, c)
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("the model read (-want +got):\n%s", diff)
				}
				if n := len(e.requests()); n != 0 {
					t.Errorf("the dialog was shown %d times, want never", n)
				}
				if n := f.holding(); n != 0 {
					t.Errorf("%d holds began, want none: the card falls back at once", n)
				}
				if len(f.secrets) != 0 {
					t.Errorf("the vault was given %q, want nothing", f.secrets)
				}
			})
		}
	}
}

// A card nobody answers within the hold falls back then, marked as a
// timeout of the hold's length; a form whose answers do not fit is put
// again, saying why, and never passed on.
func TestCardHold(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name+"/unanswered", func(t *testing.T) {
			f := newCFix(t, true, cardStep(cardArgs), script.Step{Content: "Done."})
			e := &elicitor{gate: make(chan struct{}), respond: action(mcp.ElicitationResponseActionCancel)}
			c := f.connect(t, "http", era.version, client.WithElicitationHandler(e))
			results := make(chan []string, 1)
			go func() { results <- f.cardCall(t, c) }()
			e.waitShown(t)
			f.endHolds()
			close(e.gate) // a 2026-07-28 client's retry collects the result
			got := <-results
			want := []string{
				"1 (Env): fallback: staging (the recommended option; no answer within 1 min, so the person did not choose it)",
				"2: fallback: unit (the recommended option; no answer within 1 min, so the person did not choose it)",
				"3: fallback: all at once (the first option; no answer within 1 min, so the person did not choose it)",
				"4: no answer within 1 min; this question has no default. Do not guess what the person would say",
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("the model read (-want +got):\n%s", diff)
			}
		})
		t.Run(era.name+"/asked again", func(t *testing.T) {
			f := newCFix(t, true, cardStep(cardArgs), script.Step{Content: "Done."})
			var n atomic.Int64
			e := &elicitor{respond: func(mcp.ElicitationRequest) *mcp.ElicitationResult {
				if n.Add(1) == 1 {
					return accept(map[string]any{"q1": "/etc/passwd", "q4": "x\x1b[A"})(mcp.ElicitationRequest{})
				}
				return accept(map[string]any{"q1": "staging"})(mcp.ElicitationRequest{})
			}}
			c := f.connect(t, "http", era.version, client.WithElicitationHandler(e))
			got := f.cardCall(t, c)
			if got[0] != "1 (Env): chose: staging (from the person)" {
				t.Errorf("the model read %q, want the second form's answer", got)
			}
			reqs := e.requests()
			if len(reqs) != 2 || !strings.Contains(reqs[1].Params.Message, "question 1: that is none of its options") {
				t.Errorf("the dialog was shown %d times; want twice, the second saying why: %+v", len(reqs), reqs)
			}
		})
	}
}
