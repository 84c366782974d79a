package files_test

import (
	"encoding/json"
	"testing"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/tools/files"
)

// A face writes a call as its tool's name and then its summary, so a
// summary says what the call does without naming the tool again
// ("⚙ edit_file replace main.go").
func TestSummaries(t *testing.T) {
	w := newTree(t).open(t)
	tests := []struct {
		tool, args, want string
	}{
		{files.NameReadFile, `{"path":"notes.txt"}`, "reads notes.txt"},
		{files.NameListFiles, `{}`, "lists files"},
		{files.NameListFiles, `{"pattern":"*.go","path":"sub"}`, "lists *.go in sub"},
		{files.NameSearch, `{"pattern":"func main"}`, "searches for func main"},
		{files.NameEditFile, `{"path":"notes.txt","mode":"replace","old":"a","new":"b"}`, "replace notes.txt"},
		{files.NameEditFile, `{"path":"new.txt","mode":"create","new":"b"}`, "create new.txt"},
		{files.NameEditFile, `{"path":".git/config","mode":"append","new":"x"}`, "append .git/config"},
		{files.NameEditFile, `not json`, "a call"},
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
