package outofband_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/policy/outofband"
)

func ExampleApprover() {
	home, err := os.MkdirTemp("", "wisp-home")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(home)
	store := outofband.Store{Dir: filepath.Join(home, "approvals")}

	a := outofband.NewApprover(store, &outofband.ApproverOptions{
		// wisp mcp tells the client here, and puts the request to its
		// dialog; here the person answers at once, as wisp approvals
		// approve would from a terminal, bound to the digest shown.
		Announce: func(ctx context.Context, r outofband.Request) {
			fmt.Printf("waiting: %s %s (offers %v)\n", r.ID, r.Command, r.Scopes)
			go func() {
				err := store.Decide(ctx, outofband.Decision{
					ID: r.ID, Digest: r.Digest, Scope: wisp.ScopeSession, From: outofband.FromTerminal,
				})
				if err != nil {
					fmt.Println(err)
				}
			}()
		},
	})
	d, err := a.Approve(context.Background(), wisp.ApprovalRequest{
		ID: "7f3a2c1d", Thread: "t-81b2c3d4", Kind: "modelAction",
		Command: "models enable ollama:qwen3:4b", Pattern: "models enable *",
		Text:   "turns ollama:qwen3:4b on in config.json",
		Scopes: []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession},
	})
	fmt.Printf("approved %t, for %s, by %s (%v)\n", d.Approved(), d.Scope, d.Provenance, err)

	left, _ := store.List()
	fmt.Println("still waiting:", len(left))
	// Output:
	// waiting: 7f3a2c1d models enable ollama:qwen3:4b (offers [once session])
	// approved true, for session, by person (<nil>)
	// still waiting: 0
}
