package mcpface

import (
	"strings"
	"testing"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/policy/outofband"
)

// The dialog of a request with a diff shows it, escaped, after the text.
func TestApprovalDialogDiff(t *testing.T) {
	req := outofband.Request{ID: "7f3a2c1d", Kind: "fileEdit", Command: "edit_file replace main.go",
		Text: "replaces 1 line in main.go with 1 line", Scopes: []wisp.Scope{wisp.ScopeOnce},
		Diff: "--- a/main.go\n+++ b/main.go\n@@ -1 +1 @@\n-x := 1\n+x := \"\x1b[2J\"\n"}
	got := approvalParams(req).Message
	want := "wisp's model asks your approval to run: edit_file replace main.go\n" +
		"  replaces 1 line in main.go with 1 line\n" +
		"\nThe change, as a diff:\n" +
		"  --- a/main.go\n  +++ b/main.go\n  @@ -1 +1 @@\n  -x := 1\n  +x := \"\\e[2J\"\n" +
		"\nUnanswered, it is refused."
	if !strings.HasPrefix(got, want) {
		t.Errorf("the dialog says\n%q\nwant it to start\n%q", got, want)
	}
	req.Diff = ""
	if got := approvalParams(req).Message; strings.Contains(got, "diff") {
		t.Errorf("the dialog of a request without a diff says %q", got)
	}
}
