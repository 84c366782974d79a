package terminal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"golang.org/x/term"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/escape"
)

// A Conversation is what a Chat runs turns on: one thread of a model and
// its tools. conversation.Conversation is one.
type Conversation interface {
	// Respond runs one turn on the person's input and returns the reply.
	Respond(ctx context.Context, input string) (wisp.Reply, error)
	// Redact returns s with every credential replaced by the marker the
	// conversation's sinks give it.
	Redact(s string) string
	// ModelName returns the model's name, as the person reads it.
	ModelName() string
	// Thread returns the thread Respond runs on.
	Thread() string
}

// A Command is one of the person's commands in a chat, a line that
// starts with its Name. It is the person's own action, through the same
// rules as everywhere; the chat only reads it and shows what it says.
type Command struct {
	// Name is how the line starts: "/models".
	Name string
	// Usage is what it takes, for the line that names the commands a
	// chat knows: "list|show|pull".
	Usage string
	// Run runs the command with the words after its name, and returns
	// what the person reads of it; the chat escapes it as it shows it. A
	// command that writes to the chat itself (through Chat.Output)
	// returns "".
	Run func(ctx context.Context, args []string) (string, error)
}

// ChatOptions configure a Chat. A nil *ChatOptions or a zero field means
// the default given beside the field.
type ChatOptions struct {
	// Errors is where a turn that failed is said, one line each, so that
	// a script that drives the chat can tell them from the conversation.
	// nil: the chat's output.
	Errors io.Writer
	// Terminal says whether a person sits at a terminal: the chat shows a
	// banner and a prompt, drops keys typed before an approval prompt
	// appeared, and does not echo the lines it reads. nil: whether the
	// chat reads and writes a terminal.
	Terminal *bool
	// NoColor keeps the diffs of approval requests plain at a terminal
	// too, as the NO_COLOR environment variable asks; the program sets
	// it. At a terminal they are coloured otherwise, and never through a
	// pipe.
	NoColor bool
}

// RunOptions are what Chat.Run and Responder.Respond show of a
// conversation besides its turns. A nil *RunOptions or a zero field means
// the default given beside the field.
type RunOptions struct {
	// Tools are the conversation's tools, for the banner; nil: none.
	Tools []string
	// Dropped are the tools the settings took out (tools.disabled),
	// each said on a line of its own before anything else.
	Dropped []string
	// Commands are the commands the chat knows; nil: none, and a line
	// that starts with "/" is refused.
	Commands []Command
	// BeforePrompt is called before each prompt at a terminal, to tell
	// the person what waits for them (the questions wisp mcp parked);
	// it writes through Chat.Output. nil: nothing.
	BeforePrompt func()
}

// ErrTurnFailed is what Chat.Run returns when one of its turns failed;
// each failure was said on ChatOptions.Errors as it happened.
var ErrTurnFailed = errors.New("a turn failed")

// LineTooLong is what a chat says of a line over MaxLine, which it does
// not send.
const LineTooLong = "! wisp: that line was longer than 1 MiB, the most wisp reads as one line; it was not sent (put a long text in a file and give the model its path)"

// LineTurnStopped is what a chat says of a turn the person stopped.
const LineTurnStopped = "(turn stopped)"

// A Chat is the plain terminal chat: it reads the person's messages a
// line at a time, runs a turn on each, and shows the turn as it happens
// (the reply as it streams, its thinking apart, each tool call and what
// it gave the model). The questions and approval requests of a turn go
// to its Face, which shares its input. A line that starts with "/" is one
// of the person's commands. Ctrl-C (Interrupt) stops the running turn and
// so ends a question or an approval prompt within it; at the prompt it
// leaves; the end of the input leaves too.
//
// At a terminal it shows a banner and a prompt; from a pipe, each line is
// the next message (or the answer to the question that waits), and the
// chat writes each line it reads after "› ", its credentials as the
// conversation's markers, so that the output reads as a transcript.
//
// Wire a conversation with the Chat's parts (Face, the Chat itself as the
// wisp.EventSink of its events, Delta for its streamed pieces), then call
// Run. Its methods are safe for concurrent use.
type Chat struct {
	in          *Input
	out         *lockedWriter
	errs        io.Writer
	face        *Face
	interactive bool
	stream      *streamer
	display     *display

	mu   sync.Mutex
	stop context.CancelCauseFunc // the running turn's
}

var _ wisp.EventSink = (*Chat)(nil)

// NewChat returns a chat that reads the person from stdin and writes to
// stdout.
func NewChat(stdin io.Reader, stdout io.Writer, opts *ChatOptions) *Chat {
	var o ChatOptions
	if opts != nil {
		o = *opts
	}
	c := &Chat{in: NewInput(stdin), out: &lockedWriter{w: stdout}}
	c.interactive = isTerminal(stdin) && isTerminal(stdout)
	if o.Terminal != nil {
		c.interactive = *o.Terminal
	}
	c.errs = o.Errors
	if c.errs == nil {
		c.errs = c.out
	}
	// The face writes through the chat's lock, and wraps to the columns
	// of the terminal behind it.
	faceOpts := Options{Width: func() int { return Width(stdout) }, Color: c.interactive && !o.NoColor}
	if c.interactive {
		// At a terminal, keys typed before an approval prompt appeared
		// must not answer it; a pipe is the person's script and is read
		// as it comes.
		faceOpts.FlushTypeAhead = c.in.DropTypeAhead
	}
	c.face = NewWithOptions(c.in, c.out, &faceOpts)
	c.stream = &streamer{out: c.out}
	c.display = &display{out: c.out, stream: c.stream}
	return c
}

// Face returns the face that shows the chat's questions, cards, approval
// requests and notices, and reads the answers from the chat's input.
func (c *Chat) Face() *Face { return c.face }

// Input returns the input the chat and its face read, for a command that
// reads an answer too.
func (c *Chat) Input() *Input { return c.in }

// Output returns where the chat writes, for a command that writes to the
// chat itself. Writes to it do not interleave with the turn's.
func (c *Chat) Output() io.Writer { return c.out }

// Interactive reports whether a person sits at the chat's terminal (see
// ChatOptions.Terminal).
func (c *Chat) Interactive() bool { return c.interactive }

// Record shows a turn's event: a tool call and what it gave the model,
// and the text that came with tool calls. The chat gives it as the
// conversation's wisp.EventSink.
func (c *Chat) Record(ctx context.Context, e wisp.Event) error { return c.display.Record(ctx, e) }

// ToolOutput shows what a tool call prints as it runs, such as a
// command's output, already redacted: each line escaped, after "  │ ".
// The call's result then shows only its first line. The chat gives it as
// the conversation's OnOutput.
func (c *Chat) ToolOutput(o wisp.ToolOutput) { c.display.output(o) }

// Delta shows a piece of the reply as it streams, its thinking apart.
// The chat gives it as the conversation's OnDelta.
func (c *Chat) Delta(thread string, d wisp.ChatDelta) { c.stream.delta(d) }

// Interrupt is the person's Ctrl-C: it stops the running turn, and so
// ends a question or an approval prompt within it; at the prompt it ends
// the chat. With neither, it does nothing and is not kept for later.
func (c *Chat) Interrupt() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stop != nil {
		c.stop(wisp.ErrInterrupted)
	} else {
		c.in.Interrupt()
	}
}

// Run runs the chat on conv until the input ends or the person leaves.
// At the end of the input it returns ErrTurnFailed when a turn failed
// (each said on ChatOptions.Errors), nil when none did; it returns
// wisp.ErrInterrupted when the person left with Ctrl-C at the prompt
// (Interrupt), and an error of its own when the input cannot be read.
func (c *Chat) Run(ctx context.Context, conv Conversation, opts *RunOptions) error {
	var o RunOptions
	if opts != nil {
		o = *opts
	}
	c.start(conv, o)
	failed := false
	for {
		if c.interactive {
			if o.BeforePrompt != nil {
				o.BeforePrompt()
			}
			fmt.Fprint(c.out, "› ")
		}
		line, err := c.in.ReadLine(ctx)
		switch {
		case errors.Is(err, wisp.ErrInterrupted):
			if c.interactive {
				fmt.Fprintln(c.out)
			}
			return wisp.ErrInterrupted
		case errors.Is(err, io.EOF):
			if c.interactive {
				fmt.Fprintln(c.out)
			}
			if failed {
				return ErrTurnFailed
			}
			return nil
		case errors.Is(err, ErrLineTooLong):
			fmt.Fprintln(c.out, LineTooLong)
			continue
		case err != nil:
			return err
		}
		trimmed := strings.TrimSpace(line)
		if trimmed == "" {
			continue
		}
		if !c.interactive {
			// The transcript of a piped chat shows a credential as the
			// model and the audit log get it: its marker.
			fmt.Fprintf(c.out, "› %s\n", Lines(conv.Redact(line)))
		}
		if strings.HasPrefix(trimmed, "/") {
			if err := c.command(ctx, o.Commands, trimmed); err != nil {
				fmt.Fprintf(c.out, "! wisp: %s\n", escape.Terminal(errorLine(conv, err)))
			}
			continue
		}
		if !c.turn(ctx, conv, line) {
			failed = true
		}
	}
}

// start says which tools were left out and, at a terminal, what the
// chat runs and how to stop and leave it.
func (c *Chat) start(conv Conversation, o RunOptions) {
	writeDropped(c.out, o.Dropped)
	if !c.interactive {
		return
	}
	names := strings.Join(o.Tools, ", ")
	if names == "" {
		names = "none"
	}
	fmt.Fprintf(c.out, "wisp chat · model %s · tools: %s\nType a message and press Enter. Ctrl-C stops a turn; Ctrl-D leaves.\n", Lines(conv.ModelName()), names)
}

// turn runs one turn on line and shows how it ended. It reports whether
// the turn did not fail (a turn the person stopped did not).
func (c *Chat) turn(ctx context.Context, conv Conversation, line string) bool {
	turnCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	c.mu.Lock()
	c.stop = stop
	c.mu.Unlock()
	c.stream.reset()
	reply, err := conv.Respond(turnCtx, line)
	c.stream.end()
	c.mu.Lock()
	c.stop = nil
	c.mu.Unlock()
	switch {
	case errors.Is(err, wisp.ErrInterrupted):
		fmt.Fprintln(c.out, LineTurnStopped)
	case err != nil:
		fmt.Fprintf(c.errs, "wisp: %s\n", errorLine(conv, err))
		return false
	case !c.stream.streamedReply():
		fmt.Fprintln(c.out, Lines(reply.Text))
	}
	return true
}

// command runs the person's command line, one of commands.
func (c *Chat) command(ctx context.Context, commands []Command, line string) error {
	f := strings.Fields(line)
	for _, cmd := range commands {
		if cmd.Name != f[0] {
			continue
		}
		text, err := cmd.Run(ctx, f[1:])
		if err != nil {
			return err
		}
		if text != "" {
			fmt.Fprint(c.out, commandText(strings.TrimSuffix(text, "\n"))+"\n")
		}
		return nil
	}
	if len(commands) == 0 {
		return fmt.Errorf("unknown command %s; this chat knows none: a line that starts with / is not sent", f[0])
	}
	known := make([]string, len(commands))
	for i, cmd := range commands {
		known[i] = strings.TrimSpace(cmd.Name + " " + cmd.Usage)
	}
	last := len(known) - 1
	list := known[last]
	if last > 0 {
		list = strings.Join(known[:last], ", ") + " and " + known[last]
	}
	return fmt.Errorf("unknown command %s; chat knows %s", f[0], list)
}

// writeDropped says of each tool in dropped that the settings left it
// out.
func writeDropped(w io.Writer, dropped []string) {
	for _, name := range dropped {
		fmt.Fprintf(w, "! wisp: %s is disabled by tools.disabled and was left out\n", escape.Terminal(name))
	}
}

// errorLine is the one line that says what err was, with every
// credential in it (one the person typed, that a message repeats) as the
// conversation's marker.
func errorLine(conv Conversation, err error) string {
	return conv.Redact(strings.Join(strings.Fields(conv.Redact(err.Error())), " "))
}

// Lines returns s escaped for the terminal line by line
// (escape.Terminal), so that it keeps its line breaks but can move no
// cursor and hide nothing: the model's text, or a backend's.
func Lines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = escape.Terminal(l)
	}
	return strings.Join(lines, "\n")
}

// commandText is Lines for what a command says, whose tabs line up
// columns and are kept.
func commandText(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		cells := strings.Split(l, "\t")
		for j, cell := range cells {
			cells[j] = escape.Terminal(cell)
		}
		lines[i] = strings.Join(cells, "\t")
	}
	return strings.Join(lines, "\n")
}

// isTerminal reports whether v is a terminal.
func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	return ok && f != nil && term.IsTerminal(int(f.Fd()))
}

// lockedWriter serialises writes from the turn and the display.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
