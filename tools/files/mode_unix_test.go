//go:build unix

package files_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/wisp-agent/wisp/tools/files"
)

// A file's permission bits are kept; a new file's come from the umask.
func TestEditKeepsMode(t *testing.T) {
	tr := newTree(t)
	edit := tool(t, tr.open(t), files.NameEditFile)
	p := filepath.Join(tr.dir, "main.go")
	if err := os.Chmod(p, 0o751); err != nil {
		t.Fatal(err)
	}
	if _, res := approved(t, edit, map[string]any{"path": "main.go", "mode": "append", "new": "// end\n"}); res.IsError {
		t.Fatal(res.Content)
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o751 {
		t.Errorf("main.go's mode after an edit = %v, %v; want 0751", fi.Mode().Perm(), err)
	}
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	if _, res := approved(t, edit, map[string]any{"path": "fresh.txt", "mode": "create", "new": "x\n"}); res.IsError {
		t.Fatal(res.Content)
	}
	if fi, err := os.Stat(filepath.Join(tr.dir, "fresh.txt")); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("a new file's mode under umask 027 = %v, %v; want 0640", fi.Mode().Perm(), err)
	}
}
