package main

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/wisp-agent/wisp/internal/version"
)

// wisp-tui --version prints the version the build recorded, as wisp
// --version does, with no terminal needed.
func TestVersion(t *testing.T) {
	var out, errs bytes.Buffer
	if err := run(context.Background(), []string{"--version"}, nil, &out, &errs); err != nil {
		t.Fatalf("run(--version) = %v", err)
	}
	if want := "wisp-tui " + version.String() + "\n"; out.String() != want || errs.Len() != 0 {
		t.Errorf("wisp-tui --version wrote %q and %q on stderr, want %q and nothing", out.String(), errs.String(), want)
	}
}

// When wisp refuses the arguments wisp-tui passed on, wisp-tui's own
// status is a usage error's, 2; any other failure of wisp is 1.
func TestExitStatus(t *testing.T) {
	e := startFake(t, "fake-wisp-fails")
	msgs := collect(t, e, func(m tea.Msg) bool { _, ok := m.(endedMsg); return ok })
	refused := msgs[len(msgs)-1].(endedMsg).err
	failed := exec.Command("sh", "-c", "exit 1").Run()
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"wisp refused its arguments", refused, 2},
		{"wisp failed", failed, 1},
		{"wisp could not be waited for", errors.New("wait: no child processes"), 1},
	}
	for _, tc := range tests {
		if got := exitStatus(tc.err); got != tc.want {
			t.Errorf("%s: exitStatus(%v) = %d, want %d", tc.name, tc.err, got, tc.want)
		}
	}
}

// sgr is a Select Graphic Rendition sequence, with its parameters.
var sgr = regexp.MustCompile(`\x1b\[([0-9;:]*)m`)

// coloured reports whether screen sets a colour: foreground, background
// or underline, in any of the 16, 256 or true-colour forms (39 and 49,
// the default colours, set none).
func coloured(screen string) bool {
	for _, m := range sgr.FindAllStringSubmatch(screen, -1) {
		for _, p := range strings.FieldsFunc(m[1], func(r rune) bool { return r == ';' || r == ':' }) {
			n, _ := strconv.Atoi(p)
			if 30 <= n && n <= 38 || 40 <= n && n <= 48 || n == 58 || 90 <= n && n <= 97 || 100 <= n && n <= 107 {
				return true
			}
		}
	}
	return false
}

// With NO_COLOR set to any value but the empty one, wisp-tui draws no colour: the question's box keeps
// its border, without its cyan. Without it, the same box is coloured.
func TestTmuxNoColor(t *testing.T) {
	for _, tc := range []struct {
		env        []string
		wantColour bool
	}{
		{[]string{"NO_COLOR=1"}, false},
		{[]string{"NO_COLOR=yes"}, false},
		{nil, true},
	} {
		env := append([]string{"WISP_TUI_TEST_AS=wisp-tui", "WISP_TUI_TEST_ENGINE=fake-wisp", "TERM=xterm-256color"}, tc.env...)
		tm := startTmux(t, env, self(t), "--wisp", self(t), "--model", "fake")
		tm.waitFor("wisp-tui · chat --json --model fake")
		tm.typeText("Go on")
		tm.keys("Enter")
		tm.waitFor("? the model asks", "Which one?")
		styled := tm.run("capture-pane", "-p", "-e", "-t", "tui")
		if got := coloured(styled); got != tc.wantColour {
			t.Errorf("with %q, the screen has colour: %v, want %v:\n%q", tc.env, got, tc.wantColour, styled)
		}
		pastGuard()
		tm.keys("Enter")
		tm.waitFor("Using it.")
		tm.keys("C-d")
		tm.waitFor("wisp-tui exited with status 0")
	}
}

// A flag wisp does not know, passed on by wisp-tui, ends wisp-tui with
// wisp's usage error and exit status 2.
func TestTmuxUsageError(t *testing.T) {
	tm := startTmux(t, []string{"WISP_TUI_TEST_AS=wisp-tui", "WISP_TUI_TEST_ENGINE=fake-wisp-fails"},
		self(t), "--wisp", self(t), "--bogus")
	tm.waitFor("wisp: no model given; pass --model", "wisp-tui exited with status 2")
}
