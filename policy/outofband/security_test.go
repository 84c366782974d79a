//go:build unix

package outofband

import (
	"errors"
	"fmt"
	"io/fs"
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
	bad := []string{"", "../x", "7F3A2C1D", "7f3a2c1", "7f3a2c1d0", "7f3a2c1g", "7f3a/c1d", "7f3a2c1\x00", "../../../../etc/passwd", ".lock"}
	for _, id := range bad {
		t.Run(fmt.Sprintf("%q", id), func(t *testing.T) {
			s := testStore(t)
			r := mustFile(t, s, enable)
			root := filepath.Dir(s.Dir)
			if err := os.WriteFile(filepath.Join(root, "x"), []byte("keep"), 0o600); err != nil {
				t.Fatal(err)
			}
			before := tree(t, root)
			ops := map[string]func() error{
				"File":     func() error { _, err := s.File(t.Context(), withID(enable, id)); return err },
				"Get":      func() error { _, err := s.Get(id); return err },
				"Decided":  func() error { _, _, err := s.Decided(id); return err },
				"Wait":     func() error { _, err := s.Wait(t.Context(), id); return err },
				"Decide":   func() error { return s.Decide(t.Context(), Decision{ID: id, Digest: r.Digest, From: FromTerminal}) },
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
// trust, with one line that says how to mend it.
func TestUnsafe(t *testing.T) {
	tests := []struct {
		name  string
		spoil func(t *testing.T, s Store, r Request)
		mend  string
	}{
		{"symlinked request", func(t *testing.T, s Store, r Request) {
			real := filepath.Join(t.TempDir(), "real.json")
			data, _ := os.ReadFile(s.path(r.ID, kindRequest))
			os.WriteFile(real, data, 0o600)
			os.Remove(s.path(r.ID, kindRequest))
			if err := os.Symlink(real, s.path(r.ID, kindRequest)); err != nil {
				t.Fatal(err)
			}
		}, "is a symbolic link, which wisp never follows there"},
		{"symlinked decision", func(t *testing.T, s Store, r Request) {
			if err := os.Symlink("/etc/hostname", s.path(r.ID, kindDecision)); err != nil {
				t.Fatal(err)
			}
		}, "is a symbolic link"},
		{"world-writable request", func(t *testing.T, s Store, r Request) {
			os.Chmod(s.path(r.ID, kindRequest), 0o666)
		}, "chmod 600"},
		{"group-writable decision", func(t *testing.T, s Store, r Request) {
			os.WriteFile(s.path(r.ID, kindDecision), nil, 0o600)
			os.Chmod(s.path(r.ID, kindDecision), 0o620)
		}, "chmod 600"},
		{"fifo request", func(t *testing.T, s Store, r Request) {
			os.Remove(s.path(r.ID, kindRequest))
			if err := syscall.Mkfifo(s.path(r.ID, kindRequest), 0o600); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file"},
		{"world-writable folder", func(t *testing.T, s Store, r Request) {
			os.Chmod(s.Dir, 0o777)
		}, "is writable by others; run chmod 700"},
		{"symlinked folder", func(t *testing.T, s Store, r Request) {
			moved := filepath.Join(t.TempDir(), "moved")
			if err := os.Rename(s.Dir, moved); err != nil {
				t.Fatal(err)
			}
			os.Symlink(moved, s.Dir)
		}, "is a symbolic link; wisp keeps approval requests only in a real folder: remove the link (rm "},
		{"another user's request", func(t *testing.T, s Store, r Request) {
			if os.Geteuid() != 0 {
				t.Skip("needs root to give a file away")
			}
			if err := os.Lchown(s.path(r.ID, kindRequest), 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}, "belongs to uid 65534"},
		{"another user's folder", func(t *testing.T, s Store, r Request) {
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
			s := testStore(t)
			r := mustFile(t, s, enable)
			tt.spoil(t, s, r)
			ops := map[string]func() error{
				"List":    func() error { _, err := s.List(); return err },
				"Decided": func() error { _, _, err := s.Decided(r.ID); return err },
				"Wait":    func() error { _, err := s.Wait(t.Context(), r.ID); return err },
				"Decide": func() error {
					return s.Decide(t.Context(), Decision{ID: r.ID, Digest: r.Digest, Scope: wisp.ScopeOnce, From: FromTerminal})
				},
				"Get": func() error { _, err := s.Get(r.ID); return err },
			}
			if strings.Contains(tt.name, "folder") {
				ops["File"] = func() error { _, err := s.File(t.Context(), pull); return err }
				ops["Withdraw"] = func() error { return s.Withdraw(t.Context(), r.ID, "why") }
				ops["Settle"] = func() error { return s.Settle(t.Context(), r.ID) }
				ops["Sweep"] = func() error { return s.Sweep(t.Context()) }
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

// TestFileBelowAnUnsafeFolder checks that File does not create the
// approvals folder inside a folder others can write to.
func TestFileBelowAnUnsafeFolder(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	if err := os.Mkdir(home, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(home, 0o777)
	s := Store{Dir: filepath.Join(home, "approvals")}
	if _, err := s.File(t.Context(), enable); !errors.Is(err, ErrUnsafe) {
		t.Errorf("File below a world-writable folder = %v, want ErrUnsafe", err)
	}
	if _, err := os.Lstat(s.Dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("File created the folder anyway: %v", err)
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
			d := mustFile(t, s, enable)
			decide(t, s, d, wisp.ScopeOnce, FromTerminal)
			w := mustFile(t, s, pull)
			if err := s.Withdraw(t.Context(), w.ID, "no answer within 1 min"); err != nil {
				t.Fatal(err)
			}
			want := map[string]os.FileMode{
				s.Dir:                         os.ModeDir | 0o700,
				filepath.Join(s.Dir, ".lock"): 0o600,
				s.path(d.ID, kindRequest):     0o600,
				s.path(d.ID, kindDecision):    0o600,
				s.path(w.ID, kindRequest):     0o600,
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
	s := testStore(t)
	r := mustFile(t, s, enable)
	big := make([]byte, MaxFileBytes+1)
	for i := range big {
		big[i] = ' '
	}
	if err := os.WriteFile(s.path(r.ID, kindDecision), big, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Decided(r.ID); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "larger than 65536 bytes") {
		t.Errorf("Decided with a huge decision file = %v, want ErrMalformed", err)
	}
}
