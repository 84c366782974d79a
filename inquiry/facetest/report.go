package facetest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/inquiry/escape"
)

// errorf reports a failure as t.Errorf does, with its text made safe by
// safeText: a face that fails the suite cannot clear, retitle or rewrite
// the terminal of the developer who runs it.
func errorf(t *testing.T, format string, args ...any) {
	t.Helper()
	t.Error(safeText(fmt.Sprintf(format, args...)))
}

// fatalf is errorf, then t.FailNow.
func fatalf(t *testing.T, format string, args ...any) {
	t.Helper()
	t.Fatal(safeText(fmt.Sprintf(format, args...)))
}

// safeText returns s with each line that holds a raw control or invisible
// character (a face's screen, the model's words as a face passed them on)
// escaped by escape.Terminal. Clean lines, such as quoted strings and
// diffs, are left as they are.
func safeText(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if !escape.Clean(l) {
			lines[i] = escape.Terminal(l)
		}
	}
	return strings.Join(lines, "\n")
}
