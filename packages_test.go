package wisp_test

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// pkg is one package of the module.
type pkg struct {
	path   string // "wisp" for the root, else the folder, "tools/ask"
	public bool   // not a command, an example or internal
	doc    string // its package comment's first sentence
}

// packages returns the module's packages.
func packages(t *testing.T) []pkg {
	t.Helper()
	var pkgs []pkg
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if n := d.Name(); path != "." && (strings.HasPrefix(n, ".") || n == "testdata") {
			return filepath.SkipDir
		}
		p, err := build.ImportDir(path, 0)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				return nil
			}
			return err
		}
		rel := filepath.ToSlash(path)
		if rel == "." {
			rel = "wisp"
		}
		first, _, _ := strings.Cut(rel, "/")
		public := p.Name != "main" && !strings.Contains("/"+rel+"/", "/internal/") && first != "cmd" && first != "examples" && first != "scripts"
		pkgs = append(pkgs, pkg{path: rel, public: public, doc: p.Doc})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// Every package says what it is in a package comment, which go doc shows
// first.
func TestEveryPackageHasAComment(t *testing.T) {
	for _, p := range packages(t) {
		if p.doc == "" {
			t.Errorf("package %q has no package comment; add one (in doc.go, or above the package clause of its main file)", p.path)
		}
	}
}

// The README's package table lists every public package, by its path in
// backquotes in a row's first cell.
func TestReadmeListsEveryPackage(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	name := regexp.MustCompile("`([a-z0-9/]+)`")
	for line := range strings.SplitSeq(string(readme), "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cell, _, _ := strings.Cut(strings.TrimPrefix(line, "| "), " | ")
		for _, m := range name.FindAllStringSubmatch(cell, -1) {
			listed[m[1]] = true
		}
	}
	for _, p := range packages(t) {
		if p.public && !listed[p.path] {
			t.Errorf("README.md's package table does not list %q; add a row that says what it holds", p.path)
		}
	}
}
