package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/policy/outofband"
)

// approvalCmd is the scripts' approval command, which works the approvals
// folder as wisp mcp and the MCP client's dialog do:
//
//	approval file ID THREAD SCOPES COMMAND [TEXT]  files a request, due in 10 min
//	approval decide ID SCOPE FROM                  decides it (SCOPE none denies)
//	approval plant ID SCOPE FROM                   writes a decision nothing records
//	approval withdraw ID WHY                       withdraws it
//
// SCOPES is a comma-separated list (once,session). COMMAND and TEXT are
// read as the inside of a Go string literal, so \x1b is ESC and \u202e a
// bidi override.
func approvalCmd(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "usage: approval file ID THREAD SCOPES COMMAND [TEXT] | decide ID SCOPE FROM | plant ID SCOPE FROM | withdraw ID WHY"
	if neg || len(args) < 2 {
		ts.Fatalf(usage)
	}
	scopeOf := func(name string) wisp.Scope {
		for s := wisp.ScopeNone; s <= wisp.ScopeAlways; s++ {
			if s.String() == name {
				return s
			}
		}
		ts.Fatalf("approval: %q is not a scope", name)
		return wisp.ScopeNone
	}
	store := outofband.Store{Dir: filepath.Join(ts.Getenv("WISP_HOME"), "approvals")}
	ctx := context.Background()
	id := args[1]
	switch {
	case args[0] == "file" && (len(args) == 5 || len(args) == 6):
		r := wisp.ApprovalRequest{
			ID: id, Session: "s-mcp", Thread: args[2], Turn: 3, Kind: "modelAction",
			Command: unquoteArg(ts, "approval", args[4]), Deadline: time.Now().Add(10 * time.Minute),
		}
		if f := strings.Fields(r.Command); len(f) > 1 {
			r.Pattern = f[0] + " " + f[1] + " *"
		}
		for _, name := range strings.Split(args[3], ",") {
			r.Scopes = append(r.Scopes, scopeOf(name))
		}
		if len(args) == 6 {
			r.Text = unquoteArg(ts, "approval", args[5])
		}
		if _, err := store.File(ctx, r); err != nil {
			ts.Fatalf("approval file: %v", err)
		}
	case (args[0] == "decide" || args[0] == "plant") && len(args) == 4:
		if args[0] == "decide" {
			w, closeLog := scriptWitness(ts, ts.Getenv("WISP_HOME"))
			defer closeLog()
			store.Witness = w
		}
		r, err := store.Get(id)
		if err != nil {
			ts.Fatalf("approval decide: %v", err)
		}
		if err := store.Decide(ctx, outofband.Decision{ID: id, Digest: r.Digest, Scope: scopeOf(args[2]), From: args[3]}); err != nil {
			ts.Fatalf("approval decide: %v", err)
		}
	case args[0] == "withdraw" && len(args) == 3:
		if err := store.Withdraw(ctx, id, args[2]); err != nil {
			ts.Fatalf("approval withdraw: %v", err)
		}
	default:
		ts.Fatalf(usage)
	}
}

// Exit status of wisp approvals: 2 for how it was called (a bad ID or
// scope, no terminal), 1 for a request that cannot be answered, 0 for a
// list. Every failure is one line.
func TestApprovalsExitCodes(t *testing.T) {
	home := t.TempDir()
	store := outofband.Store{Dir: filepath.Join(home, "approvals")}
	if _, err := store.File(t.Context(), wisp.ApprovalRequest{
		ID: "7f3a2c1d", Command: "models enable ollama:qwen3:4b", Scopes: []wisp.Scope{wisp.ScopeOnce},
	}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want int
	}{
		{[]string{"approvals"}, 0},
		{[]string{"approvals", "list"}, 0},
		{[]string{"approvals", "approve", "7f3a2c1d"}, 2},
		{[]string{"approvals", "deny", "7f3a2c1d"}, 2},
		{[]string{"approvals", "approve", "../x"}, 2},
		{[]string{"approvals", "approve", "7f3a2c1d", "--scope", "project"}, 2},
		{[]string{"approvals", "approve"}, 2},
		{[]string{"approvals", "list", "x"}, 2},
		{[]string{"approvals", "approve", "12345678"}, 1},
		{[]string{"approvals", "deny", "12345678"}, 1},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			checkExit(t, testEnv(home), "y\n", tc.args, tc.want)
		})
	}
	if _, ok, err := store.Decided("7f3a2c1d"); ok || err != nil {
		t.Errorf("Decided after answers without a terminal = %v, %v; want nothing filed", ok, err)
	}
}
