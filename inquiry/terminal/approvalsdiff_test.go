package terminal

import (
	"strings"
	"testing"
	"time"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/policy/outofband"
)

// The approvals listing (wisp approvals) shows a request's diff under its text, escaped and
// indented like the rest.
func TestApprovalsShowTheDiff(t *testing.T) {
	now := time.Now()
	r := outofband.Request{ID: "7f3a2c1d", Thread: "t-edit", Command: "edit_file replace main.go",
		Text: "replaces 1 line in main.go with 1 line", Scopes: []wisp.Scope{wisp.ScopeOnce}, Asked: now,
		Diff: "--- a/main.go\n+++ b/main.go\n@@ -1 +1 @@\n-x := 1\n+x := \"\x1b[2J\"\n"}
	var b strings.Builder
	writeApproval(&b, r, now)
	want := "! wisp asks your approval\n  edit_file replace main.go\n  replaces 1 line in main.go with 1 line\n" +
		"  --- a/main.go\n  +++ b/main.go\n  @@ -1 +1 @@\n  -x := 1\n  +x := \"\\e[2J\"\noffers once only\n"
	if got := b.String(); got != want {
		t.Errorf("writeApproval =\n%q\nwant\n%q", got, want)
	}
}
