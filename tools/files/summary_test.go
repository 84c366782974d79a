package files_test

import (
	"encoding/json"
	"testing"

	"github.com/wisp-agent/wisp"
)

// What each tool says a call does, which a face shows after the tool's
// name ("⚙ edit_file replace main.go"): never the name again.
func TestSummaries(t *testing.T) {
	w := newTree(t).open(t)
	tests := []struct {
		tool string
		args string
		want string
	}{
		{"read_file", `{"path":"main.go"}`, "reads main.go"},
		{"list_files", `{}`, "lists files"},
		{"list_files", `{"pattern":"*.go","path":"sub"}`, "lists *.go in sub"},
		{"search", `{"pattern":"func main"}`, "searches for func main"},
		{"edit_file", `{"path":"main.go","mode":"replace","old":"a","new":"b"}`, "replace main.go"},
		{"edit_file", `{"path":".git/config","mode":"append","new":"x"}`, "append .git/config"},
		{"edit_file", `not json`, "a call"},
	}
	for _, tc := range tests {
		s, ok := tool(t, w, tc.tool).(wisp.Summarizer)
		if !ok {
			t.Fatalf("%s is not a wisp.Summarizer", tc.tool)
		}
		if got := s.Summary(json.RawMessage(tc.args)); got != tc.want {
			t.Errorf("%s.Summary(%s) = %q, want %q", tc.tool, tc.args, got, tc.want)
		}
	}
}
