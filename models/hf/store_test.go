package hf_test

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wisp-agent/wisp/models/hf"
	"github.com/wisp-agent/wisp/models/mlx"
	"github.com/wisp-agent/wisp/models/mlx/mlxtest"
)

// testCommit is the commit the test plans are pinned to.
const testCommit = "0123456789abcdef0123456789abcdef01234567"

// fileOf returns the plan's hf.File for data at path: an LFS file named by
// its SHA-256, or a small file named by its git blob SHA-1.
func fileOf(path string, data []byte, lfs bool) hf.File {
	f := hf.File{Path: path, Size: int64(len(data))}
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	f.BlobID = hex.EncodeToString(h.Sum(nil))
	if lfs {
		sum := sha256.Sum256(data)
		f.SHA256 = hex.EncodeToString(sum[:])
	}
	return f
}

// A testFile is a file of a test repository.
type testFile struct {
	path string
	data []byte
	lfs  bool
}

// newPlan returns the plan of repo at testCommit holding files, and a
// source serving them.
func newPlan(repo string, files ...testFile) (hf.Plan, *fakeSource) {
	p := hf.Plan{Repo: repo, Commit: testCommit}
	src := &fakeSource{data: map[string][]byte{}}
	for _, f := range files {
		p.Files = append(p.Files, fileOf(f.path, f.data, f.lfs))
		src.data[f.path] = f.data
	}
	return p, src
}

// pattern returns n bytes that differ from offset to offset, so that a
// byte put at the wrong place changes the digest.
func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7+i/251) ^ seed
	}
	return b
}

// A fault is what one body of a fakeSource does wrong, at file offset at.
type fault struct {
	wholeFile bool // answer a ranged request with the whole file
	drop      bool // fail with errDropped on reaching at
	stall     bool // go silent on reaching at, until closed or ctx done
	flip      bool // flip the byte at at
	at        int64
	dropFirst bool          // fail the first Read, wherever the body starts
	delay     time.Duration // wait this long before each Read
}

// errDropped is the error of a body the fakeSource drops.
var errDropped = errors.New("connection reset by peer")

// An openCall is one call of fakeSource.Open.
type openCall struct {
	Path   string
	Offset int64
}

// A fakeSource serves files from memory, counting what it serves. It is
// safe for concurrent use.
type fakeSource struct {
	data map[string][]byte // by path
	// faults, when set, says what the body of the call-th Open of f
	// (from 0) does wrong.
	faults func(f hf.File, call int) fault
	// stalled, when set, receives the path of a body that has gone
	// silent.
	stalled chan string
	// openErr, when set, is returned by Open.
	openErr error
	// gate, when set, is called in Open before the body is made.
	gate func(ctx context.Context, f hf.File) error

	mu      sync.Mutex
	opens   []openCall
	served  map[string]int64
	open    int // calls of Open and bodies not yet closed
	maxOpen int // the most open at once
}

// Open serves f from offset.
func (s *fakeSource) Open(ctx context.Context, p hf.Plan, f hf.File, offset int64) (hf.Body, error) {
	s.mu.Lock()
	call := 0
	for _, o := range s.opens {
		if o.Path == f.Path {
			call++
		}
	}
	s.opens = append(s.opens, openCall{f.Path, offset})
	s.open++
	s.maxOpen = max(s.maxOpen, s.open)
	s.mu.Unlock()
	b, err := s.body(ctx, f, offset, call)
	if err != nil {
		s.mu.Lock()
		s.open--
		s.mu.Unlock()
	}
	return b, err
}

// body makes the body of the call-th Open of f.
func (s *fakeSource) body(ctx context.Context, f hf.File, offset int64, call int) (hf.Body, error) {
	if s.openErr != nil {
		return hf.Body{}, s.openErr
	}
	data, ok := s.data[f.Path]
	if !ok {
		return hf.Body{}, fmt.Errorf("no file %s", f.Path)
	}
	var flt fault
	if s.faults != nil {
		flt = s.faults(f, call)
	}
	if s.gate != nil {
		if err := s.gate(ctx, f); err != nil {
			return hf.Body{}, err
		}
	}
	start := offset
	if flt.wholeFile {
		start = 0
	}
	b := &fakeBody{src: s, ctx: ctx, path: f.Path, data: data, pos: start, fault: flt, closing: make(chan struct{})}
	return hf.Body{ReadCloser: b, Offset: start}, nil
}

// calls returns the Open calls so far.
func (s *fakeSource) calls() []openCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.opens)
}

// servedBytes returns the bytes served of path so far.
func (s *fakeSource) servedBytes(path string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.served[path]
}

// fakeBody is one body of a fakeSource.
type fakeBody struct {
	src     *fakeSource
	ctx     context.Context
	path    string
	data    []byte
	pos     int64
	fault   fault
	once    sync.Once
	closing chan struct{}
}

// readSize is the most a fakeBody's Read returns, like a network read.
const readSize = 32 << 10

func (b *fakeBody) Read(p []byte) (int, error) {
	select {
	case <-b.closing:
		return 0, errors.New("read on closed body")
	case <-b.ctx.Done():
		return 0, b.ctx.Err()
	default:
	}
	if b.pos >= int64(len(b.data)) {
		return 0, io.EOF
	}
	f := b.fault
	if f.delay > 0 {
		select {
		case <-b.closing:
			return 0, errors.New("read on closed body")
		case <-b.ctx.Done():
			return 0, b.ctx.Err()
		case <-time.After(f.delay):
		}
	}
	if f.dropFirst || b.pos == f.at && f.drop {
		return 0, errDropped
	}
	if b.pos == f.at && f.stall {
		if b.src.stalled != nil {
			b.src.stalled <- b.path
		}
		select {
		case <-b.closing:
			return 0, errors.New("read on closed body")
		case <-b.ctx.Done():
			return 0, b.ctx.Err()
		}
	}
	n := min(int64(len(p)), readSize, int64(len(b.data))-b.pos)
	if (f.drop || f.stall) && f.at > b.pos {
		n = min(n, f.at-b.pos)
	}
	copy(p, b.data[b.pos:b.pos+n])
	if f.flip && f.at >= b.pos && f.at < b.pos+n {
		p[f.at-b.pos] ^= 0xff
	}
	b.pos += n
	b.src.mu.Lock()
	if b.src.served == nil {
		b.src.served = map[string]int64{}
	}
	b.src.served[b.path] += n
	b.src.mu.Unlock()
	return int(n), nil
}

func (b *fakeBody) Close() error {
	b.once.Do(func() {
		close(b.closing)
		b.src.mu.Lock()
		b.src.open--
		b.src.mu.Unlock()
	})
	return nil
}

// tree describes every entry under dir: "link -> target" for a link,
// "file <size> <sha256-prefix>" for a file, "dir" for a folder.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if rel == "." {
			return nil
		}
		rel = filepath.ToSlash(rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			got[rel] = "link -> " + filepath.ToSlash(target)
		case d.IsDir():
			got[rel] = "dir"
		default:
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			got[rel] = fmt.Sprintf("file %d %x", len(data), sum[:4])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// fileEntry is how tree describes a file holding data.
func fileEntry(data []byte) string {
	sum := sha256.Sum256(data)
	return fmt.Sprintf("file %d %x", len(data), sum[:4])
}

// usableFiles are the three files of a small usable MLX model: its
// config and tokenizer in git, its weights in LFS.
func usableFiles() []testFile {
	var weights []byte
	for _, f := range mlxtest.Qwen3Tools("o", "n").Files {
		if f.Path == "model-00001-of-00002.safetensors" {
			weights = f.Data
		}
	}
	return []testFile{
		{path: "config.json", data: []byte(`{"model_type": "qwen3", "max_position_embeddings": 40960, "quantization": {"bits": 4}}`)},
		{path: "model.safetensors", data: weights, lfs: true},
		{path: "tokenizer.json", data: []byte(`{"version": "1.0", "model": {"type": "BPE"}}`)},
	}
}

// TestStoreFetchLayout fetches a three-file plan and checks the cache
// layout entry by entry, then links it and reads it back through the MLX
// reader.
func TestStoreFetchLayout(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	s := hf.Store{Home: home}
	files := usableFiles()
	p, src := newPlan("mlx-community/Tiny-4bit", files...)

	missing, bytes := s.Missing(p)
	if diff := cmp.Diff(p.Files, missing); diff != "" {
		t.Errorf("Missing before Fetch (-want +got):\n%s", diff)
	}
	if bytes != p.Bytes() {
		t.Errorf("Missing before Fetch = %d bytes, want %d", bytes, p.Bytes())
	}

	if err := s.Fetch(ctx, src, p, nil); err != nil {
		t.Fatalf("Fetch = %v", err)
	}
	want := map[string]string{
		"blobs":                   "dir",
		"refs":                    "dir",
		"refs/main":               fileEntry([]byte(testCommit)),
		"snapshots":               "dir",
		"snapshots/" + testCommit: "dir",
		"snapshots/" + testCommit + "/" + files[0].path: "link -> ../../blobs/" + p.Files[0].BlobID,
		"snapshots/" + testCommit + "/" + files[1].path: "link -> ../../blobs/" + p.Files[1].SHA256,
		"snapshots/" + testCommit + "/" + files[2].path: "link -> ../../blobs/" + p.Files[2].BlobID,
		"blobs/" + p.Files[0].BlobID:                    fileEntry(files[0].data),
		"blobs/" + p.Files[1].SHA256:                    fileEntry(files[1].data),
		"blobs/" + p.Files[2].BlobID:                    fileEntry(files[2].data),
	}
	repoDir := s.RepoDir(p.Repo)
	if got, want := repoDir, filepath.Join(home, "hub", "models--mlx-community--Tiny-4bit"); got != want {
		t.Errorf("RepoDir = %s, want %s", got, want)
	}
	if diff := cmp.Diff(want, tree(t, repoDir)); diff != "" {
		t.Errorf("cache layout after Fetch (-want +got):\n%s", diff)
	}
	for _, name := range []string{"blobs/" + p.Files[1].SHA256, "refs/main"} {
		if fi, err := os.Stat(filepath.Join(repoDir, name)); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, %v; want 0600", name, fi.Mode().Perm(), err)
		}
	}
	if missing, bytes := s.Missing(p); len(missing) != 0 || bytes != 0 {
		t.Errorf("Missing after Fetch = %v, %d; want none", missing, bytes)
	}

	path, err := s.Link(p, false)
	if err != nil {
		t.Fatalf("Link = %v", err)
	}
	if want := filepath.Join(home, "models", "mlx", "Tiny-4bit"); path != want {
		t.Errorf("Link = %s, want %s", path, want)
	}
	target, err := os.Readlink(path)
	if want := filepath.FromSlash("../../hub/models--mlx-community--Tiny-4bit/snapshots/" + testCommit); err != nil || target != want {
		t.Errorf("link target = %q, %v; want %q", target, err, want)
	}
	info, err := mlx.New(home).Show(ctx, "Tiny-4bit")
	if err != nil {
		t.Fatalf("mlx Show = %v", err)
	}
	if !info.Usable || info.Repo != p.Repo || info.Size != p.Bytes() || info.Quantization != "4-bit" {
		t.Errorf("mlx Show = %+v; want usable, repo %s, size %d, 4-bit", info, p.Repo, p.Bytes())
	}
	// Check reads every blob against the etag its link names.
	report, err := mlx.New(home).Check(ctx, "Tiny-4bit", nil)
	if err != nil || !slices.Contains(report.Findings, "3 of 3 files match their digests") {
		t.Errorf("mlx Check = %q, %v; want 3 of 3 files matching", report.Findings, err)
	}

	// A second Fetch finds everything here and opens nothing.
	before := len(src.calls())
	if err := s.Fetch(ctx, src, p, nil); err != nil {
		t.Fatalf("second Fetch = %v", err)
	}
	if n := len(src.calls()) - before; n != 0 {
		t.Errorf("second Fetch opened %d files, want 0", n)
	}
}

// TestStoreMissing checks what Missing counts as missing: an absent blob,
// a partial download, a blob of the wrong size; and that files sharing a
// blob count its bytes once.
func TestStoreMissing(t *testing.T) {
	a := []byte("alpha contents")
	b := pattern(1000, 1)
	p, _ := newPlan("org/name",
		testFile{path: "a.json", data: a},
		testFile{path: "b.safetensors", data: b, lfs: true},
		testFile{path: "copy/a.json", data: a},
	)
	tests := []struct {
		name      string
		blobs     map[string][]byte // by etag
		wantPaths []string
		wantBytes int64
	}{
		{"empty", nil, []string{"a.json", "b.safetensors", "copy/a.json"}, int64(len(a) + len(b))},
		{"all present", map[string][]byte{p.Files[0].Etag(): a, p.Files[1].Etag(): b}, nil, 0},
		{"partial only", map[string][]byte{p.Files[0].Etag(): a, p.Files[1].Etag() + ".incomplete": b[:500]}, []string{"b.safetensors"}, int64(len(b))},
		{"wrong size", map[string][]byte{p.Files[0].Etag(): a[:3], p.Files[1].Etag(): b}, []string{"a.json", "copy/a.json"}, int64(len(a))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := hf.Store{Home: t.TempDir()}
			blobs := filepath.Join(s.RepoDir(p.Repo), "blobs")
			if err := os.MkdirAll(blobs, 0o700); err != nil {
				t.Fatal(err)
			}
			for name, data := range tt.blobs {
				if err := os.WriteFile(filepath.Join(blobs, name), data, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			files, bytes := s.Missing(p)
			var paths []string
			for _, f := range files {
				paths = append(paths, f.Path)
			}
			if diff := cmp.Diff(tt.wantPaths, paths); diff != "" || bytes != tt.wantBytes {
				t.Errorf("Missing = %q, %d; want %q, %d", paths, bytes, tt.wantPaths, tt.wantBytes)
			}
		})
	}
}

// TestStoreFetchSharedBlob fetches a plan in which two files, one in a
// subfolder, have the same contents: the blob is fetched once and both
// links point at it, the deeper one with more "../".
func TestStoreFetchSharedBlob(t *testing.T) {
	data := []byte(`{"same": true}`)
	p, src := newPlan("org/name",
		testFile{path: "a.json", data: data},
		testFile{path: "sub/dir/a.json", data: data},
	)
	var last hf.Progress
	s := hf.Store{Home: t.TempDir()}
	err := s.Fetch(context.Background(), src, p, &hf.FetchOptions{Progress: func(pr hf.Progress) { last = pr }})
	if err != nil {
		t.Fatalf("Fetch = %v", err)
	}
	if diff := cmp.Diff([]openCall{{"a.json", 0}}, src.calls()); diff != "" {
		t.Errorf("Open calls (-want +got):\n%s", diff)
	}
	etag := p.Files[0].BlobID
	snap := "snapshots/" + testCommit
	got := tree(t, s.RepoDir(p.Repo))
	want := map[string]string{
		snap + "/a.json":         "link -> ../../blobs/" + etag,
		snap + "/sub/dir/a.json": "link -> ../../../../blobs/" + etag,
		"blobs/" + etag:          fileEntry(data),
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s is %q, want %q", k, got[k], v)
		}
	}
	if last.Done != p.Bytes() || last.FilesDone != 2 || last.Files != 2 {
		t.Errorf("last hf.Progress = %+v; want Done %d, 2 of 2 files", last, p.Bytes())
	}
	for _, f := range []string{"a.json", "sub/dir/a.json"} {
		b, err := os.ReadFile(filepath.Join(s.RepoDir(p.Repo), snap, f))
		if err != nil || string(b) != string(data) {
			t.Errorf("reading %s through its link = %q, %v", f, b, err)
		}
	}
}

// TestStoreFetchRefusesBadPlans checks that a plan that would write
// outside its repository, or that cannot be verified, is refused before
// anything is opened or written.
func TestStoreFetchRefusesBadPlans(t *testing.T) {
	good := fileOf("config.json", []byte("{}"), false)
	with := func(mod func(*hf.Plan)) hf.Plan {
		p := hf.Plan{Repo: "org/name", Commit: testCommit, Files: []hf.File{good}}
		mod(&p)
		return p
	}
	renamed := func(path string) func(*hf.Plan) {
		return func(p *hf.Plan) { p.Files[0].Path = path }
	}
	tests := []struct {
		name string
		plan hf.Plan
		want error
	}{
		{"parent path", with(renamed("../../../x")), hf.ErrUnsafePath},
		{"inner parent", with(renamed("a/../../x")), hf.ErrUnsafePath},
		{"absolute path", with(renamed("/etc/passwd")), hf.ErrUnsafePath},
		{"backslash", with(renamed(`a\..\..\x`)), hf.ErrUnsafePath},
		{"empty part", with(renamed("a//b")), hf.ErrUnsafePath},
		{"dot part", with(renamed("./a")), hf.ErrUnsafePath},
		{"twice", with(func(p *hf.Plan) { p.Files = append(p.Files, good) }), hf.ErrUnsafePath},
		{"repo with dots", with(func(p *hf.Plan) { p.Repo = "../name" }), hf.ErrBadRepo},
		{"repo without org", with(func(p *hf.Plan) { p.Repo = "name" }), hf.ErrBadRepo},
		{"repo too deep", with(func(p *hf.Plan) { p.Repo = "a/b/c" }), hf.ErrBadRepo},
		{"hidden name", with(func(p *hf.Plan) { p.Repo = "org/.name" }), hf.ErrBadRepo},
		{"short commit", with(func(p *hf.Plan) { p.Commit = "main" }), hf.ErrBadListing},
		{"bad etag", with(func(p *hf.Plan) { p.Files[0].BlobID = "../../x" }), hf.ErrBadListing},
		{"upper-case sha256", with(func(p *hf.Plan) { p.Files[0].SHA256 = strings.Repeat("A", 64) }), hf.ErrBadListing},
		{"negative size", with(func(p *hf.Plan) { p.Files[0].Size = -1 }), hf.ErrBadListing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			src := &fakeSource{data: map[string][]byte{}}
			err := hf.Store{Home: home}.Fetch(context.Background(), src, tt.plan, nil)
			if !errors.Is(err, tt.want) {
				t.Errorf("Fetch = %v, want an error wrapping %v", err, tt.want)
			}
			if n := len(src.calls()); n != 0 {
				t.Errorf("Fetch opened %d files", n)
			}
			if entries, _ := os.ReadDir(home); len(entries) != 0 {
				t.Errorf("Fetch wrote %d entries in the home folder", len(entries))
			}
		})
	}
}
