package fsx_test

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/fsx"
)

func TestHideHome(t *testing.T) {
	const home = "/home/ann/.wisp"
	tests := []struct{ home, in, want string }{
		{home, "thread x: /home/ann/.wisp/threads/x.json is larger than 67108864 bytes", "thread x: $WISP_HOME/threads/x.json is larger than 67108864 bytes"},
		{home, "cannot link /home/ann/.wisp/models/mlx/q: it is a folder; see /home/ann/.wisp", "cannot link $WISP_HOME/models/mlx/q: it is a folder; see $WISP_HOME"},
		{home + "/", `open "/home/ann/.wisp/pending/a.question.json": permission denied`, `open "$WISP_HOME/pending/a.question.json": permission denied`},
		{home, "(/home/ann/.wisp)", "($WISP_HOME)"},
		{home, "/home/ann/.wisp2/x and /x/home/ann/.wisp/y and /home/ann/.wispy", "/home/ann/.wisp2/x and /x/home/ann/.wisp/y and /home/ann/.wispy"},
		{home, "/home/ann/.wisp/home/ann/.wisp", "$WISP_HOME/home/ann/.wisp"},
		{home, "no path here", "no path here"},
		{"/tmp/we\nird", strconv.Quote("/tmp/we\nird/threads/x.json") + " and /tmp/we\nird/audit", `"$WISP_HOME/threads/x.json" and $WISP_HOME/audit`},
		{"", "/home/ann/.wisp/x", "/home/ann/.wisp/x"},
		{".wisp", ".wisp/x", ".wisp/x"},
		{"/", "/etc/passwd", "/etc/passwd"},
	}
	for _, tc := range tests {
		if got := fsx.HideHome(tc.in, tc.home); got != tc.want {
			t.Errorf("HideHome(%q, %q) = %q, want %q", tc.in, tc.home, got, tc.want)
		}
	}
}

// FuzzHideHome: whatever the text and the home, HideHome does not panic,
// leaves a text without the home's text as it is, and is done in one
// pass: hiding again changes nothing.
func FuzzHideHome(f *testing.F) {
	f.Add("thread x: /h/.wisp/threads/x.json is damaged", "/h/.wisp")
	f.Add("/h/.wisp/h/.wisp//h/.wisp", "/h/.wisp")
	f.Add(`"/t/a\tb/x"`, "/t/a\tb")
	f.Add("/a)/a)", "/a)")
	f.Fuzz(func(t *testing.T, s, home string) {
		got := fsx.HideHome(s, home)
		clean := filepath.Clean(home)
		quoted := strconv.Quote(clean)
		if !strings.Contains(s, clean) && !strings.Contains(s, quoted[1:len(quoted)-1]) && got != s {
			t.Errorf("HideHome(%q, %q) = %q, changed a text without the home", s, home, got)
		}
		if strings.Contains(home, "$") {
			return
		}
		if again := fsx.HideHome(got, home); again != got {
			t.Errorf("HideHome(%q, %q) = %q, and again %q", s, home, got, again)
		}
	})
}
