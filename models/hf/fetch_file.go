package hf

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/wisp-agent/wisp/internal/fsx"
)

// Suffixes of a blob's files while it downloads.
const (
	partSuffix  = ".incomplete"
	stateSuffix = ".state"
)

// When a partial file's state is saved: once at least stateBytes have
// arrived and stateInterval has passed since the last save began, so that
// a kill costs at most 16 MiB or about a second of transfer, and a fast
// download syncs at most about once a second per file. The save runs
// beside the download, which does not wait for the sync.
const (
	stateBytes    = 16 << 20
	stateInterval = time.Second
)

// errStalled is the cause of an attempt the watchdog dropped.
var errStalled = errors.New("stalled")

// A fetcher fetches blobs one after another through one buffer.
type fetcher struct {
	src   Source
	plan  Plan
	opts  FetchOptions
	blobs string
	tally *tally
	buf   []byte
}

// A partial is a blob being downloaded: its partial file, the hash of the
// bytes in it, and how much of that its saved state covers.
type partial struct {
	f       File
	base    string // blobs/<etag>
	file    *os.File
	hash    hash.Hash
	off     int64     // bytes in the file, all hashed
	saved   int64     // bytes the state on disk covers
	savedAt time.Time // when it was saved, or the partial opened
	kept    int64     // bytes kept from an earlier run
	arrived bool      // whether bytes came from the source in this run
	// saving, while a save runs in the background, receives its result.
	saving chan saveResult
}

// A saveResult is how a background save ended: the bytes it covered, when
// it began, and its error.
type saveResult struct {
	bytes int64
	began time.Time
	err   error
}

// fetch downloads, verifies and names one blob.
func (fe *fetcher) fetch(ctx context.Context, j blobJob) (err error) {
	if err := ctx.Err(); err != nil {
		return err
	}
	pt, err := openPartial(fe.blobs, j.file)
	if err != nil {
		return fmt.Errorf("cannot start %s of %s: %w", j.file.Path, fe.plan.Repo, err)
	}
	fe.tally.add(pt.f, pt.off, pt.off, pt.kept, 0)
	defer func() {
		if pt.file != nil {
			pt.stop()
		}
	}()

	fails := 0
	for pt.off < pt.f.Size {
		got, err := fe.attempt(ctx, pt)
		if err == nil {
			continue // the body ended where the file does
		}
		if errors.Is(err, ErrMismatch) {
			pt.discard()
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var fatal *fatalError
		if errors.As(err, &fatal) {
			return fatal.err
		}
		if got > 0 {
			fails = 0
		}
		fails++
		if fails > fe.opts.Retries {
			return fmt.Errorf("fetch %s of %s: %w (gave up after %d resumes without progress)", pt.f.Path, fe.plan.Repo, err, fe.opts.Retries)
		}
		if err := resumePause(ctx, fails); err != nil {
			return err
		}
	}
	if err := pt.finish(fe.plan.Repo); err != nil {
		return err
	}
	extra := int64(0)
	for _, f := range j.files[1:] {
		extra += f.Size
	}
	fe.tally.add(pt.f, pt.off, extra, 0, len(j.files))
	return nil
}

// resumePause waits before resume number fails of a row without
// progress: not at all for the first, then 1 s, 2 s, 4 s and 8 s at most.
func resumePause(ctx context.Context, fails int) error {
	if fails <= 1 {
		return nil
	}
	d := min(time.Second<<(fails-2), 8*time.Second)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// A fatalError ends a file's fetch without a resume.
type fatalError struct{ err error }

func (e *fatalError) Error() string { return e.err.Error() }

// attempt opens the body from pt.off and streams it into pt until it
// ends, fails or stalls. got is the bytes that arrived. A nil error means
// the body ended where the file does.
func (fe *fetcher) attempt(ctx context.Context, pt *partial) (got int64, err error) {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	// The watchdog drops an attempt that goes StallTimeout without a
	// byte: it cancels the request and closes the body, which unblocks a
	// Read stuck on a silent connection.
	var (
		mu     sync.Mutex
		body   io.Closer
		closed bool
	)
	closeBody := func() {
		mu.Lock()
		defer mu.Unlock()
		if body != nil && !closed {
			closed = true
			body.Close()
		}
	}
	stall := fe.opts.StallTimeout
	dog := time.AfterFunc(stall, func() {
		cancel(errStalled)
		closeBody()
	})
	defer dog.Stop()
	stalled := func() error {
		return fmt.Errorf("no byte for %v", stall)
	}

	b, err := fe.src.Open(actx, fe.plan, pt.f, pt.off)
	if err != nil {
		if context.Cause(actx) == errStalled {
			return 0, stalled()
		}
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		// Before the file's first byte an error is the source's last
		// word (it retries requests itself); once bytes have come, a
		// failed resume is worth another try.
		if !pt.arrived {
			return 0, &fatalError{err}
		}
		return 0, err
	}
	if b.ReadCloser == nil {
		return 0, &fatalError{fmt.Errorf("fetch %s of %s: the source gave no body", pt.f.Path, fe.plan.Repo)}
	}
	mu.Lock()
	body = b
	mu.Unlock()
	defer closeBody()
	if context.Cause(actx) == errStalled {
		return 0, stalled()
	}

	switch {
	case b.Offset == pt.off:
	case b.Offset == 0:
		// The server ignored the range: start the file again.
		if err := pt.restart(fe.tally); err != nil {
			return 0, &fatalError{fmt.Errorf("cannot restart %s of %s: %w", pt.f.Path, fe.plan.Repo, err)}
		}
	default:
		return 0, &fatalError{fmt.Errorf("fetch %s of %s: asked for bytes from %d, the source sent them from %d", pt.f.Path, fe.plan.Repo, pt.off, b.Offset)}
	}

	for {
		// Read at most one byte past the file's end, to catch a body
		// longer than the plan says.
		limit := int64(len(fe.buf))
		if rest := pt.f.Size - pt.off + 1; rest < limit {
			limit = rest
		}
		n := 0
		var rerr error
		for int64(n) < limit && rerr == nil {
			var k int
			k, rerr = b.Read(fe.buf[n:limit])
			if k > 0 {
				n += k
				got += int64(k)
				dog.Reset(stall)
			}
		}
		if n > 0 {
			if err := pt.write(fe.buf[:n], fe.plan.Repo); err != nil {
				return got, err
			}
			fe.tally.add(pt.f, pt.off, int64(n), 0, 0)
			dog.Reset(stall) // a slow disk is no stalled connection
		}
		switch {
		case rerr == nil:
		case rerr == io.EOF && pt.off == pt.f.Size:
			return got, nil
		case rerr == io.EOF:
			return got, fmt.Errorf("the body of %s ended at byte %d of %d", pt.f.Path, pt.off, pt.f.Size)
		case context.Cause(actx) == errStalled:
			return got, stalled()
		case ctx.Err() != nil:
			return got, ctx.Err()
		default:
			return got, rerr
		}
	}
}

// openPartial opens f's partial file in blobs, creating it, and picks up
// where its saved state says it stood, hashing from the file the bytes a
// killed run wrote after its last save; a missing, unreadable or lying
// state restarts the file.
func openPartial(blobs string, f File) (*partial, error) {
	base := filepath.Join(blobs, f.Etag())
	// A state write that a kill cut short leaves a temp file beside it.
	fsx.SweepTemps(base + stateSuffix)
	file, err := openPartialFile(base + partSuffix)
	if err != nil {
		return nil, err
	}
	fi, err := file.Stat()
	if err != nil {
		file.Close()
		return nil, err
	}
	pt := &partial{f: f, base: base, file: file, hash: newHash(f), savedAt: time.Now()}
	_, statErr := os.Lstat(base + stateSuffix)
	noState := errors.Is(statErr, fs.ErrNotExist)
	if st, ok := readState(base+stateSuffix, f); ok && st.Bytes <= fi.Size() && st.Bytes <= f.Size {
		h := newHash(f)
		if u, ok := h.(encoding.BinaryUnmarshaler); ok && u.UnmarshalBinary(st.Hash) == nil {
			pt.hash, pt.off, pt.saved, pt.kept = h, st.Bytes, st.Bytes, st.Bytes
		}
	}
	// A partial with no state at all is what a run killed before its
	// first save leaves: its bytes are hashed from the file too.
	if tail := min(fi.Size(), f.Size) - pt.off; (pt.off > 0 || noState) && tail > 0 {
		// Bytes a killed run wrote after its last save are on disk in
		// order: hash them from the file rather than fetch them again.
		// Only these unsaved bytes are read; what the state covers is not.
		// Should they be wrong (a power loss that kept the size but not the
		// data), the digest check at the end deletes the file.
		n, err := io.Copy(pt.hash, io.NewSectionReader(file, pt.off, tail))
		pt.off += n
		if err != nil {
			file.Close()
			return nil, err
		}
	}
	if fi.Size() != pt.off {
		if err := file.Truncate(pt.off); err != nil {
			file.Close()
			return nil, err
		}
	}
	if pt.off == 0 {
		os.Remove(base + stateSuffix)
	}
	return pt, nil
}

// newHash returns the hash that names f: SHA-256 for an LFS file, the git
// blob SHA-1, sha1("blob <size>\x00" + contents), for any other.
func newHash(f File) hash.Hash {
	if f.LFS() {
		return sha256.New()
	}
	h := sha1.New()
	io.WriteString(h, "blob "+strconv.FormatInt(f.Size, 10)+"\x00")
	return h
}

// write appends p to the partial file and the hash, and saves the state
// when it is due.
func (pt *partial) write(p []byte, repo string) error {
	if pt.off+int64(len(p)) > pt.f.Size {
		return pt.mismatch(repo, fmt.Sprintf("its body is longer than the %d bytes the plan states", pt.f.Size))
	}
	if _, err := pt.file.WriteAt(p, pt.off); err != nil {
		return &fatalError{fmt.Errorf("cannot write %s of %s: %w", pt.f.Path, repo, err)}
	}
	pt.hash.Write(p)
	pt.off += int64(len(p))
	pt.arrived = true
	if err := pt.saveDue(); err != nil {
		return &fatalError{fmt.Errorf("cannot save the progress of %s of %s: %w", pt.f.Path, repo, err)}
	}
	return nil
}

// saveDue takes the result of a background save that has ended, and
// starts another when one is due: it syncs the partial file, then records
// the byte count and hash state as they were when it began. fsync covers
// every write made before it, so the state never claims a byte that is
// not on the disk.
func (pt *partial) saveDue() error {
	if err := pt.collect(false); err != nil {
		return err
	}
	if pt.saving != nil || pt.off-pt.saved < stateBytes || time.Since(pt.savedAt) < stateInterval {
		return nil
	}
	state, err := pt.hashState()
	if err != nil {
		return err
	}
	done := make(chan saveResult, 1)
	pt.saving = done
	file, path, f, n, began := pt.file, pt.base+stateSuffix, pt.f, pt.off, time.Now()
	go func() {
		err := file.Sync()
		if err == nil {
			err = writeState(path, f, n, state)
		}
		done <- saveResult{bytes: n, began: began, err: err}
	}()
	return nil
}

// collect takes the result of the background save, if one runs: waiting
// for it when wait is true, else only if it has ended.
func (pt *partial) collect(wait bool) error {
	if pt.saving == nil {
		return nil
	}
	var r saveResult
	if wait {
		r = <-pt.saving
	} else {
		select {
		case r = <-pt.saving:
		default:
			return nil
		}
	}
	pt.saving = nil
	if r.err != nil {
		return r.err
	}
	pt.saved, pt.savedAt = r.bytes, r.began
	return nil
}

// save syncs the partial file, then records its byte count and hash state
// durably beside it, after any background save has ended.
func (pt *partial) save() error {
	pt.collect(true) // a failed background save is superseded by this one
	if err := pt.file.Sync(); err != nil {
		return err
	}
	state, err := pt.hashState()
	if err != nil {
		return err
	}
	if err := writeState(pt.base+stateSuffix, pt.f, pt.off, state); err != nil {
		return err
	}
	pt.saved, pt.savedAt = pt.off, time.Now()
	return nil
}

// hashState is the hash's state after the bytes so far.
func (pt *partial) hashState() ([]byte, error) {
	m, ok := pt.hash.(encoding.BinaryMarshaler)
	if !ok {
		return nil, errors.New("the hash cannot be saved")
	}
	return m.MarshalBinary()
}

// restart empties the partial file and the hash, for a server that sent
// the whole file again.
func (pt *partial) restart(t *tally) error {
	pt.collect(true) // its state is removed below in any case
	if err := pt.file.Truncate(0); err != nil {
		return err
	}
	os.Remove(pt.base + stateSuffix)
	t.add(pt.f, 0, -pt.off, -pt.kept, 0)
	pt.hash, pt.off, pt.saved, pt.kept = newHash(pt.f), 0, 0, 0
	return nil
}

// stop saves the state of an unfinished file and closes it.
func (pt *partial) stop() {
	pt.collect(true)
	if pt.off > pt.saved {
		pt.save() // on failure the next run resumes from the older state
	}
	pt.file.Close()
	pt.file = nil
}

// discard deletes the partial file and its state.
func (pt *partial) discard() {
	pt.collect(true)
	if pt.file != nil {
		pt.file.Close()
		pt.file = nil
	}
	os.Remove(pt.base + partSuffix)
	os.Remove(pt.base + stateSuffix)
}

// mismatch reports that the file is not what the plan states.
func (pt *partial) mismatch(repo, why string) error {
	return &storeError{
		msg:  fmt.Sprintf("%s of %s does not match the plan: %s; the download was deleted, pull again", pt.f.Path, repo, why),
		kind: ErrMismatch,
	}
}

// finish checks the whole file's digest, then names the blob by its
// etag: sync, rename, sync the folder. A file that does not match is
// deleted.
func (pt *partial) finish(repo string) error {
	pt.collect(true) // the state is removed once the blob is named
	if sum := hex.EncodeToString(pt.hash.Sum(nil)); sum != pt.f.Etag() {
		pt.discard()
		algo := "git blob SHA-1"
		if pt.f.LFS() {
			algo = "SHA-256"
		}
		return pt.mismatch(repo, fmt.Sprintf("its %s is %s, want %s", algo, sum, pt.f.Etag()))
	}
	err := pt.file.Sync()
	if cerr := pt.file.Close(); err == nil {
		err = cerr
	}
	pt.file = nil
	if err == nil {
		err = os.Rename(pt.base+partSuffix, pt.base)
	}
	if err == nil {
		err = syncFolder(filepath.Dir(pt.base))
	}
	if err != nil {
		return fmt.Errorf("cannot store %s of %s: %w", pt.f.Path, repo, err)
	}
	os.Remove(pt.base + stateSuffix)
	return nil
}
