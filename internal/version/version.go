// Package version says which wisp a program was built from, as its build
// recorded it: the module version and, for a build from a checkout, the
// commit. wisp --version prints it, and wisp chat --json's hello and the
// MCP server's implementation info carry the same string.
package version

import (
	"runtime/debug"
	"strings"
)

// Module is wisp's module path.
const Module = "github.com/wisp-agent/wisp"

// Info is what a build recorded of wisp.
type Info struct {
	// Version is wisp's module version: a release (v0.9.0), a
	// pseudo-version that names the commit (v0.0.0-20260102150405-
	// 1a2b3c4d5e6f, with +dirty when the checkout had changes), or ""
	// when the build recorded none.
	Version string
	// Revision is the commit wisp was built from, when the build was of
	// wisp itself in a checkout; "" otherwise.
	Revision string
	// Modified says the checkout had changes not committed.
	Modified bool
}

// Read returns what this program's build recorded of wisp: of the main
// module when the program is wisp's own, or of the wisp module the
// program depends on.
func Read() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Info{}
	}
	return FromBuildInfo(bi)
}

// String is Read().String(): the version wisp --version prints.
func String() string { return Read().String() }

// FromBuildInfo returns what bi recorded of wisp.
func FromBuildInfo(bi *debug.BuildInfo) Info {
	if bi.Main.Path != Module {
		for _, d := range bi.Deps {
			if d.Path != Module {
				continue
			}
			if d.Replace != nil && d.Replace.Version != "" {
				d = d.Replace
			}
			return Info{Version: known(d.Version)}
		}
		return Info{}
	}
	i := Info{Version: known(bi.Main.Version)}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			i.Revision = s.Value
		case "vcs.modified":
			i.Modified = s.Value == "true"
		}
	}
	return i
}

// known returns v, or "" when it says the build recorded no version.
func known(v string) string {
	if v == "(devel)" {
		return ""
	}
	return v
}

// String writes i in one line: the version ("devel" when none was
// recorded), then the commit's first 12 hex digits in parentheses, with
// ", modified" for a checkout with changes, unless the version already
// names the commit. For example "v0.9.0", "devel (1a2b3c4d5e6f,
// modified)" or "v0.0.0-20260102150405-1a2b3c4d5e6f+dirty".
func (i Info) String() string {
	v := i.Version
	if v == "" {
		v = "devel"
	}
	rev := i.Revision[:min(12, len(i.Revision))]
	if rev == "" || strings.Contains(v, rev) {
		return v
	}
	if i.Modified {
		return v + " (" + rev + ", modified)"
	}
	return v + " (" + rev + ")"
}
