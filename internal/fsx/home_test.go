//go:build unix

package fsx_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp/internal/fsx"
)

// replacePath puts path in place of PATH in a wanted message.
func replacePath(msg, path string) string { return strings.ReplaceAll(msg, "PATH", path) }

func TestHome(t *testing.T) {
	home := func(h string, err error) func() (string, error) {
		return func() (string, error) { return h, err }
	}
	tests := []struct {
		name     string
		wispHome string
		userHome func() (string, error)
		want     string
		wantErr  string
	}{
		{name: "WISP_HOME wins", wispHome: "/srv/wisp", userHome: home("/home/ann", nil), want: "/srv/wisp"},
		{name: "WISP_HOME cleaned", wispHome: "/srv//wisp/", userHome: home("/home/ann", nil), want: "/srv/wisp"},
		{name: "default under the user's home", userHome: home("/home/ann", nil), want: "/home/ann/.wisp"},
		{name: "WISP_HOME relative", wispHome: "wisp", userHome: home("/home/ann", nil),
			wantErr: `WISP_HOME must be an absolute path; got wisp`},
		{name: "no home folder", userHome: home("", errors.New("$HOME is not defined")),
			wantErr: `cannot find your home folder ($HOME is not defined); set WISP_HOME to the folder wisp should use`},
		{name: "relative home folder", userHome: home("ann", nil),
			wantErr: `your home folder ann is not an absolute path; set WISP_HOME to the folder wisp should use`},
		{name: "empty home folder", userHome: home("", nil),
			wantErr: `your home folder "" is not an absolute path; set WISP_HOME to the folder wisp should use`},
		{name: "no way to ask", userHome: nil,
			wantErr: `cannot find your home folder; set WISP_HOME to the folder wisp should use`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := fsx.Home(tt.wispHome, tt.userHome)
			var gotErr string
			if err != nil {
				gotErr = err.Error()
			}
			if diff := cmp.Diff(tt.wantErr, gotErr); diff != "" {
				t.Errorf("Home(%q) error (-want +got):\n%s", tt.wispHome, diff)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Home(%q) (-want +got):\n%s", tt.wispHome, diff)
			}
		})
	}
}

func mkdir(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(path, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func chown(t *testing.T, path string, uid int) {
	t.Helper()
	if err := os.Lchown(path, uid, uid); err != nil {
		t.Fatal(err)
	}
}

func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a folder to another user")
	}
}

// nobody is the uid the tests give folders to.
const nobody = 65534

func TestEnsureDirAccepts(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, base string) string // returns the home to ensure
		want  os.FileMode                            // mode of the home afterwards
	}{
		{
			name:  "missing, with missing parents",
			setup: func(t *testing.T, base string) string { return filepath.Join(base, "a", "b", ".wisp") },
			want:  os.ModeDir | 0o700,
		},
		{
			name: "existing private folder",
			setup: func(t *testing.T, base string) string {
				p := filepath.Join(base, ".wisp")
				mkdir(t, p, 0o700)
				return p
			},
			want: os.ModeDir | 0o700,
		},
		{
			name: "existing folder others may read",
			setup: func(t *testing.T, base string) string {
				p := filepath.Join(base, ".wisp")
				mkdir(t, p, 0o755)
				return p
			},
			want: os.ModeDir | 0o755,
		},
		{
			name: "parent reached through a link",
			setup: func(t *testing.T, base string) string {
				mkdir(t, filepath.Join(base, "real"), 0o755)
				if err := os.Symlink("real", filepath.Join(base, "link")); err != nil {
					t.Fatal(err)
				}
				return filepath.Join(base, "link", ".wisp")
			},
			want: os.ModeDir | 0o700,
		},
		{
			name: "inside a sticky folder everyone may write to, like /tmp",
			setup: func(t *testing.T, base string) string {
				mkdir(t, filepath.Join(base, "tmp"), os.ModeSticky|0o777)
				return filepath.Join(base, "tmp", ".wisp")
			},
			want: os.ModeDir | 0o700,
		},
		{
			name: "relative path",
			setup: func(t *testing.T, base string) string {
				t.Chdir(base)
				return ".wisp"
			},
			want: os.ModeDir | 0o700,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := tt.setup(t, t.TempDir())
			for range 2 { // a second call finds it as the first left it
				if err := fsx.EnsureDir(home); err != nil {
					t.Fatalf("EnsureDir(%q) = %v, want nil", home, err)
				}
			}
			fi, err := os.Lstat(home)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode() != tt.want {
				t.Errorf("mode of %s = %v, want %v", home, fi.Mode(), tt.want)
			}
		})
	}
}

func TestEnsureDirRefuses(t *testing.T) {
	tests := []struct {
		name     string
		root     bool // needs root
		setup    func(t *testing.T, base string) string
		want     string // with PATH for the home and BASE for the test folder
		untouchd bool   // the home must not exist afterwards
	}{
		{
			name: "symbolic link to a good folder",
			setup: func(t *testing.T, base string) string {
				mkdir(t, filepath.Join(base, "real"), 0o700)
				p := filepath.Join(base, ".wisp")
				if err := os.Symlink(filepath.Join(base, "real"), p); err != nil {
					t.Fatal(err)
				}
				return p
			},
			want: "wisp home PATH is a symbolic link to BASE/real; wisp needs a real folder: set WISP_HOME to the link's target or replace the link with a folder",
		},
		{
			name: "dangling symbolic link",
			setup: func(t *testing.T, base string) string {
				p := filepath.Join(base, ".wisp")
				if err := os.Symlink("gone", p); err != nil {
					t.Fatal(err)
				}
				return p
			},
			want: "wisp home PATH is a symbolic link to gone; wisp needs a real folder: set WISP_HOME to the link's target or replace the link with a folder",
		},
		{
			name: "a file",
			setup: func(t *testing.T, base string) string {
				p := filepath.Join(base, ".wisp")
				mustWrite(t, p, "x")
				return p
			},
			want: "wisp home PATH is not a folder; move it aside (mv PATH PATH.old) or set WISP_HOME to another path",
		},
		{
			name: "group-writable",
			setup: func(t *testing.T, base string) string {
				p := filepath.Join(base, ".wisp")
				mkdir(t, p, 0o770)
				return p
			},
			want: "wisp home PATH is writable by others; run chmod 700 PATH",
		},
		{
			name: "world-writable",
			setup: func(t *testing.T, base string) string {
				p := filepath.Join(base, ".wisp")
				mkdir(t, p, 0o707)
				return p
			},
			want: "wisp home PATH is writable by others; run chmod 700 PATH",
		},
		{
			name: "world-writable even with the sticky bit",
			setup: func(t *testing.T, base string) string {
				p := filepath.Join(base, ".wisp")
				mkdir(t, p, os.ModeSticky|0o777)
				return p
			},
			want: "wisp home PATH is writable by others; run chmod 700 PATH",
		},
		{
			name: "path with a space is quoted for the shell",
			setup: func(t *testing.T, base string) string {
				p := filepath.Join(base, "my home", ".wisp")
				mkdir(t, p, 0o777)
				return p
			},
			want: "wisp home 'PATH' is writable by others; run chmod 700 'PATH'",
		},
		{
			name: "owned by another user",
			root: true,
			setup: func(t *testing.T, base string) string {
				p := filepath.Join(base, ".wisp")
				mkdir(t, p, 0o700)
				chown(t, p, nobody)
				return p
			},
			want: "wisp home PATH belongs to uid 65534, not to you (uid 0); run chown 0 PATH as root, or set WISP_HOME to a folder of your own",
		},
		{
			name: "parent writable by others",
			setup: func(t *testing.T, base string) string {
				mkdir(t, filepath.Join(base, "shared"), 0o777)
				p := filepath.Join(base, "shared", ".wisp")
				mkdir(t, p, 0o700)
				return p
			},
			want: "wisp home PATH is inside BASE/shared, which others can write to; run chmod go-w BASE/shared or set WISP_HOME to a folder inside a private one",
		},
		{
			name: "missing, under a parent writable by others: not created",
			setup: func(t *testing.T, base string) string {
				mkdir(t, filepath.Join(base, "shared"), 0o772)
				return filepath.Join(base, "shared", "a", ".wisp")
			},
			want:     "wisp home PATH is inside BASE/shared, which others can write to; run chmod go-w BASE/shared or set WISP_HOME to a folder inside a private one",
			untouchd: true,
		},
		{
			name: "link above the home sits in a folder others can write to",
			setup: func(t *testing.T, base string) string {
				mkdir(t, filepath.Join(base, "real"), 0o700)
				mkdir(t, filepath.Join(base, "shared"), 0o777)
				if err := os.Symlink(filepath.Join(base, "real"), filepath.Join(base, "shared", "link")); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(filepath.Join(base, "shared"), 0o777); err != nil {
					t.Fatal(err)
				}
				p := filepath.Join(base, "shared", "link", ".wisp")
				return p
			},
			want:     "wisp home PATH is inside BASE/shared, which others can write to; run chmod go-w BASE/shared or set WISP_HOME to a folder inside a private one",
			untouchd: true,
		},
		{
			name: "parent owned by another user",
			root: true,
			setup: func(t *testing.T, base string) string {
				mkdir(t, filepath.Join(base, "theirs"), 0o755)
				p := filepath.Join(base, "theirs", ".wisp")
				mkdir(t, p, 0o700)
				chown(t, filepath.Join(base, "theirs"), nobody)
				return p
			},
			want: "wisp home PATH is inside BASE/theirs, which belongs to uid 65534; set WISP_HOME to a folder inside one of your own",
		},
		{
			name: "link above the home leads into another user's folder",
			root: true,
			setup: func(t *testing.T, base string) string {
				mkdir(t, filepath.Join(base, "theirs", "x"), 0o755)
				chown(t, filepath.Join(base, "theirs"), nobody)
				if err := os.Symlink("theirs/x", filepath.Join(base, "link")); err != nil {
					t.Fatal(err)
				}
				return filepath.Join(base, "link", ".wisp")
			},
			want:     "wisp home PATH is inside BASE/theirs, which belongs to uid 65534; set WISP_HOME to a folder inside one of your own",
			untouchd: true,
		},
		{
			name: "a file above the home",
			setup: func(t *testing.T, base string) string {
				mustWrite(t, filepath.Join(base, "file"), "x")
				return filepath.Join(base, "file", ".wisp")
			},
			want: "cannot use wisp home PATH (lstat PATH: not a directory); set WISP_HOME to another path",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.root {
				needRoot(t)
			}
			base := t.TempDir()
			home := tt.setup(t, base)
			err := fsx.EnsureDir(home)
			if err == nil {
				t.Fatalf("EnsureDir(%q) = nil, want a refusal", home)
			}
			want := strings.ReplaceAll(replacePath(tt.want, home), "BASE", base)
			if diff := cmp.Diff(want, err.Error()); diff != "" {
				t.Errorf("EnsureDir error (-want +got):\n%s", diff)
			}
			if strings.HasPrefix(tt.want, "wisp home") && !errors.Is(err, fsx.ErrUnsafe) {
				t.Errorf("EnsureDir error %v does not match ErrUnsafe", err)
			}
			if tt.untouchd {
				if _, err := os.Lstat(home); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("Lstat(%s) = %v after a refusal, want it not created", home, err)
				}
			}
		})
	}
}

func TestLookupDirs(t *testing.T) {
	base := t.TempDir()
	mkdir(t, filepath.Join(base, "a", "b"), 0o700)
	mkdir(t, filepath.Join(base, "c", "d"), 0o700)
	mustSymlink := func(old, new string) {
		if err := os.Symlink(old, new); err != nil {
			t.Fatal(err)
		}
	}
	mustSymlink(filepath.Join(base, "c", "d"), filepath.Join(base, "a", "abs"))
	mustSymlink("../c", filepath.Join(base, "a", "rel"))
	mustSymlink("rel/d", filepath.Join(base, "a", "chain"))
	mustSymlink("loop", filepath.Join(base, "loop"))

	above := func(p string) []string { // the folders from / down to p
		var dirs []string
		for ; ; p = filepath.Dir(p) {
			dirs = append([]string{p}, dirs...)
			if p == filepath.Dir(p) {
				return dirs
			}
		}
	}
	tests := []struct {
		name string
		path string
		want []string
	}{
		{"plain", filepath.Join(base, "a", "b", "x"), above(filepath.Join(base, "a", "b"))},
		{"last part is a link, not followed", filepath.Join(base, "a", "abs"), above(filepath.Join(base, "a"))},
		{"absolute link", filepath.Join(base, "a", "abs", "x"),
			append(above(filepath.Join(base, "a")), filepath.Join(base, "c"), filepath.Join(base, "c", "d"))},
		{"relative link with ..", filepath.Join(base, "a", "rel", "d", "x"),
			append(above(filepath.Join(base, "a")), filepath.Join(base, "c"), filepath.Join(base, "c", "d"))},
		{"link to a link", filepath.Join(base, "a", "chain", "x"),
			append(above(filepath.Join(base, "a")), filepath.Join(base, "c"), filepath.Join(base, "c", "d"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := fsx.LookupDirs(tt.path)
			if err != nil {
				t.Fatalf("lookupDirs(%q) = %v", tt.path, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("lookupDirs(%q) (-want +got):\n%s", tt.path, diff)
			}
		})
	}
	if _, err := fsx.LookupDirs(filepath.Join(base, "loop", "x")); err == nil || !strings.Contains(err.Error(), "too many symbolic links") {
		t.Errorf("lookupDirs through a loop = %v, want too many symbolic links", err)
	}
}

// Folders made at once by several callers, as turns of several processes
// make their lock folder, are made once, and none of the callers fails.
func TestEnsureDirConcurrent(t *testing.T) {
	for round := range 200 {
		dir := filepath.Join(t.TempDir(), "a", "b", fmt.Sprint(round))
		var wg sync.WaitGroup
		for range 16 {
			wg.Go(func() {
				if err := fsx.EnsureDir(dir); err != nil {
					t.Errorf("EnsureDir(%q) = %v", dir, err)
				}
			})
		}
		wg.Wait()
	}
}
