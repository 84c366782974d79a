package hf_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wisp-agent/wisp/models/hf"
)

// otherCommit is a second commit of the test repository.
const otherCommit = "fedcba9876543210fedcba9876543210fedcba98"

// snapshotTarget is the link target of repo's snapshot at commit, as
// Link writes it.
func snapshotTarget(repo, commit string) string {
	return filepath.FromSlash("../../hub/models--" + strings.ReplaceAll(repo, "/", "--") + "/snapshots/" + commit)
}

// linkHome returns a home folder holding two snapshots of org/Tiny, and
// the plan for the first.
func linkHome(t *testing.T) (hf.Store, hf.Plan) {
	t.Helper()
	s := hf.Store{Home: t.TempDir()}
	p := hf.Plan{Repo: "org/Tiny", Commit: testCommit}
	for _, c := range []string{testCommit, otherCommit} {
		if err := os.MkdirAll(filepath.Join(s.RepoDir(p.Repo), "snapshots", c), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return s, p
}

// ownFolder makes a folder of the person's own at path, with a file and
// a subfolder.
func ownFolder(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(path, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(path, "config.json"), []byte(`{"mine": true}`))
	writeFile(t, filepath.Join(path, "sub", "weights.bin"), pattern(4096, 43))
}

// TestLink covers what Link finds at the model's path: nothing, links of
// every kind, folders and files of the person's own, with and without
// replace, and things that appear between the check and the rename.
func TestLink(t *testing.T) {
	tests := []struct {
		name    string
		replace bool
		// setup puts something at path (in models folder dir) and
		// returns the path whose contents must survive unchanged, if
		// any.
		setup func(t *testing.T, dir, path string) (keep string)
		// race, when set, puts a thing of the person's own at path
		// (removing a link there first) between Link's check and its
		// rename; that thing must then survive.
		race func(t *testing.T, path string)
		// wantErr is nil when the link must be made.
		wantErr error
		wantMsg string
		// wantAside is true when what was at path must be found at
		// path.replaced-<time>.
		wantAside bool
	}{
		{name: "absent"},
		{name: "link to another snapshot", setup: func(t *testing.T, dir, path string) string {
			symlink(t, snapshotTarget("org/Tiny", otherCommit), path)
			return ""
		}},
		{name: "same link", setup: func(t *testing.T, dir, path string) string {
			symlink(t, snapshotTarget("org/Tiny", testCommit), path)
			return ""
		}},
		{name: "dangling link", setup: func(t *testing.T, dir, path string) string {
			symlink(t, "../../hub/models--org--Gone/snapshots/"+otherCommit, path)
			return ""
		}},
		{name: "link to a file", setup: func(t *testing.T, dir, path string) string {
			writeFile(t, filepath.Join(dir, "elsewhere.txt"), []byte("x"))
			symlink(t, "elsewhere.txt", path)
			return ""
		}},
		{name: "link loop", setup: func(t *testing.T, dir, path string) string {
			symlink(t, "Tiny", path)
			return ""
		}},
		{name: "link to a folder of one's own", setup: func(t *testing.T, dir, path string) string {
			own := filepath.Join(filepath.Dir(filepath.Dir(dir)), "mine")
			ownFolder(t, own)
			symlink(t, own, path)
			return own
		}},
		{name: "folder of one's own", setup: func(t *testing.T, dir, path string) string {
			ownFolder(t, path)
			return path
		}, wantErr: hf.ErrOccupied, wantMsg: "%s is a folder of your own; wisp leaves it alone: move it aside, or pull with --replace to let wisp replace it"},
		{name: "empty folder", setup: func(t *testing.T, dir, path string) string {
			if err := os.Mkdir(path, 0o755); err != nil {
				t.Fatal(err)
			}
			return path
		}, wantErr: hf.ErrOccupied, wantMsg: "%s is a folder of your own; wisp leaves it alone: move it aside, or pull with --replace to let wisp replace it"},
		{name: "file of one's own", setup: func(t *testing.T, dir, path string) string {
			writeFile(t, path, []byte("notes"))
			return path
		}, wantErr: hf.ErrOccupied, wantMsg: "%s is a file of your own; wisp leaves it alone: move it aside, or pull with --replace to let wisp replace it"},
		{name: "replace a folder", replace: true, setup: func(t *testing.T, dir, path string) string {
			ownFolder(t, path)
			return path
		}, wantAside: true},
		{name: "replace a file", replace: true, setup: func(t *testing.T, dir, path string) string {
			writeFile(t, path, []byte("notes"))
			return path
		}, wantAside: true},
		{name: "replace a link", replace: true, setup: func(t *testing.T, dir, path string) string {
			symlink(t, snapshotTarget("org/Tiny", otherCommit), path)
			return ""
		}},
		{name: "folder appears where nothing was", setup: func(t *testing.T, dir, path string) string {
			return path
		}, race: ownFolder,
			wantErr: hf.ErrOccupied, wantMsg: "%s is a folder of your own; wisp leaves it alone: move it aside, or pull with --replace to let wisp replace it"},
		{name: "folder replaces the link", setup: func(t *testing.T, dir, path string) string {
			symlink(t, snapshotTarget("org/Tiny", otherCommit), path)
			return path
		}, race: ownFolder, wantErr: hf.ErrOccupied, wantMsg: "%s is a folder of your own; wisp leaves it alone: move it aside, or pull with --replace to let wisp replace it"},
		{name: "file replaces the link", setup: func(t *testing.T, dir, path string) string {
			symlink(t, snapshotTarget("org/Tiny", otherCommit), path)
			return path
		}, race: func(t *testing.T, path string) { writeFile(t, path, []byte("notes")) }, wantErr: hf.ErrOccupied, wantMsg: "%s is a file of your own; wisp leaves it alone: move it aside, or pull with --replace to let wisp replace it"},
		{name: "folder appears, replace", replace: true, setup: func(t *testing.T, dir, path string) string {
			return path
		}, race: ownFolder, wantAside: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.race != nil && runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
				t.Skip("no atomic rename without replacing on " + runtime.GOOS)
			}
			s, p := linkHome(t)
			dir := filepath.Join(s.Home, "models", "mlx")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "Tiny")
			var keep string
			if tt.setup != nil {
				keep = tt.setup(t, dir, path)
			}
			var before map[string]string
			var hook func()
			if tt.race != nil {
				// What the race makes is what must survive.
				scratch := filepath.Join(t.TempDir(), "Tiny")
				tt.race(t, scratch)
				before = describe(t, scratch)
				var once sync.Once
				hook = func() {
					once.Do(func() {
						if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
							if err := os.Remove(path); err != nil {
								t.Fatal(err)
							}
						}
						tt.race(t, path)
					})
				}
			} else if keep != "" {
				before = describe(t, keep)
			}

			got, err := s.LinkWithHook(p, tt.replace, hook)

			if tt.wantErr != nil {
				want := strings.ReplaceAll(tt.wantMsg, "%s", path)
				if !errors.Is(err, tt.wantErr) || err.Error() != want {
					t.Errorf("Link = %q, %v; want %q", got, err, want)
				}
				if diff := cmp.Diff(before, describe(t, keep)); diff != "" {
					t.Errorf("what was at the path changed (-before +after):\n%s", diff)
				}
				checkNoTemps(t, dir)
				return
			}
			if err != nil || got != path {
				t.Fatalf("Link = %q, %v; want %q", got, err, path)
			}
			if target, err := os.Readlink(path); err != nil || target != snapshotTarget(p.Repo, p.Commit) {
				t.Errorf("link target = %q, %v; want %q", target, err, snapshotTarget(p.Repo, p.Commit))
			}
			if fi, err := os.Stat(path); err != nil || !fi.IsDir() {
				t.Errorf("the link does not lead to the snapshot folder: %v", err)
			}
			if tt.wantAside {
				aside := asidePath(t, dir)
				if diff := cmp.Diff(before, describe(t, aside)); diff != "" {
					t.Errorf("what was moved aside changed (-before +after):\n%s", diff)
				}
			} else {
				if matches, _ := filepath.Glob(path + ".replaced-*"); len(matches) != 0 {
					t.Errorf("Link moved something aside: %q", matches)
				}
				if keep != "" {
					if diff := cmp.Diff(before, describe(t, keep)); diff != "" {
						t.Errorf("the link's old target changed (-before +after):\n%s", diff)
					}
				}
			}
			checkNoTemps(t, dir)
		})
	}
}

// describe describes the folder or file at path, every byte of it: tree
// for a folder, one entry for a file.
func describe(t *testing.T, path string) map[string]string {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		return map[string]string{".": err.Error()}
	}
	if fi.IsDir() {
		d := tree(t, path)
		d["."] = "dir"
		return d
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{".": fileEntry(data)}
}

// asidePath returns the one <dir>/Tiny.replaced-<time> entry.
func asidePath(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`^Tiny\.replaced-\d{8}T\d{6}Z$`)
	var found []string
	for _, e := range entries {
		if re.MatchString(e.Name()) {
			found = append(found, e.Name())
		}
	}
	if len(found) != 1 {
		t.Fatalf("entries moved aside: %q, want one Tiny.replaced-<time>", found)
	}
	return filepath.Join(dir, found[0])
}

// checkNoTemps fails the test if Link left a temporary entry in dir.
func checkNoTemps(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("Link left %s behind", e.Name())
		}
	}
}

// symlink makes path a symbolic link to target.
func symlink(t *testing.T, target, path string) {
	t.Helper()
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

// TestLinkNeedsSnapshot refuses to link a snapshot that is not there.
func TestLinkNeedsSnapshot(t *testing.T) {
	s := hf.Store{Home: t.TempDir()}
	_, err := s.Link(hf.Plan{Repo: "org/Tiny", Commit: testCommit}, false)
	if err == nil || !strings.Contains(err.Error(), "fetch it first") {
		t.Errorf("Link = %v, want an error saying to fetch first", err)
	}
	if _, err := os.Lstat(filepath.Join(s.Home, "models", "mlx", "Tiny")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Link made the model's link: %v", err)
	}
}

// TestLinkSwapIsAtomic swaps the link between two snapshots again and
// again while a reader follows it: the reader must always find a
// snapshot, never nothing.
func TestLinkSwapIsAtomic(t *testing.T) {
	swaps := 1000
	if testing.Short() {
		swaps = 200
	}
	s, p := linkHome(t)
	path, err := s.Link(p, false)
	if err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var misses, reads atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		for !stop.Load() {
			reads.Add(1)
			if fi, err := os.Stat(path); err != nil || !fi.IsDir() {
				misses.Add(1)
			}
		}
	})
	commits := []string{otherCommit, testCommit}
	for i := range swaps {
		p.Commit = commits[i%2]
		if _, err := s.Link(p, false); err != nil {
			stop.Store(true)
			wg.Wait()
			t.Fatalf("swap %d: Link = %v", i, err)
		}
	}
	stop.Store(true)
	wg.Wait()
	if misses.Load() != 0 {
		t.Errorf("the reader found no snapshot %d times in %d reads across %d swaps", misses.Load(), reads.Load(), swaps)
	}
	checkNoTemps(t, filepath.Dir(path))
}
