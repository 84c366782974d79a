package policy_test

import (
	"context"
	"fmt"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/models"
	"github.com/wisp-agent/wisp/policy"
)

func ExampleClassifier() {
	// The person-only rows, and the rows of the models tool's commands.
	classifier, err := policy.NewClassifier(models.Rules()...)
	if err != nil {
		panic(err)
	}
	for _, c := range []string{"models list", "models pull mlx-community/Qwen3-4B-4bit", "models trust mlx-community", "models list; rm -rf ~", "wisp approvals approve 7f3a2c1d", "git status"} {
		v := classifier.Classify(c)
		fmt.Printf("%s: %s (%s)", c, v.Rating, v.Reason)
		if v.PersonOnly {
			fmt.Print(", refused without asking")
		}
		fmt.Println()
	}
	// Output:
	// models list: safe (only reads what wisp knows about models)
	// models pull mlx-community/Qwen3-4B-4bit: moderate (downloads a model from Hugging Face)
	// models trust mlx-community: dangerous (trusting a publisher is the person's alone)
	// models list; rm -rf ~: dangerous (has shell metacharacters)
	// wisp approvals approve 7f3a2c1d: dangerous (answering wisp's questions and approvals is the person's alone), refused without asking
	// git status: dangerous (not a command wisp knows)
}

func ExampleGate() {
	// A person who answers "this session" to everything; a real face shows
	// the request and reads the answer.
	person := wisp.ApproverFunc(func(ctx context.Context, r wisp.ApprovalRequest) (wisp.Decision, error) {
		fmt.Printf("asked: %s (allows %v)\n", r.Command, r.Scopes)
		return wisp.Decision{Scope: wisp.ScopeSession, Provenance: wisp.FromPerson}, nil
	})
	audit := wisp.EventSinkFunc(func(ctx context.Context, e wisp.Event) error {
		switch d := e.Data.(type) {
		case wisp.ApprovalDecidedData:
			fmt.Printf("  audit: %s %s\n", e.Kind(), d.Decision)
		case wisp.ClassifierVerdictData:
			fmt.Printf("  audit: %s %s\n", e.Kind(), d.Rating)
		default:
			fmt.Printf("  audit: %s\n", e.Kind())
		}
		return nil
	})
	// The classifier knows the models commands from their rows.
	classifier, err := policy.NewClassifier(models.Rules()...)
	if err != nil {
		panic(err)
	}
	n := 0
	g := policy.NewGate(&policy.GateOptions{
		Approver: person, Events: audit, Session: "s1", Classifier: classifier,
		NewID: func() string { n++; return fmt.Sprintf("a%d", n) },
	})
	ask := func(r policy.Request) {
		out, err := g.Ask(context.Background(), r)
		switch {
		case err != nil:
			fmt.Println("turn ends:", err)
		case !out.Approved:
			fmt.Println(policy.LineNotApproved + out.Reason)
		default:
			fmt.Printf("approved %s as %s (covered %t, downgraded from %s)\n", out.ID, out.Scope, out.Covered, out.DowngradedFrom)
		}
	}
	enable := func(name string) policy.Request {
		return policy.Request{
			Kind: "modelAction", Command: "models enable " + name, Pattern: "models enable *",
			Text: "turns " + name + " on in config.json", AlwaysAsk: true,
			Scopes: []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession},
		}
	}
	ask(enable("ollama:qwen3:4b"))
	ask(enable("mlx:Qwen3-4B-4bit"))
	ask(policy.Request{
		Kind: "modelAction", Command: "models pull mlx-community/Qwen3-4B-4bit", Pattern: "models pull *",
		Text: "downloads 2.3 GB in 4 of 7 files from Hugging Face", AlwaysAsk: true,
		Scopes: []wisp.Scope{wisp.ScopeOnce},
	})
	// Output:
	//   audit: classifier.verdict moderate
	//   audit: approval.requested
	// asked: models enable ollama:qwen3:4b (allows [once session])
	//   audit: approval.decided approved
	// approved a1 as session (covered false, downgraded from none)
	//   audit: classifier.verdict moderate
	//   audit: approval.decided approved
	// approved a1 as session (covered true, downgraded from none)
	//   audit: classifier.verdict moderate
	//   audit: approval.requested
	// asked: models pull mlx-community/Qwen3-4B-4bit (allows [once])
	//   audit: approval.decided approved
	// approved a2 as once (covered false, downgraded from session)
}
