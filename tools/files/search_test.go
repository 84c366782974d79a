package files_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/tools/files"
)

// search finds lines by regular expression in the text files list_files
// would list, as path:line: text, and never in a credential's value.
func TestSearch(t *testing.T) {
	tr := newTree(t)
	search := tool(t, tr.open(t), files.NameSearch)
	tests := []struct {
		name string
		args map[string]any
		want string
		err  bool
	}{
		{name: "a word", args: map[string]any{"pattern": "two"},
			want: "notes.txt:2: two\nnotes.txt:4: two\n(2 matches in 1 file)"},
		{name: "anchored", args: map[string]any{"pattern": "^(alpha|beta)$"},
			want: "sub/a.txt:1: alpha\nsub/deep/b.txt:1: beta\n(2 matches in 2 files)"},
		{name: "any case", args: map[string]any{"pattern": "(?i)PACKAGE"},
			want: "main.go:1: package main\n(1 match in 1 file)"},
		{name: "a glob", args: map[string]any{"pattern": "a", "glob": "**/*.txt", "path": "sub"},
			want: "sub/a.txt:1: alpha\nsub/deep/b.txt:1: beta\n(2 matches in 2 files)"},
		{name: "one file", args: map[string]any{"pattern": "o", "path": "notes.txt"},
			want: "notes.txt:1: one\nnotes.txt:2: two\nnotes.txt:4: two\n(3 matches in 1 file)"},
		{name: "ignored, binary and home files are left out", args: map[string]any{"pattern": "hidden|log line|temp|abc|\\{\\}|core"},
			want: "(no line matches under the workspace)"},
		{name: "a credential is never matched", args: map[string]any{"pattern": "ghp_"},
			want: "(no line matches under the workspace)"},
		{name: "its marker is", args: map[string]any{"pattern": "TOKEN"},
			want: "secret.env:2: TOKEN=[REDACTED:github-pat#1]\n(1 match in 1 file)"},
		{name: "a key's body is never matched", args: map[string]any{"pattern": "^[A-Za-z0-9+/]{64}$"},
			want: "(no line matches under the workspace)"},
		{name: "numbered as the file is after a key", args: map[string]any{"pattern": "after", "path": "key.pem"},
			want: "key.pem:43: after\n(1 match in 1 file)"},
		{name: "not a regexp", args: map[string]any{"pattern": "a("}, want: "error: the pattern is not a regular expression", err: true},
		{name: "outside", args: map[string]any{"pattern": "secret", "path": "../outside"}, want: "error: \"../outside\" is outside the workspace", err: true},
		{name: "through a link out", args: map[string]any{"pattern": "secret", "path": "link-out"}, want: "error: \"link-out\" leads outside", err: true},
		{name: "the home", args: map[string]any{"pattern": ".", "path": "link-home"}, want: "error: \"link-home\" lies in wisp's own folder", err: true},
		{name: "a glob that climbs out", args: map[string]any{"pattern": "secret", "glob": "../outside/*"}, want: "error: the glob \"../outside/*\" reaches outside the folder it is matched in", err: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, search, tc.args, wisp.Approval{})
			got := res.Content
			if tc.err {
				got = got[:min(len(got), len(tc.want))]
			}
			if diff := cmp.Diff(tc.want, got); diff != "" || res.IsError != tc.err {
				t.Errorf("search(%v) (error %v, want %v) (-want +got):\n%s", tc.args, res.IsError, tc.err, diff)
			}
		})
	}
}

// search shows at most MaxMatches lines, each cut to MaxMatchBytes, and
// says there are more.
func TestSearchCaps(t *testing.T) {
	tr := newTree(t)
	search := tool(t, tr.open(t), files.NameSearch)
	res := call(t, search, map[string]any{"pattern": "^line", "path": "big.txt"}, wisp.Approval{})
	lines := strings.Split(res.Content, "\n")
	if len(lines) != files.MaxMatches+1 || lines[len(lines)-1] != "(the first 100 matches; there are more: narrow the pattern, the path or the glob)" {
		t.Errorf("search(^line) = %d lines ending %q; want %d and a line saying there are more", len(lines), lines[len(lines)-1], files.MaxMatches)
	}
	res = call(t, search, map[string]any{"pattern": "xxx", "path": "long.txt"}, wisp.Approval{})
	want := "long.txt:1: " + strings.Repeat("x", files.MaxMatchBytes) + "…\n(1 match in 1 file)"
	if res.Content != want {
		t.Errorf("search(xxx) = %q; want the line cut at %d bytes", res.Content, files.MaxMatchBytes)
	}
	writeFile(t, tr, "huge.txt", strings.Repeat("needle\n", files.MaxSearchFileBytes/7+1))
	res = call(t, search, map[string]any{"pattern": "needle"}, wisp.Approval{})
	if res.Content != "(no line matches under the workspace)\n(1 file larger than 4 MiB not searched)" {
		t.Errorf("search(needle) = %q; want the huge file left out, and counted", res.Content)
	}
}
