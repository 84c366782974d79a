package files_test

import (
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/policy/secrets"
	"github.com/wisp-agent/wisp/tools/files"
)

// The view a model reads a file through numbers its lines as the file
// does (rising, within the file's lines), and maps back to the raw text
// only spans that are the same in both, so an edit never lands on what
// the model did not see.
func FuzzView(f *testing.F) {
	f.Add("NAME=wisp\nTOKEN=ghp_FAKEabcdefghijklmnopqrstuvwxyz0123\nPORT=1\n", 3, 9)
	f.Add("a\n"+fakeKey(4)+"b\n", 0, 40)
	f.Add("x\r\ny\r\n", 1, 3)
	f.Add("", 0, 0)
	f.Add("no newline at the end", 2, 5)
	f.Fuzz(func(t *testing.T, raw string, start, length int) {
		red, numbers, rawSpan := files.NewView(raw, secrets.NewRedactor().Replace)
		lines := strings.Count(raw, "\n")
		if raw != "" && !strings.HasSuffix(raw, "\n") {
			lines++
		}
		for i, n := range numbers {
			if n < 1 || n > lines || i > 0 && n <= numbers[i-1] {
				t.Fatalf("line numbers %v of a text of %d lines", numbers, lines)
			}
		}
		if len(red) == 0 {
			return
		}
		start = (start%len(red) + len(red)) % len(red)
		end := start + (length%64+64)%64 + 1
		end = min(end, len(red))
		rs, re, ok := rawSpan(start, end)
		if ok && (rs < 0 || re > len(raw) || rs > re || raw[rs:re] != red[start:end]) {
			t.Fatalf("rawSpan(%d, %d) = %d, %d: raw %q, redacted %q", start, end, rs, re, raw[max(0, min(rs, len(raw))):max(0, min(re, len(raw)))], red[start:end])
		}
	})
}
