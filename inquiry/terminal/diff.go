package terminal

import (
	"strings"

	"github.com/wisp-agent/wisp/inquiry/escape"
)

// The colours of a diff's lines (Options.Color): SGR sequences, each row
// reset at its end.
const (
	colorRemoved = "\x1b[31m" // red
	colorAdded   = "\x1b[32m" // green
	colorHunk    = "\x1b[36m" // cyan
	colorHeader  = "\x1b[1m"  // bold
	colorReset   = "\x1b[0m"
)

// tabWidth is how many blanks a tab stands for in a file's lines and a
// tool's, as a diff and a tool's result show them.
const tabWidth = 4

// fileLine is a line of a file or of what a tool printed, escaped for the
// terminal with its tabs as blanks: a tab is layout there, where
// escape.Terminal would show it as \t.
func fileLine(line string) string {
	return escape.Terminal(strings.ReplaceAll(line, "\t", strings.Repeat(" ", tabWidth)))
}

// Diff returns a request's diff (wisp.ApprovalRequest.Diff), the
// model's words and the file's, as the approval's frame shows it: each
// line with its tabs as blanks, escaped and wrapped to width as Quote
// does, so that no row starts at the left edge; with color, removed
// lines red, added lines green, hunk headers cyan and the file names
// bold. The colours are wisp's own: escaping has taken every control
// character out of the text. "" for no diff.
func Diff(diff string, width int, color bool) string {
	if diff == "" {
		return ""
	}
	var b strings.Builder
	for line := range strings.SplitSeq(strings.TrimSuffix(diff, "\n"), "\n") {
		line = strings.TrimSuffix(line, "\r")
		shown := rows("", fileLine(line), width)
		c := ""
		if color {
			c = lineColor(line)
		}
		if c == "" {
			b.WriteString(shown)
			continue
		}
		for row := range strings.SplitSeq(strings.TrimSuffix(shown, "\n"), "\n") {
			b.WriteString(Indent + c + strings.TrimPrefix(row, Indent) + colorReset + "\n")
		}
	}
	return b.String()
}

// lineColor is the colour of a diff's line, "" for none.
func lineColor(line string) string {
	switch {
	case strings.HasPrefix(line, "+++ "), strings.HasPrefix(line, "--- "):
		return colorHeader
	case strings.HasPrefix(line, "@@"):
		return colorHunk
	case strings.HasPrefix(line, "+"):
		return colorAdded
	case strings.HasPrefix(line, "-"):
		return colorRemoved
	}
	return ""
}
