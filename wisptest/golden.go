package wisptest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/wisp-agent/wisp"
)

// SchemaGolden pins tool's JSON Schema, what the model sees, byte for byte
// to the golden file at path: the schema indented by two spaces, with a
// final newline. With update set (a test's -update flag) it writes the
// file first, making its folder, so a change to the schema is reviewed as
// a change to the file.
func SchemaGolden(t testing.TB, tool wisp.Tool, path string, update bool) {
	t.Helper()
	var got bytes.Buffer
	if err := json.Indent(&got, tool.Schema(), "", "  "); err != nil {
		t.Fatalf("the schema of %s is not JSON: %v", tool.Name(), err)
	}
	got.WriteByte('\n')
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if !bytes.Equal(want, got.Bytes()) {
		t.Errorf("the schema of %s is not %s's:\nwant:\n%s\ngot:\n%s", tool.Name(), path, want, got.Bytes())
	}
}
