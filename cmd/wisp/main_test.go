package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/audit"
	"github.com/wisp-agent/wisp/inquiry/pending"
	"github.com/wisp-agent/wisp/models/hf/hubtest"
	"github.com/wisp-agent/wisp/models/mlx/mlxtest"
	"github.com/wisp-agent/wisp/models/ollama/ollamatest"
	"github.com/wisp-agent/wisp/models/openai/openaitest"
	"github.com/wisp-agent/wisp/sandbox"
)

// TestMain lets the scripts run wisp as a command: the test binary itself,
// through run, the same code path as the real binary. Every test that
// starts wisp as a process finds it on PATH, put there once for the whole
// package run.
func TestMain(m *testing.M) {
	// The commands run_command runs re-execute the binary as the
	// sandbox's launcher.
	sandbox.Main()
	// Under -race a program that exits 0 first sleeps a second, to give
	// late races a chance to show; the wisp processes the tests start
	// inherit GORACE and skip it. A race found while one runs is still
	// reported on its stderr, and its exit status is 66.
	os.Setenv("GORACE", quickRaceExit())
	testscript.Main(m, map[string]func(){
		"wisp": func() {
			env := environ{getenv: os.Getenv, userHome: os.UserHomeDir, environment: os.Environ}
			os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr, env))
		},
	})
}

// TestScripts runs the CLI as a person would, from testdata/script: each
// script is a session at the shell, with what the person types and what
// wisp must print.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(e *testscript.Env) error {
			e.Setenv("WISP_HOME", e.WorkDir+"/home")
			// $EXAMPLES is the repository's examples folder, so that a
			// script can run what the README tells a new user to.
			examples, err := filepath.Abs("../../examples")
			if err != nil {
				return err
			}
			e.Setenv("EXAMPLES", examples)
			// Every script has an Ollama of its own: the fake, speaking the
			// real API on loopback.
			srv, stop := ollamatest.Start(scriptOllamaModels...)
			e.Defer(stop)
			e.Setenv("OLLAMA_HOST", srv.URL)
			// And a Hugging Face Hub of its own.
			hub, stopHub := hubtest.Start(scriptHubRepos()...)
			e.Defer(stopHub)
			e.Setenv("HF_ENDPOINT", hub.URL)
			// And an OpenAI-compatible server for MLX models, as mlx_lm.server.
			mlxSrv := openaitest.Start(
				openaitest.Reply{Reasoning: "The person greets me.", Content: "Hello from MLX."},
			)
			e.Defer(mlxSrv.Close)
			e.Setenv("WISP_MLX_URL", mlxSrv.URL)
			return nil
		},
		// [sandbox]: commands can be confined here (sandbox.Probe).
		Condition: func(cond string) (bool, error) {
			if cond != "sandbox" {
				return false, fmt.Errorf("unknown condition %q", cond)
			}
			return sandbox.Probe(context.Background()).Confined, nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// mlxmodel ORG NAME [notools] puts an MLX model under the wisp home.
			"mlxmodel": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 2 {
					ts.Fatalf("usage: mlxmodel ORG NAME [notools]")
				}
				repo := mlxtest.Qwen3Tools(args[0], args[1])
				if len(args) > 2 && args[2] == "notools" {
					repo = mlxtest.NoTools(args[0], args[1])
				}
				mlxtest.Write(t, ts.Getenv("WISP_HOME"), repo)
			},
			// ollamadown points OLLAMA_HOST at a port where nothing listens.
			"ollamadown": func(ts *testscript.TestScript, neg bool, args []string) {
				ts.Setenv("OLLAMA_HOST", "127.0.0.1:1")
			},
			// pending works the pending folder as wisp mcp and other faces do:
			//   pending file ID THREAD TEXT [OPTION...]  files a question as ID
			//   pending answer ID OUTCOME [TEXT]         answers it from chat
			//   pending plant ID OUTCOME [TEXT]          writes an answer nothing records
			//   pending withdraw ID WHY                  withdraws it
			// TEXT and each OPTION are read as the inside of a Go string
			// literal, so \x1b is ESC and \u202e a bidi override.
			"pending": pendingCmd,
			// approval works the approvals folder (see approvalCmd).
			"approval": approvalCmd,
		},
	})
}

// scriptOllamaModels are the models of the scripts' fake Ollama.
var scriptOllamaModels = []ollamatest.Model{
	{Name: "qwen3:4b", Size: 2_500_000_000, Family: "qwen3", ParameterSize: "4.0B", Quantization: "Q4_K_M", ContextLength: 40960, Capabilities: []string{"completion", "tools", "thinking"}, License: "Apache License 2.0"},
	{Name: "gemma3:latest", Size: 3_300_000_000, Family: "gemma3", ParameterSize: "4.3B", Quantization: "Q4_K_M", ContextLength: 131072, Capabilities: []string{"completion", "vision"}},
	// granite4.1 holds a dialogue: the probe of its check, then a turn that
	// asks the person something and goes on with the answer.
	{Name: "granite4.1:8b", Size: 4_900_000_000, Family: "granite", ParameterSize: "8.2B", Quantization: "Q4_K_M", ContextLength: 131072,
		Capabilities: []string{"completion", "tools", "thinking"}, Replies: []ollamatest.Reply{
			{Content: "hi"},
			{Thinking: "I need the branch name.", ToolCalls: []ollamatest.ToolCall{{Name: "ask", Arguments: `{"question":"Which branch should I deploy?","options":["main","release/2.4"]}`}}},
			{Content: "Deploying release/2.4 now."},
		}},
}

// scriptHubRepos are the repositories of the scripts' fake Hub.
func scriptHubRepos() []hubtest.Repo {
	toHub := func(r mlxtest.Repo, licence string) hubtest.Repo {
		h := hubtest.Repo{ID: r.Org + "/" + r.Name, License: licence}
		for _, f := range r.Files {
			h.Files = append(h.Files, hubtest.File{Path: f.Path, Data: f.Data, LFS: f.LFS})
		}
		return h
	}
	return []hubtest.Repo{
		toHub(mlxtest.Qwen3Tools("mlx-community", "Qwen3-4B-4bit"), "apache-2.0"),
		toHub(mlxtest.Qwen3Tools("someone", "Other-4bit"), ""),
		toHub(mlxtest.NoTools("mlx-community", "SmolLM-135M-4bit"), "apache-2.0"),
		{ID: "org/not-mlx", Files: []hubtest.File{{Path: "README.md", Data: []byte("# not mlx\n")}, {Path: "pytorch_model.bin", Data: []byte("weights"), LFS: true}}},
	}
}

// quickRaceExit is GORACE for a child that is this test binary, keeping
// whatever GORACE the run was given.
func quickRaceExit() string {
	return strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
}

// Exit status: 0 on success, 1 on a failure, 2 on a usage error.
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "ok.jsonl")
	if err := os.WriteFile(ok, []byte(`{"content":"ok"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want int
	}{
		{[]string{"respond", "--model", "script:" + ok, "hi"}, 0},
		{[]string{"config", "list"}, 0},
		{[]string{"chat"}, 2},
		{[]string{"respond", "--model", "nope:x", "hi"}, 2},
		{[]string{"respond", "--model", "script:" + ok}, 2},
		{[]string{"respond", "--model", "script:" + ok, "--tool", "aks", "hi"}, 2},
		{[]string{"frobnicate"}, 2},
		{[]string{"chat", "--bogus"}, 2},
		{[]string{"config", "set", "tools.nope", "true"}, 2},
		{[]string{"config", "set", "tools.ask", "maybe"}, 2},
		{[]string{"config", "set", "inquiry.timeoutSeconds", "5"}, 2},
		{[]string{"config", "get"}, 2},
		{[]string{"config"}, 2},
		{[]string{"respond", "--model", "script:" + filepath.Join(dir, "missing.jsonl"), "hi"}, 2},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			checkExit(t, testEnv(t.TempDir()), "", tc.args, tc.want)
		})
	}
}

// pendingCmd is the scripts' pending command (see TestScripts).
func pendingCmd(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "usage: pending file ID THREAD TEXT [OPTION...] | answer ID OUTCOME [TEXT] | plant ID OUTCOME [TEXT] | withdraw ID WHY"
	if neg || len(args) < 2 {
		ts.Fatalf(usage)
	}
	id := args[1]
	home := ts.Getenv("WISP_HOME")
	store := pending.Store{Dir: filepath.Join(home, "pending"), NewID: func() string { return id }}
	ctx := context.Background()
	if args[0] == "answer" {
		// An answer from chat is recorded as a face records it.
		w, closeLog := scriptWitness(ts, home)
		defer closeLog()
		store.Witness = w
	}
	switch {
	case args[0] == "file" && len(args) >= 4:
		q := wisp.Question{Session: "s-mcp", Thread: args[2], Turn: 3, Text: unquoteArg(ts, "pending", args[3])}
		for _, o := range args[4:] {
			q.Options = append(q.Options, unquoteArg(ts, "pending", o))
		}
		if _, err := store.File(ctx, q); err != nil {
			ts.Fatalf("pending file: %v", err)
		}
	case (args[0] == "answer" || args[0] == "plant") && (len(args) == 3 || len(args) == 4):
		q, err := store.Get(id)
		if err != nil {
			ts.Fatalf("pending answer: %v", err)
		}
		outcomes := map[string]wisp.Outcome{"answered": wisp.OutcomeAnswered, "chose": wisp.OutcomeChose,
			"chose-none": wisp.OutcomeChoseNone, "declined": wisp.OutcomeDeclined}
		o, ok := outcomes[args[2]]
		if !ok {
			ts.Fatalf("pending answer: unknown outcome %q", args[2])
		}
		a := pending.Answer{ID: id, Digest: q.Digest, Outcome: o, From: pending.FromChat}
		if len(args) == 4 {
			a.Text = unquoteArg(ts, "pending", args[3])
		}
		if err := store.Answer(ctx, a); err != nil {
			ts.Fatalf("pending answer: %v", err)
		}
	case args[0] == "withdraw" && len(args) == 3:
		if err := store.Withdraw(ctx, id, args[2]); err != nil {
			ts.Fatalf("pending withdraw: %v", err)
		}
	default:
		ts.Fatalf(usage)
	}
}

// scriptWitness is the audit log of home as the Witness of the answers a
// script gives as a face would, and the function that closes it.
func scriptWitness(ts *testscript.TestScript, home string) (wisp.Witness, func()) {
	log, err := audit.Open(filepath.Join(home, "audit"), nil)
	if err != nil {
		ts.Fatalf("opening the audit log: %v", err)
	}
	return audit.Witness{Log: log, Session: "s-face"}, func() { log.Close() }
}
