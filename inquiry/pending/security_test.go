//go:build unix

package pending

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wisp-agent/wisp"
)

// TestBadIDs checks that no method builds a path from a bad ID or touches
// a file for it.
func TestBadIDs(t *testing.T) {
	bad := []string{"", "../x", "A1B2C3D4", "a1b2c3d", "a1b2c3d4e", "a1b2c3g4", "a1b2/3d4", "a1b2c3d\x00", "../../../../etc/passwd", ".lock"}
	for _, id := range bad {
		t.Run(fmt.Sprintf("%q", id), func(t *testing.T) {
			s := testStore(t)
			q := mustFile(t, s, free)
			root := filepath.Dir(s.Dir)
			if err := os.WriteFile(filepath.Join(root, "x"), []byte("keep"), 0o600); err != nil {
				t.Fatal(err)
			}
			before := tree(t, root)
			ops := map[string]func() error{
				"Get":      func() error { _, err := s.Get(id); return err },
				"Answered": func() error { _, _, err := s.Answered(id); return err },
				"Wait":     func() error { _, err := s.Wait(t.Context(), id); return err },
				"Answer": func() error {
					return s.Answer(t.Context(), Answer{ID: id, Digest: q.Digest, Outcome: wisp.OutcomeDeclined, From: FromTerminal})
				},
				"Withdraw": func() error { return s.Withdraw(t.Context(), id, "why") },
				"Settle":   func() error { return s.Settle(t.Context(), id) },
			}
			for name, op := range ops {
				if err := op(); !errors.Is(err, ErrBadID) {
					t.Errorf("%s(%q) = %v, want ErrBadID", name, id, err)
				}
			}
			if diff := cmp.Diff(before, tree(t, root)); diff != "" {
				t.Errorf("bad IDs changed files (-before +after):\n%s", diff)
			}
		})
	}
}

// TestUnsafe checks that the Store refuses a folder or file it must not
// trust, with a line that says how to mend it.
func TestUnsafe(t *testing.T) {
	tests := []struct {
		name  string
		spoil func(t *testing.T, s Store, q Question)
		mend  string
	}{
		{"symlinked question", func(t *testing.T, s Store, q Question) {
			real := filepath.Join(t.TempDir(), "real.json")
			data, _ := os.ReadFile(s.path(q.ID, kindQuestion))
			os.WriteFile(real, data, 0o600)
			os.Remove(s.path(q.ID, kindQuestion))
			if err := os.Symlink(real, s.path(q.ID, kindQuestion)); err != nil {
				t.Fatal(err)
			}
		}, "is a symbolic link"},
		{"symlinked answer", func(t *testing.T, s Store, q Question) {
			if err := os.Symlink("/etc/hostname", s.path(q.ID, kindAnswer)); err != nil {
				t.Fatal(err)
			}
		}, "is a symbolic link"},
		{"world-writable question", func(t *testing.T, s Store, q Question) {
			os.Chmod(s.path(q.ID, kindQuestion), 0o666)
		}, "chmod 600"},
		{"group-writable answer", func(t *testing.T, s Store, q Question) {
			os.WriteFile(s.path(q.ID, kindAnswer), nil, 0o600)
			os.Chmod(s.path(q.ID, kindAnswer), 0o620)
		}, "chmod 600"},
		{"fifo question", func(t *testing.T, s Store, q Question) {
			os.Remove(s.path(q.ID, kindQuestion))
			if err := syscall.Mkfifo(s.path(q.ID, kindQuestion), 0o600); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file"},
		{"world-writable folder", func(t *testing.T, s Store, q Question) {
			os.Chmod(s.Dir, 0o777)
		}, "chmod 700"},
		{"symlinked folder", func(t *testing.T, s Store, q Question) {
			moved := filepath.Join(t.TempDir(), "moved")
			if err := os.Rename(s.Dir, moved); err != nil {
				t.Fatal(err)
			}
			os.Symlink(moved, s.Dir)
		}, "is a symbolic link"},
		{"another user's question", func(t *testing.T, s Store, q Question) {
			if os.Geteuid() != 0 {
				t.Skip("needs root to give a file away")
			}
			if err := os.Lchown(s.path(q.ID, kindQuestion), 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}, "belongs to uid 65534"},
		{"another user's folder", func(t *testing.T, s Store, q Question) {
			if os.Geteuid() != 0 {
				t.Skip("needs root to give a folder away")
			}
			if err := os.Lchown(s.Dir, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}, "belongs to uid 65534"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := testStore(t, "a1b2c3d4")
			q := mustFile(t, s, free)
			tt.spoil(t, s, q)
			ops := map[string]func() error{
				"List":     func() error { _, err := s.List(); return err },
				"Answered": func() error { _, _, err := s.Answered(q.ID); return err },
				"Wait":     func() error { _, err := s.Wait(t.Context(), q.ID); return err },
				"Answer": func() error {
					return s.Answer(t.Context(), Answer{ID: q.ID, Digest: q.Digest, Outcome: wisp.OutcomeDeclined, From: FromTerminal})
				},
			}
			if !strings.Contains(tt.name, "answer") {
				ops["Get"] = func() error { _, err := s.Get(q.ID); return err }
			}
			if strings.Contains(tt.name, "folder") {
				ops["File"] = func() error { _, err := s.File(t.Context(), free); return err }
			}
			for name, op := range ops {
				err := op()
				if !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), tt.mend) || strings.Contains(err.Error(), "\n") {
					t.Errorf("%s = %v, want one line that wraps ErrUnsafe and says %q", name, err, tt.mend)
				}
			}
		})
	}
}

// TestModesUnderUmask checks that the folder is 0700 and every file 0600
// whatever the umask. The umask belongs to the process, so no test here
// runs in parallel.
func TestModesUnderUmask(t *testing.T) {
	for _, mask := range []int{0o000, 0o022, 0o277} {
		t.Run(fmt.Sprintf("umask %03o", mask), func(t *testing.T) {
			s := testStore(t)
			old := syscall.Umask(mask)
			defer syscall.Umask(old)
			a := answered(t, s)
			w := mustFile(t, s, free)
			if err := s.Withdraw(t.Context(), w.ID, "the thread ended"); err != nil {
				t.Fatal(err)
			}
			want := map[string]os.FileMode{
				s.Dir:                         os.ModeDir | 0o700,
				filepath.Join(s.Dir, ".lock"): 0o600,
				s.path(a.ID, kindQuestion):    0o600,
				s.path(a.ID, kindAnswer):      0o600,
				s.path(w.ID, kindQuestion):    0o600,
				s.path(w.ID, kindWithdrawn):   0o600,
			}
			for path, mode := range want {
				fi, err := os.Lstat(path)
				if err != nil {
					t.Fatal(err)
				}
				if fi.Mode() != mode {
					t.Errorf("mode of %s = %v, want %v", filepath.Base(path), fi.Mode(), mode)
				}
			}
			if n := len(names(t, s.Dir)); n != len(want)-1 {
				t.Errorf("folder holds %q, want %d files", names(t, s.Dir), len(want)-1)
			}
		})
	}
}

// TestLargeFile checks that no file is read past MaxFileBytes.
func TestLargeFile(t *testing.T) {
	s := testStore(t, "a1b2c3d4")
	q := mustFile(t, s, free)
	big := make([]byte, MaxFileBytes+1)
	for i := range big {
		big[i] = ' '
	}
	if err := os.WriteFile(s.path(q.ID, kindAnswer), big, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Answered(q.ID); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "larger than 65536 bytes") {
		t.Errorf("Answered with a huge answer file = %v, want ErrMalformed", err)
	}
}
