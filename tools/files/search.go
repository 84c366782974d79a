package files

import (
	"cmp"
	"context"
	_ "embed"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/internal/walk"
	"github.com/wisp-agent/wisp/tools"
)

// Limits of search.
const (
	// MaxMatches bounds the matching lines search shows; past it the
	// search stops and says so.
	MaxMatches = 100
	// MaxMatchBytes bounds one matching line as search shows it.
	MaxMatchBytes = 300
	// MaxSearchFileBytes bounds the files search reads; larger ones are
	// left out, and counted in the closing line.
	MaxSearchFileBytes = 4 << 20
)

//go:embed search.md
var searchDescription string

type searchArgs struct {
	Pattern string `json:"pattern" jsonschema:"A regular expression (RE2, Go's regexp syntax), matched against each line; (?i) for any case"`
	Path    string `json:"path,omitempty" jsonschema:"The folder or file to search, relative to the workspace (default the workspace)"`
	Glob    string `json:"glob,omitempty" jsonschema:"Only files whose paths, relative to path, match this glob, such as **/*.go"`
}

// Search returns the search tool: the lines of the text files under a
// folder that match a regular expression (RE2, so a pattern cannot take
// more than linear time), as path:line: text, at most MaxMatches, each
// cut to MaxMatchBytes. It leaves out what list_files does, binary files
// and files larger than MaxSearchFileBytes. Each file is redacted before
// it is matched, so a match never says what a credential holds. Its
// calls change nothing (tools.NoApproval).
func (w *Workspace) Search() wisp.Tool {
	return tools.New(NameSearch, searchDescription, w.search, &tools.Options{
		Schema: func(s *jsonschema.Schema) {
			s.Properties["pattern"].MinLength = jsonschema.Ptr(1)
			s.Properties["pattern"].MaxLength = jsonschema.Ptr(maxPatternBytes)
			s.Properties["glob"].MaxLength = jsonschema.Ptr(maxPatternBytes)
			pathLimits(s.Properties["path"], false)
		},
		Summary: summary(func(a searchArgs) string {
			return strings.TrimSpace("searches for " + a.Pattern + " " + inPath(a.Path))
		}),
		Action: tools.NoApproval,
	})
}

func (w *Workspace) search(ctx context.Context, _ wisp.Call, a searchArgs) (wisp.Result, error) {
	out, err := w.grep(ctx, a)
	return result(ctx, out, err)
}

// grep is search's work.
func (w *Workspace) grep(ctx context.Context, a searchArgs) (string, error) {
	re, err := regexp.Compile(a.Pattern)
	if err != nil {
		return "", problemf("the pattern is not a regular expression Go's regexp (RE2) reads: %v", err)
	}
	// Whole files are tested first, with ^ and $ at each line; \A and \z
	// mean the start and end of each line, so a pattern with them is
	// tested line by line alone.
	var whole *regexp.Regexp
	if !strings.Contains(a.Pattern, `\A`) && !strings.Contains(a.Pattern, `\z`) {
		whole, _ = regexp.Compile("(?m:" + a.Pattern + ")")
	}
	glob := strings.TrimPrefix(a.Glob, "./")
	if glob != "" && !doublestar.ValidatePattern(glob) {
		return "", problemf("the glob %s is not one: check its [ ] and { }; use * , ?, [a-z], {a,b} and **", quote(a.Glob))
	}
	if outward(glob) {
		return "", problemf("the glob %s reaches outside the folder it is matched in, so it matches nothing; it matches paths relative to path (the workspace when path is left out), such as src/**/*.go, and nothing outside the workspace is searched", quote(a.Glob))
	}
	dir, err := w.resolve(a.Path)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	matches, files, large := 0, 0, 0
	more := false
	cut, err := w.walk(ctx, dir, false, func(p string, d fs.DirEntry) error {
		if !d.Type().IsRegular() || glob != "" && !doublestar.MatchUnvalidated(glob, relTo(dir, p)) {
			return nil
		}
		if info, err := d.Info(); err != nil || info.Size() > MaxSearchFileBytes {
			if err == nil {
				large++
			}
			return nil
		}
		data, err := w.root.ReadFile(filepath.FromSlash(p))
		if err != nil || len(data) > MaxSearchFileBytes || walk.Binary(data) {
			return nil
		}
		v := newView(string(data), 1, w.redact)
		if whole != nil && !whole.MatchString(v.red) {
			return nil
		}
		found := false
		for _, l := range v.lines {
			text := strings.TrimSuffix(l.text, "\r")
			if !re.MatchString(text) {
				continue
			}
			if matches == MaxMatches {
				more = true
				return fs.SkipAll
			}
			matches++
			found = true
			text = strings.ToValidUTF8(text, "\uFFFD")
			if shown, c := cutLine(text, MaxMatchBytes); c {
				text = shown + "…"
			}
			fmt.Fprintf(&b, "%s:%d: %s\n", p, l.n, text)
		}
		if found {
			files++
		}
		return nil
	})
	if err != nil {
		return "", walkError(a.Path, err)
	}
	switch {
	case matches == 0:
		fmt.Fprintf(&b, "(no line matches under %s)", cmp.Or(a.Path, "the workspace"))
	case more:
		fmt.Fprintf(&b, "(the first %d matches; there are more: narrow the pattern, the path or the glob)", MaxMatches)
	default:
		fmt.Fprintf(&b, "(%d %s in %d %s)", matches, plural(matches, "match", "matches"), files, plural(files, "file", "files"))
	}
	if large > 0 {
		fmt.Fprintf(&b, "\n(%d %s larger than %d MiB not searched)", large, plural(large, "file", "files"), MaxSearchFileBytes>>20)
	}
	if cut {
		fmt.Fprintf(&b, "\n(the search stopped after %d files and folders; give a narrower path)", MaxWalked)
	}
	return w.redact(b.String()), nil
}

// plural picks the word for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
