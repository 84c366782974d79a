package terminal

import (
	"io"
	"time"
)

// Options configure a Face made by NewWithOptions. A nil *Options or a zero
// field means the default given beside the field.
type Options struct {
	// FlushTypeAhead is called after the approval request is shown and
	// before its question line (allow? …) is, to drop keys typed before
	// the question appeared so that they cannot answer it, while keys
	// typed once it shows are never dropped. On a terminal: flush the
	// terminal's input queue (TCIFLUSH, through golang.org/x/sys/unix),
	// then call Input.Discard, in that order. nil: nothing is dropped, as
	// suits input that no person types (a pipe, a script).
	FlushTypeAhead func()

	// HideEcho turns off the echo of what the person types, for the read
	// of a secret's value, drops what the system holds typed before (it
	// was shown; on a terminal, set the termios with TCSAFLUSH), and
	// returns a function that turns the echo back on and drops what was
	// typed meanwhile and not read (TCSAFLUSH again). The face calls it
	// before the secret's prompt shows, and calls restore when the read
	// ends, however it ends; its Input reads nothing else in between, and
	// drops what it holds at either end.
	//
	// nil: the face hides the echo itself when its Input reads a terminal
	// (an *os.File that is a terminal, on Unix), and otherwise does not
	// read secrets at all, because a person typing at the far end of a
	// pipe sees what they type. A caller whose input echoes nothing, such
	// as a test or a screen that masks what is typed, may give a HideEcho
	// that does nothing; it must never be set to read a secret that shows.
	HideEcho func() (restore func(), err error)

	// Now tells the time, for the "ends in 5 min" of a card. nil: time.Now.
	Now func() time.Time

	// Width tells the columns of the person's terminal, to which the
	// model's words are wrapped (see Quote). nil: the size of the
	// terminal the face writes to, each time it draws a frame, or no
	// wrapping when it does not write to a terminal.
	Width func() int

	// Color colours the lines of an approval request's diff: removed
	// lines red, added lines green. Set it when the face writes to a
	// terminal and the NO_COLOR environment variable is not set
	// (no-color.org). false: plain text.
	Color bool
}

// NewWithOptions returns a face like New's, with options.
func NewWithOptions(in *Input, out io.Writer, opts *Options) *Face {
	f := New(in, out)
	if opts != nil {
		f.flushTypeAhead = opts.FlushTypeAhead
		f.hideEcho = opts.HideEcho
		f.now = opts.Now
		f.columns = opts.Width
		f.color = opts.Color
	}
	return f
}
