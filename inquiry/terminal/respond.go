package terminal

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/escape"
)

// A Responder shows one turn that runs with no person (wisp respond): the
// reply alone on its output, so that a script can take it as it is, and
// everything else on its diagnostics: the thread, each tool call and what
// it gave the model, wisp's notes during the turn, the reply's flags.
//
// Wire a conversation with the Responder as the wisp.EventSink of its
// events and as its wisp.Notifier, then call Respond. Its methods are safe
// for concurrent use.
type Responder struct {
	out, diag io.Writer
	display   *display
}

var (
	_ wisp.EventSink = (*Responder)(nil)
	_ wisp.Notifier  = (*Responder)(nil)
)

// NewResponder returns a Responder that writes the reply to out and the
// rest to diag.
func NewResponder(out, diag io.Writer) *Responder {
	diag = &lockedWriter{w: diag}
	return &Responder{out: out, diag: diag, display: &display{out: diag}}
}

// Record shows a turn's tool calls, and what each gave the model, on the
// diagnostics.
func (r *Responder) Record(ctx context.Context, e wisp.Event) error { return r.display.Record(ctx, e) }

// Notify tells the person what wisp has to say during the turn: that it
// waits (for its thread, or for the audit log) and how to stop it, that
// their input was cut, or that commands cannot be confined here. The reply's flags it shows after the reply.
func (r *Responder) Notify(_ context.Context, n wisp.Notice) error {
	var err error
	switch n.Kind {
	case wisp.NoticeWaiting:
		_, err = fmt.Fprintf(r.diag, "wisp: %s (Ctrl-C stops it)\n", escape.Terminal(n.Text))
	case wisp.NoticeCut, wisp.NoticeSandbox:
		_, err = fmt.Fprintf(r.diag, "wisp: %s\n", escape.Terminal(n.Text))
	}
	return err
}

// ToolOutput shows on the diagnostics what a tool call prints as it
// runs, as Chat.ToolOutput does. The Responder gives it as the
// conversation's OnOutput.
func (r *Responder) ToolOutput(o wisp.ToolOutput) { r.display.output(o) }

// A PromptError is a prompt ReadPrompt refuses: empty, or longer than a
// turn takes. Its text says how to mend it.
type PromptError struct{ line string }

func (e *PromptError) Error() string { return e.line }

// ReadPrompt returns the prompt of one turn with no person (wisp respond
// PROMPT): arg, or what stdin holds when arg is "-", without the blanks
// around it. A prompt longer than MaxLine bytes, the most a chat takes as
// one message, or one with nothing in it, is a *PromptError; an error
// reading stdin is returned as it is.
func ReadPrompt(arg string, stdin io.Reader) (string, error) {
	prompt := arg
	if arg == "-" {
		b, err := io.ReadAll(io.LimitReader(stdin, MaxLine+1))
		if err != nil {
			return "", fmt.Errorf("reading the prompt: %w", err)
		}
		prompt = string(b)
	}
	if len(prompt) > MaxLine {
		return "", &PromptError{fmt.Sprintf("the prompt is longer than %d bytes, the most one turn takes; shorten it", MaxLine)}
	}
	if prompt = strings.TrimSpace(prompt); prompt == "" {
		return "", &PromptError{"the prompt is empty; pass the text, or - and the text on standard input"}
	}
	return prompt, nil
}

// Respond runs one turn of conv on prompt and shows it: the tools left
// out (opts.Dropped) and the thread before it, the reply and its flags
// after. It returns the turn's error, having shown nothing of a reply.
func (r *Responder) Respond(ctx context.Context, conv Conversation, prompt string, opts *RunOptions) error {
	var o RunOptions
	if opts != nil {
		o = *opts
	}
	writeDropped(r.diag, o.Dropped)
	fmt.Fprintf(r.diag, "thread %s\n", escape.Terminal(conv.Thread()))
	reply, err := conv.Respond(ctx, prompt)
	if err != nil {
		return err
	}
	fmt.Fprintln(r.out, Lines(reply.Text))
	for _, f := range reply.Flags {
		fmt.Fprintf(r.diag, "! wisp: %s\n", escape.Terminal(f))
	}
	return nil
}
