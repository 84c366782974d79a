package jsonl_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp/inquiry/jsonl"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// deadline is the fixed time of the goldens.
var deadline = time.Date(2026, 3, 1, 9, 35, 0, 0, time.UTC)

// samples are one line of every message and every form of one, each
// pinned by testdata/golden/NAME.jsonl.
func samples() []struct {
	name string
	line jsonl.Line
} {
	return []struct {
		name string
		line jsonl.Line
	}{
		// wisp to the client.
		{"hello", jsonl.Hello{Protocol: jsonl.Protocol, Version: jsonl.Version, Wisp: "v0.9.0", Session: "5f2a9c1e", Thread: "t-5f2a9c1e",
			Model: "ollama:qwen3:4b", Tools: []string{"ask", "ask_user", "request_approval"},
			Accepts: []string{"message", "choose", "approve", "deny", "cancel"}, Choices: []string{"question", "card", "approval"}, MaxLine: jsonl.MaxLine}},
		{"turn", jsonl.Turn{Thread: "t-5f2a9c1e", Turn: 1, Text: "Replace the config with the new defaults."}},
		{"delta-text", jsonl.Delta{Text: "Replacing ./wisp.json"}},
		{"delta-thinking", jsonl.Delta{Thinking: "The person has two configs."}},
		{"tool-call", jsonl.ToolCall{ID: "call_1", Name: "ask", Summary: "Which config did you mean?"}},
		{"tool-output", jsonl.ToolOutput{ID: "call_3", Name: "run_command", Stream: "stdout", Text: "ok  \tgithub.com/wisp-agent/wisp/policy\t0.4s\n"}},
		{"tool-result", jsonl.ToolResult{ID: "call_1", Name: "ask", Text: "chose: ./wisp.json", IsError: false}},
		{"tool-result-error", jsonl.ToolResult{ID: "call_2", Name: "request_approval", Text: "error: not approved: the person declined", IsError: true}},
		{"note", jsonl.Note{Kind: jsonl.NoteRedacted, Thread: "t-5f2a9c1e",
			Text: "your answer looked like it held a credential; it was not passed on: the model sees [REDACTED:aws-access-key#1]"}},
		{"note-question", jsonl.Note{Kind: jsonl.NoteQuestion, ID: "a1b2c3d4",
			Text: `a question waits for you (a1b2c3d4): "Which branch?"; answer it with wisp questions answer a1b2c3d4`}},
		{"choice-question", jsonl.Question{ID: "a1b2c3d4", Thread: "t-5f2a9c1e", Turn: 1, Title: jsonl.TitleModelAsks,
			Text: "Which config did you mean?", Options: []string{"~/.wisp/config.json", "./wisp.json"}, NoneOfThese: true}},
		{"choice-question-parked", jsonl.Question{ID: "a1b2c3d4", Thread: "t-81b2c3d4", Turn: 3, Title: jsonl.TitleModelAsks,
			Text: "Which config did you mean?", Options: []string{"~/.wisp/config.json", "./wisp.json"}, NoneOfThese: true, Parked: true}},
		{"note-command", jsonl.Note{Kind: jsonl.NoteCommand,
			Text: "ollama:qwen3:4b is enabled: wisp may run it\nchecked: its facts, and a one-token chat"}},
		{"note-question-filed", jsonl.Note{Kind: jsonl.NoteQuestion, ID: "a1b2c3d4", Thread: "t-81b2c3d4",
			Text: "question a1b2c3d4: you chose ./wisp.json; the thread that asked gets it"}},
		{"choice-question-text", jsonl.Question{ID: "b2c3d4e5", Thread: "t-5f2a9c1e", Turn: 1, Title: jsonl.TitleModelAsks,
			Text: "What is the name of the staging branch?", AcceptsText: true, Deadline: deadline}},
		{"choice-card", jsonl.Card{ID: "c3d4e5f6", Thread: "t-5f2a9c1e", Turn: 2, Title: jsonl.TitleModelAsks, Deadline: deadline,
			Questions: []jsonl.CardQuestion{
				{Text: "Which environment should the migration run against?", Header: "Env", Options: []jsonl.CardOption{
					{Label: "staging", Description: "safe to break; data is a week old", Recommended: true},
					{Label: "production", Description: "real data; needs a maintenance window"}}},
				{Text: "Which checks should run first?", Header: "Checks", MultiSelect: true, AcceptsText: true, Options: []jsonl.CardOption{
					{Label: "unit tests", Recommended: true}, {Label: "lint"}}},
				{Text: "Is there anything the migration must not touch?", AcceptsText: true},
			}}},
		{"choice-card-secret", jsonl.Card{ID: "d4e5f6a7", Thread: "t-5f2a9c1e", Turn: 2, Title: jsonl.TitleModelAsks, Deadline: deadline,
			Questions: []jsonl.CardQuestion{{Text: "Which token should I use to open the pull request?", Header: "GitHub", AcceptsText: true, Secret: "GH_TOKEN"}}}},
		{"choice-approval", jsonl.Approval{ID: "e5f6a7b8", Thread: "t-5f2a9c1e", Turn: 3, Title: jsonl.TitleApproval,
			Command: "models enable ollama:qwen3:4b", Text: "turns ollama:qwen3:4b on in config.json", Scopes: []string{"once", "session"}}},
		{"choice-approval-diff", jsonl.Approval{ID: "e5f6a7b9", Thread: "t-5f2a9c1e", Turn: 3, Title: jsonl.TitleApproval,
			Command: "edit_file replace main.go", Text: "replaces 1 line in main.go with 1 line",
			Diff: "--- a/main.go\n+++ b/main.go\n@@ -1 +1 @@\n-package x\n+package main\n", Scopes: []string{"once", "session"}}},
		{"settled", jsonl.Settled{ID: "a1b2c3d4", Outcome: jsonl.OutcomeChose}},
		{"end", jsonl.End{Thread: "t-5f2a9c1e", Turn: 1, Reply: "Replacing ./wisp.json with the new defaults."}},
		{"end-flags", jsonl.End{Thread: "t-5f2a9c1e", Turn: 2, Reply: "You chose staging.",
			Flags: []string{"the reply says the person chose or confirmed something, but no question was answered in this turn"}}},
		{"end-stopped", jsonl.End{Thread: "t-5f2a9c1e", Turn: 3, Error: "the person stopped the turn", Stopped: true}},
		{"end-error", jsonl.End{Thread: "t-5f2a9c1e", Turn: 4, Error: "model: the script has no message left"}},
		{"end-before-turn", jsonl.End{Thread: "t-5f2a9c1e", Error: "the person stopped the turn", Stopped: true}},
		{"settled-closed", jsonl.Settled{ID: "a1b2c3d4", Outcome: jsonl.OutcomeClosed}},
		{"error", jsonl.Error{Error: "the answer does not fit the choice: option 4 is out of range: choice a1b2c3d4 has options 1 to 2; send option 1 to 2, none, decline", Line: 3}},
		{"bye", jsonl.Bye{}},

		// The client to wisp.
		{"message", jsonl.Message{Text: "Replace the config with the new defaults."}},
		{"choose-option", jsonl.Choose{ID: "a1b2c3d4", Option: 2}},
		{"choose-text", jsonl.Choose{ID: "b2c3d4e5", Text: "release/2.4"}},
		{"choose-none", jsonl.Choose{ID: "a1b2c3d4", None: true}},
		{"choose-decline", jsonl.Choose{ID: "a1b2c3d4", Decline: true}},
		{"choose-card", jsonl.Choose{ID: "c3d4e5f6", Answers: []jsonl.CardAnswer{
			{Option: 1}, {Options: []int{1, 2}, Text: "and the smoke test"}, {Decline: true}}}},
		{"choose-card-secret", jsonl.Choose{ID: "d4e5f6a7", Answers: []jsonl.CardAnswer{{Text: "ghp_s3cretValue0123456789"}}}},
		{"approve", jsonl.Approve{ID: "e5f6a7b8", Scope: "session"}},
		{"deny", jsonl.Deny{ID: "e5f6a7b8"}},
		{"cancel", jsonl.Cancel{}},
		{"questions-list", jsonl.Questions{Action: jsonl.ActionList}},
		{"questions-answer", jsonl.Questions{Action: jsonl.ActionAnswer, ID: "a1b2c3d4"}},
		{"questions-decline", jsonl.Questions{Action: jsonl.ActionDecline, ID: "a1b2c3d4"}},
		{"command", jsonl.Command{Name: "models", Args: []string{"enable", "ollama:qwen3:4b"}}},
		{"command-no-args", jsonl.Command{Name: "models"}},
	}
}

// TestGolden pins every message's wire form, and reads each back.
func TestGolden(t *testing.T) {
	for _, s := range samples() {
		t.Run(s.name, func(t *testing.T) {
			got, err := jsonl.Encode(s.line)
			if err != nil {
				t.Fatalf("Encode(%+v) error = %v", s.line, err)
			}
			path := filepath.Join("testdata", "golden", s.name+".jsonl")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to write it)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("Encode(%T) mismatch with %s (-want +got):\n%s", s.line, path, diff)
			}
			back, err := jsonl.Decode(want)
			if err != nil {
				t.Fatalf("Decode(%s) error = %v", want, err)
			}
			if diff := cmp.Diff(s.line, back); diff != "" {
				t.Errorf("Decode(%s) mismatch (-want +got):\n%s", bytes.TrimSpace(want), diff)
			}
		})
	}
}

// TestGoldenFilesAllSampled fails on a golden file no sample writes.
func TestGoldenFilesAllSampled(t *testing.T) {
	names := map[string]bool{}
	for _, s := range samples() {
		names[s.name+".jsonl"] = true
	}
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !names[filepath.Base(f)] {
			t.Errorf("%s is pinned by no sample; remove it or add its sample", f)
		}
	}
}

// TestEveryTypeHasAGolden checks that every line type and choice kind has
// at least one golden.
func TestEveryTypeHasAGolden(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range samples() {
		key := s.line.LineType()
		if c, ok := s.line.(jsonl.Choice); ok {
			key += "/" + c.ChoiceKind()
		}
		switch s.line.(type) {
		case jsonl.ToolCall:
			key += "/call"
		case jsonl.ToolOutput:
			key += "/output"
		case jsonl.ToolResult:
			key += "/result"
		}
		seen[key] = true
	}
	for _, want := range []string{"hello", "turn", "delta", "tool/call", "tool/output", "tool/result", "note", "choice/question", "choice/card",
		"choice/approval", "settled", "end", "error", "bye", "message", "choose", "approve", "deny", "cancel"} {
		if !seen[want] {
			t.Errorf("no golden for %s", want)
		}
	}
}
