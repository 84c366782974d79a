package wisptest_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/wisptest"
)

// recorder is a testing.TB that notes a failure instead of failing.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(string, ...any) { r.failed = true }

// A golden file written with update passes; one the schema no longer
// matches fails.
func TestSchemaGolden(t *testing.T) {
	tool := wisp.ToolFunc{
		Spec: wisp.ToolSpec{Name: "echo", Description: "says it back", Schema: json.RawMessage(`{"type":"object"}`)},
		Func: func(ctx context.Context, c wisp.Call) (wisp.Result, error) { return wisp.Result{}, nil },
	}
	path := filepath.Join(t.TempDir(), "testdata", "schema.json")
	wisptest.SchemaGolden(t, tool, path, true)
	wisptest.SchemaGolden(t, tool, path, false)
	if err := os.WriteFile(path, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &recorder{TB: t}
	wisptest.SchemaGolden(r, tool, path, false)
	if !r.failed {
		t.Errorf("SchemaGolden passed a golden file the schema does not match")
	}
}
