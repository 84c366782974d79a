package main

import (
	"encoding/json"
	"testing"
)

func TestCallSummary(t *testing.T) {
	tests := []struct{ tool, args, want string }{
		{"ask", `{"question":"Which config?","options":["a","b"]}`, "Which config?"},
		{"ask_user", `{"questions":[{"question":"Which environment?","options":[{"label":"a"},{"label":"b"}]}]}`, "Which environment?"},
		{"ask_user", `{"questions":[{"question":"A?"},{"question":"B?"},{"question":"C?"}]}`, "3 questions"},
		{"ask_user", `{"secret":{"name":"GH_TOKEN","question":"Which token?"}}`, "secret GH_TOKEN"},
		{"request_approval", `{"action":"drop the table sessions_old","reason":"replaced"}`, "drop the table sessions_old"},
		{"models", `{"action":"list"}`, `{"action":"list"}`},
		{"models", `{"name":"qwen3:4b"}`, `{"name":"qwen3:4b"}`},
		{"echo", `not json`, `not json`},
	}
	for _, tc := range tests {
		if got := callSummary(tc.tool, json.RawMessage(tc.args)); got != tc.want {
			t.Errorf("callSummary(%s) = %q, want %q", tc.args, got, tc.want)
		}
	}
}
