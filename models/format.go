package models

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/wisp-agent/wisp"
)

// FormatListing writes a page of the listing as the person and the model
// read it: a line per model (the name, * for this conversation's, the
// runtime, parameters, size, context, enabled or disabled, capabilities),
// a model that cannot be used followed by why, a backend that did not
// answer in parentheses, and the footer when there are more pages. A page
// that List made fits MaxReply, footer included.
func FormatListing(l wisp.Listing, current string) string {
	var b strings.Builder
	if len(l.Models) == 0 {
		b.WriteString("no models\n")
	}
	for _, m := range l.Models {
		b.WriteString(entry(m, current))
	}
	b.WriteString(unreachable(l.Unreachable))
	if l.Pages > 1 {
		b.WriteString(footer(l.Page, l.Pages))
	}
	return b.String()
}

// The bounds that let every page of the listing, footer and all, fit
// MaxReply: one model's lines are cut at maxEntry bytes, and the lines for
// backends that did not answer at maxUnreachable, so that a page always
// has room for at least one model.
const (
	maxEntry       = 1024
	maxUnreachable = 1024
)

// entry writes one model's lines: the model line and, for a model that
// cannot be used, why. The mark takes one column either way, so its size
// does not depend on current.
func entry(m wisp.ModelInfo, current string) string {
	mark := " "
	if m.Name == current {
		mark = "*"
	}
	fields := []string{mark + " " + m.Name, m.Runtime, or(m.Parameters, "?"), Size(m.Size), contextField(m), enabled(m.Enabled), capabilities(m.Capabilities)}
	s := strings.Join(fields, "  ") + "\n"
	if !m.Usable && m.Why != "" {
		s += "    cannot be used: " + m.Why + "\n"
	}
	return cutLines(s, maxEntry)
}

// unreachable writes a line in parentheses for each backend that did not
// answer, each cut at a quarter of maxUnreachable; past four backends, the
// rest are counted on a line of their own.
func unreachable(us []string) string {
	const shown = 3
	var b strings.Builder
	for i, u := range us {
		if i == shown && len(us) > shown+1 {
			fmt.Fprintf(&b, "(%d more backends did not answer)\n", len(us)-shown)
			break
		}
		b.WriteString(cutLines("("+u+")\n", maxUnreachable/4))
	}
	return b.String()
}

// footer is the last line of a page when there are several.
func footer(page, pages int) string {
	if page < pages {
		return fmt.Sprintf("page %d of %d; list with page %d for more\n", page, pages, page+1)
	}
	return fmt.Sprintf("page %d of %d\n", page, pages)
}

// cutLines cuts s, lines ending in a newline, to at most n bytes, at a
// character's end, ending it with "…" and a newline when it cuts.
func cutLines(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const more = "…\n"
	i := n - len(more)
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + more
}

// pageBounds splits ms, in order, into the pages of the listing: at most
// PageSize models a page, and no more than fit MaxReply with the lines for
// the backends that did not answer and the footer. Each bound is the index
// one past a page's last model; there is always at least one page.
func pageBounds(ms []wisp.ModelInfo, us []string) []int {
	n := max(len(ms), 1)
	room := MaxReply - len(unreachable(us)) - len(footer(n-1, n))
	var bounds []int
	count, used := 0, 0
	for i, m := range ms {
		size := len(entry(m, ""))
		if count == PageSize || (count > 0 && used+size > room) {
			bounds = append(bounds, i)
			count, used = 0, 0
		}
		count++
		used += size
	}
	return append(bounds, len(ms))
}

// FormatInfo writes every fact of a model, a line each, and whether it is
// usable.
func FormatInfo(m wisp.ModelInfo) string {
	lines := []string{
		"name: " + m.Name,
		"runtime: " + m.Runtime,
		"parameters: " + or(m.Parameters, "unknown"),
		"quantization: " + or(m.Quantization, "unknown"),
		"size: " + Size(m.Size),
		"context: " + tokens(m.Context),
		"context in use: " + inUse(m),
		"state: " + enabled(m.Enabled),
		"capabilities: " + capabilities(m.Capabilities),
	}
	if m.Repo != "" {
		lines = append(lines, "repository: "+m.Repo)
	}
	if m.Licence != "" {
		lines = append(lines, "licence: "+m.Licence)
	}
	if m.Usable {
		lines = append(lines, "usable: yes")
	} else {
		lines = append(lines, "usable: no: "+or(m.Why, "unknown"))
	}
	return strings.Join(lines, "\n") + "\n"
}

// FormatChange writes what an enable, disable or check did.
func FormatChange(c wisp.Change) string { return strings.Join(c.Lines, "\n") + "\n" }

// Size writes a byte count in decimal units, as "2.3 GB".
func Size(n int64) string {
	const unit = 1000
	switch {
	case n <= 0:
		return "size unknown"
	case n < unit:
		return strconv.FormatInt(n, 10) + " B"
	}
	f := float64(n)
	for _, u := range []string{"kB", "MB", "GB", "TB"} {
		f /= unit
		if f < unit || u == "TB" {
			return strconv.FormatFloat(f, 'f', 1, 64) + " " + u
		}
	}
	return ""
}

// contextField is the listing's context: the most the model takes
// ("max") and, when known, what it runs with ("in use").
func contextField(m wisp.ModelInfo) string {
	switch {
	case m.Context > 0 && m.RunContext > 0:
		return "context " + Thousands(m.Context) + " max, " + Thousands(m.RunContext) + " in use"
	case m.Context > 0:
		return "context " + Thousands(m.Context) + " max"
	case m.RunContext > 0:
		return "context " + Thousands(m.RunContext) + " in use"
	}
	return "context unknown"
}

// tokens writes a count of tokens, or "unknown".
func tokens(n int) string {
	if n <= 0 {
		return "unknown"
	}
	return Thousands(n)
}

// inUse says what context the model runs with.
func inUse(m wisp.ModelInfo) string {
	if m.RunContext > 0 {
		return Thousands(m.RunContext)
	}
	return "the server's own default, known once it has loaded the model"
}

// Thousands writes n with a comma between each group of three digits, as
// the listing writes a context length: 40,960.
func Thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func enabled(on bool) string {
	if on {
		return "enabled"
	}
	return "disabled"
}

func capabilities(cs []string) string {
	if len(cs) == 0 {
		return "capabilities undeclared"
	}
	return strings.Join(cs, ", ")
}

func or(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// Clip cuts a reply to MaxReply bytes at a line end, saying so.
func Clip(s string) string {
	if len(s) <= MaxReply {
		return s
	}
	const note = "… (cut at 4 KiB)\n"
	cut := s[:MaxReply-len(note)]
	if i := strings.LastIndexByte(cut, '\n'); i > 0 {
		cut = cut[:i+1]
	}
	return cut + note
}
