package askuser_test

import (
	"encoding/json"
	"testing"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/tools/askuser"
)

// The trace of an ask_user call says how many questions it asks, or that
// it asks for a secret, and none of their words.
func TestSummary(t *testing.T) {
	tests := []struct{ args, want string }{
		{`{"questions":[{"question":"What is your GitHub token?","options":[{"label":"a"},{"label":"b"}]}]}`, "a question"},
		{`{"questions":[{"question":"A?"},{"question":"B?"},{"question":"C?"}]}`, "3 questions"},
		{`{"secret":{"name":"PASTE_YOUR_PASSWORD_HERE","question":"Which token?"}}`, "a secret"},
		{`{"secret":null,"questions":[{"question":"A?"},{"question":"B?"}]}`, "2 questions"},
		{`not json`, "a question"},
	}
	for _, tc := range tests {
		if got := askuser.New(nil).(wisp.Summarizer).Summary(json.RawMessage(tc.args)); got != tc.want {
			t.Errorf("Summary(%s) = %q, want %q", tc.args, got, tc.want)
		}
	}
}
