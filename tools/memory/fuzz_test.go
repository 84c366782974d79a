package memory_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/tools/memory"
)

// Whatever memory.json holds, List either returns facts wisp could have
// written (ids unique, texts within the limit) or refuses the file with
// one line that is ErrBadFile; it never panics.
func FuzzList(f *testing.F) {
	for _, s := range []string{
		``, `{}`, `null`, `[]`, `{"version":1,"seq":0,"facts":[]}`,
		`{"version":1,"seq":2,"facts":[{"id":"m1","text":"a","source":"model","time":"2026-12-01T09:00:00Z"},{"id":"m2","text":"b","source":"model","time":"2026-12-01T09:00:00Z"}]}`,
		`{"version":1,"seq":1,"facts":[{"id":"m1","text":"a"},{"id":"m1","text":"b"}]}`,
		`{"version":2,"seq":0,"facts":[]}`, `{"version":1,"seq":1,"facts":[{"id":"m01","text":"a"}]}`,
		`{"version":1,"seq":1,"facts":[{"id":"m1","text":"a","extra":1}]}`, `{"version":1}{"version":1}`,
	} {
		f.Add(s)
	}
	dir := f.TempDir()
	path := filepath.Join(dir, "memory.json")
	f.Fuzz(func(t *testing.T, data string) {
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		facts, err := memory.Store{Path: path, LockPath: filepath.Join(dir, "lock")}.List()
		if err != nil {
			if !errors.Is(err, memory.ErrBadFile) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("List = %v, want one line that is ErrBadFile", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, f := range facts {
			if seen[f.ID] || f.Text == "" || len(f.Text) > memory.MaxFactBytes || !strings.HasPrefix(f.ID, "m") {
				t.Fatalf("List = %+v, holds a fact wisp never writes", facts)
			}
			seen[f.ID] = true
		}
		if len(facts) > memory.MaxFacts {
			t.Fatalf("List returned %d facts, more than %d", len(facts), memory.MaxFacts)
		}
	})
}
