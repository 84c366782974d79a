package files_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/policy/secrets"
	"github.com/wisp-agent/wisp/tools/files"
)

// scan_secrets finds the credentials in the workspace's text files, by
// rule, path, line and column, with the markers the workspace's redactor
// gives them, never their values; it leaves out .git, the wisp home,
// what .gitignore ignores, binary files and links (out of the workspace
// or not), and refuses a path outside the workspace or in the home.
func TestScanSecrets(t *testing.T) {
	tr := newTree(t)
	writeFile(t, tr, ".wisp/token", tr.token+"\n")
	writeFile(t, tr, ".git/token", tr.token+"\n")
	writeFile(t, tr, "ignored/token", tr.token+"\n")
	writeFile(t, tr, "bin2.dat", "\x00"+tr.token+"\n")
	writeFile(t, tr, "../outside/token", tr.token+"\n")
	writeFile(t, tr, "sub/deep/more.go", "x := \"a\"\ny := \""+tr.token+"\"\n")
	red := secrets.NewRedactor()
	w, err := files.Open(&files.Options{Workspace: tr.dir, Home: tr.home, Redact: red.Replace})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// The conversation has seen the token before: it keeps its marker.
	if got := red.Replace("earlier " + tr.token); got != "earlier [REDACTED:github-pat#1]" {
		t.Fatalf("Replace = %q", got)
	}
	red.Replace(fakeKey(2)) // another private key first: the one in the tree is #2
	scanTool := w.ScanSecrets()
	tests := []struct {
		name string
		args map[string]any
		want string
		err  bool
	}{
		{name: "the workspace", args: map[string]any{}, want: "key.pem:11:1: private-key [REDACTED:private-key#2]\n" +
			"secret.env:2:7: github-pat [REDACTED:github-pat#1]\n" +
			"sub/deep/more.go:2:7: github-pat [REDACTED:github-pat#1]\n" +
			"(3 credentials in 3 files; 11 files scanned (35.4 KiB); 2 binary files left out)"},
		{name: "a folder", args: map[string]any{"path": "sub"},
			want: "sub/deep/more.go:2:7: github-pat [REDACTED:github-pat#1]\n(1 credential in 1 file; 4 files scanned (74 B))"},
		{name: "a file through a link inside", args: map[string]any{"path": "link-dir/deep/more.go"},
			want: "sub/deep/more.go:2:7: github-pat [REDACTED:github-pat#1]\n(1 credential in 1 file; 1 file scanned (57 B))"},
		{name: "an ignored folder named", args: map[string]any{"path": "ignored"},
			want: "ignored/token:1:1: github-pat [REDACTED:github-pat#1]\n(1 credential in 1 file; 2 files scanned (48 B))"},
		{name: "nothing", args: map[string]any{"path": "main.go"}, want: "(no credentials; 1 file scanned (45 B))"},
		{name: "outside", args: map[string]any{"path": "../outside"}, want: "error: \"../outside\" is outside the workspace", err: true},
		{name: "absolute outside", args: map[string]any{"path": tr.outside}, want: "error: \"" + tr.outside + "\" is outside the workspace", err: true},
		{name: "a link out", args: map[string]any{"path": "link-out"}, want: "error: \"link-out\" leads outside the workspace", err: true},
		{name: "a link to an absolute path", args: map[string]any{"path": "abs-link"}, want: "error: \"abs-link\" goes through \"abs-link\", a symbolic link to an absolute path", err: true},
		{name: "the home", args: map[string]any{"path": ".wisp"}, want: "error: \".wisp\" lies in wisp's own folder", err: true},
		{name: "the home by a link", args: map[string]any{"path": "link-home"}, want: "error: \"link-home\" lies in wisp's own folder", err: true},
		{name: "a missing folder", args: map[string]any{"path": "nope"}, want: "error: \"nope\": no such file or folder", err: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, scanTool, tc.args, wisp.Approval{})
			got := res.Content
			if tc.err {
				got = got[:min(len(got), len(tc.want))]
			}
			if diff := cmp.Diff(tc.want, got); diff != "" || res.IsError != tc.err {
				t.Errorf("scan_secrets(%v) (error %v, want %v) (-want +got):\n%s", tc.args, res.IsError, tc.err, diff)
			}
			if strings.Contains(res.Content, tr.token[8:]) {
				t.Errorf("scan_secrets(%v) shows the token:\n%s", tc.args, res.Content)
			}
		})
	}
}

// scan_secrets needs no approval, and the classifier rates it safe.
func TestScanSecretsIsSafe(t *testing.T) {
	tr := newTree(t)
	if act := action(t, tr.open(t).ScanSecrets(), map[string]any{"path": "sub"}); !act.NoApproval {
		t.Errorf("scan_secrets' action = %+v; want NoApproval", act)
	}
	found := false
	for _, r := range files.Rules() {
		if r.Pattern == files.NameScanSecrets+" ..." {
			found = r.Rating.String() == "safe"
		}
	}
	if !found {
		t.Errorf("files.Rules() has no safe row for %s", files.NameScanSecrets)
	}
}

// scan_secrets shows at most MaxFindings findings and counts the rest.
func TestScanSecretsCap(t *testing.T) {
	tr := newTree(t)
	writeFile(t, tr, "many.env", strings.Repeat("T="+tr.token+"\n", files.MaxFindings+5))
	res := call(t, tr.open(t).ScanSecrets(), map[string]any{"path": "many.env"}, wisp.Approval{})
	lines := strings.Split(res.Content, "\n")
	if len(lines) != files.MaxFindings+2 || lines[files.MaxFindings] != "(5 more not shown; scan a narrower path)" {
		t.Errorf("scan_secrets(many.env) = %d lines, line %d %q; want %d findings and how many more", len(lines), files.MaxFindings, lines[min(len(lines)-1, files.MaxFindings)], files.MaxFindings)
	}
}
