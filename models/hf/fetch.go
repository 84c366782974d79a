package hf

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// Defaults of [FetchOptions].
const (
	defaultParallel = 4
	defaultStall    = 30 * time.Second
	defaultRetries  = 5
	defaultChunk    = 1 << 20
)

// FetchOptions tunes [Store.Fetch]. A nil *FetchOptions, and any zero
// field, means the default.
type FetchOptions struct {
	// Parallel is how many files are fetched at once; default 4.
	Parallel int
	// Progress, when not nil, is called after every chunk written and
	// when a file starts, finishes or restarts. It is called from the
	// fetch goroutines, one call at a time, so it needs no locking of
	// its own, but a slow Progress slows the fetch.
	Progress func(Progress)
	// StallTimeout is how long a connection may go without a byte
	// before the fetch drops it and resumes; default 30 s.
	StallTimeout time.Duration
	// Retries is how many times a file is resumed after a failure in
	// the middle of its body (a dropped connection, a stall, a short
	// body); default 5, negative for none. The count starts again
	// whenever bytes arrive, so a long download over a flaky line is
	// not given up while it makes progress.
	Retries int
	// ChunkSize is the size of the buffer each file is read, hashed and
	// written through; default 1 MiB. A fetch holds Parallel such
	// buffers and nothing that grows with the model's size.
	ChunkSize int
}

// Progress is where a fetch stands, as reported to
// FetchOptions.Progress.
type Progress struct {
	// File is the path of the file the report is about.
	File string
	// Done and Total are bytes of the whole plan: Done counts the blobs
	// already present, bytes kept from earlier runs and bytes fetched
	// since. Done goes back when a file restarts.
	Done, Total int64
	// FileDone and FileTotal are File's bytes.
	FileDone, FileTotal int64
	// FilesDone and Files count the plan's files.
	FilesDone, Files int
	// Resumed is the bytes of partial downloads kept from earlier runs.
	Resumed int64
}

// Fetch downloads every file of p that is not yet here from src into the
// repository's blobs, verifying each as it streams: the SHA-256 of an LFS
// file, the git blob SHA-1 of any other, with no second read. Once every
// file is verified it writes the snapshot's links,
// snapshots/<commit>/<path> -> ../../blobs/<etag>, and refs/main. Nothing
// is linked before then.
//
// A file in progress lives in blobs/<etag>.incomplete, with the state of
// its hash and its byte count in blobs/<etag>.state. The state is saved
// durably, only after the partial file is synced: in the background, at
// most once per 16 MiB and per second, and whenever the file stops (a
// failure, ctx done). The next Fetch resumes from it with a Range
// request, hashing only the bytes that arrive. Bytes in the partial file beyond what its state covers
// are cut off and fetched again (after a kill, at most the last 16 MiB or
// second); a partial file whose state is missing, unreadable or longer
// than the file restarts from nothing.
//
// A server that answers a ranged request with the whole file restarts the
// file cleanly. A failure in the middle of a body, a short body or a
// connection silent for StallTimeout is resumed, up to Retries times in a
// row without progress, with a growing pause (none, then 1 s, 2 s, 4 s, 8 s). An error from Open before the file's first byte in this run ends
// the fetch: the source does its own retrying of the request.
//
// A file whose digest or size does not match is deleted, and Fetch fails
// with an error wrapping [ErrMismatch] that names it; the other files
// stop and keep what arrived. Before the first byte, Fetch checks the
// disk's free space against the bytes still needed and fails with an
// error wrapping [ErrNoSpace] naming both figures when it is short (on
// systems where it can ask). When ctx is done Fetch returns ctx's error,
// keeping what arrived. Fetch returns only after every goroutine it
// started has ended.
//
// Hold [Store.Lock] for p.Repo while fetching: two fetches of one
// repository at once would write the same partial files.
func (s Store) Fetch(ctx context.Context, src Source, p Plan, opts *FetchOptions) error {
	if err := s.fetch(ctx, src, p, opts); err != nil {
		return err
	}
	return writeSnapshot(s.RepoDir(p.Repo), p)
}

// Prefetch fetches the files of p whose paths are among paths, as Fetch
// does (verified as they stream, resumable, a file that fails deleted),
// and links them in the snapshot of p's commit without recording the
// commit in refs/main: the snapshot is not the repository's until Fetch
// has every file. It returns the snapshot's folder, where the files can
// be read, and the plan of what it fetched. A pull reads the small files
// that say what a model can do this way before it asks to fetch the
// weights; Fetch of the whole plan then finds them here. Hold
// [Store.Lock] for p.Repo while prefetching, as for Fetch.
func (s Store) Prefetch(ctx context.Context, src Source, p Plan, paths []string, opts *FetchOptions) (dir string, fetched Plan, err error) {
	fetched = p
	fetched.Files = nil
	for _, f := range p.Files {
		if slices.Contains(paths, f.Path) {
			fetched.Files = append(fetched.Files, f)
		}
	}
	if err := s.fetch(ctx, src, fetched, opts); err != nil {
		return "", Plan{}, err
	}
	repoDir := s.RepoDir(p.Repo)
	if err := linkSnapshot(repoDir, fetched); err != nil {
		return "", Plan{}, err
	}
	return filepath.Join(repoDir, "snapshots", p.Commit), fetched, nil
}

// fetch downloads and verifies the blobs of p that are not yet here, and
// links nothing.
func (s Store) fetch(ctx context.Context, src Source, p Plan, opts *FetchOptions) error {
	if s.Home == "" {
		return errors.New("the model store has no home folder")
	}
	if err := vetPlan(p); err != nil {
		return err
	}
	o := withDefaults(opts)
	repoDir := s.RepoDir(p.Repo)
	blobs := filepath.Join(repoDir, "blobs")
	if err := makeDir(blobs); err != nil {
		return fmt.Errorf("cannot make the cache folder for %s: %w", p.Repo, err)
	}

	jobs, present, need, err := pendingBlobs(blobs, p)
	if err != nil {
		return err
	}
	if need > 0 {
		if free, ok := freeSpace(blobs); ok && free < need {
			return &storeError{
				msg:  fmt.Sprintf("not enough free disk space to pull %s: %s still to fetch, %s free in %s", p.Repo, sizeText(need), sizeText(free), blobs),
				kind: ErrNoSpace,
			}
		}
	}

	t := &tally{fn: o.Progress}
	t.p.Total, t.p.Files = p.Bytes(), len(p.Files)
	for _, f := range p.Files {
		if present[f.Etag()] {
			t.p.Done += f.Size
			t.p.FilesDone++
		}
	}
	if err := s.fetchAll(ctx, src, p, o, blobs, jobs, t); err != nil {
		return err
	}
	return ctx.Err()
}

// withDefaults copies opts with its zero fields set to the defaults.
func withDefaults(opts *FetchOptions) FetchOptions {
	var o FetchOptions
	if opts != nil {
		o = *opts
	}
	if o.Parallel <= 0 {
		o.Parallel = defaultParallel
	}
	if o.StallTimeout <= 0 {
		o.StallTimeout = defaultStall
	}
	switch {
	case o.Retries == 0:
		o.Retries = defaultRetries
	case o.Retries < 0:
		o.Retries = 0
	}
	if o.ChunkSize <= 0 {
		o.ChunkSize = defaultChunk
	}
	return o
}

// A blobJob is one blob to fetch, and the files of the plan that share it.
type blobJob struct {
	file  File   // the first file with the blob's etag
	files []File // every file with it
}

// pendingBlobs lists the blobs of p not yet in blobs, largest first so
// the long downloads start early, and the etags already present. need is
// the bytes the missing blobs will still add to the disk: their sizes
// less what their partial files already hold. A file that is not a
// regular file, or has the wrong size, sitting under a blob's name is
// removed; a folder there is an error. A present blob's leftover partial
// file and state are removed.
func pendingBlobs(blobs string, p Plan) (jobs []blobJob, present map[string]bool, need int64, err error) {
	present = map[string]bool{}
	index := map[string]int{}
	for _, f := range p.Files {
		etag := f.Etag()
		if i, ok := index[etag]; ok {
			jobs[i].files = append(jobs[i].files, f)
			continue
		}
		if present[etag] {
			continue
		}
		path := filepath.Join(blobs, etag)
		fi, err := os.Lstat(path)
		switch {
		case err == nil && fi.Mode().IsRegular() && fi.Size() == f.Size:
			present[etag] = true
			os.Remove(path + partSuffix)
			os.Remove(path + stateSuffix)
			continue
		case err == nil && fi.IsDir():
			return nil, nil, 0, fmt.Errorf("%s, the blob of %s, is a folder; remove it and pull again", path, f.Path)
		case err == nil:
			if err := os.Remove(path); err != nil {
				return nil, nil, 0, fmt.Errorf("cannot remove %s, a damaged blob of %s: %w", path, f.Path, err)
			}
		case !errors.Is(err, fs.ErrNotExist):
			return nil, nil, 0, fmt.Errorf("cannot read the blob of %s: %w", f.Path, err)
		}
		index[etag] = len(jobs)
		jobs = append(jobs, blobJob{file: f, files: []File{f}})
		need += f.Size
		if fi, err := os.Lstat(path + partSuffix); err == nil && fi.Mode().IsRegular() {
			need -= min(fi.Size(), f.Size)
		}
	}
	slices.SortStableFunc(jobs, func(a, b blobJob) int { return cmp.Compare(b.file.Size, a.file.Size) })
	return jobs, present, need, nil
}

// fetchAll runs the jobs, o.Parallel at a time. The first failure stops
// the others, which save their state; it is returned, unless ctx is done,
// when ctx's error is. Every goroutine has ended when fetchAll returns.
func (s Store) fetchAll(ctx context.Context, src Source, p Plan, o FetchOptions, blobs string, jobs []blobJob, t *tally) error {
	if len(jobs) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
	)
	queue := make(chan blobJob)
	for range min(o.Parallel, len(jobs)) {
		wg.Go(func() {
			fe := &fetcher{src: src, plan: p, opts: o, blobs: blobs, tally: t, buf: make([]byte, o.ChunkSize)}
			for j := range queue {
				if err := fe.fetch(ctx, j); err != nil {
					mu.Lock()
					if first == nil && ctx.Err() == nil {
						first = err
					}
					mu.Unlock()
					cancel()
				}
			}
		})
	}
feed:
	for _, j := range jobs {
		select {
		case queue <- j:
		case <-ctx.Done():
			break feed
		}
	}
	close(queue)
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}

// A tally adds up the progress of the files in flight and reports it,
// one call at a time.
type tally struct {
	mu sync.Mutex
	fn func(Progress)
	p  Progress
}

// add moves the plan's figures by done bytes, resumed bytes kept and
// files finished, and reports file's state.
func (t *tally) add(f File, fileDone, done, resumed int64, files int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.p.Done += done
	t.p.Resumed += resumed
	t.p.FilesDone += files
	if t.fn == nil {
		return
	}
	p := t.p
	p.File, p.FileDone, p.FileTotal = f.Path, fileDone, f.Size
	t.fn(p)
}
