package hf

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Sentinel errors of the store, for errors.Is. Each error the store
// returns with one of them reads as one finished line.
var (
	// ErrBusy: another pull of the same repository holds its lock.
	ErrBusy = errors.New("a pull of the repository is already running")
	// ErrOccupied: a folder or file of the person's own sits where the
	// model's link belongs.
	ErrOccupied = errors.New("a folder of your own is in the way")
	// ErrMismatch: a file's bytes do not match the digest or the size
	// the plan states; the download was deleted.
	ErrMismatch = errors.New("download does not match its digest")
	// ErrNoSpace: the disk has too little free space for the bytes a
	// fetch still needs.
	ErrNoSpace = errors.New("not enough free disk space")
)

// A Store keeps pulled models under wisp's home folder, in the layout
// the Hugging Face cache uses (see package mlx for the layout it reads):
//
//	<Home>/hub/models--<org>--<name>/blobs/<etag>
//	<Home>/hub/models--<org>--<name>/snapshots/<commit>/<path> -> ../../blobs/<etag>
//	<Home>/hub/models--<org>--<name>/refs/main
//	<Home>/models/mlx/<name> -> ../../hub/models--<org>--<name>/snapshots/<commit>
//	<Home>/locks/pull-<org>--<name>.lock
//
// A Store is a plain value with no state but its folder; its methods are
// safe for concurrent use, except that two Fetches of the same repository
// must not overlap: hold [Store.Lock] around Fetch and Link. The home
// folder should already have passed fsx.EnsureDir; the store creates the
// folders below it, mode 0700, and its files 0600.
type Store struct {
	// Home is wisp's home folder.
	Home string
}

// A Source opens a file's bytes from an offset. [*Client] is one.
//
// Open is called from several goroutines at once, one file each. Its
// errors reach Fetch's caller as they are, so they should name the file.
// Body's Read need not be safe for concurrent use, but it must return
// once ctx is done or Close has been called from another goroutine, which
// is how the stall watchdog drops a silent connection. Close may be
// called more than once.
type Source interface {
	// Open returns f's bytes from offset. Body.Offset says where the
	// body starts: offset when the server honoured the range, 0 when it
	// sent the whole file again (the fetch then restarts the file).
	Open(ctx context.Context, p Plan, f File, offset int64) (Body, error)
}

// SourceFunc adapts a function to a [Source].
type SourceFunc func(ctx context.Context, p Plan, f File, offset int64) (Body, error)

// Open calls fn.
func (fn SourceFunc) Open(ctx context.Context, p Plan, f File, offset int64) (Body, error) {
	return fn(ctx, p, f, offset)
}

// RepoDir returns the folder of repository repo ("org/name") in the
// cache: <Home>/hub/models--org--name.
func (s Store) RepoDir(repo string) string {
	return filepath.Join(s.Home, "hub", repoFolder(repo))
}

// repoFolder is the cache's name for repo's folder: "models--org--name".
func repoFolder(repo string) string {
	return "models--" + strings.ReplaceAll(repo, "/", "--")
}

// Missing says which files of p are not yet here: those whose blob is not
// present under its etag with the size the plan states. A blob is only
// ever named by its etag once its digest has been verified, so a present
// one is a verified one. bytes is the size of the missing files, counting
// once a blob that several files share. Partial downloads count as
// missing in full; Fetch resumes them.
func (s Store) Missing(p Plan) (files []File, bytes int64) {
	valid := vetRepo(p.Repo) == nil
	blobs := filepath.Join(s.RepoDir(p.Repo), "blobs")
	counted := map[string]bool{}
	for _, f := range p.Files {
		if valid && blobPresent(blobs, f) {
			continue
		}
		files = append(files, f)
		if !counted[f.Etag()] {
			counted[f.Etag()] = true
			bytes += f.Size
		}
	}
	return files, bytes
}

// blobPresent reports whether blobs holds f's blob: a regular file named
// by f's etag, of f's size.
func blobPresent(blobs string, f File) bool {
	if !vetEtag(f) {
		return false
	}
	fi, err := os.Lstat(filepath.Join(blobs, f.Etag()))
	return err == nil && fi.Mode().IsRegular() && fi.Size() == f.Size
}

// vetPlan refuses a plan the store cannot lay out safely: a repository
// that is not "org/name" ([ErrBadRepo]), a file path that would leave the
// snapshot or is named twice ([ErrUnsafePath]), a commit that is not 40
// hex digits, an etag that is not hex of the right length or a negative
// size ([ErrBadListing]). The plan comes from a server, so nothing in it
// is trusted to name a path.
func vetPlan(p Plan) error {
	if err := vetRepo(p.Repo); err != nil {
		return err
	}
	if !isHex(p.Commit, 40) {
		return &storeError{fmt.Sprintf("the plan for %s names commit %q, not 40 hex digits", p.Repo, p.Commit), ErrBadListing}
	}
	seen := map[string]bool{}
	for _, f := range p.Files {
		if !vetPath(f.Path) {
			return &storeError{fmt.Sprintf("the plan for %s names the file %q, which is not a path inside the repository", p.Repo, f.Path), ErrUnsafePath}
		}
		if seen[f.Path] {
			return &storeError{fmt.Sprintf("the plan for %s names %s twice", p.Repo, f.Path), ErrUnsafePath}
		}
		seen[f.Path] = true
		if !vetEtag(f) {
			return &storeError{fmt.Sprintf("the plan for %s gives %s no valid digest (SHA-256 %q, blob %q)", p.Repo, f.Path, f.SHA256, f.BlobID), ErrBadListing}
		}
		if f.Size < 0 {
			return &storeError{fmt.Sprintf("the plan for %s gives %s a negative size", p.Repo, f.Path), ErrBadListing}
		}
	}
	return nil
}

// vetRepo refuses, with an error wrapping [ErrBadRepo], a repository name
// the client would refuse (see badRepo): the store builds paths from it.
func vetRepo(repo string) error {
	if why := badRepo(repo); why != "" {
		return &storeError{fmt.Sprintf("%q is not a Hugging Face repository (%s): want organisation/name", repo, why), ErrBadRepo}
	}
	return nil
}

// vetPath reports whether path is safe to write under a snapshot folder:
// what the client accepts (see unsafePath), and local on this system.
func vetPath(path string) bool {
	return unsafePath(path) == "" && filepath.IsLocal(filepath.FromSlash(path))
}

// vetEtag reports whether f's etag is lower-case hex of the right
// length: 64 digits for an LFS file, 40 for a git blob.
func vetEtag(f File) bool {
	if f.LFS() {
		return isHex(f.SHA256, 64)
	}
	return isHex(f.BlobID, 40)
}

// makeDir creates dir and any missing folder above it, mode 0700.
func makeDir(dir string) error {
	return os.MkdirAll(dir, 0o700)
}

// storeError is an error whose text is one finished line and whose
// identity is a sentinel.
type storeError struct {
	msg  string
	kind error
}

func (e *storeError) Error() string { return e.msg }
func (e *storeError) Unwrap() error { return e.kind }

// sizeText spells a byte count for a person, in decimal units: "512 B",
// "2.3 GB".
func sizeText(n int64) string {
	if n < 1000 {
		return fmt.Sprintf("%d B", n)
	}
	f := float64(n)
	for _, unit := range []string{"kB", "MB", "GB", "TB", "PB"} {
		f /= 1000
		if f < 999.95 {
			return fmt.Sprintf("%.1f %s", f, unit)
		}
	}
	return fmt.Sprintf("%.1f EB", f/1000)
}
