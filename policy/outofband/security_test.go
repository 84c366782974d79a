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

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/internal/spool"
	"github.com/wisp-agent/wisp/internal/spool/spooltest"
)

// TestBadIDs checks that no method builds a path from a bad ID or touches
// a file for it.
func TestBadIDs(t *testing.T) {
	bad := []string{"", "../x", "7F3A2C1D", "7f3a2c1", "7f3a2c1d0", "7f3a2c1g", "7f3a/c1d", "7f3a2c1\x00", "../../../../etc/passwd", ".lock"}
	for _, id := range bad {
		t.Run(fmt.Sprintf("%q", id), func(t *testing.T) {
			s := testStore(t)
			r := mustFile(t, s, enable)
			spooltest.Untouched(t, filepath.Dir(s.Dir), ErrBadID, map[string]func() error{
				"File":     func() error { _, err := s.File(t.Context(), withID(enable, id)); return err },
				"Get":      func() error { _, err := s.Get(id); return err },
				"Decided":  func() error { _, _, err := s.Decided(id); return err },
				"Wait":     func() error { _, err := s.Wait(t.Context(), id); return err },
				"Decide":   func() error { return s.Decide(t.Context(), Decision{ID: id, Digest: r.Digest, From: FromTerminal}) },
				"Withdraw": func() error { return s.Withdraw(t.Context(), id, "why") },
				"Settle":   func() error { return s.Settle(t.Context(), id) },
			})
		})
	}
}

// TestUnsafe checks that the Store refuses a folder or file it must not
// trust, with one line that says how to mend it.
func TestUnsafe(t *testing.T) {
	for _, tt := range spooltest.Spoils(ledger.Spool, kindRequest, kindDecision) {
		t.Run(tt.Name, func(t *testing.T) {
			s := testStore(t)
			r := mustFile(t, s, enable)
			tt.Spoil(t, s.Dir, s.path(r.ID, kindRequest), s.path(r.ID, kindDecision))
			ops := map[string]func() error{
				"List":    func() error { _, err := s.List(); return err },
				"Decided": func() error { _, _, err := s.Decided(r.ID); return err },
				"Wait":    func() error { _, err := s.Wait(t.Context(), r.ID); return err },
				"Decide": func() error {
					return s.Decide(t.Context(), Decision{ID: r.ID, Digest: r.Digest, Scope: wisp.ScopeOnce, From: FromTerminal})
				},
				"Get": func() error { _, err := s.Get(r.ID); return err },
			}
			if tt.Of == spooltest.Folder {
				ops["File"] = func() error { _, err := s.File(t.Context(), pull); return err }
				ops["Withdraw"] = func() error { return s.Withdraw(t.Context(), r.ID, "why") }
				ops["Settle"] = func() error { return s.Settle(t.Context(), r.ID) }
				ops["Sweep"] = func() error { return s.Sweep(t.Context()) }
			}
			for name, op := range ops {
				err := op()
				if !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), tt.Mend) || strings.Contains(err.Error(), "\n") {
					t.Errorf("%s = %v, want one line that wraps ErrUnsafe and says %q", name, err, tt.Mend)
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
			spooltest.Modes(t, s.Dir, spool.LockName,
				spool.Name(d.ID, kindRequest), spool.Name(d.ID, kindDecision),
				spool.Name(w.ID, kindRequest), spool.Name(w.ID, kindWithdrawn))
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
	if _, _, err := s.Decided(r.ID); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), fmt.Sprintf("larger than %d bytes", MaxFileBytes)) {
		t.Errorf("Decided with a huge decision file = %v, want ErrMalformed", err)
	}
}
