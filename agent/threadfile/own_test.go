//go:build unix

package threadfile_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/agent/threadfile"
	"github.com/wisp-agent/wisp/internal/fsx"
)

// A thread is loaded only from what the person owns: a thread folder or
// file that is a link, another user's, or writable by others is refused,
// on reading as on writing, with one line that says how to mend it, and
// what it holds is never loaded.
func TestRefusesWhatIsNotThePersons(t *testing.T) {
	planted := agent.ThreadState{Turn: 3, Messages: []agent.ThreadRecord{{Message: wisp.Message{Role: wisp.RoleUser, Content: "planted history"}}}}
	tests := []struct {
		name  string
		root  bool // gives a file away, which needs root
		spoil func(t *testing.T, dir, file string)
		mend  string // what the line says to do
		save  bool   // Save is refused too (the folder is wrong)
	}{
		{"folder writable by everyone", false, func(t *testing.T, dir, file string) { chmod(t, dir, 0o777) }, "run chmod 700 ", true},
		{"folder writable by its group", false, func(t *testing.T, dir, file string) { chmod(t, dir, 0o770) }, "run chmod 700 ", true},
		{"folder a symbolic link", false, func(t *testing.T, dir, file string) {
			real := filepath.Join(t.TempDir(), "elsewhere")
			if err := os.Rename(dir, real); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(real, dir); err != nil {
				t.Fatal(err)
			}
		}, "remove the link (rm ", true},
		{"folder another user's", true, func(t *testing.T, dir, file string) { chown(t, dir) }, "run chown 0 ", true},
		{"file writable by everyone", false, func(t *testing.T, dir, file string) { chmod(t, file, 0o666) }, "or run chmod 600 ", false},
		{"file a symbolic link", false, func(t *testing.T, dir, file string) {
			real := filepath.Join(t.TempDir(), "t.json")
			if err := os.Rename(file, real); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(real, file); err != nil {
				t.Fatal(err)
			}
		}, "remove it (rm ", false},
		{"file another user's", true, func(t *testing.T, dir, file string) { chown(t, file) }, "remove it (rm ", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.root && os.Geteuid() != 0 {
				t.Skip("needs root to give a file to another user (uid 65534)")
			}
			d := threadfile.Dir{Path: filepath.Join(t.TempDir(), "threads")}
			if err := d.Save("work", planted); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(d.Path, "work.json")
			tt.spoil(t, d.Path, file)

			st, ok, err := d.Load("work")
			if err == nil || ok || len(st.Messages) != 0 {
				t.Fatalf("Load = %v, %v, %v; want a refusal and nothing loaded", st, ok, err)
			}
			if !errors.Is(err, fsx.ErrUnsafe) || !strings.Contains(err.Error(), tt.mend) || strings.Contains(err.Error(), "\n") {
				t.Errorf("Load = %v, want one line that wraps ErrUnsafe and says %q", err, tt.mend)
			}
			err = d.Save("other", planted)
			if tt.save && (!errors.Is(err, fsx.ErrUnsafe) || !strings.Contains(err.Error(), tt.mend)) {
				t.Errorf("Save = %v, want the refusal that says %q", err, tt.mend)
			}
		})
	}
}

func chmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func chown(t *testing.T, path string) {
	t.Helper()
	if err := os.Lchown(path, 65534, 65534); err != nil {
		t.Fatal(err)
	}
}
