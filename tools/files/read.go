package files

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/internal/walk"
	"github.com/wisp-agent/wisp/tools"
)

// Limits of read_file.
const (
	// DefaultReadLines is how many lines read_file shows when the call
	// gives no limit; MaxReadLines is the most a call may ask for.
	DefaultReadLines = 400
	MaxReadLines     = 2000
	// MaxReadBytes bounds the lines read_file shows in one call; past it
	// the call ends early and says where to read on.
	MaxReadBytes = 32 << 10
	// MaxLineBytes bounds one line as the tools show it; a longer line
	// is cut and ends in "…".
	MaxLineBytes = 2000
	// contextLines and contextBytes bound the lines before offset that
	// are redacted with the lines shown, so that a credential that began
	// above them (a private key) is still found.
	contextLines = 512
	contextBytes = 64 << 10
	// keepBytes is how much of one line is read: more than is shown, so
	// that a credential cut where the line is cut is found whole.
	keepBytes = MaxLineBytes + 4<<10
	// maxPathBytes bounds a path in the arguments.
	maxPathBytes = 4 << 10
)

//go:embed read_file.md
var readDescription string

type readArgs struct {
	Path   string `json:"path" jsonschema:"The file, relative to the workspace"`
	Offset int    `json:"offset,omitempty" jsonschema:"The first line to show, from 1 (default 1)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"How many lines to show (default 400, at most 2000)"`
}

// ReadFile returns the read_file tool: a text file's lines, numbered, in
// a window (offset, limit) within DefaultReadLines, MaxReadBytes and
// MaxLineBytes, with a closing line that says what was left out and
// where to read on. A binary file (a NUL byte in its first 8,000 bytes)
// is refused in one line. Its calls change nothing (tools.NoApproval).
func (w *Workspace) ReadFile() wisp.Tool {
	return tools.New(NameReadFile, readDescription, w.readFile, &tools.Options{
		Schema: func(s *jsonschema.Schema) {
			pathLimits(s.Properties["path"], true)
			s.Properties["offset"].Minimum = jsonschema.Ptr(1.0)
			s.Properties["limit"].Minimum = jsonschema.Ptr(1.0)
			s.Properties["limit"].Maximum = jsonschema.Ptr(float64(MaxReadLines))
		},
		Summary: summary(func(a readArgs) string { return "reads " + a.Path }),
		Action:  tools.NoApproval,
	})
}

// pathLimits bounds a path property.
func pathLimits(s *jsonschema.Schema, required bool) {
	if required {
		s.MinLength = jsonschema.Ptr(1)
	}
	s.MaxLength = jsonschema.Ptr(maxPathBytes)
}

// summary makes a tools.Options.Summary from the decoded arguments; the
// arguments have not been checked, so a summary of what does not decode
// is the tool's name.
func summary[Args any](f func(Args) string) func(json.RawMessage) string {
	return func(raw json.RawMessage) string {
		var a Args
		if json.Unmarshal(raw, &a) != nil {
			return "a call"
		}
		s := f(a)
		if len(s) > 120 {
			s, _ = cutLine(s, 120)
			s += "…"
		}
		return s
	}
}

// result turns what a tool did into the model's result: a problem, or
// any other failure of the file system, is an error the model reads; a
// cancelled context ends the turn.
func result(ctx context.Context, content string, err error) (wisp.Result, error) {
	switch {
	case ctx.Err() != nil:
		return wisp.Result{}, context.Cause(ctx)
	case err != nil:
		return wisp.ErrorResult(err.Error()), nil
	}
	return wisp.Result{Content: content}, nil
}

func (w *Workspace) readFile(ctx context.Context, _ wisp.Call, a readArgs) (wisp.Result, error) {
	out, err := w.read(a)
	return result(ctx, out, err)
}

// read is read_file's work.
func (w *Workspace) read(a readArgs) (string, error) {
	offset, limit := max(a.Offset, 1), a.Limit
	if limit <= 0 {
		limit = DefaultReadLines
	}
	real, err := w.resolve(a.Path)
	if err != nil {
		return "", err
	}
	f, err := w.root.Open(filepath.FromSlash(real))
	if err != nil {
		return "", problemf("%s: %s", quote(a.Path), pathError(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return "", problemf("%s: %s", quote(a.Path), pathError(err))
	case fi.IsDir():
		return "", problemf("%s is a folder; list it with list_files", quote(a.Path))
	case !fi.Mode().IsRegular():
		return "", problemf("%s is not a regular file (%s); read_file reads files", quote(a.Path), fileKind(fi.Mode()))
	}
	br := bufio.NewReaderSize(f, 64<<10)
	if head, _ := br.Peek(walk.SniffBytes); walk.Binary(head) {
		return "", problemf("%s is a binary file (%d bytes); read_file shows text only", quote(a.Path), fi.Size())
	}

	// Read up to the window, keeping the lines just above it, then the
	// window itself, within the limits.
	var before []string
	beforeBytes, n := 0, 0
	var window []string
	var long []bool
	shown, more := 0, false
	for {
		line, isLong, ok, err := readLine(br, keepBytes)
		if err != nil {
			return "", problemf("%s: %s", quote(a.Path), pathError(err))
		}
		if !ok {
			break
		}
		n++
		if n < offset {
			before = append(before, line)
			beforeBytes += len(line) + 1
			for len(before) > contextLines || beforeBytes > contextBytes && len(before) > 1 {
				beforeBytes -= len(before[0]) + 1
				before = before[1:]
			}
			continue
		}
		if len(window) == limit || shown+min(len(line), MaxLineBytes)+8 > MaxReadBytes && len(window) > 0 {
			more = true
			break
		}
		window = append(window, line)
		long = append(long, isLong)
		shown += min(len(line), MaxLineBytes) + 8
	}
	if len(window) == 0 {
		if n == 0 {
			return fmt.Sprintf("(%s is empty)", a.Path), nil
		}
		return "", problemf("offset %d is past the end of %s, which has %s", offset, quote(a.Path), lines(n))
	}

	first := offset - len(before)
	raw := strings.Join(append(before, window...), "\n") + "\n"
	v := newView(raw, first, w.redact)
	var b strings.Builder
	var cut, crlf, invalid bool
	last := offset
	for i, l := range v.lines {
		// A line stands in the window when it starts there, or when it is
		// a credential that began above and reaches into it.
		ends := offset + len(window) - 1
		if i+1 < len(v.lines) {
			ends = v.lines[i+1].n - 1
		}
		if ends < offset {
			continue
		}
		text := l.text
		if strings.HasSuffix(text, "\r") {
			text, crlf = text[:len(text)-1], true
		}
		if !utf8.ValidString(text) {
			text, invalid = strings.ToValidUTF8(text, "\uFFFD"), true
		}
		text, c := cutLine(text, MaxLineBytes)
		if c || l.raw >= 0 && l.raw >= len(before) && long[l.raw-len(before)] {
			text += "…"
			cut = true
		}
		fmt.Fprintf(&b, "%d\t%s\n", max(l.n, offset), text)
		last = ends
	}
	switch {
	case more && len(window) < limit:
		fmt.Fprintf(&b, "(lines %d–%d of %s shown, as much as one call shows; read on with offset=%d)", offset, last, a.Path, last+1)
	case more:
		fmt.Fprintf(&b, "(lines %d–%d of %s shown; more follows: read on with offset=%d)", offset, last, a.Path, last+1)
	case offset == 1:
		fmt.Fprintf(&b, "(end of %s, %s)", a.Path, lines(last))
	default:
		fmt.Fprintf(&b, "(lines %d–%d; end of %s, %s)", offset, last, a.Path, lines(last))
	}
	if cut {
		fmt.Fprintf(&b, "\n(lines longer than %d bytes are cut, ending in …)", MaxLineBytes)
	}
	if crlf {
		b.WriteString("\n(the file ends its lines with CRLF; edit_file keeps them)")
	}
	if invalid {
		b.WriteString("\n(bytes that are not UTF-8 are shown as \uFFFD)")
	}
	return w.redact(b.String()), nil
}

// fileKind names what a file that is not a regular one is.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a file"
}
