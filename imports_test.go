package wisp_test

import (
	"go/build"
	"strings"
	"testing"
)

// The root package is the vocabulary: it imports the standard library only.
func TestImportsStandardLibraryOnly(t *testing.T) {
	for _, tests := range []bool{false, true} {
		pkg, err := build.Default.ImportDir(".", 0)
		if err != nil {
			t.Fatal(err)
		}
		imports := pkg.Imports
		if tests {
			imports = pkg.TestImports
		}
		for _, path := range imports {
			first, _, _ := strings.Cut(path, "/")
			if strings.Contains(first, ".") {
				t.Errorf("package wisp imports %q; the root package may import the standard library only", path)
			}
		}
	}
}
