package agent_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/inquiry"
	"github.com/wisp-agent/wisp/models/script"
	"github.com/wisp-agent/wisp/policy"
	"github.com/wisp-agent/wisp/tools"
	"github.com/wisp-agent/wisp/tools/ask"
	"github.com/wisp-agent/wisp/wisptest"
)

// An agent whose model asks the person which config they meant, and goes on
// in the same turn with the answer. The model is scripted and the person is
// a scripted face; swap in a real model and a face of your own.
func Example() {
	model := script.New("demo", []script.Step{
		{ToolCalls: []script.ToolCall{{Name: "ask", Arguments: json.RawMessage(
			`{"question":"Which config did you mean?","options":["~/.wisp/config.json","./wisp.json"]}`)}}},
		{Content: "Replacing ./wisp.json with the new defaults."},
	})
	person := wisptest.NewPerson(wisptest.ChoosesNth(2))

	desk := inquiry.NewDesk(person, nil)
	reg := tools.NewRegistry()
	if err := reg.AddOptIn(ask.New(desk)); err != nil {
		panic(err)
	}
	set, err := reg.Select(tools.Selection{Named: []string{"ask"}})
	if err != nil {
		panic(err)
	}
	a := agent.New(model, &agent.Options{Tools: set})

	reply, err := a.Respond(context.Background(), "thread-1", "Replace the config with the new defaults.")
	if err != nil {
		panic(err)
	}
	req := model.Requests()[1]
	fmt.Println("the model got:", req.Messages[len(req.Messages)-1].Content)
	fmt.Println("reply:", reply.Text)
	fmt.Println("fact:", reply.Facts[0])
	// Output:
	// the model got: chose: ./wisp.json
	// reply: Replacing ./wisp.json with the new defaults.
	// fact: c1 answer "Which config did you mean?" = ./wisp.json
}

// A tool of one's own says what a call would do, as the command the
// approval gate judges; the agent puts it to its guard before the call
// runs, and the call gets the approval. The embedder's rule rates the
// command; the person's answer of "this session" covers the next deploy.
func Example_guard() {
	type args struct {
		Branch string `json:"branch" jsonschema:"The branch to deploy"`
	}
	deploy := tools.New("deploy", "Deploy a branch to staging.",
		func(ctx context.Context, c wisp.Call, a args) (wisp.Result, error) {
			return wisp.Result{Content: "deployed " + a.Branch + " under approval " + c.Approval.ID}, nil
		},
		&tools.Options{Action: func(ctx context.Context, c wisp.Call) (wisp.Action, error) {
			var a args
			if err := json.Unmarshal(c.Arguments, &a); err != nil {
				return wisp.Action{}, err
			}
			return wisp.Action{
				Kind: "command", Command: "deploy " + a.Branch, Pattern: "deploy *",
				Text:   "replaces what staging runs with " + a.Branch,
				Scopes: []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession},
			}, nil
		}})
	classifier, err := policy.NewClassifier(policy.Rule{Pattern: "deploy *", Rating: policy.Moderate, Reason: "changes what staging runs"})
	if err != nil {
		panic(err)
	}
	person := wisp.ApproverFunc(func(ctx context.Context, r wisp.ApprovalRequest) (wisp.Decision, error) {
		fmt.Printf("asked: %s: %s\n", r.Command, r.Text)
		return wisp.Decision{Scope: wisp.ScopeSession, Provenance: wisp.FromPerson}, nil
	})
	gate := policy.NewGate(&policy.GateOptions{Approver: person, Classifier: classifier, NewID: func() string { return "7f3a2c1d" }})

	reg := tools.NewRegistry()
	if err := reg.Add(deploy); err != nil {
		panic(err)
	}
	set, err := reg.Select(tools.Selection{})
	if err != nil {
		panic(err)
	}
	model := script.New("demo", []script.Step{
		{ToolCalls: []script.ToolCall{{Name: "deploy", Arguments: json.RawMessage(`{"branch":"main"}`)}}},
		{ToolCalls: []script.ToolCall{{Name: "deploy", Arguments: json.RawMessage(`{"branch":"fix-login"}`)}}},
		{Content: "Both are on staging."},
	})
	a := agent.New(model, &agent.Options{Tools: set, Guard: gate})
	if _, err := a.Respond(context.Background(), "thread-1", "Deploy main, then fix-login."); err != nil {
		panic(err)
	}
	for _, i := range []int{1, 2} {
		msgs := model.Requests()[i].Messages
		fmt.Println("the model got:", msgs[len(msgs)-1].Content)
	}
	// Output:
	// asked: deploy main: replaces what staging runs with main
	// the model got: deployed main under approval 7f3a2c1d
	// the model got: deployed fix-login under approval 7f3a2c1d
}
