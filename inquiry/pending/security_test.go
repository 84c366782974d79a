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

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/internal/spool"
	"github.com/wisp-agent/wisp/internal/spool/spooltest"
)

// TestBadIDs checks that no method builds a path from a bad ID or touches
// a file for it.
func TestBadIDs(t *testing.T) {
	bad := []string{"", "../x", "A1B2C3D4", "a1b2c3d", "a1b2c3d4e", "a1b2c3g4", "a1b2/3d4", "a1b2c3d\x00", "../../../../etc/passwd", ".lock"}
	for _, id := range bad {
		t.Run(fmt.Sprintf("%q", id), func(t *testing.T) {
			s := testStore(t)
			q := mustFile(t, s, free)
			spooltest.Untouched(t, filepath.Dir(s.Dir), ErrBadID, map[string]func() error{
				"Get":      func() error { _, err := s.Get(id); return err },
				"Answered": func() error { _, _, err := s.Answered(id); return err },
				"Wait":     func() error { _, err := s.Wait(t.Context(), id); return err },
				"Answer": func() error {
					return s.Answer(t.Context(), Answer{ID: id, Digest: q.Digest, Outcome: wisp.OutcomeDeclined, From: FromTerminal})
				},
				"Withdraw": func() error { return s.Withdraw(t.Context(), id, "why") },
				"Settle":   func() error { return s.Settle(t.Context(), id) },
			})
		})
	}
}

// TestUnsafe checks that the Store refuses a folder or file it must not
// trust, with a line that says how to mend it.
func TestUnsafe(t *testing.T) {
	for _, tt := range spooltest.Spoils(ledger.Spool, kindQuestion, kindAnswer) {
		t.Run(tt.Name, func(t *testing.T) {
			s := testStore(t, "a1b2c3d4")
			q := mustFile(t, s, free)
			tt.Spoil(t, s.Dir, s.path(q.ID, kindQuestion), s.path(q.ID, kindAnswer))
			ops := map[string]func() error{
				"List":     func() error { _, err := s.List(); return err },
				"Answered": func() error { _, _, err := s.Answered(q.ID); return err },
				"Wait":     func() error { _, err := s.Wait(t.Context(), q.ID); return err },
				"Answer": func() error {
					return s.Answer(t.Context(), Answer{ID: q.ID, Digest: q.Digest, Outcome: wisp.OutcomeDeclined, From: FromTerminal})
				},
			}
			if tt.Of != spooltest.Answer {
				ops["Get"] = func() error { _, err := s.Get(q.ID); return err }
			}
			if tt.Of == spooltest.Folder {
				ops["File"] = func() error { _, err := s.File(t.Context(), free); return err }
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
			spooltest.Modes(t, s.Dir, lockName,
				spool.Name(a.ID, kindQuestion), spool.Name(a.ID, kindAnswer),
				spool.Name(w.ID, kindQuestion), spool.Name(w.ID, kindWithdrawn))
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
