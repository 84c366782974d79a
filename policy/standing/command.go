package standing

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/wisp-agent/wisp/internal/plural"
)

// A CommandError is a command RunCommand could not read: an unknown
// action, a missing or extra argument. Its text says what to type
// instead.
type CommandError struct{ line string }

func (e *CommandError) Error() string { return e.line }

// CommandUsage names the person's commands over kept approvals, as the
// words after "wisp approvals rules": "[list] or revoke ID".
const CommandUsage = "[list] or revoke ID"

// LineNoneKept is what list says when no approval is kept.
const LineNoneKept = "no approvals are kept: an answer of project or always is kept here until you revoke it\n"

// RunCommand runs one of the person's commands over the kept approvals in
// s: args are the words after "wisp approvals rules": none or list shows
// them, one a line (id, scope, where, pattern, and the command first
// approved), their text quoted so that no part of it (the model's words)
// passes for a line of wisp's own; revoke ID revokes one, through
// Store.Revoke with opts (recorded first). It returns what the person
// reads, lines that end with a newline.
//
// A command it cannot read is a *CommandError; any other error is the
// Store's.
func RunCommand(ctx context.Context, s Store, args []string, opts *RevokeOptions) (string, error) {
	action := "list"
	if len(args) > 0 {
		action = args[0]
	}
	switch {
	case action == "list" && len(args) <= 1:
		entries, err := s.List()
		if err != nil {
			return "", err
		}
		return FormatList(entries), nil
	case action == "revoke" && len(args) == 2:
		k, err := s.Revoke(ctx, args[1], opts)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("revoked %s: %s %s no longer covers anything\n", k.ID, k.Scope, strconv.Quote(k.Pattern)), nil
	case action == "list":
		return "", &CommandError{fmt.Sprintf("list takes no arguments (got %d)", len(args)-1)}
	case action == "revoke":
		return "", &CommandError{fmt.Sprintf("revoke takes one id, as list shows it (got %s)", plural.Count(len(args)-1, "argument"))}
	}
	return "", &CommandError{fmt.Sprintf("unknown action %s; approvals rules takes %s", strconv.Quote(action), CommandUsage)}
}

// FormatList writes kept approvals one a line:
//
//	7f3a2c1d  project  /home/ana/src/wisp  "run_command git commit *"  (first for "run_command git commit -m x", 2026-11-30)
//	0a0b0c0d  always   everywhere          "run_command go test *"  (first for "run_command go test ./...", 2026-11-30)
func FormatList(entries []Entry) string {
	if len(entries) == 0 {
		return LineNoneKept
	}
	where := func(e Entry) string {
		switch {
		case e.Project == "":
			return "everywhere"
		case e.Gone:
			return strconv.Quote(e.Project) + " (gone: covers nothing)"
		}
		return strconv.Quote(e.Project)
	}
	width := 0
	for _, e := range entries {
		width = max(width, len(where(e)))
	}
	var b strings.Builder
	for _, e := range entries {
		fmt.Fprintf(&b, "%s  %-7s  %-*s  %s  (first for %s, %s)\n", e.ID, e.Scope, width, where(e),
			strconv.Quote(e.Pattern), strconv.Quote(e.Command), e.Time.Format("2006-01-02"))
	}
	return b.String()
}
