package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/wisp-agent/wisp/audit"
	"github.com/wisp-agent/wisp/home"
	"github.com/wisp-agent/wisp/inquiry/escape"
)

// What wisp questions and wisp approvals share: each lists what wisp mcp
// filed for a person, and lets that person, and only a person at a
// terminal, answer one.

// terminalRefusal returns nil when stdin and stdout are both terminals,
// and otherwise the usage error that refuses verb ("questions answer",
// "approvals approve") the answering of what ("a question", "an approval
// request").
func terminalRefusal(verb, what string, stdin, stdout any) error {
	in, out := isTerminal(stdin), isTerminal(stdout)
	var why string
	switch {
	case in && out:
		return nil
	case !in && !out:
		why = "stdin and stdout are not terminals"
	case !in:
		why = "stdin is not a terminal"
	default:
		why = "stdout is not a terminal"
	}
	return usagef("%s runs only at a terminal, so that nothing but a person may answer %s: %s; run it in a terminal", verb, what, why)
}

// openAnswerLog opens the audit log of h for a process that files a
// person's answer: credentials in a record are redacted, and the answer
// waits for the disk, as it does in a conversation.
func openAnswerLog(h *home.Home) (*audit.Log, error) {
	return h.OpenAudit(&audit.Options{Sync: audit.SyncDecisions})
}

// withDeadline is context.WithDeadline, except that a zero deadline sets
// none.
func withDeadline(ctx context.Context, deadline time.Time) (context.Context, context.CancelFunc) {
	if deadline.IsZero() {
		return ctx, func() {}
	}
	return context.WithDeadline(ctx, deadline)
}

// askedHeading is the line that names what waits for an answer: its noun
// ("question", "approval"), its id, its thread and how long ago it was
// asked.
func askedHeading(noun, id, thread string, age time.Duration) string {
	return fmt.Sprintf("%s %s · thread %s · asked %s", noun, id, escape.Terminal(thread), ago(age))
}

// writeBlocks lists items with block, a blank line between two, or writes
// the line none when there are none.
func writeBlocks[T any](w io.Writer, items []T, none string, block func(T)) {
	if len(items) == 0 {
		fmt.Fprintln(w, none)
		return
	}
	for i, item := range items {
		if i > 0 {
			fmt.Fprintln(w)
		}
		block(item)
	}
}

// ago says how long ago something happened, d before now, roughly.
func ago(d time.Duration) string {
	if d < time.Second {
		return "just now"
	}
	return roughly(d) + " ago"
}

// fromNow says when something happens, d from now, roughly.
func fromNow(d time.Duration) string {
	if d < time.Second {
		return "any moment"
	}
	return "in " + roughly(d)
}

// roughly writes d in its largest whole unit: "12 s", "3 min", "2 h",
// "4 days".
func roughly(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%d s", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h", int(d/time.Hour))
	default:
		return fmt.Sprintf("%d days", int(d/(24*time.Hour)))
	}
}
