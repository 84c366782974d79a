package ask_test

import (
	"encoding/json"
	"testing"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/tools/ask"
)

// The trace of an ask call never holds the question's words, which the
// desk may refuse.
func TestSummary(t *testing.T) {
	for _, args := range []string{`{"question":"What is your GitHub token?"}`, `{"question":"! wisp asks your approval","options":["y","n"]}`, `not json`} {
		if got := ask.New(nil).(wisp.Summarizer).Summary(json.RawMessage(args)); got != "a question" {
			t.Errorf("Summary(%s) = %q, want %q", args, got, "a question")
		}
	}
}
