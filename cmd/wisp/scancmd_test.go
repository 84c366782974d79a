package main

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/policy/secrets/secretstest"
)

// wisp scan prints a row per credential and exits 1, exits 0 on a clean
// tree, leaves out what .gitignore ignores unless --all, writes JSON
// with --json, and never prints a value, on either stream.
func TestScanCommand(t *testing.T) {
	pat, _ := secretstest.Generate("github-pat", rand.New(rand.NewPCG(1, 1)))
	aws, _ := secretstest.Generate("aws-access-key", rand.New(rand.NewPCG(2, 2)))
	dir := filepath.Join(t.TempDir(), "proj")
	for name, content := range map[string]string{
		".gitignore":    "*.log\n",
		"app.env":       "NAME=x\nTOKEN=" + pat.Text + "\n",
		"debug.log":     "key " + aws.Text + "\n",
		"clean/main.go": "package main\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	tests := []struct {
		name    string
		args    []string
		code    int
		out     string
		errText string
	}{
		{name: "found", args: []string{"scan"}, code: 1,
			out: "FILE     LINE  COLUMN  RULE        MARKER\n" +
				"app.env  2     7       github-pat  [REDACTED:github-pat#1]\n" +
				"1 credential in 1 file; 3 files scanned (73 B)\n"},
		{name: "all", args: []string{"scan", "--all", "debug.log", "clean"}, code: 1,
			out: "FILE       LINE  COLUMN  RULE            MARKER\n" +
				"debug.log  1     5       aws-access-key  [REDACTED:aws-access-key#1]\n" +
				"1 credential in 1 file; 2 files scanned (38 B)\n"},
		{name: "two paths", args: []string{"scan", "clean", "."}, code: 1,
			out: "FILE     LINE  COLUMN  RULE        MARKER\n" +
				"app.env  2     7       github-pat  [REDACTED:github-pat#1]\n" +
				"1 credential in 1 file; 4 files scanned (86 B)\n"},
		{name: "clean", args: []string{"scan", dir + "/clean"}, code: 0, out: "no credentials; 1 file scanned (13 B)\n"},
		{name: "json", args: []string{"scan", "--json", "."}, code: 1,
			out: `{"findings":[{"rule":"github-pat","file":"app.env","line":2,"column":7,"marker":"[REDACTED:github-pat#1]"}],"files":3,"bytes":73,"binary":0,"skipped":[],"cut":false,"maxFileBytes":33554432}` + "\n"},
		{name: "missing", args: []string{"scan", "nope"}, code: 2, errText: "wisp: nope: no such file or folder\n"},
		{name: "bad flag", args: []string{"scan", "--jsn"}, code: 2, errText: "wisp: unknown flag: --jsn (see wisp scan --help)\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runWisp(t, "", tc.args...)
			if code != tc.code || out != tc.out || errs != tc.errText {
				t.Errorf("wisp %s = exit %d\n%s\nstderr %q; want %d\n%s\nstderr %q", strings.Join(tc.args[1:], " "), code, out, errs, tc.code, tc.out, tc.errText)
			}
			for _, v := range []string{pat.Text, aws.Text} {
				if strings.Contains(out+errs, v[4:]) {
					t.Errorf("wisp %s printed a value", strings.Join(tc.args[1:], " "))
				}
			}
			if strings.Contains(strings.Join(tc.args, " "), "--json") && !json.Valid([]byte(out)) {
				t.Errorf("wisp scan --json wrote %q, not JSON", out)
			}
		})
	}
}
