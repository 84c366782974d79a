package outofband

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/spool/spooltest"
)

// A request's diff is filed with it, redacted, bound by the digest (a
// request without one keeps the digest it always had), and within
// MaxDiffBytes.
func TestRequestDiff(t *testing.T) {
	s := testStore(t)
	plain := mustFile(t, s, pull)
	if got := plain.Digest; got != digestOf(Request{ID: plain.ID, Session: plain.Session, Thread: plain.Thread, Turn: plain.Turn,
		Kind: plain.Kind, Command: plain.Command, Pattern: plain.Pattern, Text: plain.Text, Scopes: plain.Scopes, Asked: plain.Asked}) {
		t.Errorf("a request without a diff has digest %s; want the one it always had", got)
	}

	token := "ghp_" + strings.Repeat("FAKEa1b2", 4) + "c3d4"
	edit := enable
	edit.ID, edit.Kind, edit.Command, edit.Pattern, edit.Text = "1a2b3c4d", "fileEdit", "edit_file replace main.go", "edit_file replace *", "replaces 1 line"
	edit.Diff = "--- a/main.go\n+++ b/main.go\n@@ -1 +1 @@\n-const t = \"" + token + "\"\n+const t = \"\"\n"
	r := mustFile(t, s, edit)
	if strings.Contains(r.Diff, token) || !strings.Contains(r.Diff, "[REDACTED:github-pat#") || !strings.HasPrefix(r.Diff, "--- a/main.go\n") {
		t.Errorf("filed diff = %q; want it with the token redacted", r.Diff)
	}
	got, err := s.Get(r.ID)
	if err != nil || got.Diff != r.Diff || got.Digest != r.Digest {
		t.Fatalf("Get = %+v, %v; want the request as filed, with its diff", got, err)
	}
	spooltest.GoldenFile(t, "request-diff.json", s.path(r.ID, kindRequest), *update)

	// The diff is bound by the digest: a file whose diff was edited is
	// refused.
	data, err := os.ReadFile(s.path(r.ID, kindRequest))
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), `+const t = \"\"`, `+const t = \"x\"`, 1)
	if edited == string(data) {
		t.Fatal("the diff was not found in the file")
	}
	if err := os.WriteFile(s.path(r.ID, kindRequest), []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(r.ID); !errors.Is(err, ErrMalformed) {
		t.Errorf("Get of a request whose diff was edited = %v, want ErrMalformed", err)
	}

	long := edit
	long.ID, long.Diff = "2b3c4d5e", strings.Repeat("+x\n", MaxDiffBytes)
	if _, err := s.File(t.Context(), long); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "the diff must be") {
		t.Errorf("File with a diff over %d bytes = %v, want ErrInvalid", MaxDiffBytes, err)
	}
}
