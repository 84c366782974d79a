package standing_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp"
)

// Whatever the file holds, it is either refused or read as answers of
// project (with a full path) or always (with none), each with a pattern
// whose first word is no wildcard: never anything wider.
func FuzzFile(f *testing.F) {
	f.Add(`{"version":1,"rules":[{"id":"a","command":"make","pattern":"make *","scope":"always","time":"2026-11-30T10:00:00Z"}]}`)
	f.Add(`{"version":1,"rules":[{"id":"a","command":"make","pattern":"make *","scope":"project","project":"/w","device":1,"inode":2,"time":"2026-11-30T10:00:00Z"}]}`)
	f.Add(`{"version":1,"rules":[]}`)
	f.Add(`{"version":1,"rules":[{"id":"a","pattern":"*","scope":"always"}]}`)
	f.Fuzz(func(t *testing.T, data string) {
		s := newStore(t)
		if err := os.WriteFile(s.Path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		entries, err := s.List()
		_, kerr := s.Kept(context.Background(), "/w")
		if (err == nil) != (kerr == nil) {
			t.Fatalf("List = %v but Kept = %v", err, kerr)
		}
		for _, e := range entries {
			words := strings.Fields(e.Pattern)
			switch {
			case e.Scope != wisp.ScopeProject && e.Scope != wisp.ScopeAlways:
				t.Fatalf("read an answer of scope %v", e.Scope)
			case e.Scope == wisp.ScopeProject && !filepath.IsAbs(e.Project), e.Scope == wisp.ScopeAlways && e.Project != "":
				t.Fatalf("read %+v", e)
			case len(words) == 0 || strings.ContainsAny(words[0], "*?[") || words[0] == "...":
				t.Fatalf("read the pattern %q", e.Pattern)
			}
		}
	})
}
