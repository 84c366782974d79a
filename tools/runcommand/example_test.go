package runcommand_test

import (
	"context"
	"fmt"
	"os"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/policy"
	"github.com/wisp-agent/wisp/tools/runcommand"
)

// A run_command tool over a Runner of the program's own, called through
// the agent's guard: the gate asks the person (here, a face that approves
// once), and the command runs only then.
func Example() {
	ws, _ := os.MkdirTemp("", "workspace")
	defer os.RemoveAll(ws)
	runner := runcommand.RunnerFunc(func(ctx context.Context, s runcommand.Spec) (runcommand.Result, error) {
		out := []byte("hello from " + s.Command + "\n")
		return runcommand.Result{Stdout: runcommand.Output{Head: out, Bytes: int64(len(out))}}, nil
	})
	tool, err := runcommand.New(&runcommand.Options{Workspace: ws, Runner: runner})
	if err != nil {
		fmt.Println(err)
		return
	}
	person := wisp.ApproverFunc(func(ctx context.Context, r wisp.ApprovalRequest) (wisp.Decision, error) {
		fmt.Println("asked:", r.Command)
		return wisp.Decision{Scope: wisp.ScopeOnce, Provenance: wisp.FromPerson}, nil
	})
	gate := policy.NewGate(&policy.GateOptions{Approver: person})
	res, err := agent.CallTool(context.Background(), gate, tool, wisp.Call{Name: runcommand.Name, Arguments: []byte(`{"command":"echo"}`)})
	fmt.Println(res.Content, err)
	// Output:
	// asked: run_command echo
	// exit status 0 after 0s
	// stdout:
	// hello from echo
	// stderr: (none) <nil>
}
