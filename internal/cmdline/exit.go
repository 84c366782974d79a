package cmdline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/wisp-agent/wisp"
)

// The exit statuses of a command.
const (
	// ExitFailure is the status of a command that failed.
	ExitFailure = 1
	// ExitUsage is the status of a mistake in how a command was called.
	ExitUsage = 2
	// ExitInterrupted is the status of a command Ctrl-C stopped: 128 +
	// SIGINT, as a shell expects.
	ExitInterrupted = 130
)

// Usagef returns a *UsageError that says format, as fmt.Errorf does.
func Usagef(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// An ExitError ends a command with exit status Code and nothing more to
// say: what the command found was said already, such as a check that
// failed, or a person who left with Ctrl-C at a prompt.
type ExitError struct{ Code int }

func (e *ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// ExitOptions configure Exit. A nil *ExitOptions or a zero field means
// the default given beside the field.
type ExitOptions struct {
	// Name starts each line Exit writes, before ": ". "": the lines
	// start with the error itself.
	Name string
	// Line is the one line that says an error: one that replaces the
	// credentials in it with markers, say. nil: the error's text, its
	// white space folded to single spaces.
	Line func(error) string
}

// Exit ends a command that returned err, run with ctx: it writes to w
// the line that says why the command failed, and returns its exit
// status.
//
// When Ctrl-C stopped the command (ctx's cause, or err, is
// wisp.ErrInterrupted) the status is ExitInterrupted, and the line says
// "stopped" for an err that is ctx's cancellation, err's line for any
// other, and nothing for none. Otherwise a nil err is 0; an *ExitError
// is its Code with nothing said; a mistake in how the command was
// called (Usage) is ExitUsage, with its line and, when it has one, its
// hint on the next; any other err is ExitFailure, with its line.
func Exit(ctx context.Context, w io.Writer, err error, opts *ExitOptions) int {
	var o ExitOptions
	if opts != nil {
		o = *opts
	}
	say := func(line string) {
		if o.Name != "" {
			line = o.Name + ": " + line
		}
		fmt.Fprintln(w, line)
	}
	line := func(err error) string {
		if o.Line != nil {
			return o.Line(err)
		}
		return strings.Join(strings.Fields(err.Error()), " ")
	}
	if errors.Is(context.Cause(ctx), wisp.ErrInterrupted) || errors.Is(err, wisp.ErrInterrupted) {
		switch {
		case err == nil:
		case errors.Is(err, context.Canceled):
			say("stopped")
		default:
			say(line(err))
		}
		return ExitInterrupted
	}
	if err == nil {
		return 0
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	say(line(err))
	if hint, usage := Usage(err); usage {
		if hint != "" {
			fmt.Fprintln(w, hint)
		}
		return ExitUsage
	}
	return ExitFailure
}
