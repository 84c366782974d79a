package cmdline_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/internal/cmdline"
)

func TestExit(t *testing.T) {
	stopped, stop := context.WithCancelCause(context.Background())
	stop(wisp.ErrInterrupted)
	tests := []struct {
		name        string
		interrupted bool
		err         error
		want        int
		said        string
	}{
		{"success", false, nil, 0, ""},
		{"a failure", false, errors.New("the model is not  answering\nat all"), cmdline.ExitFailure, "tool: the model is not answering at all\n"},
		{"a usage error", false, cmdline.Usagef("--page takes %s", "a number"), cmdline.ExitUsage, "tool: --page takes a number\n"},
		{"a usage error wrapped", false, fmt.Errorf("list: %w", &cmdline.UsageError{Err: errors.New("no page 9"), Hint: "Try page 1."}), cmdline.ExitUsage, "tool: list: no page 9\nTry page 1.\n"},
		{"cobra's usage error", false, errors.New(`unknown flag: --nope`), cmdline.ExitUsage, "tool: unknown flag: --nope\n"},
		{"an exit status", false, &cmdline.ExitError{Code: 1}, 1, ""},
		{"an exit status wrapped", false, fmt.Errorf("check: %w", &cmdline.ExitError{Code: 3}), 3, ""},
		{"Ctrl-C at a prompt", false, &cmdline.ExitError{Code: cmdline.ExitInterrupted}, cmdline.ExitInterrupted, ""},
		{"Ctrl-C, nothing said", true, nil, cmdline.ExitInterrupted, ""},
		{"Ctrl-C cancelled the command", true, fmt.Errorf("pull: %w", context.Canceled), cmdline.ExitInterrupted, "tool: stopped\n"},
		{"Ctrl-C ended a turn", true, fmt.Errorf("turn: %w", wisp.ErrInterrupted), cmdline.ExitInterrupted, "tool: turn: the person stopped the turn\n"},
		{"the turn says so", false, fmt.Errorf("turn: %w", wisp.ErrInterrupted), cmdline.ExitInterrupted, "tool: turn: the person stopped the turn\n"},
		{"Ctrl-C over a usage error", true, cmdline.Usagef("bad"), cmdline.ExitInterrupted, "tool: bad\n"},
	}
	for _, tc := range tests {
		ctx := context.Background()
		if tc.interrupted {
			ctx = stopped
		}
		var w bytes.Buffer
		got := cmdline.Exit(ctx, &w, tc.err, &cmdline.ExitOptions{Name: "tool"})
		if got != tc.want || w.String() != tc.said {
			t.Errorf("%s: Exit(%v) = %d, said %q; want %d, said %q", tc.name, tc.err, got, w.String(), tc.want, tc.said)
		}
	}
}

// Line says each error, and a nil *ExitOptions names nothing.
func TestExitLine(t *testing.T) {
	var w bytes.Buffer
	upper := func(err error) string { return strings.ToUpper(err.Error()) }
	if got := cmdline.Exit(context.Background(), &w, errors.New("token ghp_x"), &cmdline.ExitOptions{Name: "tool", Line: upper}); got != 1 || w.String() != "tool: TOKEN GHP_X\n" {
		t.Errorf("Exit with Line = %d, said %q; want 1, said %q", got, w.String(), "tool: TOKEN GHP_X\n")
	}
	w.Reset()
	if got := cmdline.Exit(context.Background(), &w, errors.New("no model"), nil); got != 1 || w.String() != "no model\n" {
		t.Errorf("Exit with nil options = %d, said %q; want 1, said %q", got, w.String(), "no model\n")
	}
}
