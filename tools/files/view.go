package files

import (
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// A view is a text as the model may see it: redacted, line by line, each
// line with the number of the line of the text it stands for. A
// credential that spans lines (a private key) is one marker on one line,
// and the numbers of the lines it took are skipped, so every number the
// model reads is the file's own.
type view struct {
	red       string   // the redacted text
	lines     []vline  // its lines
	redStarts []int    // where each line starts in red
	raw       []string // the raw text's lines, without "\n"
	rawStarts []int    // where each starts in the raw text
}

// A vline is one line of a view.
type vline struct {
	n    int    // the number of the raw line it starts on
	text string // redacted, without its "\n" (a "\r" before it stays)
	raw  int    // the index of the one raw line it stands for; -1 when it stands for several
}

// newView redacts raw, whose first line is number first, and lines the
// result up with raw's lines. Redaction only replaces values with
// one-line markers, so a line of the view stands for one raw line, or
// for the several a credential spanned; a line diff (go-udiff) tells
// which.
func newView(raw string, first int, redact func(string) string) *view {
	v := &view{red: redact(raw)}
	v.raw, v.rawStarts = splitLines(raw)
	var reds []string
	reds, v.redStarts = splitLines(v.red)
	v.lines = make([]vline, 0, len(reds))
	if v.red == raw {
		for i, l := range reds {
			v.lines = append(v.lines, vline{n: first + i, text: l, raw: i})
		}
		return v
	}
	ri, pos := 0, 0
	pair := func(k int) { // k lines the same in both
		for range k {
			v.lines = append(v.lines, vline{n: first + ri, text: reds[len(v.lines)], raw: ri})
			ri++
		}
	}
	for _, e := range udiff.Lines(raw, v.red) {
		pair(countLines(raw[pos:e.Start]))
		ra, rd := countLines(raw[e.Start:e.End]), countLines(e.New)
		if ra == rd {
			pair(ra)
		} else {
			for j := range rd {
				v.lines = append(v.lines, vline{n: first + ri + j, text: reds[len(v.lines)], raw: -1})
			}
			ri += ra
		}
		pos = e.End
	}
	pair(len(reds) - len(v.lines))
	return v
}

// splitLines splits s into lines without their "\n", and where each
// starts; a last line without "\n" is a line, an empty text has none.
func splitLines(s string) (lines []string, starts []int) {
	at := 0
	for at < len(s) {
		i := strings.IndexByte(s[at:], '\n')
		if i < 0 {
			lines, starts = append(lines, s[at:]), append(starts, at)
			break
		}
		lines, starts = append(lines, s[at:at+i]), append(starts, at)
		at += i + 1
	}
	return lines, starts
}

// countLines counts the lines of s as splitLines does.
func countLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// rawSpan maps the span [start, end) of the redacted text to the raw
// text. ok is false when the span reaches into what redaction changed:
// a value the model never saw, or a line that stands for several.
func (v *view) rawSpan(start, end int) (rawStart, rawEnd int, ok bool) {
	if start >= end {
		return 0, 0, false
	}
	first, last := v.lineAt(start), v.lineAt(end-1)
	for i := first; i <= last; i++ {
		l := v.lines[i]
		if l.raw < 0 {
			return 0, 0, false
		}
		// The columns of the line the span covers; len+1 takes its "\n".
		from, to := max(start-v.redStarts[i], 0), min(end-v.redStarts[i], len(l.text)+1)
		rf, rt, ok := mapColumns(l.text, v.raw[l.raw], from, to)
		if !ok {
			return 0, 0, false
		}
		if i == first {
			rawStart = v.rawStarts[l.raw] + rf
		}
		if i == last {
			rawEnd = v.rawStarts[l.raw] + rt
		}
	}
	return rawStart, rawEnd, true
}

// lineAt returns the index of the line that holds offset at of the
// redacted text (its "\n" belongs to it).
func (v *view) lineAt(at int) int {
	lo, hi := 0, len(v.redStarts)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if v.redStarts[mid] <= at {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// mapColumns maps the columns [from, to) of a redacted line to its raw
// line: as they are where the two are the same, and otherwise only
// within the part before the first difference or after the last one.
func mapColumns(red, raw string, from, to int) (int, int, bool) {
	if red == raw {
		return from, to, true
	}
	p := 0
	for p < len(red) && p < len(raw) && red[p] == raw[p] {
		p++
	}
	q := 0
	for q < len(red)-p && q < len(raw)-p && red[len(red)-1-q] == raw[len(raw)-1-q] {
		q++
	}
	switch {
	case to <= p:
		return from, to, true
	case from >= len(red)-q:
		shift := len(raw) - len(red)
		return from + shift, to + shift, true
	}
	return 0, 0, false
}
