package files_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/tools/files"
)

// Every path that leads out of the workspace, or into the wisp home, is
// refused with a line the model can act on; paths inside it, however
// written, are read.
func TestConfinement(t *testing.T) {
	tr := newTree(t)
	w := tr.open(t)
	read := tool(t, w, files.NameReadFile)
	tests := []struct {
		path string
		want string // a part of the content, or of the error
		err  bool
	}{
		{path: "notes.txt", want: "1\tone"},
		{path: "./sub/../notes.txt", want: "1\tone"},
		{path: filepath.Join(tr.dir, "notes.txt"), want: "1\tone"},
		{path: "link-file", want: "1\tone"},
		{path: "link-dir/a.txt", want: "1\talpha"},
		{path: "sub/up/notes.txt", want: "1\tone"},
		{path: "../outside/secret.txt", want: "is outside the workspace", err: true},
		{path: "sub/../../outside/secret.txt", want: "is outside the workspace", err: true},
		{path: "..", want: "is outside the workspace", err: true},
		{path: filepath.Join(tr.outside, "secret.txt"), want: "is outside the workspace", err: true},
		{path: "/etc/passwd", want: "is outside the workspace", err: true},
		{path: "link-out/secret.txt", want: "leads outside the workspace through the symbolic link", err: true},
		{path: "abs-link/secret.txt", want: "a symbolic link to an absolute path", err: true},
		{path: ".wisp/config.json", want: "lies in wisp's own folder", err: true},
		{path: filepath.Join(tr.home, "config.json"), want: "lies in wisp's own folder", err: true},
		{path: "link-home/config.json", want: "lies in wisp's own folder", err: true},
		{path: "sub/up/.wisp/config.json", want: "lies in wisp's own folder", err: true},
		{path: ".wisp", want: "lies in wisp's own folder", err: true},
		{path: "nope.txt", want: "no such file", err: true},
		{path: "sub", want: "is a folder; list it with list_files", err: true},
		{path: "a\x00b", want: "NUL byte", err: true},
	}
	for _, tc := range tests {
		res := call(t, read, map[string]any{"path": tc.path}, wisp.Approval{})
		if res.IsError != tc.err || !strings.Contains(res.Content, tc.want) {
			t.Errorf("read_file(%q) = %q (error %v); want %q in it, error %v", tc.path, res.Content, res.IsError, tc.want, tc.err)
		}
		if strings.Contains(res.Content, "outside secret") {
			t.Errorf("read_file(%q) read outside the workspace: %q", tc.path, res.Content)
		}
	}
}

// A workspace inside the wisp home reaches nothing.
func TestWorkspaceInsideHome(t *testing.T) {
	tr := newTree(t)
	w, err := files.Open(&files.Options{Workspace: filepath.Join(tr.dir, "sub"), Home: tr.dir})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	res := call(t, tool(t, w, files.NameReadFile), map[string]any{"path": "a.txt"}, wisp.Approval{})
	if !res.IsError || !strings.Contains(res.Content, "wisp's own folder") {
		t.Errorf("read_file in a workspace inside the home = %q; want it refused", res.Content)
	}
}

// read_file numbers lines, shows a window, cuts long lines, refuses
// binary files, and says what it left out.
func TestReadFile(t *testing.T) {
	tr := newTree(t)
	read := tool(t, tr.open(t), files.NameReadFile)
	tests := []struct {
		name string
		args map[string]any
		want string // the whole result, or with prefix, its start
		err  bool
	}{
		{name: "whole", args: map[string]any{"path": "notes.txt"},
			want: "1\tone\n2\ttwo\n3\tthree\n4\ttwo\n(end of notes.txt, 4 lines)"},
		{name: "window", args: map[string]any{"path": "notes.txt", "offset": 2, "limit": 2},
			want: "2\ttwo\n3\tthree\n(lines 2–3 of notes.txt shown; more follows: read on with offset=4)"},
		{name: "to the end", args: map[string]any{"path": "notes.txt", "offset": 3},
			want: "3\tthree\n4\ttwo\n(lines 3–4; end of notes.txt, 4 lines)"},
		{name: "past the end", args: map[string]any{"path": "notes.txt", "offset": 9},
			want: "error: offset 9 is past the end of \"notes.txt\", which has 4 lines", err: true},
		{name: "binary", args: map[string]any{"path": "bin.dat"},
			want: "error: \"bin.dat\" is a binary file (8 bytes); read_file shows text only", err: true},
		{name: "no path", args: map[string]any{"path": ""}, want: "error: the arguments for read_file do not match its schema", err: true},
		{name: "limit too large", args: map[string]any{"path": "notes.txt", "limit": 5000}, want: "error: the arguments for read_file do not match its schema", err: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, read, tc.args, wisp.Approval{})
			if res.IsError != tc.err || !strings.HasPrefix(res.Content, tc.want) {
				t.Errorf("read_file(%v) = %q (error %v); want %q, error %v", tc.args, res.Content, res.IsError, tc.want, tc.err)
			}
		})
	}
}

// A large file is shown up to the line limit or the byte cap, and the
// closing line says where to read on.
func TestReadFileCaps(t *testing.T) {
	tr := newTree(t)
	read := tool(t, tr.open(t), files.NameReadFile)

	res := call(t, read, map[string]any{"path": "big.txt"}, wisp.Approval{})
	lines := strings.Split(res.Content, "\n")
	if len(lines) != files.DefaultReadLines+1 || lines[0] != "1\tline 1" || lines[399] != "400\tline 400" ||
		lines[400] != "(lines 1–400 of big.txt shown; more follows: read on with offset=401)" {
		t.Errorf("read_file(big.txt) = %d lines, first %q, last %q; want 400 lines and where to read on", len(lines), lines[0], lines[len(lines)-1])
	}

	res = call(t, read, map[string]any{"path": "big.txt", "offset": 2990, "limit": 2000}, wisp.Approval{})
	if !strings.HasSuffix(res.Content, "3000\tline 3000\n(lines 2990–3000; end of big.txt, 3000 lines)") {
		t.Errorf("read_file(big.txt, offset 2990) ends %q; want the end of the file", tail(res.Content))
	}

	res = call(t, read, map[string]any{"path": "big.txt", "limit": 2000}, wisp.Approval{})
	if len(res.Content) > files.MaxReadBytes+200 || !strings.Contains(res.Content, "as much as one call shows; read on with offset=") {
		t.Errorf("read_file(big.txt, limit 2000) = %d bytes ending %q; want at most %d and where to read on", len(res.Content), tail(res.Content), files.MaxReadBytes)
	}

	res = call(t, read, map[string]any{"path": "long.txt"}, wisp.Approval{})
	want := "1\t" + strings.Repeat("x", files.MaxLineBytes) + "…\n2\tshort\n(end of long.txt, 2 lines)\n(lines longer than 2000 bytes are cut, ending in …)"
	if res.Content != want {
		t.Errorf("read_file(long.txt) = %q; want the long line cut", tail(res.Content))
	}
}

func tail(s string) string { return s[max(0, len(s)-120):] }

// What read_file shows is redacted, numbered as the file is, even where
// a private key spans lines and the window starts inside it.
func TestReadFileRedacts(t *testing.T) {
	tr := newTree(t)
	read := tool(t, tr.open(t), files.NameReadFile)

	res := call(t, read, map[string]any{"path": "secret.env"}, wisp.Approval{})
	if strings.Contains(res.Content, tr.token) || !strings.Contains(res.Content, "2\tTOKEN=[REDACTED:github-pat#1]\n3\tPORT=8080") {
		t.Errorf("read_file(secret.env) = %q; want the token as a marker, lines numbered", res.Content)
	}

	key := tr.read(t, "key.pem")
	body := strings.Split(key, "\n")[15] // a line of the key's body
	for _, offset := range []int{1, 5, 11, 20, 40} {
		res := call(t, read, map[string]any{"path": "key.pem", "offset": offset}, wisp.Approval{})
		if strings.Contains(res.Content, body[:20]) {
			t.Errorf("read_file(key.pem, offset %d) shows the key's body: %q", offset, res.Content)
		}
		if !strings.Contains(res.Content, "43\tafter\n") {
			t.Errorf("read_file(key.pem, offset %d) = %q; want line 43 numbered as the file numbers it", offset, res.Content)
		}
	}
	res = call(t, read, map[string]any{"path": "key.pem", "limit": 20}, wisp.Approval{})
	if strings.Contains(res.Content, body[:20]) || strings.Contains(res.Content, "\t"+strings.Split(key, "\n")[12][:20]) {
		t.Errorf("read_file(key.pem, limit 20), a window that ends inside the key, shows it: %q", res.Content)
	}
}

// A home not made yet is kept out too, however the workspace is named
// (here through a link to it).
func TestHomeNotMadeYet(t *testing.T) {
	tr := newTree(t)
	alias := filepath.Join(t.TempDir(), "alias")
	if err := os.Symlink(tr.dir, alias); err != nil {
		t.Fatal(err)
	}
	w, err := files.Open(&files.Options{Workspace: alias, Home: filepath.Join(alias, ".later")})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	_, res := approved(t, tool(t, w, files.NameEditFile), map[string]any{"path": ".later/config.json", "mode": "create", "new": "{}"})
	if !res.IsError || !strings.Contains(res.Content, "wisp's own folder") {
		t.Errorf("edit_file(create .later/config.json) with the home not made yet = %q; want it refused", res.Content)
	}
	res = call(t, tool(t, w, files.NameReadFile), map[string]any{"path": filepath.Join(alias, "notes.txt")}, wisp.Approval{})
	if res.IsError {
		t.Errorf("read_file of an absolute path through the workspace's link = %q; want it read", res.Content)
	}
}
