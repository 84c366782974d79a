package sandbox

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The macOS profile names paths only as parameters, so that no path can
// add a rule, and its denials come after its allows (the last match wins).
func TestProfile(t *testing.T) {
	evil := `/Users/p/x") (allow file-write* (subpath "/`
	sp := &spec{
		Mode:      WorkspaceWrite,
		Workspace: "/Users/p/ws" + evil,
		Temp:      "/private/var/folders/t",
		Hide:      []string{"/Users/p/.wisp", "/Users/p/.ssh"},
		ReadOnly:  []string{"/Users/p/ws/.git"},
	}
	text, params := profile(sp)
	for _, p := range params {
		_, value, _ := strings.Cut(p, "=")
		if strings.Contains(text, value) {
			t.Errorf("the profile's text holds the path %q", value)
		}
	}
	wantParams := []string{
		"TMP=/private/var/folders/t",
		"WORKSPACE=/Users/p/ws" + evil,
		"RO_0=/Users/p/ws/.git",
		"HIDE_0=/Users/p/.wisp", "HIDE_0_UP_0=/Users/p", "HIDE_0_UP_1=/Users",
		"HIDE_1=/Users/p/.ssh", "HIDE_1_UP_0=/Users/p", "HIDE_1_UP_1=/Users",
	}
	if diff := cmp.Diff(wantParams, params); diff != "" {
		t.Errorf("profile parameters (-want +got):\n%s", diff)
	}
	lastAllow := strings.LastIndex(text, "(allow ")
	if firstDeny := strings.Index(text, "(deny file"); firstDeny < lastAllow {
		t.Errorf("a denial comes before an allow:\n%s", text)
	}
	if strings.Contains(text, "network*") {
		t.Errorf("an offline profile allows the network:\n%s", text)
	}

	sp.Mode, sp.Network = ReadOnly, true
	text, params = profile(sp)
	if strings.Contains(text, `(param "WORKSPACE")`) || slices.ContainsFunc(params, func(p string) bool { return strings.HasPrefix(p, "WORKSPACE=") }) {
		t.Errorf("a read-only profile lets the workspace be written:\n%s", text)
	}
	if !strings.Contains(text, "(allow network*") {
		t.Errorf("a profile with the network on does not allow it:\n%s", text)
	}
}
