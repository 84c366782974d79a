//go:build unix

package fsx_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/wisp-agent/wisp/internal/fsx"
)

var threads = fsx.Kind{Folder: "thread folder", File: "thread file", Keeps: "threads"}

// asRoot skips t unless it runs as root, which can give a file away to
// another user (uid 65534, nobody) to stand for one planted by them.
func asRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a file to another user")
	}
}

func TestKindReadFile(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, p string)
		want  string // the line, with PATH for the path; "" reads "data"
		is    []error
	}{
		{"the person's own", func(t *testing.T, p string) {}, "", nil},
		{"readable by others", func(t *testing.T, p string) { os.Chmod(p, 0o644) }, "", nil},
		{"writable by others", func(t *testing.T, p string) { os.Chmod(p, 0o666) },
			"thread file PATH is writable by others; remove it (rm PATH) or run chmod 600 PATH", []error{fsx.ErrUnsafe}},
		{"writable by its group", func(t *testing.T, p string) { os.Chmod(p, 0o620) },
			"thread file PATH is writable by others; remove it (rm PATH) or run chmod 600 PATH", []error{fsx.ErrUnsafe}},
		{"another user's", func(t *testing.T, p string) {
			asRoot(t)
			if err := os.Lchown(p, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}, "thread file PATH belongs to uid 65534, not to you (uid 0); remove it (rm PATH)", []error{fsx.ErrUnsafe}},
		{"a symbolic link", func(t *testing.T, p string) {
			os.Rename(p, p+".real")
			if err := os.Symlink(p+".real", p); err != nil {
				t.Fatal(err)
			}
		}, "thread file PATH is a symbolic link, which wisp never follows there; remove it (rm PATH)", []error{fsx.ErrUnsafe, fsx.ErrNotRegular}},
		{"a pipe", func(t *testing.T, p string) {
			os.Remove(p)
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "thread file PATH is not a regular file; remove it (rm -r PATH)", []error{fsx.ErrUnsafe, fsx.ErrNotRegular}},
		{"too large", func(t *testing.T, p string) { os.WriteFile(p, []byte("0123456789"), 0o600) },
			"PATH is larger than 8 bytes", []error{fsx.ErrTooLarge}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "t.json")
			if err := os.WriteFile(p, []byte("data"), 0o600); err != nil {
				t.Fatal(err)
			}
			tt.setup(t, p)
			got, err := threads.ReadFile(p, 8)
			if tt.want == "" {
				if err != nil || string(got) != "data" {
					t.Errorf("ReadFile = %q, %v; want data", got, err)
				}
				return
			}
			if want := strings.ReplaceAll(tt.want, "PATH", p); err == nil || err.Error() != want {
				t.Fatalf("ReadFile = %q, %v; want the error %q", got, err, want)
			}
			for _, is := range tt.is {
				if !errors.Is(err, is) {
					t.Errorf("ReadFile error %v does not match %v", err, is)
				}
			}
		})
	}
	if _, err := threads.ReadFile(filepath.Join(t.TempDir(), "missing.json"), 8); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadFile of a missing file = %v, want ErrNotExist", err)
	}
}

func TestKindCheckDir(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  string // with PATH for the folder; "" for none
	}{
		{"the person's own", func(t *testing.T, d string) {}, ""},
		{"readable by others", func(t *testing.T, d string) { os.Chmod(d, 0o755) }, ""},
		{"writable by everyone", func(t *testing.T, d string) { os.Chmod(d, 0o777) }, "thread folder PATH is writable by others; run chmod 700 PATH"},
		{"another user's", func(t *testing.T, d string) {
			asRoot(t)
			if err := os.Lchown(d, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}, "thread folder PATH belongs to uid 65534, not to you (uid 0); run chown 0 PATH as root, or remove it"},
		{"a symbolic link", func(t *testing.T, d string) {
			real := filepath.Join(t.TempDir(), "real")
			os.Mkdir(real, 0o700)
			os.Remove(d)
			if err := os.Symlink(real, d); err != nil {
				t.Fatal(err)
			}
		}, "thread folder PATH is a symbolic link; wisp keeps threads only in a real folder: remove the link (rm PATH)"},
		{"a file", func(t *testing.T, d string) {
			os.Remove(d)
			os.WriteFile(d, nil, 0o600)
		}, "thread folder PATH is not a folder; move it aside (mv PATH PATH.old)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := filepath.Join(t.TempDir(), "threads")
			if err := os.Mkdir(d, 0o700); err != nil {
				t.Fatal(err)
			}
			tt.setup(t, d)
			fi, err := os.Lstat(d)
			if err != nil {
				t.Fatal(err)
			}
			err = threads.CheckDir(d, fi)
			switch want := strings.ReplaceAll(tt.want, "PATH", d); {
			case tt.want == "" && err != nil:
				t.Errorf("CheckDir = %v, want nil", err)
			case tt.want != "" && (err == nil || err.Error() != want || !errors.Is(err, fsx.ErrUnsafe)):
				t.Errorf("CheckDir = %v, want %q wrapping ErrUnsafe", err, want)
			}
		})
	}
}
