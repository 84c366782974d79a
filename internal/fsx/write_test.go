package fsx_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp/internal/fsx"
)

// listDir returns the names in dir, sorted.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

func TestWriteFile(t *testing.T) {
	tests := []struct {
		name string
		old  *string // content before, nil for none
		data string
		perm os.FileMode
	}{
		{name: "new file", data: `{"a":1}`, perm: 0o600},
		{name: "replace longer with shorter", old: ptr(`{"a":"a long old value"}`), data: `{}`, perm: 0o600},
		{name: "replace shorter with longer", old: ptr(`{}`), data: `{"a":"a long new value"}`, perm: 0o600},
		{name: "empty data", old: ptr("old"), data: "", perm: 0o600},
		{name: "other perm", data: "x", perm: 0o640},
		{name: "type bits dropped", data: "x", perm: os.ModeDir | 0o600},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "config.json")
			if tt.old != nil {
				if err := os.WriteFile(path, []byte(*tt.old), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := fsx.WriteFile(path, []byte(tt.data), tt.perm); err != nil {
				t.Fatalf("WriteFile(%q) = %v, want nil", path, err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.data, string(got)); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
			fi, err := os.Lstat(path)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := fi.Mode(), tt.perm.Perm(); got != want {
				t.Errorf("mode = %v, want %v", got, want)
			}
			if diff := cmp.Diff([]string{"config.json"}, listDir(t, dir)); diff != "" {
				t.Errorf("folder after WriteFile (-want +got):\n%s", diff)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestWriteFileReplacesLinkNotTarget(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	link := filepath.Join(dir, "link")
	if err := os.WriteFile(target, []byte("target"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := fsx.WriteFile(link, []byte("new"), 0o600); err != nil {
		t.Fatalf("WriteFile(link) = %v", err)
	}
	if got, _ := os.ReadFile(target); string(got) != "target" {
		t.Errorf("target = %q, want it untouched", got)
	}
	fi, err := os.Lstat(link)
	if err != nil {
		t.Fatal(err)
	}
	if !fi.Mode().IsRegular() {
		t.Errorf("link path mode = %v, want a regular file", fi.Mode())
	}
}

func TestWriteFileLeavesNoTempOnError(t *testing.T) {
	errFill := errors.New("disk on fire")
	tests := []struct {
		name    string
		setup   func(t *testing.T, dir string) string // returns the path to write
		fill    func(w io.Writer) error
		wantErr error // matched with errors.Is when not nil
		want    []string
	}{
		{
			name: "writer fails half way",
			setup: func(t *testing.T, dir string) string {
				p := filepath.Join(dir, "config.json")
				mustWrite(t, p, "old")
				return p
			},
			fill: func(w io.Writer) error {
				if _, err := w.Write([]byte(`{"half":`)); err != nil {
					return err
				}
				return errFill
			},
			wantErr: errFill,
			want:    []string{"config.json"},
		},
		{
			name: "rename onto a folder fails",
			setup: func(t *testing.T, dir string) string {
				p := filepath.Join(dir, "config.json")
				if err := os.Mkdir(p, 0o700); err != nil {
					t.Fatal(err)
				}
				mustWrite(t, filepath.Join(p, "inside"), "x")
				return p
			},
			want: []string{"config.json"},
		},
		{
			name: "folder missing",
			setup: func(t *testing.T, dir string) string {
				return filepath.Join(dir, "nope", "config.json")
			},
			wantErr: os.ErrNotExist,
			want:    []string{},
		},
		{
			name: "path names a folder, not a file",
			setup: func(t *testing.T, dir string) string {
				return dir + string(filepath.Separator)
			},
			want: []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := tt.setup(t, dir)
			fill := tt.fill
			if fill == nil {
				fill = func(w io.Writer) error { _, err := w.Write([]byte("new")); return err }
			}
			err := fsx.WriteFileWith(path, 0o600, fill)
			if err == nil {
				t.Fatalf("WriteFile(%q) = nil, want an error", path)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("WriteFile(%q) = %v, want %v", path, err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, listDir(t, dir)); diff != "" {
				t.Errorf("folder after failed WriteFile (-want +got):\n%s", diff)
			}
			if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() {
				if got, _ := os.ReadFile(path); string(got) != "old" {
					t.Errorf("old file = %q after a failed write, want %q", got, "old")
				}
			}
		})
	}
}

func TestWriteFileReadOnlyFolder(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes into read-only folders")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "config.json")
	mustWrite(t, path, "old")
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o700) })
	if err := fsx.WriteFile(path, []byte("new"), 0o600); !errors.Is(err, os.ErrPermission) {
		t.Errorf("WriteFile in a read-only folder = %v, want a permission error", err)
	}
	if diff := cmp.Diff([]string{"config.json"}, listDir(t, dir)); diff != "" {
		t.Errorf("folder (-want +got):\n%s", diff)
	}
}

func mustWrite(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestSweepTemps(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{
		"config.json",
		".config.json.tmp-123",        // removed
		".config.json.tmp-4294967295", // removed
		".config.json.tmp-",           // no digits: kept
		".config.json.tmp-12a",        // not all digits: kept
		".config.json.tmp-1.bak",      // kept
		".other.json.tmp-1",           // another target's: kept
		"config.json.tmp-1",           // no leading dot: kept
	} {
		mustWrite(t, filepath.Join(dir, name), "x")
	}
	if err := os.Mkdir(filepath.Join(dir, ".config.json.tmp-77"), 0o700); err != nil { // a folder: kept
		t.Fatal(err)
	}
	if err := os.Symlink("config.json", filepath.Join(dir, ".config.json.tmp-78")); err != nil { // a link: kept
		t.Fatal(err)
	}
	if err := fsx.SweepTemps(filepath.Join(dir, "config.json")); err != nil {
		t.Fatalf("SweepTemps = %v", err)
	}
	want := []string{
		".config.json.tmp-",
		".config.json.tmp-1.bak",
		".config.json.tmp-12a",
		".config.json.tmp-77",
		".config.json.tmp-78",
		".other.json.tmp-1",
		"config.json",
		"config.json.tmp-1",
	}
	if diff := cmp.Diff(want, listDir(t, dir)); diff != "" {
		t.Errorf("folder after SweepTemps (-want +got):\n%s", diff)
	}
}

func TestSweepTempsMissingFolder(t *testing.T) {
	if err := fsx.SweepTemps(filepath.Join(t.TempDir(), "nope", "config.json")); err != nil {
		t.Errorf("SweepTemps in a missing folder = %v, want nil", err)
	}
}

// WriteFileIn writes inside its root, as WriteFile does, and refuses a
// name that leads out of it; a failed write leaves the old file and no
// temp file.
func TestWriteFileIn(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	mustWrite(t, filepath.Join(dir, "old.txt"), "old")
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()

	for _, tc := range []struct {
		name string
		perm os.FileMode
	}{{"old.txt", 0o640}, {filepath.Join("sub", "new.txt"), 0o600}} {
		if err := fsx.WriteFileIn(root, tc.name, []byte("new"), tc.perm); err != nil {
			t.Fatalf("WriteFileIn(%q) = %v, want nil", tc.name, err)
		}
		fi, err := os.Stat(filepath.Join(dir, tc.name))
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, tc.name)); string(got) != "new" || fi.Mode().Perm() != tc.perm {
			t.Errorf("WriteFileIn(%q): the file holds %q, mode %v; want %q, %v", tc.name, got, fi.Mode().Perm(), "new", tc.perm)
		}
	}
	for _, name := range []string{filepath.Join("..", filepath.Base(outside), "x"), filepath.Join("out", "x")} {
		if err := fsx.WriteFileIn(root, name, []byte("new"), 0o600); err == nil {
			t.Errorf("WriteFileIn(%q) = nil, want an error: it leads out of the root", name)
		}
	}
	if diff := cmp.Diff([]string{}, listDir(t, outside)); diff != "" {
		t.Errorf("the folder outside the root (-want +got):\n%s", diff)
	}

	errFill := errors.New("the disk is full")
	err = fsx.WriteFileInWith(root, "old.txt", 0o600, func(w io.Writer) error {
		w.Write([]byte("half"))
		return errFill
	})
	if !errors.Is(err, errFill) {
		t.Errorf("WriteFileIn with a failing write = %v, want %v", err, errFill)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "old.txt")); string(got) != "new" {
		t.Errorf("after a failed write the file holds %q, want %q", got, "new")
	}
	if diff := cmp.Diff([]string{"old.txt", "out", "sub"}, listDir(t, dir)); diff != "" {
		t.Errorf("the root after a failed write (-want +got):\n%s", diff)
	}
}
