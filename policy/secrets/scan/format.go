package scan

import (
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/wisp-agent/wisp/inquiry/escape"
	"github.com/wisp-agent/wisp/internal/plural"
)

// Table returns the report as wisp scan prints it at a terminal: a row
// per finding under a header (FILE, LINE, COLUMN, RULE, MARKER), its
// columns aligned, then the summary (Summary) and a line for each file
// that was not scanned. File names are escaped for a terminal
// (escape.Terminal).
func (r *Report) Table() string {
	var b strings.Builder
	if len(r.Findings) > 0 {
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "FILE\tLINE\tCOLUMN\tRULE\tMARKER")
		for _, f := range r.Findings {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\n", escape.Terminal(f.File), f.Line, f.Column, f.Rule, f.Marker)
		}
		tw.Flush()
	}
	b.WriteString(r.Summary() + "\n")
	for _, s := range r.Skipped {
		b.WriteString(escape.Terminal(s.File) + ": " + r.why(s) + "\n")
	}
	return b.String()
}

// Summary says in one line what the scan found and what it read:
// "2 credentials in 1 file; 120 files scanned (1.2 MiB); 3 binary files
// left out". The lines that name the files not scanned, and a walk
// that stopped, follow it after a newline.
func (r *Report) Summary() string {
	files := map[string]bool{}
	for _, f := range r.Findings {
		files[f.File] = true
	}
	s := plural.Count(len(r.Findings), "credential")
	if len(files) > 0 {
		s += " in " + plural.Count(len(files), "file")
	}
	s += "; " + plural.Count(r.Files, "file") + " scanned (" + size(r.Bytes) + ")"
	if r.Binary > 0 {
		s += "; " + plural.Count(r.Binary, "binary file") + " left out"
	}
	if n := len(r.Skipped); n > 0 {
		s += "; " + plural.Count(n, "file") + " not scanned"
	}
	if r.Cut {
		s += "; the walk stopped early: name a narrower path"
	}
	return s
}

// why says why a file was not scanned.
func (r *Report) why(s Skipped) string {
	if s.Reason == ReasonTooLarge {
		return "not scanned: larger than " + size(r.MaxFileBytes)
	}
	return "not scanned: it could not be read"
}

// Skips returns a line for each file the scan left out but for binary
// files, as Table writes them after the summary: "big.log: not scanned:
// larger than 32 MiB". File names are as given, not escaped.
func (r *Report) Skips() []string {
	var lines []string
	for _, s := range r.Skipped {
		lines = append(lines, s.File+": "+r.why(s))
	}
	return lines
}

// JSON returns the report as one line of JSON, as wisp scan --json
// writes it, with every character unsafe on a terminal written as a \u
// escape (escape.Marshal): {"findings": [...], "files": N, "bytes": N,
// "binary": N, "skipped": [...], "cut": false, "maxFileBytes": N}, the
// lists empty rather than null.
func (r *Report) JSON() ([]byte, error) {
	out := *r
	if out.Findings == nil {
		out.Findings = []Finding{}
	}
	if out.Skipped == nil {
		out.Skipped = []Skipped{}
	}
	return escape.Marshal(out)
}

// size writes a count of bytes for a person: "512 B", "1.5 KiB",
// "32 MiB", "1.2 GiB".
func size(n int64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	v, i := float64(n), -1
	for v >= unit && i < 2 {
		v /= unit
		i++
	}
	s := strconv.FormatFloat(v, 'f', 1, 64)
	s = strings.TrimSuffix(s, ".0")
	return s + " " + [...]string{"KiB", "MiB", "GiB"}[i]
}
