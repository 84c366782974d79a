package files_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/tools/files"
)

// A write that fails is an error the model reads, and the file is as it
// was: no half-written file, no temp file left beside it.
func TestEditFailedWrite(t *testing.T) {
	tr := newTree(t)
	edit := tool(t, tr.open(t), files.NameEditFile)
	restore := files.FailWrites(errors.New("the disk is full"))
	defer restore()
	for _, args := range []map[string]any{
		{"path": "notes.txt", "mode": "write", "new": "gone\n"},
		{"path": "brand-new.txt", "mode": "create", "new": "x\n"},
	} {
		_, res := approved(t, edit, args)
		if !res.IsError || !strings.Contains(res.Content, "was not changed: the write failed (the disk is full); the file is as it was") {
			t.Errorf("edit_file(%v) with a failing write = %q; want an error saying so", args, res.Content)
		}
	}
	if got := tr.read(t, "notes.txt"); got != "one\ntwo\nthree\ntwo\n" {
		t.Errorf("notes.txt after a failed write = %q; want it as it was", got)
	}
	if _, err := os.Lstat(filepath.Join(tr.dir, "brand-new.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed create left the file behind: %v", err)
	}
}
