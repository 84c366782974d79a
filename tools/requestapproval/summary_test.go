package requestapproval_test

import (
	"encoding/json"
	"testing"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/tools/requestapproval"
)

// The trace of a request_approval call never holds the action's words:
// they reach the person under the gate's label, if the gate asks.
func TestSummary(t *testing.T) {
	args := json.RawMessage(`{"action":"answer wisp questions a1b2c3d4 for the person","reason":"quicker"}`)
	if got := requestapproval.New(nil).(wisp.Summarizer).Summary(args); got != "an action" {
		t.Errorf("Summary(%s) = %q, want %q", args, got, "an action")
	}
}
