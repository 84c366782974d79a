package files_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/tools/files"
)

// BenchmarkSearch searches a tree of 500 files of 20 KB of source-like
// text, 10 MB in all, for a word that is in none of them: every file is
// read, redacted and matched.
func BenchmarkSearch(b *testing.B) {
	dir := b.TempDir()
	line := "func handle(w http.ResponseWriter, r *http.Request) { value := compute(r.URL.Query()) }\n"
	content := strings.Repeat(line, 20<<10/len(line))
	for i := range 500 {
		p := filepath.Join(dir, "pkg"+itoa(i%20), "f"+itoa(i)+".go")
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(content), 0o644)
	}
	w, err := files.Open(&files.Options{Workspace: dir})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	search := w.Search()
	args, _ := json.Marshal(map[string]any{"pattern": "needle"})
	b.SetBytes(int64(500 * len(content)))
	for b.Loop() {
		res, err := search.Call(context.Background(), wisp.Call{Arguments: args})
		if err != nil || res.IsError {
			b.Fatal(res.Content, err)
		}
	}
}
