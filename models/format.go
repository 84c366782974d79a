package models

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/wisp-agent/wisp"
)

// FormatListing writes a page of the listing as the person and the model
// read it: a line per model (the name, * for this conversation's, the
// runtime, parameters, size, context, enabled or disabled, capabilities),
// a model that cannot be used followed by why, a backend that did not
// answer in parentheses, and the footer when there are more pages.
func FormatListing(l wisp.Listing, current string) string {
	var b strings.Builder
	if len(l.Models) == 0 {
		b.WriteString("no models\n")
	}
	for _, m := range l.Models {
		mark := " "
		if m.Name == current {
			mark = "*"
		}
		fields := []string{mark + " " + m.Name, m.Runtime, or(m.Parameters, "?"), Size(m.Size), contextLine(m.Context), enabled(m.Enabled), capabilities(m.Capabilities)}
		b.WriteString(strings.Join(fields, "  "))
		b.WriteString("\n")
		if !m.Usable && m.Why != "" {
			b.WriteString("    cannot be used: " + m.Why + "\n")
		}
	}
	for _, u := range l.Unreachable {
		b.WriteString("(" + u + ")\n")
	}
	if l.Pages > 1 {
		if l.Page < l.Pages {
			fmt.Fprintf(&b, "page %d of %d; list with page %d for more\n", l.Page, l.Pages, l.Page+1)
		} else {
			fmt.Fprintf(&b, "page %d of %d\n", l.Page, l.Pages)
		}
	}
	return b.String()
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
		"context: " + contextLine(m.Context),
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

func contextLine(n int) string {
	if n <= 0 {
		return "context unknown"
	}
	return groupThousands(n) + " context"
}

func groupThousands(n int) string {
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
