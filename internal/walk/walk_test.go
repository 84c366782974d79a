package walk_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp/internal/walk"
)

// tree makes the files of tree under a new folder, and returns it.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Dir visits files and links in lexical order, never .git, honouring
// .gitignore files at each level (and .git/info/exclude) unless All,
// leaving out what Skip names, and stopping at Max or fs.SkipAll.
func TestDir(t *testing.T) {
	dir := tree(t, map[string]string{
		".git/info/exclude": "secret.txt\n",
		".gitignore":        "*.log\nbuild/\n",
		"a.txt":             "", "b.log": "", "build/out": "", "secret.txt": "",
		"sub/.gitignore": "*.tmp\n!keep.tmp\n", "sub/c.tmp": "", "sub/keep.tmp": "", "sub/d.go": "",
		"home/x": "",
	})
	if err := os.Symlink("sub", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	fsys := os.DirFS(dir)
	list := func(at string, opts walk.Options, stopAfter int) ([]string, bool) {
		var got []string
		cut, err := walk.Dir(context.Background(), fsys, at, opts, func(p string, d fs.DirEntry) error {
			got = append(got, p)
			if len(got) == stopAfter {
				return fs.SkipAll
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return got, cut
	}
	for _, tc := range []struct {
		name      string
		at        string
		opts      walk.Options
		stopAfter int
		want      []string
		cut       bool
	}{
		{name: "gitignore", at: ".", want: []string{".gitignore", "a.txt", "home/x", "link", "sub/.gitignore", "sub/d.go", "sub/keep.tmp"}},
		{name: "all", at: ".", opts: walk.Options{All: true},
			want: []string{".gitignore", "a.txt", "b.log", "build/out", "home/x", "link", "secret.txt", "sub/.gitignore", "sub/c.tmp", "sub/d.go", "sub/keep.tmp"}},
		{name: "skip", at: ".", opts: walk.Options{Skip: func(p string) bool { return p == "home" || p == "a.txt" }},
			want: []string{".gitignore", "link", "sub/.gitignore", "sub/d.go", "sub/keep.tmp"}},
		{name: "a folder below", at: "sub", want: []string{"sub/.gitignore", "sub/d.go", "sub/keep.tmp"}},
		{name: "an ignored folder named", at: "build", want: []string{"build/out"}},
		{name: "a file", at: "b.log", want: []string{"b.log"}},
		{name: "max", at: ".", opts: walk.Options{Max: 4}, want: []string{".gitignore", "a.txt"}, cut: true}, // ., .git, .gitignore, a.txt
		{name: "stopped", at: ".", stopAfter: 2, want: []string{".gitignore", "a.txt"}},
	} {
		got, cut := list(tc.at, tc.opts, tc.stopAfter)
		if diff := cmp.Diff(tc.want, got); diff != "" || cut != tc.cut {
			t.Errorf("%s: Dir(%s) cut %v, want %v (-want +got):\n%s", tc.name, tc.at, cut, tc.cut, diff)
		}
	}
	if _, err := walk.Dir(context.Background(), fsys, "nope", walk.Options{}, func(string, fs.DirEntry) error { return nil }); err == nil {
		t.Error("Dir(nope) = nil; want an error")
	}
}

// RepositoryRoot finds the nearest folder with .git, a folder or a file.
func TestRepositoryRoot(t *testing.T) {
	dir := tree(t, map[string]string{"repo/.git/HEAD": "", "repo/a/b/x": "", "repo/wt/.git": "gitdir: ..\n", "repo/wt/c/x": "", "plain/d/x": ""})
	for _, tc := range []struct {
		at, want string
		found    bool
	}{
		{"repo/a/b", "repo", true},
		{"repo", "repo", true},
		{"repo/wt/c", "repo/wt", true},
		{"plain/d", "plain/d", false},
	} {
		at := filepath.Join(dir, tc.at)
		got, found := walk.RepositoryRoot(at)
		if got != filepath.Join(dir, tc.want) || found != tc.found {
			t.Errorf("RepositoryRoot(%s) = %s, %v; want %s, %v", tc.at, got, found, tc.want, tc.found)
		}
	}
}

// A NUL byte in the first SniffBytes bytes makes a file binary.
func TestBinary(t *testing.T) {
	late := make([]byte, walk.SniffBytes+1)
	late[walk.SniffBytes] = 0
	for i := range walk.SniffBytes {
		late[i] = 'x'
	}
	for _, tc := range []struct {
		name string
		head []byte
		want bool
	}{{"text", []byte("hello\n"), false}, {"empty", nil, false}, {"a NUL", []byte("a\x00b"), true}, {"a NUL past the sniff", late, false}} {
		if got := walk.Binary(tc.head); got != tc.want {
			t.Errorf("Binary(%s) = %v, want %v", tc.name, got, tc.want)
		}
	}
}
