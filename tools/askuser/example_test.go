package askuser_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry"
	"github.com/wisp-agent/wisp/inquiry/unattended"
	"github.com/wisp-agent/wisp/tools"
	"github.com/wisp-agent/wisp/tools/askuser"
)

// Registered as opt-in, ask_user reaches a conversation that enables it.
// With no person to show the card to, each choice falls back to its
// recommended option at once, and the result says so.
func Example() {
	desk := inquiry.NewDesk(unattended.Face{}, nil)
	reg := tools.NewRegistry()
	if err := reg.AddOptIn(askuser.New(desk)); err != nil {
		panic(err)
	}
	set, err := reg.Select(tools.Selection{Enabled: map[string]bool{askuser.Name: true}})
	if err != nil {
		panic(err)
	}
	r, err := set.Call(context.Background(), wisp.Call{Name: askuser.Name, Thread: "t1", Turn: 1, Arguments: json.RawMessage(`{
	  "questions": [{
	    "question": "Which environment should the migration run against?",
	    "header": "Env",
	    "options": [
	      {"label": "staging", "description": "safe to break; data is a week old", "recommended": true},
	      {"label": "production", "description": "real data; needs a maintenance window"}
	    ]
	  }]
	}`)})
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Content)
	// Output:
	// 1 (Env): fallback: staging (the recommended option; no person can answer here, so the person did not choose it)
}
