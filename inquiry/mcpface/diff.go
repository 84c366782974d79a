package mcpface

import (
	"strings"

	"github.com/wisp-agent/wisp/inquiry/escape"
)

// diffText is a request's diff as the dialog's text shows it: after a
// line that says what it is, each line escaped and indented as the
// request's text is. "" for a request without one.
func diffText(diff string) string {
	if diff == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nThe change, as a diff:\n")
	for line := range strings.SplitSeq(strings.TrimSuffix(diff, "\n"), "\n") {
		b.WriteString("  " + escape.Terminal(strings.TrimSuffix(line, "\r")) + "\n")
	}
	return b.String()
}
