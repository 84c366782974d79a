package prompt

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/wisp-agent/wisp/internal/fsx"
	"github.com/wisp-agent/wisp/internal/walk"
)

// The caps on the project's instructions, in bytes of the files as they
// are on disk. A local model often has a context of 8 to 32 thousand
// tokens; 32 KiB of text is about 8 thousand.
const (
	// MaxFileBytes is the most of one AGENTS.md the prompt carries.
	MaxFileBytes = 8 << 10
	// MaxProjectBytes is the most of all AGENTS.md files together.
	MaxProjectBytes = 32 << 10
)

// FileName is the name of the files that hold a project's instructions.
const FileName = "AGENTS.md"

// A Project is what ReadProject found of a project's instructions.
type Project struct {
	// Root is the repository root relative to the workspace,
	// slash-separated ("." for the workspace itself, "../.."); "" when
	// no folder at or above the workspace holds .git, and the workspace
	// alone was read.
	Root string
	// Files are the AGENTS.md files found, from the root down to the
	// workspace (nearest last). Empty files are left out.
	Files []File
}

// A File is one AGENTS.md as the prompt carries it.
type File struct {
	// Path is its path relative to the workspace, slash-separated:
	// "AGENTS.md", "../AGENTS.md".
	Path string
	// Text is what the prompt carries of it: credentials as markers,
	// control characters escaped (Text), cut at a line boundary.
	Text string
	// Omitted is how many bytes of it were cut (MaxFileBytes,
	// MaxProjectBytes); 0: none.
	Omitted int64
	// Problem says why it was not read, such as a link that leads out of
	// the repository; "" when it was read.
	Problem string
}

// ProjectOptions configure ReadProject. A nil *ProjectOptions is all
// defaults.
type ProjectOptions struct {
	// Redact replaces the credentials in each file's text with markers;
	// give the conversation's (secrets.Redactor.Replace), so that a
	// credential has the same marker in the prompt as everywhere else.
	// nil: the text is left as it is.
	Redact func(string) string
}

// ReadProject reads the project's instructions for the workspace, a
// folder: every AGENTS.md from the repository root down to the
// workspace, as the package documentation says. A file that cannot be
// read is a File with its Problem; only a workspace that cannot be used
// is an error.
func ReadProject(workspace string, opts *ProjectOptions) (Project, error) {
	var o ProjectOptions
	if opts != nil {
		o = *opts
	}
	ws, err := filepath.Abs(workspace)
	if err != nil {
		return Project{}, fmt.Errorf("workspace %s: %w", workspace, err)
	}
	if real, err := filepath.EvalSymlinks(ws); err == nil {
		ws = real
	} else {
		return Project{}, fmt.Errorf("workspace %s cannot be used: %w", workspace, fsx.Bare(err))
	}
	fi, err := os.Stat(ws)
	if err != nil {
		return Project{}, fmt.Errorf("workspace %s cannot be used: %w", workspace, fsx.Bare(err))
	}
	if !fi.IsDir() {
		return Project{}, fmt.Errorf("workspace %s is not a folder", workspace)
	}
	root, found := walk.RepositoryRoot(ws)
	p := Project{}
	if found {
		rel, _ := filepath.Rel(ws, root)
		p.Root = filepath.ToSlash(rel)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return Project{}, fmt.Errorf("repository %s cannot be read: %w", root, fsx.Bare(err))
	}
	defer r.Close()

	// The folders from the root down to the workspace, relative to the
	// root.
	below, _ := filepath.Rel(root, ws)
	dirs := []string{"."}
	if below != "." {
		parts := strings.Split(below, string(filepath.Separator))
		for i := range parts {
			dirs = append(dirs, filepath.Join(parts[:i+1]...))
		}
	}
	// The nearest file is served first from the budget; the files are
	// listed root first.
	budget := int64(MaxProjectBytes)
	files := make([]*File, len(dirs))
	for i := len(dirs) - 1; i >= 0; i-- {
		name := filepath.Join(dirs[i], FileName)
		rel, _ := filepath.Rel(ws, filepath.Join(root, name))
		f, ok := readFile(r, name, min(MaxFileBytes, budget))
		if !ok {
			continue
		}
		f.Path = filepath.ToSlash(rel)
		budget -= int64(len(f.Text))
		if o.Redact != nil {
			f.Text = o.Redact(f.Text)
		}
		f.Text = Text(f.Text)
		files[i] = &f
	}
	for _, f := range files {
		if f != nil {
			p.Files = append(p.Files, *f)
		}
	}
	return p, nil
}

// readFile reads name in r, at most limit bytes of it, cut at the last
// line break within them (or at a rune boundary when there is none). ok
// is false when there is no such file, or it is empty. The text is raw.
func readFile(r *os.Root, name string, limit int64) (f File, ok bool) {
	fh, err := r.Open(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return File{}, false
	case err != nil:
		return File{Problem: problem(err)}, true
	}
	defer fh.Close()
	fi, err := fh.Stat()
	switch {
	case err != nil:
		return File{Problem: problem(err)}, true
	case fi.IsDir():
		return File{}, false
	case !fi.Mode().IsRegular():
		return File{Problem: "not a regular file"}, true
	case fi.Size() == 0:
		return File{}, false
	}
	data, err := io.ReadAll(io.LimitReader(fh, limit+1))
	if err != nil {
		return File{Problem: problem(err)}, true
	}
	size := max(fi.Size(), int64(len(data)))
	if int64(len(data)) > limit {
		data = cut(data[:limit])
	}
	return File{Text: string(data), Omitted: size - int64(len(data))}, true
}

// cut returns data up to and with its last line break, or, with none,
// up to its last whole rune.
func cut(data []byte) []byte {
	if i := strings.LastIndexByte(string(data), '\n'); i >= 0 {
		return data[:i+1]
	}
	start := len(data) - 1 // the start of the last rune
	for start > 0 && start > len(data)-utf8.UTFMax && !utf8.RuneStart(data[start]) {
		start--
	}
	if start >= 0 && !utf8.FullRune(data[start:]) {
		return data[:start]
	}
	return data
}

// problem says in a few words why a file could not be read.
func problem(err error) string {
	if strings.Contains(err.Error(), "path escapes from parent") {
		return "it is a link that leads out of the repository, which is not followed"
	}
	return fsx.Bare(err).Error()
}
