package files_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/policy"
	"github.com/wisp-agent/wisp/tools/files"
)

// replace changes the one occurrence of old; none or several is an error
// that says how many and where, and the file is left as it was.
func TestEditReplace(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		old, new string
		want     string // the file after, or a part of the error
		err      bool
	}{
		{name: "one match", file: "notes.txt", old: "three", new: "3", want: "one\ntwo\n3\ntwo\n"},
		{name: "lines", file: "notes.txt", old: "two\nthree\n", new: "", want: "one\ntwo\n"},
		{name: "no match", file: "notes.txt", old: "four", new: "4", err: true,
			want: `old does not occur in notes.txt; read the file again and copy old exactly as it shows`},
		{name: "two matches", file: "notes.txt", old: "two", new: "2", err: true,
			want: `old occurs 2 times in notes.txt, at lines 2, 4; add the lines around it to old so that it occurs once`},
		{name: "whitespace differs", file: "main.go", old: "func main() {\n    println(\"hi\")", new: "x", err: true,
			want: `old does not occur in main.go as it is, but does at line 3 if spaces and tabs are ignored`},
		{name: "beside a credential", file: "secret.env", old: "PORT=8080", new: "PORT=9090", want: "NAME=wisp\nTOKEN=%s\nPORT=9090\n"},
		{name: "the start of a credential's line", file: "secret.env", old: "TOKEN=", new: "GITHUB_TOKEN=", want: "NAME=wisp\nGITHUB_TOKEN=%s\nPORT=8080\n"},
		{name: "a marker in old", file: "secret.env", old: "TOKEN=[REDACTED:github-pat#1]", new: "TOKEN=x", err: true,
			want: `old holds a redaction marker`},
		{name: "the end of a marker", file: "secret.env", old: "pat#1]\nPORT", new: "x", err: true,
			want: `old reaches into a part of secret.env that holds a credential`},
		{name: "the credential's value, guessed", file: "secret.env", old: "ghp_", new: "x", err: true,
			want: `old does not occur in secret.env`},
		{name: "a marker in new", file: "notes.txt", old: "one", new: "[REDACTED:github-pat#1]", err: true,
			want: `new holds a redaction marker`},
		{name: "no change", file: "notes.txt", old: "one", new: "one", err: true, want: `the edit leaves "notes.txt" as it is`},
		{name: "a missing file", file: "nope.txt", old: "a", new: "b", err: true, want: `"nope.txt" does not exist; make it with mode create`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTree(t)
			edit := tool(t, tr.open(t), files.NameEditFile)
			before, _ := os.ReadFile(filepath.Join(tr.dir, tc.file))
			act, res := approved(t, edit, map[string]any{"path": tc.file, "mode": "replace", "old": tc.old, "new": tc.new})
			if res.IsError != tc.err {
				t.Fatalf("edit_file(replace %q) = %q, error %v; want error %v", tc.old, res.Content, res.IsError, tc.err)
			}
			if tc.err {
				if !strings.Contains(res.Content, tc.want) || !act.NoApproval {
					t.Errorf("edit_file(replace %q) = %q (needs approval: %v); want %q, needing none", tc.old, res.Content, !act.NoApproval, tc.want)
				}
				if after, _ := os.ReadFile(filepath.Join(tr.dir, tc.file)); string(after) != string(before) {
					t.Errorf("a refused edit changed %s to %q", tc.file, after)
				}
				return
			}
			want := tc.want
			if strings.Contains(want, "%s") {
				want = strings.ReplaceAll(want, "%s", tr.token)
			}
			if got := tr.read(t, tc.file); got != want {
				t.Errorf("after edit_file(replace %q) %s holds %q; want %q", tc.old, tc.file, got, want)
			}
			if strings.Contains(act.Diff, tr.token) || strings.Contains(res.Content, tr.token) {
				t.Errorf("the diff or the result shows the token: %q, %q", act.Diff, res.Content)
			}
		})
	}
}

// Each mode says what it would do and shows the diff; the file changes
// only once the call runs, as the diff says.
func TestEditModes(t *testing.T) {
	tests := []struct {
		name    string
		args    map[string]any
		command string
		text    string
		diff    string
		file    string // the file after
		result  string
	}{
		{name: "replace", args: map[string]any{"path": "notes.txt", "mode": "replace", "old": "three", "new": "3"},
			command: "edit_file replace notes.txt", text: "replaces 1 line in notes.txt with 1 line",
			diff: "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,4 +1,4 @@\n one\n two\n-three\n+3\n two\n",
			file: "one\ntwo\n3\ntwo\n", result: "replaced 1 line in notes.txt with 1 line"},
		{name: "create", args: map[string]any{"path": "new/dir/n.txt", "mode": "create", "new": "a\nb\n"},
			command: "edit_file create new/dir/n.txt", text: "creates new/dir/n.txt, 2 lines",
			diff: "--- /dev/null\n+++ b/new/dir/n.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n",
			file: "a\nb\n", result: "created new/dir/n.txt, 2 lines"},
		{name: "append", args: map[string]any{"path": "notes.txt", "mode": "append", "new": "five\n"},
			command: "edit_file append notes.txt", text: "adds 1 line at the end of notes.txt",
			diff: "--- a/notes.txt\n+++ b/notes.txt\n@@ -2,3 +2,4 @@\n two\n three\n two\n+five\n",
			file: "one\ntwo\nthree\ntwo\nfive\n", result: "added 1 line at the end of notes.txt"},
		{name: "write", args: map[string]any{"path": "notes.txt", "mode": "write", "new": "only\n"},
			command: "edit_file write notes.txt", text: "writes notes.txt anew: 1 line, where it had 4 lines",
			diff: "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,4 +1 @@\n-one\n-two\n-three\n-two\n+only\n",
			file: "only\n", result: "wrote notes.txt, 1 line"},
		{name: "through a link", args: map[string]any{"path": "link-file", "mode": "append", "new": "x\n"},
			command: "edit_file append notes.txt", text: "adds 1 line at the end of notes.txt (named link-file, which leads there through a symbolic link)",
			diff: "--- a/notes.txt\n+++ b/notes.txt\n@@ -2,3 +2,4 @@\n two\n three\n two\n+x\n",
			file: "one\ntwo\nthree\ntwo\nx\n", result: "added 1 line at the end of notes.txt"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTree(t)
			edit := tool(t, tr.open(t), files.NameEditFile)
			act := action(t, edit, tc.args)
			want := wisp.Action{Kind: files.KindEdit, Command: tc.command, Text: tc.text + "\nrated moderate: " + files.ReasonEdits, Diff: tc.diff,
				Pattern: tc.command[:strings.LastIndex(tc.command, " ")+1] + filepath.ToSlash(filepath.Join(filepath.Dir(strings.TrimPrefix(tc.command, tc.command[:strings.LastIndex(tc.command, " ")+1])), "*")),
				Scopes:  []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession}}
			if diff := cmp.Diff(want, act); diff != "" {
				t.Errorf("Action (-want +got):\n%s", diff)
			}
			name := strings.TrimPrefix(tc.command, tc.command[:strings.LastIndex(tc.command, " ")+1])
			res := call(t, edit, tc.args, wisp.Approval{ID: "a1", Command: act.Command, Diff: act.Diff})
			if res.IsError || res.Content != tc.result {
				t.Errorf("edit_file = %q, error %v; want %q", res.Content, res.IsError, tc.result)
			}
			if got := tr.read(t, name); got != tc.file {
				t.Errorf("%s holds %q; want %q", name, got, tc.file)
			}
			if fi, err := os.Lstat(filepath.Join(tr.dir, "link-file")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("link-file is no longer a symbolic link: %v, %v", fi, err)
			}
		})
	}
}

// create refuses a file that exists; replace, create, append and write
// keep a file's CRLF line breaks.
func TestEditCreateAndCRLF(t *testing.T) {
	tr := newTree(t)
	edit := tool(t, tr.open(t), files.NameEditFile)
	_, res := approved(t, edit, map[string]any{"path": "notes.txt", "mode": "create", "new": "x"})
	if !res.IsError || !strings.Contains(res.Content, `"notes.txt" exists already`) {
		t.Errorf("edit_file(create notes.txt) = %q; want it refused: the file exists", res.Content)
	}
	_, res = approved(t, edit, map[string]any{"path": "link-file", "mode": "create", "new": "x"})
	if !res.IsError || !strings.Contains(res.Content, "exists already") {
		t.Errorf("edit_file(create link-file) = %q; want it refused: the file exists", res.Content)
	}
	writeFile(t, tr, "dos.txt", "a\r\nb\r\nc")
	for _, args := range []map[string]any{
		{"path": "dos.txt", "mode": "replace", "old": "a\nb", "new": "A\nB"},
		{"path": "dos.txt", "mode": "append", "new": "d\n"},
	} {
		if _, res := approved(t, edit, args); res.IsError {
			t.Fatalf("edit_file(%v) = %q", args, res.Content)
		}
	}
	if got := tr.read(t, "dos.txt"); got != "A\r\nB\r\nc\r\nd\r\n" {
		t.Errorf("dos.txt holds %q; want its CRLF kept", got)
	}
}

// A call writes only under the approval of the change it would make: a
// file that changed after the person saw the diff is left alone.
func TestEditUnderApproval(t *testing.T) {
	tr := newTree(t)
	edit := tool(t, tr.open(t), files.NameEditFile)
	args := map[string]any{"path": "notes.txt", "mode": "replace", "old": "three", "new": "3"}
	act := action(t, edit, args)

	res := call(t, edit, args, wisp.Approval{})
	if !res.IsError || !strings.Contains(res.Content, "this edit was not approved") {
		t.Errorf("edit_file with no approval = %q; want it refused", res.Content)
	}
	writeFile(t, tr, "notes.txt", "one\ntwo\nthree\nfour\n")
	res = call(t, edit, args, wisp.Approval{ID: "a1", Command: act.Command, Diff: act.Diff})
	if !res.IsError || !strings.Contains(res.Content, "it changed while the person read the request") {
		t.Errorf("edit_file of a file changed since its approval = %q; want it refused", res.Content)
	}
	if got := tr.read(t, "notes.txt"); got != "one\ntwo\nthree\nfour\n" {
		t.Errorf("notes.txt holds %q; want it as it was changed, not written over", got)
	}
}

// The classifier rates edits moderate, and dangerous for the files that
// steer other programs, which are asked once only; reads are safe.
func TestRules(t *testing.T) {
	c, err := policy.NewClassifier(files.Rules()...)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		command string
		rating  policy.Rating
		reason  string
	}{
		{"read_file main.go", policy.Safe, files.ReasonReads},
		{"list_files", policy.Safe, files.ReasonReads},
		{"search x", policy.Safe, files.ReasonReads},
		{"edit_file replace main.go", policy.Moderate, files.ReasonEdits},
		{"edit_file create src/a/b.go", policy.Moderate, files.ReasonEdits},
		{"edit_file write .gitignore", policy.Moderate, files.ReasonEdits},
		{"edit_file write .git/config", policy.Dangerous, files.ReasonGit},
		{"edit_file append .git/hooks/pre-commit", policy.Dangerous, files.ReasonGit},
		{"edit_file write vendor/x/.git", policy.Dangerous, files.ReasonGit},
		{"edit_file write .Git/HOOKS/post-checkout", policy.Dangerous, files.ReasonGit},
		{"edit_file create .github/workflows/release.yml", policy.Dangerous, files.ReasonCI},
		{"edit_file write .gitlab-ci.yml", policy.Dangerous, files.ReasonCI},
		{"edit_file append .envrc", policy.Dangerous, files.ReasonShell},
		{"edit_file append tools/.envrc", policy.Dangerous, files.ReasonShell},
		{"edit_file write .vscode/tasks.json", policy.Dangerous, files.ReasonShell},
		{"edit_file write .husky/pre-commit", policy.Dangerous, files.ReasonHooks},
		{"edit_file write .pre-commit-config.yaml", policy.Dangerous, files.ReasonHooks},
		{"edit_file write .npmrc", policy.Dangerous, files.ReasonPackage},
		{"edit_file replace AGENTS.md", policy.Dangerous, files.ReasonAgents},
		{"edit_file replace docs/agents.md", policy.Dangerous, files.ReasonAgents},
		{"edit_file replace my file.txt", policy.Dangerous, policy.ReasonUnknown},
		{"edit_file delete main.go", policy.Dangerous, policy.ReasonUnknown},
		{"edit_file write $HOME/.bashrc", policy.Dangerous, policy.ReasonMeta},
	}
	for _, tc := range tests {
		want := policy.Verdict{Command: tc.command, Rating: tc.rating, Reason: tc.reason}
		if diff := cmp.Diff(want, c.Classify(tc.command)); diff != "" {
			t.Errorf("Classify(%q) (-want +got):\n%s", tc.command, diff)
		}
	}

	tr := newTree(t)
	edit := tool(t, tr.open(t), files.NameEditFile)
	act := action(t, edit, map[string]any{"path": ".git/config", "mode": "append", "new": "[alias]\n"})
	if act.Command != "edit_file append .git/config" || !cmp.Equal(act.Scopes, []wisp.Scope{wisp.ScopeOnce}) {
		t.Errorf("Action(append .git/config) = %q, scopes %v; want asked once only", act.Command, act.Scopes)
	}
	if want := "adds 1 line at the end of .git/config\nrated dangerous: " + files.ReasonGit; act.Text != want {
		t.Errorf("Action(append .git/config) says %q; want %q", act.Text, want)
	}
	writeFile(t, tr, "hooks-link", "")
	os.Remove(filepath.Join(tr.dir, "hooks-link"))
	if err := os.Symlink(".git/config", filepath.Join(tr.dir, "hooks-link")); err != nil {
		t.Fatal(err)
	}
	act = action(t, edit, map[string]any{"path": "hooks-link", "mode": "append", "new": "[alias]\n"})
	if v := c.Classify(act.Command); act.Command != "edit_file append .git/config" || v.Rating != policy.Dangerous {
		t.Errorf("Action(append hooks-link) = %q, rated %v; want the link's target judged, dangerous", act.Command, v.Rating)
	}
}
