package files

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// Limits of a walk.
const (
	// MaxWalked bounds the files and folders one list_files or search
	// looks at; past it the walk stops and says so.
	MaxWalked = 50_000
	// maxIgnoreBytes bounds what is read of one .gitignore.
	maxIgnoreBytes = 1 << 20
)

// skipped are folders never walked: version control's own.
var skipped = []string{".git", ".hg", ".svn", ".jj"}

// errStop ends a walk early, as the visitor asks.
var errStop = errors.New("stop")

// walk visits what lies under dir, a real path relative to the workspace
// (resolve), in lexical order: each file, and each symbolic link, which
// it does not follow, with its slash-separated path relative to the
// workspace. It never enters version control's folders (.git, …), the
// wisp home, or a folder the .gitignore files above it ignore, and
// leaves out the files they ignore; .git/info/exclude counts as a
// .gitignore at the top. A dir that is itself ignored is walked whole,
// as asked. visit returning errStop ends the walk. walk reports whether
// it stopped at MaxWalked.
func (w *Workspace) walk(ctx context.Context, dir string, visit func(p string, d fs.DirEntry) error) (cut bool, err error) {
	ig := ignores{w: w, byDir: map[string][]gitignore.Pattern{}}
	ig.load(dir)
	honour := dir == "." || !ig.ignored(dir, true)
	seen := 0
	err = fs.WalkDir(w.root.FS(), dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil // a folder that cannot be read is left out
		}
		if seen++; seen > MaxWalked {
			cut = true
			return fs.SkipAll
		}
		if seen%256 == 0 && ctx.Err() != nil {
			return context.Cause(ctx)
		}
		if p != dir {
			if d.IsDir() && slices.Contains(skipped, d.Name()) || w.inHome(p) || honour && ig.ignored(p, d.IsDir()) {
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
	if errors.Is(err, errStop) {
		err = nil
	}
	return cut, err
}

// ignores are the .gitignore patterns of the folders a walk has entered.
type ignores struct {
	w     *Workspace
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
// that is missing, too large or unreadable has none.
func (ig ignores) read(name string, domain []string) []gitignore.Pattern {
	f, err := ig.w.root.Open(filepath.FromSlash(name))
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() > maxIgnoreBytes {
		return nil
	}
	data, err := readAll(f, maxIgnoreBytes)
	if err != nil {
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
