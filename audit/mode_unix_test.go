//go:build unix

package audit

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestModes checks the modes of what Open creates under several umasks.
// It changes the process umask, so it does not run in parallel.
func TestModes(t *testing.T) {
	for _, umask := range []int{0o000, 0o022, 0o077} {
		old := syscall.Umask(umask)
		dir := filepath.Join(t.TempDir(), "audit")
		l, err := Open(dir, nil)
		syscall.Umask(old)
		if err != nil {
			t.Fatal(err)
		}
		mustAppend(t, l, Entry{Kind: "k", Source: SourceWisp})
		l.Close()
		for name, want := range map[string]os.FileMode{"": dirMode, logName: fileMode, lockName: fileMode} {
			fi, err := os.Stat(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if got := fi.Mode().Perm(); got != want {
				t.Errorf("umask %03o: mode of %q = %v, want %v", umask, name, got, want)
			}
		}
	}
}
