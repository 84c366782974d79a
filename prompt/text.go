package prompt

import (
	"strings"
	"unicode/utf8"

	"github.com/wisp-agent/wisp/inquiry/escape"
)

// Text returns s as the prompt carries text it does not write itself (an
// AGENTS.md, a remembered fact): line breaks and tabs kept, a CR LF pair
// read as a line break, and every other character that could hide or
// reorder what a person reading the prompt sees (the controls, bidi and
// invisible characters escape.Unsafe names) and every byte that is not
// valid UTF-8 written visibly, as escape.Terminal writes it (\e, \r,
// \u{202E}, \x{FF}). Backslashes are left as they are. The result is
// valid UTF-8.
func Text(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	i := plainPrefix(s)
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if unsafe(r, n) {
			b.WriteString(escape.Terminal(s[i : i+n]))
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// plainPrefix returns the length of the longest prefix of s that Text
// leaves as it is.
func plainPrefix(s string) int {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if unsafe(r, n) {
			return i
		}
		i += n
	}
	return len(s)
}

// unsafe reports whether the rune r, n bytes long, is escaped by Text.
func unsafe(r rune, n int) bool {
	if r == '\n' || r == '\t' {
		return false
	}
	return r == utf8.RuneError && n == 1 || escape.Unsafe(r)
}
