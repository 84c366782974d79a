package terminal

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/wisp-agent/wisp/inquiry/escape"
	"github.com/wisp-agent/wisp/policy/secrets"
)

// What the questions and the approval requests that wisp mcp files for a
// person share at a terminal: each is listed with its heading, and only
// a person at a terminal may answer one.

// A NoTerminalError refuses the answering of what waits for a person
// (a parked question, an approval request) where standard input or
// standard output is not a terminal: nothing but a person may answer it,
// not a script, and not the agent that called wisp. A command-line
// program reports it as a mistake in how it was called.
type NoTerminalError struct {
	// Verb is the command refused: "questions answer", "approvals deny".
	Verb string
	// What is what it would answer: "a question", "an approval request".
	What string
	// Stdin and Stdout say which of the two is a terminal.
	Stdin, Stdout bool
}

// Error says what was refused, why, and how to mend it.
func (e *NoTerminalError) Error() string {
	why := "stdout is not a terminal"
	switch {
	case !e.Stdin && !e.Stdout:
		why = "stdin and stdout are not terminals"
	case !e.Stdin:
		why = "stdin is not a terminal"
	}
	return fmt.Sprintf("%s runs only at a terminal, so that nothing but a person may answer %s: %s; run it in a terminal", e.Verb, e.What, why)
}

// AtTerminal returns nil when stdin and stdout are both terminals, and
// otherwise the *NoTerminalError that refuses verb the answering of what.
func AtTerminal(verb, what string, stdin, stdout any) error {
	in, out := isTerminal(stdin), isTerminal(stdout)
	if in && out {
		return nil
	}
	return &NoTerminalError{Verb: verb, What: what, Stdin: in, Stdout: out}
}

// ControllingTerminal names the process's controlling terminal, /dev/tty,
// when it has one, as it does in a terminal and under a front end that
// runs it in the person's terminal (wisp-tui); "" when it has none, as
// for a program that starts it with pipes in a session of its own.
func ControllingTerminal() string {
	f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return ""
	}
	f.Close()
	return "/dev/tty"
}

// terminalName names the terminal f is, such as /dev/pts/3, for the
// record of who answered; "" when f is nil or it cannot be told.
func terminalName(f *os.File) string {
	if f == nil {
		return ""
	}
	return ttyName(f)
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

// ErrorLine is the one line that says what err was, every credential in
// it (a value typed on the command line that a message repeats, say) as
// its marker: for a program that says on its standard error why it
// failed.
func ErrorLine(err error) string {
	r := secrets.NewRedactor()
	line, _ := r.Redact(err.Error())
	line, _ = r.Redact(strings.Join(strings.Fields(line), " "))
	return line
}

// errorText is ErrorLine escaped for the terminal.
func errorText(err error) string { return escape.Terminal(ErrorLine(err)) }

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
