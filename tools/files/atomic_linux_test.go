package files_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp/tools/files"
)

// On a real file system that refuses the write (a full one, where the
// tests run as root and may mount one; a read-only folder otherwise),
// the original is intact and no temp file is left.
func TestEditAtomicOnTheDisk(t *testing.T) {
	dir := t.TempDir()
	original := strings.Repeat("original line\n", 100)
	var fill func()
	switch {
	case os.Geteuid() == 0:
		if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=64k"); err != nil {
			t.Skipf("cannot mount a small tmpfs: %v", err)
		}
		t.Cleanup(func() { syscall.Unmount(dir, 0) })
		fill = func() {
			// Fill the file system, so that the temp file cannot be written.
			f, err := os.Create(filepath.Join(dir, "filler"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			chunk := make([]byte, 4096)
			for {
				if _, err := f.Write(chunk); err != nil {
					break
				}
			}
		}
	case os.Geteuid() != 0:
		fill = func() {
			if err := os.Chmod(dir, 0o555); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(dir, 0o755) })
		}
	default:
		t.Skip("running as root where no tmpfs can be mounted: a read-only folder does not stop root")
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte(original), 0o640); err != nil {
		t.Fatal(err)
	}
	w, err := files.Open(&files.Options{Workspace: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	edit := tool(t, w, files.NameEditFile)
	args := map[string]any{"path": "notes.txt", "mode": "write", "new": strings.Repeat("a new and longer line\n", 2000)}
	act := action(t, edit, args)
	fill()
	res := call(t, edit, args, approvalOf(act))
	if !res.IsError || !strings.Contains(res.Content, "was not changed: the write failed") {
		t.Errorf("edit_file on a file system that refuses the write = %q; want an error", res.Content)
	}
	got, err := os.ReadFile(filepath.Join(dir, "notes.txt"))
	if err != nil || string(got) != original {
		t.Errorf("notes.txt after the failed write: %d bytes, %v; want the original %d bytes", len(got), err, len(original))
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		if e.Name() != "filler" {
			names = append(names, e.Name())
		}
	}
	if diff := cmp.Diff([]string{"notes.txt"}, names); diff != "" {
		t.Errorf("the folder after the failed write (-want +got):\n%s", diff)
	}
}
