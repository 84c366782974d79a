package requestapproval_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/policy"
	"github.com/wisp-agent/wisp/tools/requestapproval"
)

func Example() {
	// The session's gate; here the person approves with "this session",
	// which request_approval narrows to once.
	gate := policy.NewGate(&policy.GateOptions{
		Approver: wisp.ApproverFunc(func(ctx context.Context, r wisp.ApprovalRequest) (wisp.Decision, error) {
			fmt.Printf("the person sees: %s (%s), offered %v\n", r.Command, r.Text, r.Scopes)
			return wisp.Decision{Scope: wisp.ScopeSession, Provenance: wisp.FromPerson}, nil
		}),
		NewID: func() string { return "7f3a2c1d" },
	})
	tool := requestapproval.New(gate)

	args, _ := json.Marshal(map[string]string{
		"action": "git push --force origin main",
		"reason": "the person asked to drop the last two commits from main",
	})
	res, err := tool.Call(context.Background(), wisp.Call{Name: requestapproval.Name, Arguments: args})
	fmt.Println(res.Content, err)
	// Output:
	// the person sees: git push --force origin main (the model's reason: the person asked to drop the last two commits from main), offered [once]
	// approved (approval 7f3a2c1d): you may take exactly this action, once: "git push --force origin main". Anything more or different needs a new request. <nil>
}
