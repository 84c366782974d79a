// Package scan finds credentials in files with the rules of package
// secrets: it walks a folder as git sees it, reads each text file whole,
// runs [secrets.Scan] over it, files in parallel, and reports each
// credential by its rule, file, line and column, with a numbered marker
// such as "[REDACTED:github-pat#1]", never by its value.
//
// The walk leaves out version control's folders (.git, …), what the
// .gitignore files ignore (unless Options.All), binary files (a NUL byte
// in the first 8,000 bytes, as git tells them) and files larger than
// Options.MaxFileBytes, which the Report names. Symbolic links inside the
// tree are never followed; a path given to [Paths] that is one is. The
// same value gets the same marker number wherever it occurs in one scan,
// so "the same key in three files" can be told from three keys, and the
// value itself is never kept, returned or printed.
//
// [FS] scans paths in any fs.FS (an os.Root's, for a tool confined to a
// workspace); [Paths] scans paths of the file system, each with the
// .gitignore files of the git repository it lies in. wisp scan and the
// scan_secrets tool are both this package. The contract is in
// docs/scan.md.
package scan

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"hash/maphash"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/wisp-agent/wisp/internal/walk"
	"github.com/wisp-agent/wisp/policy/secrets"
)

// DefaultMaxFileBytes is the largest file scanned when
// Options.MaxFileBytes is 0. Each worker holds one file whole while it
// scans it.
const DefaultMaxFileBytes = 32 << 20

// Options configure a scan. A nil *Options is all defaults.
type Options struct {
	// All scans what .gitignore files ignore as well. Version control's
	// own folders are left out all the same.
	All bool
	// MaxFileBytes is the largest file scanned; a larger one is left out
	// and named in Report.Skipped. 0: DefaultMaxFileBytes.
	MaxFileBytes int64
	// Workers is how many files are read and scanned at once. 0: one per
	// processor (GOMAXPROCS).
	Workers int
	// MaxEntries bounds the files and folders one path's walk looks at;
	// past it the walk stops and Report.Cut says so. 0: no bound.
	MaxEntries int
	// Skip, when set, leaves out a path (slash-separated, in the fs.FS
	// given to FS) and everything under it: the wisp home, say. Paths
	// does not call it.
	Skip func(p string) bool
	// Mark, when set, gives the marker of each value found, in place of
	// the scan's own numbering: a session's redactor (its Replace, given
	// the value alone), so that a value has the same marker in a scan as
	// everywhere else in the conversation. It is called as each file is
	// scanned, files in parallel. A result that is not one marker
	// ("[REDACTED:…]") is never shown: the finding's marker is then
	// "[REDACTED:<rule>]", unnumbered.
	Mark func(rule, value string) string
}

// A Finding is one credential in a file: where it starts and which rule
// found it. It never holds the value.
type Finding struct {
	// Rule is the ID of the rule that found it (secrets.Rules).
	Rule string `json:"rule"`
	// File is the file's path, slash-separated: in the fs.FS for FS, and
	// under the path as given for Paths.
	File string `json:"file"`
	// Line and Column say where the value starts, both from 1; the
	// column counts bytes.
	Line   int `json:"line"`
	Column int `json:"column"`
	// Marker stands for the value, as the redactor writes it:
	// "[REDACTED:<rule>#<n>]", numbered per rule in the order of the
	// findings, the same number for the same value; or as Options.Mark
	// gave it.
	Marker string `json:"marker"`
}

// Why a file was not scanned (Skipped.Reason).
const (
	ReasonTooLarge   = "too large"
	ReasonUnreadable = "unreadable"
)

// Skipped is a text file, or what may be one, that was not scanned.
type Skipped struct {
	File   string `json:"file"`
	Reason string `json:"reason"` // ReasonTooLarge or ReasonUnreadable
}

// A Report is what a scan found, in the order of the files' paths (the
// paths given first to last, each walked in lexical order) and of the
// values in each file.
type Report struct {
	Findings []Finding `json:"findings"`
	// Files and Bytes count the files scanned and their bytes.
	Files int   `json:"files"`
	Bytes int64 `json:"bytes"`
	// Binary counts the binary files left out.
	Binary int `json:"binary"`
	// Skipped names the files left out because they were too large or
	// could not be read.
	Skipped []Skipped `json:"skipped"`
	// Cut reports that a walk stopped at Options.MaxEntries.
	Cut bool `json:"cut"`
	// MaxFileBytes is the size limit the scan applied.
	MaxFileBytes int64 `json:"maxFileBytes"`
}

// A target is one path to walk: dir in fsys, its files shown by show.
type target struct {
	fsys fs.FS
	dir  string
	show func(p string) string
}

// FS scans each of paths, slash-separated paths in fsys ("." for all of
// it), files or folders, and returns what it found. The .gitignore files
// are read from the top of fsys down. A path that does not exist or
// cannot be read is a *PathError.
func FS(ctx context.Context, fsys fs.FS, paths []string, opts *Options) (*Report, error) {
	targets := make([]target, len(paths))
	for i, p := range paths {
		targets[i] = target{fsys: fsys, dir: p, show: func(p string) string { return p }}
	}
	return run(ctx, targets, opts)
}

// Paths scans each of paths, files or folders of the file system ("."
// when there are none), and returns what it found; a Finding's File is
// the path as given joined with the file's path under it. A path is read
// with the .gitignore files of the git repository it lies in, from the
// repository's top down (the nearest folder above it that holds .git),
// or with those under it when it lies in none. A path that is a symbolic
// link is followed; links under it are not. A path that does not exist
// or cannot be read is a *PathError.
func Paths(ctx context.Context, paths []string, opts *Options) (*Report, error) {
	if len(paths) == 0 {
		paths = []string{"."}
	}
	var targets []target
	for _, p := range paths {
		t, closer, err := pathTarget(p)
		if err != nil {
			return nil, err
		}
		defer closer.Close()
		targets = append(targets, t)
	}
	return run(ctx, targets, opts)
}

// pathTarget opens the repository p lies in, or p, as an os.Root.
func pathTarget(p string) (target, io.Closer, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return target{}, nil, &PathError{Path: p, Err: err}
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return target{}, nil, &PathError{Path: p, Err: err}
	}
	fi, err := os.Stat(real)
	if err != nil {
		return target{}, nil, &PathError{Path: p, Err: err}
	}
	dir := real
	if !fi.IsDir() {
		dir = filepath.Dir(real)
	}
	top, _ := walk.RepositoryRoot(dir)
	root, err := os.OpenRoot(top)
	if err != nil {
		return target{}, nil, &PathError{Path: p, Err: err}
	}
	rel, err := filepath.Rel(top, real)
	if err != nil {
		root.Close()
		return target{}, nil, &PathError{Path: p, Err: err}
	}
	rel = filepath.ToSlash(rel)
	given := filepath.ToSlash(p)
	show := func(f string) string {
		if f == rel {
			return given
		}
		under := f
		if rel != "." {
			under = strings.TrimPrefix(f, rel+"/")
		}
		return path.Join(given, under)
	}
	return target{fsys: root.FS(), dir: rel, show: show}, root, nil
}

// A PathError is a path given to a scan that does not exist or cannot be
// read. Files that cannot be read under a folder given are not errors:
// the Report names them (Skipped).
type PathError struct {
	Path string // as given
	Err  error
}

func (e *PathError) Error() string {
	switch {
	case errors.Is(e.Err, fs.ErrNotExist):
		return e.Path + ": no such file or folder"
	case errors.Is(e.Err, fs.ErrPermission):
		return e.Path + ": permission denied"
	}
	err := e.Err
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return e.Path + ": " + err.Error()
}

// Unwrap returns the error the path failed with.
func (e *PathError) Unwrap() error { return e.Err }

// A job is one file to scan: the seq-th of the scan.
type job struct {
	seq  int
	fsys fs.FS
	name string // in fsys
	file string // as shown
}

// A found is one file's outcome.
type found struct {
	seq      int
	file     string
	findings []finding
	bytes    int64
	binary   bool
	skipped  string // a Reason, or ""
}

// A finding is a Finding before its marker is numbered, with a digest of
// its value to tell equal values apart. A finding whose Marker is set
// already (Options.Mark) keeps it.
type finding struct {
	Finding
	key uint64
}

// isMarker reports whether s is one redaction marker and nothing more.
func isMarker(s string) bool {
	const open = "[REDACTED:"
	return len(s) <= 200 && strings.HasPrefix(s, open) && strings.IndexByte(s, ']') == len(s)-1 &&
		!strings.ContainsAny(s[len(open):len(s)-1], "[ \t\n\r")
}

// run scans targets with workers and puts their outcomes in order.
func run(ctx context.Context, targets []target, opts *Options) (*Report, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = DefaultMaxFileBytes
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	seed := maphash.MakeSeed()
	jobs := make(chan job, 4*o.Workers)
	var (
		mu  sync.Mutex
		out []found
		wg  sync.WaitGroup
	)
	for range o.Workers {
		wg.Go(func() {
			var buf bytes.Buffer
			for j := range jobs {
				if ctx.Err() != nil {
					continue
				}
				f := scanFile(j, &buf, &o, seed)
				mu.Lock()
				out = append(out, f)
				mu.Unlock()
			}
		})
	}
	r := &Report{MaxFileBytes: o.MaxFileBytes}
	seq := 0
	var err error
	for _, t := range targets {
		var cut bool
		cut, err = walk.Dir(ctx, t.fsys, t.dir, walk.Options{All: o.All, Skip: o.Skip, Max: o.MaxEntries}, func(p string, d fs.DirEntry) error {
			if !d.Type().IsRegular() {
				return nil // a link is not followed; a device or a pipe is no file
			}
			select {
			case jobs <- job{seq: seq, fsys: t.fsys, name: p, file: t.show(p)}:
				seq++
				return nil
			case <-ctx.Done():
				return context.Cause(ctx)
			}
		})
		r.Cut = r.Cut || cut
		if err != nil {
			if ctx.Err() == nil {
				err = &PathError{Path: t.show(t.dir), Err: err}
			}
			cancel(err) // the files queued are not scanned
			break
		}
	}
	close(jobs)
	wg.Wait()
	if err == nil && ctx.Err() != nil {
		err = context.Cause(ctx)
	}
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b found) int { return cmp.Compare(a.seq, b.seq) })
	numbers := map[string]map[uint64]int{}
	for _, f := range out {
		switch {
		case f.binary:
			r.Binary++
			continue
		case f.skipped != "":
			r.Skipped = append(r.Skipped, Skipped{File: f.file, Reason: f.skipped})
			continue
		}
		r.Files++
		r.Bytes += f.bytes
		for _, fi := range f.findings {
			if fi.Marker != "" {
				r.Findings = append(r.Findings, fi.Finding)
				continue
			}
			byValue := numbers[fi.Rule]
			if byValue == nil {
				byValue = map[uint64]int{}
				numbers[fi.Rule] = byValue
			}
			n, ok := byValue[fi.key]
			if !ok {
				n = len(byValue) + 1
				byValue[fi.key] = n
			}
			fi.Marker = secrets.Marker(fi.Rule, n)
			r.Findings = append(r.Findings, fi.Finding)
		}
	}
	return r, nil
}

// scanFile reads one file into buf and scans it. The values it finds are
// kept only as digests under seed, or given to o.Mark.
func scanFile(j job, buf *bytes.Buffer, o *Options, seed maphash.Seed) found {
	max := o.MaxFileBytes
	f := found{seq: j.seq, file: j.file}
	fh, err := j.fsys.Open(j.name)
	if err != nil {
		f.skipped = ReasonUnreadable
		return f
	}
	defer fh.Close()
	fi, err := fh.Stat()
	switch {
	case err != nil:
		f.skipped = ReasonUnreadable
		return f
	case fi.Size() > max:
		f.skipped = ReasonTooLarge
		return f
	}
	buf.Reset()
	buf.Grow(int(fi.Size()) + bytes.MinRead)
	if _, err := buf.ReadFrom(io.LimitReader(fh, max+1)); err != nil {
		f.skipped = ReasonUnreadable
		return f
	}
	if int64(buf.Len()) > max {
		f.skipped = ReasonTooLarge
		return f
	}
	if walk.Binary(buf.Bytes()) {
		f.binary = true
		return f
	}
	text := buf.String()
	f.bytes = int64(len(text))
	line, lineStart, at := 1, 0, 0
	for _, m := range secrets.Scan(text) {
		seg := text[at:m.Start]
		if n := strings.Count(seg, "\n"); n > 0 {
			line += n
			lineStart = at + strings.LastIndexByte(seg, '\n') + 1
		}
		at = m.Start
		fi := finding{Finding: Finding{Rule: m.Rule, File: j.file, Line: line, Column: m.Start - lineStart + 1}}
		if o.Mark != nil {
			if fi.Marker = o.Mark(m.Rule, text[m.Start:m.End]); !isMarker(fi.Marker) {
				fi.Marker = "[REDACTED:" + m.Rule + "]"
			}
		} else {
			fi.key = maphash.String(seed, text[m.Start:m.End])
		}
		f.findings = append(f.findings, fi)
	}
	return f
}
