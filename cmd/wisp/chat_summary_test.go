package main

import (
	"encoding/json"
	"testing"
)

func TestCallSummary(t *testing.T) {
	tests := []struct{ args, want string }{
		{`{"question":"Which config?","options":["a","b"]}`, "Which config?"},
		{`{"questions":[{"question":"Which environment?","options":[{"label":"a"},{"label":"b"}]}]}`, "Which environment?"},
		{`{"questions":[{"question":"A?"},{"question":"B?"},{"question":"C?"}]}`, "3 questions"},
		{`{"secret":{"name":"GH_TOKEN","question":"Which token?"}}`, "secret GH_TOKEN"},
		{`{"action":"drop the table sessions_old","reason":"replaced"}`, "drop the table sessions_old"},
		{`{"name":"qwen3:4b"}`, `{"name":"qwen3:4b"}`},
		{`not json`, `not json`},
	}
	for _, tc := range tests {
		if got := callSummary(json.RawMessage(tc.args)); got != tc.want {
			t.Errorf("callSummary(%s) = %q, want %q", tc.args, got, tc.want)
		}
	}
}
