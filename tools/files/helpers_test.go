package files_test

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/policy/secrets/secretstest"
	"github.com/wisp-agent/wisp/tools/files"
)

// fakePAT is a fake GitHub token, which the redactor finds.
func fakePAT(t *testing.T) string {
	t.Helper()
	f, ok := secretstest.Generate("github-pat", rand.New(rand.NewPCG(1, 2)))
	if !ok {
		t.Fatal("no fake github-pat")
	}
	return f.Text
}

// fakeKey is a fake PEM private key block of n body lines.
func fakeKey(n int) string {
	var b strings.Builder
	b.WriteString("-----BEGIN RSA PRIVATE KEY-----\n")
	r := rand.New(rand.NewPCG(3, 4))
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for range n {
		for range 64 {
			b.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
		b.WriteByte('\n')
	}
	b.WriteString("-----END RSA PRIVATE KEY-----\n")
	return b.String()
}

// tree is a workspace with what the tests need, beside a folder outside
// it:
//
//	ws/main.go, notes.txt, sub/a.txt, sub/deep/b.txt
//	ws/.gitignore (ignored/, *.log), ignored/x.txt, app.log, sub/.gitignore (*.tmp), sub/c.tmp
//	ws/bin.dat (binary), big.txt (3000 lines), long.txt (one 5000-byte line)
//	ws/secret.env (a token), key.pem (a private key among lines)
//	ws/.wisp/config.json (the wisp home, inside the workspace)
//	ws/.git/config
//	ws/link-dir -> sub, link-file -> notes.txt, link-out -> ../outside,
//	ws/abs-link -> <outside>, link-home -> .wisp, sub/up -> .. (inside)
//	outside/secret.txt
type tree struct {
	dir, outside, home string
	token              string
}

func newTree(t *testing.T) tree {
	t.Helper()
	base := t.TempDir()
	tr := tree{dir: filepath.Join(base, "ws"), outside: filepath.Join(base, "outside"), token: fakePAT(t)}
	tr.home = filepath.Join(tr.dir, ".wisp")
	var big strings.Builder
	for i := 1; i <= 3000; i++ {
		big.WriteString("line " + itoa(i) + "\n")
	}
	var pem strings.Builder
	for i := 1; i <= 10; i++ {
		pem.WriteString("before " + itoa(i) + "\n")
	}
	pem.WriteString(fakeKey(30))
	pem.WriteString("after\n")
	files := map[string]string{
		"main.go":               "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n",
		"notes.txt":             "one\ntwo\nthree\ntwo\n",
		"sub/a.txt":             "alpha\n",
		"sub/deep/b.txt":        "beta\n",
		".gitignore":            "ignored/\n*.log\n",
		"ignored/x.txt":         "hidden\n",
		"app.log":               "log line\n",
		"sub/.gitignore":        "*.tmp\n",
		"sub/c.tmp":             "temp\n",
		"bin.dat":               "abc\x00def\n",
		"big.txt":               big.String(),
		"long.txt":              strings.Repeat("x", 5000) + "\nshort\n",
		"secret.env":            "NAME=wisp\nTOKEN=" + tr.token + "\nPORT=8080\n",
		"key.pem":               pem.String(),
		".wisp/config.json":     "{}\n",
		".git/config":           "[core]\n",
		"../outside/secret.txt": "outside secret\n",
	}
	for name, content := range files {
		p := filepath.Join(tr.dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"link-dir": "sub", "link-file": "notes.txt", "link-out": "../outside",
		"abs-link": tr.outside, "link-home": ".wisp", "sub/up": "..",
	} {
		if err := os.Symlink(target, filepath.Join(tr.dir, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	return tr
}

func itoa(i int) string { return strconv.Itoa(i) }

// open opens tr as a workspace with the home inside it.
func (tr tree) open(t *testing.T) *files.Workspace {
	t.Helper()
	w, err := files.Open(&files.Options{Workspace: tr.dir, Home: tr.home})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// tool returns w's tool named name.
func tool(t *testing.T, w *files.Workspace, name string) wisp.Tool {
	t.Helper()
	for _, tl := range w.Tools() {
		if tl.Name() == name {
			return tl
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

// call calls tl with args, as a JSON object, under approval.
func call(t *testing.T, tl wisp.Tool, args any, approval wisp.Approval) wisp.Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tl.Call(context.Background(), wisp.Call{Name: tl.Name(), Arguments: raw, Approval: approval})
	if err != nil {
		t.Fatalf("%s(%s) = %v; want a result", tl.Name(), raw, err)
	}
	return res
}

// action returns what an edit_file call with args would do.
func action(t *testing.T, tl wisp.Tool, args any) wisp.Action {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	act, err := tl.(wisp.Guarded).Action(context.Background(), wisp.Call{Name: tl.Name(), Arguments: raw})
	if err != nil {
		t.Fatalf("Action(%s) = %v", raw, err)
	}
	return act
}

// approved calls an edit_file call as the agent's guard would once the
// person approved it: its action, then the call under the approval.
func approved(t *testing.T, tl wisp.Tool, args any) (wisp.Action, wisp.Result) {
	t.Helper()
	act := action(t, tl, args)
	var ap wisp.Approval
	if !act.NoApproval {
		ap = wisp.Approval{ID: "a1", Command: act.Command, Diff: act.Diff}
	}
	return act, call(t, tl, args, ap)
}

// read returns a file of tr.
func (tr tree) read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(tr.dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// writeFile writes a file of tr, making its folder.
func writeFile(t *testing.T, tr tree, name, content string) {
	t.Helper()
	p := filepath.Join(tr.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// approvalOf is the approval of act, as the guard gives it.
func approvalOf(act wisp.Action) wisp.Approval {
	return wisp.Approval{ID: "a1", Command: act.Command, Diff: act.Diff}
}
