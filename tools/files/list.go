package files

import (
	"cmp"
	"context"
	_ "embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/tools"
)

// MaxListed bounds the paths list_files shows; it says how many more
// there were.
const MaxListed = 200

// maxPatternBytes bounds a glob or a regular expression in the
// arguments.
const maxPatternBytes = 1 << 10

//go:embed list_files.md
var listDescription string

type listArgs struct {
	Pattern string `json:"pattern,omitempty" jsonschema:"A glob matched against paths relative to path: *, ?, [a-z], {a,b}, and ** for any number of folders (default **, every file)"`
	Path    string `json:"path,omitempty" jsonschema:"The folder to list, relative to the workspace (default the workspace)"`
}

// ListFiles returns the list_files tool: the files under a folder whose
// paths match a glob (doublestar's: **, {a,b}), in lexical order,
// leaving out what .gitignore ignores and version control's folders, at
// most MaxListed, with a line that says how many more matched. Its calls
// change nothing (tools.NoApproval).
func (w *Workspace) ListFiles() wisp.Tool {
	return tools.New(NameListFiles, listDescription, w.listFiles, &tools.Options{
		Schema: func(s *jsonschema.Schema) {
			s.Properties["pattern"].MaxLength = jsonschema.Ptr(maxPatternBytes)
			pathLimits(s.Properties["path"], false)
		},
		Summary: summary(func(a listArgs) string {
			return strings.TrimSpace("lists " + cmp.Or(a.Pattern, "files") + " " + inPath(a.Path))
		}),
		Action: tools.NoApproval,
	})
}

// inPath says where a call looks, for its summary.
func inPath(p string) string {
	if p == "" || p == "." {
		return ""
	}
	return "in " + p
}

func (w *Workspace) listFiles(ctx context.Context, _ wisp.Call, a listArgs) (wisp.Result, error) {
	out, err := w.list(ctx, a)
	return result(ctx, out, err)
}

// list is list_files' work.
func (w *Workspace) list(ctx context.Context, a listArgs) (string, error) {
	pattern := cmp.Or(strings.TrimPrefix(a.Pattern, "./"), "**")
	if !doublestar.ValidatePattern(pattern) {
		return "", problemf("the pattern %s is not a glob: check its [ ] and { }; use * , ?, [a-z], {a,b} and **", quote(a.Pattern))
	}
	if outward(pattern) {
		return "", problemf("the pattern %s reaches outside the folder it is matched in, so it matches nothing; it matches paths relative to path (the workspace when path is left out), such as src/**/*.go, and nothing outside the workspace is listed", quote(a.Pattern))
	}
	dir, err := w.resolve(a.Path)
	if err != nil {
		return "", err
	}
	var listed []string
	matched := 0
	cut, err := w.walk(ctx, dir, false, func(p string, d fs.DirEntry) error {
		rel := relTo(dir, p)
		if !doublestar.MatchUnvalidated(pattern, rel) {
			return nil
		}
		if matched++; matched <= MaxListed {
			listed = append(listed, p)
		}
		return nil
	})
	if err != nil {
		return "", walkError(a.Path, err)
	}
	var b strings.Builder
	for _, p := range listed {
		b.WriteString(p + "\n")
	}
	switch {
	case matched == 0:
		fmt.Fprintf(&b, "(no file matches %s under %s)", pattern, cmp.Or(a.Path, "the workspace"))
	case matched > MaxListed:
		fmt.Fprintf(&b, "(%d more not shown; narrow the pattern or the path)", matched-MaxListed)
	default:
		fmt.Fprintf(&b, "(%d %s)", matched, plural(matched, "file", "files"))
	}
	if cut {
		fmt.Fprintf(&b, "\n(the listing stopped after %d files and folders; give a narrower path)", MaxWalked)
	}
	return w.redact(b.String()), nil
}

// outward reports whether a glob can match only paths outside the folder
// it is matched in: it starts with a slash or holds a .. element. The
// paths it is matched against are relative, and inside.
func outward(glob string) bool {
	return strings.HasPrefix(glob, "/") || slices.Contains(strings.Split(glob, "/"), "..")
}

// relTo returns p, a path under dir, relative to dir; a dir that is the
// file itself gives its name.
func relTo(dir, p string) string {
	switch {
	case dir == ".":
		return p
	case p == dir:
		return path.Base(p)
	}
	return strings.TrimPrefix(p, dir+"/")
}

// walkError says why a walk from the path the model gave failed.
func walkError(name string, err error) error {
	if _, ok := err.(problem); ok {
		return err
	}
	return problemf("%s: %s", quote(cmp.Or(name, ".")), pathError(err))
}
