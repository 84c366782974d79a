package fsx

import (
	"path/filepath"
	"strconv"
	"strings"
)

// HomeName is how a line meant for a model writes the wisp home.
const HomeName = "$WISP_HOME"

// HideHome returns s with every mention of the folder home, the wisp
// home, written as HomeName: "/home/ann/.wisp/threads/x.json" becomes
// "$WISP_HOME/threads/x.json". A line a model reads (a tool's result, a
// notice, an MCP caller's error) names wisp's files that way, never by
// where this machine keeps them. The home is matched whole, as written
// and as strconv.Quote writes it inside a quoted path, and only where it
// stands as a path of its own (not "/home/ann/.wisp2"). An empty or
// relative home changes nothing.
func HideHome(s, home string) string {
	if home == "" || !filepath.IsAbs(home) {
		return s
	}
	home = filepath.Clean(home)
	if home == string(filepath.Separator) {
		return s
	}
	s = hide(s, home)
	if q := strconv.Quote(home); q[1:len(q)-1] != home {
		s = hide(s, q[1:len(q)-1])
	}
	return s
}

// hide replaces each whole-path occurrence of home in s by HomeName.
func hide(s, home string) string {
	var b strings.Builder
	done := 0 // s[:done] is written to b
	for from := 0; ; {
		i := strings.Index(s[from:], home)
		if i < 0 {
			break
		}
		i += from
		end := i + len(home)
		if (i > 0 && pathByte(s[i-1])) || (end < len(s) && pathByte(s[end]) && s[end] != '/') {
			from = i + 1 // a longer path that holds home's text
			continue
		}
		b.WriteString(s[done:i])
		b.WriteString(HomeName)
		done, from = end, end
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// pathByte reports whether c can go on a path's name on either side of
// the home: letters, digits, the punctuation file names commonly carry,
// bytes of other scripts, and '/'.
func pathByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		strings.IndexByte("._-+~@%/", c) >= 0 || c >= 0x80
}
