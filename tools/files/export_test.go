package files

import (
	"os"

	"github.com/wisp-agent/wisp/internal/fsx"
)

// FailWrites makes every write of edit_file fail with err until the
// returned function is called.
func FailWrites(err error) (restore func()) {
	writeFile = func(*os.Root, string, []byte, os.FileMode) error { return err }
	return func() { writeFile = fsx.WriteFileIn }
}

// NewView exposes the redacted view to the fuzz target.
func NewView(raw string, redact func(string) string) (red string, numbers []int, rawSpan func(start, end int) (int, int, bool)) {
	v := newView(raw, 1, redact)
	for _, l := range v.lines {
		numbers = append(numbers, l.n)
	}
	return v.red, numbers, v.rawSpan
}
