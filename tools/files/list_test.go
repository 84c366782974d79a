package files_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/tools/files"
)

// list_files matches a glob under a folder, in order, leaving out what
// .gitignore ignores, .git and the wisp home, and never follows a link.
func TestListFiles(t *testing.T) {
	tr := newTree(t)
	list := tool(t, tr.open(t), files.NameListFiles)
	tests := []struct {
		name string
		args map[string]any
		want string
		err  bool
	}{
		{name: "everything", args: map[string]any{},
			want: ".gitignore\nabs-link\nbig.txt\nbin.dat\nkey.pem\nlink-dir\nlink-file\nlink-home\nlink-out\nlong.txt\nmain.go\nnotes.txt\nsecret.env\n" +
				"sub/.gitignore\nsub/a.txt\nsub/deep/b.txt\nsub/up\n(17 files)"},
		{name: "a glob", args: map[string]any{"pattern": "**/*.txt"},
			want: "big.txt\nlong.txt\nnotes.txt\nsub/a.txt\nsub/deep/b.txt\n(5 files)"},
		{name: "a glob at the top only", args: map[string]any{"pattern": "*.txt"},
			want: "big.txt\nlong.txt\nnotes.txt\n(3 files)"},
		{name: "alternatives", args: map[string]any{"pattern": "*.{go,env}"},
			want: "main.go\nsecret.env\n(2 files)"},
		{name: "under a path", args: map[string]any{"path": "sub", "pattern": "**/*.txt"},
			want: "sub/a.txt\nsub/deep/b.txt\n(2 files)"},
		{name: "through a link inside", args: map[string]any{"path": "link-dir", "pattern": "*.txt"},
			want: "sub/a.txt\n(1 file)"},
		{name: "an ignored folder named", args: map[string]any{"path": "ignored"},
			want: "ignored/x.txt\n(1 file)"},
		{name: "nothing", args: map[string]any{"pattern": "*.rs"},
			want: "(no file matches *.rs under the workspace)"},
		{name: "outside", args: map[string]any{"path": ".."}, want: "error: \"..\" is outside the workspace", err: true},
		{name: "a link out", args: map[string]any{"path": "link-out"}, want: "error: \"link-out\" leads outside the workspace", err: true},
		{name: "the home", args: map[string]any{"path": ".wisp"}, want: "error: \".wisp\" lies in wisp's own folder", err: true},
		{name: "a bad glob", args: map[string]any{"pattern": "[a"}, want: "error: the pattern \"[a\" is not a glob", err: true},
		{name: "a missing folder", args: map[string]any{"path": "nope"}, want: "error: \"nope\": no such file or folder", err: true},
		{name: "a glob that climbs out", args: map[string]any{"pattern": "../*"}, want: "error: the pattern \"../*\" reaches outside the folder it is matched in", err: true},
		{name: "a glob that climbs out further down", args: map[string]any{"pattern": "sub/../../outside/*"}, want: "error: the pattern \"sub/../../outside/*\" reaches outside", err: true},
		{name: "an absolute glob", args: map[string]any{"pattern": "/etc/*"}, want: "error: the pattern \"/etc/*\" reaches outside", err: true},
		{name: "dots in a name", args: map[string]any{"pattern": "main..go"}, want: "(no file matches main..go under the workspace)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, list, tc.args, wisp.Approval{})
			got := res.Content
			if tc.err {
				got = got[:min(len(got), len(tc.want))]
			}
			if diff := cmp.Diff(tc.want, got); diff != "" || res.IsError != tc.err {
				t.Errorf("list_files(%v) (error %v, want %v) (-want +got):\n%s", tc.args, res.IsError, tc.err, diff)
			}
		})
	}
}

// list_files shows at most MaxListed paths and says how many more.
func TestListFilesCap(t *testing.T) {
	tr := newTree(t)
	for i := range files.MaxListed + 30 {
		writeFile(t, tr, "many/f"+itoa(1000+i)+".txt", "x\n")
	}
	res := call(t, tool(t, tr.open(t), files.NameListFiles), map[string]any{"path": "many"}, wisp.Approval{})
	lines := strings.Split(res.Content, "\n")
	if len(lines) != files.MaxListed+1 || lines[len(lines)-1] != "(30 more not shown; narrow the pattern or the path)" {
		t.Errorf("list_files(many) = %d lines ending %q; want %d and how many more", len(lines), lines[len(lines)-1], files.MaxListed)
	}
}
