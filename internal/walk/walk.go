// Package walk walks a project's folder as git sees it: version
// control's own folders are never entered, what the .gitignore files
// ignore is left out (unless asked), and symbolic links are visited but
// never followed. It also tells a binary file from a text file as git
// does. The file tools and the secret scanner share it.
package walk

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// maxIgnoreBytes bounds what is read of one .gitignore; a larger one is
// not read.
const maxIgnoreBytes = 1 << 20

// VCS are the folders never walked: version control's own.
var VCS = []string{".git", ".hg", ".svn", ".jj"}

// Options say what a walk leaves out. The zero Options honour .gitignore
// and bound nothing.
type Options struct {
	// All visits what .gitignore files ignore as well.
	All bool
	// Skip, when set, leaves out the path p, and everything under it when
	// it is a folder; the wisp home, say.
	Skip func(p string) bool
	// Max bounds the files and folders a walk looks at; past it the walk
	// stops and reports that it was cut. 0: no bound.
	Max int
}

// Dir visits what lies under dir, a slash-separated path in fsys ("." for
// its top), in lexical order: each file, and each symbolic link, which it
// does not follow, with its slash-separated path in fsys. It never enters
// version control's folders (VCS) or what opts.Skip names, and leaves
// out what the .gitignore files from the top of fsys down ignore, unless
// opts.All; .git/info/exclude counts as a .gitignore at the top. A dir
// that is itself ignored is walked whole, as asked. A dir that is a file
// is visited alone. visit returning fs.SkipAll ends the walk without an
// error; any other error ends it with that error. A folder that cannot be
// read is left out; only dir itself failing is an error. Every 256
// entries the walk checks ctx. cut reports that it stopped at opts.Max.
func Dir(ctx context.Context, fsys fs.FS, dir string, opts Options, visit func(p string, d fs.DirEntry) error) (cut bool, err error) {
	ig := ignores{fsys: fsys, byDir: map[string][]gitignore.Pattern{}}
	honour := !opts.All
	if honour {
		ig.load(dir)
		honour = dir == "." || !ig.ignored(dir, true)
	}
	seen := 0
	err = fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil // a folder that cannot be read is left out
		}
		if seen++; opts.Max > 0 && seen > opts.Max {
			cut = true
			return fs.SkipAll
		}
		if seen%256 == 0 && ctx.Err() != nil {
			return context.Cause(ctx)
		}
		if p != dir {
			if d.IsDir() && slices.Contains(VCS, d.Name()) || opts.Skip != nil && opts.Skip(p) || honour && ig.ignored(p, d.IsDir()) {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
		}
		if d.IsDir() {
			if honour {
				ig.enter(p)
			}
			return nil
		}
		return visit(p, d)
	})
	return cut, err
}

// ignores are the .gitignore patterns of the folders a walk has entered.
type ignores struct {
	fsys  fs.FS
	byDir map[string][]gitignore.Pattern // each folder's patterns, its parents' first
}

// load reads the patterns of the folders from the top down to dir's
// parent: .git/info/exclude, then each .gitignore.
func (ig ignores) load(dir string) {
	ig.byDir["."] = append(ig.read(".git/info/exclude", nil), ig.read(".gitignore", nil)...)
	at := "."
	for _, e := range strings.Split(dir, "/") {
		if e == "." || e == "" {
			continue
		}
		ig.enter(path.Join(at, e))
		at = path.Join(at, e)
	}
}

// enter reads the .gitignore of the folder p, under its parent's.
func (ig ignores) enter(p string) {
	if p == "." {
		return
	}
	parent := ig.byDir[path.Dir(p)]
	ig.byDir[p] = append(slices.Clip(parent), ig.read(path.Join(p, ".gitignore"), strings.Split(p, "/"))...)
}

// read reads one ignore file's patterns, for the folder domain; a file
// that is missing, not a regular file, too large or unreadable has none.
func (ig ignores) read(name string, domain []string) []gitignore.Pattern {
	f, err := ig.fsys.Open(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() > maxIgnoreBytes {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(f, maxIgnoreBytes+1))
	if err != nil || len(data) > maxIgnoreBytes {
		return nil
	}
	var ps []gitignore.Pattern
	for line := range strings.SplitSeq(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if !strings.HasPrefix(line, "#") && strings.TrimSpace(line) != "" {
			ps = append(ps, gitignore.ParsePattern(line, domain))
		}
	}
	return ps
}

// ignored reports whether the .gitignore patterns above p ignore it.
func (ig ignores) ignored(p string, isDir bool) bool {
	ps := ig.byDir[path.Dir(p)]
	return len(ps) > 0 && gitignore.NewMatcher(ps).Match(strings.Split(p, "/"), isDir)
}

// SniffBytes is how much of a file is looked at to tell text from
// binary, as git does (buffer_is_binary).
const SniffBytes = 8000

// Binary reports whether head, the start of a file, is a binary file's:
// it holds a NUL byte in its first SniffBytes bytes.
func Binary(head []byte) bool { return bytes.IndexByte(head[:min(len(head), SniffBytes)], 0) >= 0 }

// RepositoryRoot returns the nearest folder at or above dir, an absolute
// clean path, that holds .git (a folder, or a file as in a worktree), or
// dir and false when none does.
func RepositoryRoot(dir string) (string, bool) {
	for at := dir; ; {
		if _, err := os.Lstat(filepath.Join(at, ".git")); err == nil {
			return at, true
		}
		up := filepath.Dir(at)
		if up == at {
			return dir, false
		}
		at = up
	}
}
