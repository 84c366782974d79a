package hf

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/wisp-agent/wisp/internal/fsx"
)

// Link makes <Home>/models/mlx/<p.Name()> a relative symbolic link to the
// snapshot of p, ../../hub/models--<org>--<name>/snapshots/<commit>, and
// returns its path. The link is made under a temporary name beginning
// with "." (which the MLX reader skips) and renamed into place, so a
// reader sees the old link or the new one, never neither.
//
// An existing symbolic link at the path, dangling or not, is replaced; its
// target is not touched. A real folder or file at the path is a thing of
// the person's own and is never touched: Link fails with an error
// wrapping [ErrOccupied], unless replace is true, in which case it is
// moved aside to <path>.replaced-<time> (UTC, 20060102T150405Z), never
// deleted, and the link made. Where the system can rename atomically
// without replacing (Linux, macOS), a folder that appears at the path
// while Link works is caught and left in place too.
//
// The snapshot must exist: Fetch first.
func (s Store) Link(p Plan, replace bool) (path string, err error) {
	return s.link(p, replace, nil)
}

// link is Link with a hook called before each rename into place, which
// lets the tests put something at the path between the check and the
// rename.
func (s Store) link(p Plan, replace bool, hook func()) (string, error) {
	if s.Home == "" {
		return "", errors.New("the model store has no home folder")
	}
	if err := vetRepo(p.Repo); err != nil {
		return "", err
	}
	if !isHex(p.Commit, 40) {
		return "", fmt.Errorf("cannot link %s: commit %q is not 40 hex digits", p.Repo, p.Commit)
	}
	snapshot := filepath.Join(s.RepoDir(p.Repo), "snapshots", p.Commit)
	if fi, err := os.Lstat(snapshot); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("cannot link %s: its snapshot %s is missing; fetch it first", p.Repo, snapshot)
	}
	dir := filepath.Join(s.Home, "models", "mlx")
	if err := makeDir(dir); err != nil {
		return "", fmt.Errorf("cannot make the MLX models folder: %w", err)
	}
	name := p.Name()
	path := filepath.Join(dir, name)
	target := filepath.Join("..", "..", "hub", repoFolder(p.Repo), "snapshots", p.Commit)

	tmp, err := tempLink(dir, name, target)
	if err != nil {
		return "", fmt.Errorf("cannot link %s: %w", path, err)
	}
	// tmp names our new link until it is renamed into place; after an
	// exchange it may name what was at path, which is removed only when
	// it is a link.
	defer removeLink(tmp)

	if hook == nil {
		hook = func() {}
	}
	const tries = 4
	for range tries {
		fi, err := os.Lstat(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			hook()
			err := renameNoReplace(tmp, path)
			if errors.Is(err, fs.ErrExist) {
				continue // something appeared: look again
			}
			if err != nil {
				return "", fmt.Errorf("cannot link %s: %w", path, err)
			}
			return path, syncFolder(dir)

		case err != nil:
			return "", fmt.Errorf("cannot link %s: %w", path, err)

		case fi.Mode()&fs.ModeSymlink != 0:
			if old, err := os.Readlink(path); err == nil && old == target {
				return path, nil
			}
			hook()
			done, err := swapLink(tmp, path)
			if err != nil {
				return "", fmt.Errorf("cannot link %s: %w", path, err)
			}
			if done {
				return path, syncFolder(dir)
			}
			// Something not a link came in while we looked: look again.

		case !replace:
			what := "folder"
			if !fi.IsDir() {
				what = "file"
			}
			return "", &storeError{
				msg:  fmt.Sprintf("%s is a %s of your own; wisp leaves it alone: move it aside, or pull with --replace to let wisp replace it", path, what),
				kind: ErrOccupied,
			}

		default:
			if _, err := moveAside(path, time.Now()); err != nil {
				return "", fmt.Errorf("cannot move %s aside: %w", path, err)
			}
		}
	}
	return "", fmt.Errorf("cannot link %s: it kept changing while wisp worked", path)
}

// swapLink puts the link tmp at path, where a link was seen. Where the
// system can exchange two names atomically it does, then looks at what
// came out: a link is removed and done is true; anything else is put
// back and done is false. Elsewhere it checks path again and renames
// over it.
func swapLink(tmp, path string) (done bool, err error) {
	err = renameExchange(tmp, path)
	if errors.Is(err, errNoExchange) {
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return false, nil
		}
		return true, os.Rename(tmp, path)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil // path went away: look again
	}
	if err != nil {
		return false, err
	}
	fi, err := os.Lstat(tmp)
	if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return true, nil // the old link, now at tmp, is removed by the caller
	}
	if err := renameExchange(tmp, path); err != nil {
		return false, fmt.Errorf("what was at %s is now at %s; move it back: %w", path, tmp, err)
	}
	return false, nil
}

// moveAside renames the folder or file at path to
// <path>.replaced-<time>, with "-2", "-3"… added when that name is taken,
// never replacing anything. It returns the new path.
func moveAside(path string, now time.Time) (string, error) {
	aside := path + ".replaced-" + now.UTC().Format("20060102T150405Z")
	for i := 1; i <= 100; i++ {
		to := aside
		if i > 1 {
			to = fmt.Sprintf("%s-%d", aside, i)
		}
		err := renameNoReplace(path, to)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		return to, syncFolder(filepath.Dir(path))
	}
	return "", fmt.Errorf("%s.replaced-* names are all taken", path)
}

// tempLink makes a symbolic link to target in dir under a fresh name
// beginning with ".<name>.link-".
func tempLink(dir, name, target string) (string, error) {
	for range 10 {
		tmp := filepath.Join(dir, "."+name+".link-"+strings.ToLower(rand.Text()[:10]))
		err := os.Symlink(target, tmp)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return tmp, err
	}
	return "", errors.New("no free temporary name")
}

// removeLink removes path if it is a symbolic link, and nothing else.
func removeLink(path string) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		os.Remove(path)
	}
}

// writeSnapshot writes the snapshot of p: a relative link
// snapshots/<commit>/<path> -> ../../blobs/<etag> for every file (deeper
// for a file in a subfolder), then refs/main. Each blob must be present.
func writeSnapshot(repoDir string, p Plan) error {
	if err := linkSnapshot(repoDir, p); err != nil {
		return err
	}
	return writeRef(repoDir, p)
}

// linkSnapshot writes the snapshot's links for the files of p, and no
// ref: a snapshot that refs/main does not name yet is one that tools
// reading the cache pass by.
func linkSnapshot(repoDir string, p Plan) error {
	blobs := filepath.Join(repoDir, "blobs")
	snapshot := filepath.Join(repoDir, "snapshots", p.Commit)
	folders := map[string]bool{}
	for _, f := range p.Files {
		if !blobPresent(blobs, f) {
			return fmt.Errorf("cannot link %s of %s: its blob is missing", f.Path, p.Repo)
		}
		path := filepath.Join(snapshot, filepath.FromSlash(f.Path))
		target := filepath.FromSlash(strings.Repeat("../", 2+strings.Count(f.Path, "/")) + "blobs/" + f.Etag())
		dir := filepath.Dir(path)
		if err := makeDir(dir); err != nil {
			return fmt.Errorf("cannot link %s of %s: %w", f.Path, p.Repo, err)
		}
		if err := placeLink(target, path); err != nil {
			return fmt.Errorf("cannot link %s of %s: %w", f.Path, p.Repo, err)
		}
		folders[dir] = true
	}
	for dir := range folders {
		if err := syncFolder(dir); err != nil {
			return fmt.Errorf("cannot link the snapshot of %s: %w", p.Repo, err)
		}
	}
	return nil
}

// writeRef records p's commit in refs/main.
func writeRef(repoDir string, p Plan) error {
	refs := filepath.Join(repoDir, "refs")
	ref := filepath.Join(refs, "main")
	if old, err := fsx.ReadFile(ref, 1<<10); err == nil && string(old) == p.Commit {
		return nil
	}
	fsx.SweepTemps(ref)
	if err := makeDir(refs); err != nil {
		return fmt.Errorf("cannot record the commit of %s: %w", p.Repo, err)
	}
	if err := fsx.WriteFile(ref, []byte(p.Commit), 0o600); err != nil {
		return fmt.Errorf("cannot record the commit of %s: %w", p.Repo, err)
	}
	return nil
}

// placeLink makes path a symbolic link to target inside the cache,
// replacing a link or file there atomically. A folder there is an error.
func placeLink(target, path string) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		err := os.Symlink(target, path)
		if !errors.Is(err, fs.ErrExist) {
			return err
		}
	case err != nil:
		return err
	case fi.IsDir():
		return fmt.Errorf("%s is a folder", path)
	case fi.Mode()&fs.ModeSymlink != 0:
		if old, err := os.Readlink(path); err == nil && old == target {
			return nil
		}
	}
	dir, name := filepath.Split(path)
	tmp, err := tempLink(dir, name, target)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
