//go:build unix

package fsx_test

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/wisp-agent/wisp/internal/fsx"
)

// TestModesUnderUmask checks that what fsx creates gets its mode whatever
// the umask, including 0277, which would strip the owner's own write bit. The umask belongs to the whole process, so this test and its
// subtests never run in parallel.
func TestModesUnderUmask(t *testing.T) {
	for _, mask := range []int{0o000, 0o022, 0o077, 0o277} {
		t.Run(fmt.Sprintf("umask %03o", mask), func(t *testing.T) {
			base := t.TempDir()
			old := syscall.Umask(mask)
			defer syscall.Umask(old)

			home := filepath.Join(base, "a", ".wisp")
			if err := fsx.EnsureDir(home); err != nil {
				t.Fatalf("EnsureDir = %v", err)
			}
			file := filepath.Join(home, "config.json")
			if err := fsx.WriteFile(file, []byte("{}"), 0o600); err != nil {
				t.Fatalf("WriteFile = %v", err)
			}
			shared := filepath.Join(home, "shared.txt")
			if err := fsx.WriteFile(shared, []byte("x"), 0o644); err != nil {
				t.Fatalf("WriteFile = %v", err)
			}
			lock := filepath.Join(home, "config.lock")
			unlock, err := fsx.Lock(t.Context(), lock)
			if err != nil {
				t.Fatalf("Lock = %v", err)
			}
			if err := unlock(); err != nil {
				t.Fatalf("unlock = %v", err)
			}
			for path, want := range map[string]os.FileMode{
				filepath.Join(base, "a"): os.ModeDir | 0o700,
				home:                     os.ModeDir | 0o700,
				file:                     0o600,
				shared:                   0o644,
				lock:                     0o600,
			} {
				fi, err := os.Lstat(path)
				if err != nil {
					t.Fatal(err)
				}
				if fi.Mode() != want {
					t.Errorf("umask %03o: mode of %s = %v, want %v", mask, path, fi.Mode(), want)
				}
			}
		})
	}
}
