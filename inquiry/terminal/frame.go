package terminal

import (
	"io"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/term"
	"golang.org/x/text/width"

	"github.com/wisp-agent/wisp/inquiry/escape"
)

// Indent is how far every row of the model's words stands in from the
// left edge, in every frame the face draws (a question, its options, a
// card, an approval request). wisp's own lines (the labels, the prompts)
// start at the edge, so no word of the model's can line up with them: a
// question whose text copies "! wisp asks your approval" shows inside the
// question's frame, never as wisp's header.
const Indent = "  "

// minColumns is the fewest columns a row of the model's words is wrapped
// to, however narrow the terminal.
const minColumns = 8

// Quote returns text, the model's, as the face shows it in a frame:
// escaped (escape.Terminal), led by Indent and then lead (wisp's own, such
// as an option's number), and wrapped so that no row is wider than width
// columns, every further row led by Indent and blanks as wide as lead.
// The terminal therefore never wraps a row itself, and no row of the
// model's starts at the left edge. A width of 0 or less does not wrap.
// The result ends with a newline.
func Quote(lead, text string, width int) string {
	return rows(lead, escape.Terminal(text), width)
}

// rows is Quote for text already escaped.
func rows(lead, text string, width int) string {
	first := Indent + lead
	rest := Indent + strings.Repeat(" ", columns(lead))
	room := 0
	if width > 0 {
		room = max(width-columns(first), minColumns)
	}
	var b strings.Builder
	for i, row := range wrap(text, room) {
		if i == 0 {
			b.WriteString(first)
		} else {
			b.WriteString(rest)
		}
		b.WriteString(row)
		b.WriteString("\n")
	}
	return b.String()
}

// wrap cuts s into rows of at most room columns, after the last blank
// that fits when there is one (the blank is dropped), and otherwise
// between two characters. A room of 0 or less does not wrap.
func wrap(s string, room int) []string {
	if room <= 0 {
		return []string{s}
	}
	var out []string
	for {
		w, blank, i := 0, -1, 0
		for i < len(s) {
			r, n := utf8.DecodeRuneInString(s[i:])
			rw := runeColumns(r)
			if w+rw > room {
				break
			}
			if r == ' ' && i > 0 {
				blank = i
			}
			w += rw
			i += n
		}
		if i >= len(s) {
			return append(out, s)
		}
		cut, next := i, i
		switch {
		case blank > 0:
			cut, next = blank, blank+1
		case i == 0:
			// One character wider than the room: it takes a row.
			_, n := utf8.DecodeRuneInString(s)
			cut, next = n, n
		}
		out = append(out, s[:cut])
		s = s[next:]
	}
}

// columns is how many columns s takes on a terminal.
func columns(s string) int {
	n := 0
	for _, r := range s {
		n += runeColumns(r)
	}
	return n
}

// runeColumns is how many columns r takes: 2 for wide and full-width
// characters, 0 for combining marks, 1 otherwise. Text through
// escape.Terminal holds no controls or invisible characters.
func runeColumns(r rune) int {
	switch {
	case unicode.In(r, unicode.Mn, unicode.Me):
		return 0
	case r < 0x1100:
		return 1
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

// Width returns the columns of the terminal w writes to, or 0 when w is
// not a terminal or its size cannot be told.
func Width(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0
	}
	cols, _, err := term.GetSize(int(f.Fd()))
	if err != nil || cols <= 0 {
		return 0
	}
	return cols
}
