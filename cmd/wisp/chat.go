package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/conversation"
	"github.com/wisp-agent/wisp/inquiry/escape"
	"github.com/wisp-agent/wisp/inquiry/terminal"
	"github.com/wisp-agent/wisp/inquiry/unattended"
	"github.com/wisp-agent/wisp/models"
)

func newChatCmd(env environ) *cobra.Command {
	var model string
	var named []string
	var yes, jsonLines bool
	c := &cobra.Command{
		Use:   "chat [--model M] [--tool T]... [--yes] [--json]",
		Short: "Talk with the model; it may ask you questions as it works",
		Long: `Talk with the model, one message a line. When the model asks you something, the
question appears under "? the model asks": type a number or your answer, or press
Enter to decline. Ctrl-C stops the turn; Ctrl-D (the end of the input) leaves.

When the input is not a terminal, each line is your next message, and while a
question waits, the next line answers it, so a whole conversation can be scripted:

  printf 'Replace the config\n2\n' | wisp chat --model script:examples/scripts/ask.jsonl --tool ask

With --yes no person is asked anything: every question ends with "no person can
answer here".

With --json, wisp speaks JSON lines for a front end such as wisp-tui: one object a
line each way, nothing else on standard output (docs/jsonl.md).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if jsonLines {
				return runChatJSON(cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr(), env, model, toolList(cmd, named), yes)
			}
			return runChat(cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr(), env, model, toolList(cmd, named), yes)
		},
	}
	c.Flags().StringVar(&model, "model", "", "the model, as SCHEME:NAME (script:PATH plays a JSON-lines script)")
	c.Flags().StringArrayVar(&named, "tool", nil, "give the conversation only this tool (repeat for more); without it, every tool the settings allow")
	c.Flags().BoolVar(&yes, "yes", false, "run with no person: questions are not asked")
	c.Flags().BoolVar(&jsonLines, "json", false, "speak JSON lines on stdin and stdout, for a front end (docs/jsonl.md)")
	return c
}

func newRespondCmd(env environ) *cobra.Command {
	var model, thread string
	var named []string
	c := &cobra.Command{
		Use:   "respond [--model M] [--tool T]... [--thread ID] PROMPT|-",
		Short: "Run one turn with no person and print the reply",
		Long: `Run one turn on PROMPT (or on standard input, with -) with no person to answer:
a question the model asks ends at once with "no person can answer here". The reply
goes to standard output; what the model called, and the thread's id, go to standard
error. --thread ID goes on with a thread kept under $WISP_HOME/threads.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("respond takes one PROMPT, or - to read it from standard input (got %d arguments)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			prompt := args[0]
			if prompt == "-" {
				b, err := io.ReadAll(io.LimitReader(cmd.InOrStdin(), agent.MaxInputBytes+1))
				if err != nil {
					return fmt.Errorf("reading the prompt: %w", err)
				}
				prompt = string(b)
			}
			if len(prompt) > agent.MaxInputBytes {
				return usagef("the prompt is longer than %d bytes, the most one turn takes; shorten it", agent.MaxInputBytes)
			}
			prompt = strings.TrimSpace(prompt)
			if prompt == "" {
				return usagef("the prompt is empty; pass the text, or - and the text on standard input")
			}
			return runRespond(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), env, model, toolList(cmd, named), thread, prompt)
		},
	}
	c.Flags().StringVar(&model, "model", "", "the model, as SCHEME:NAME (script:PATH plays a JSON-lines script)")
	c.Flags().StringArrayVar(&named, "tool", nil, "give the conversation only this tool (repeat for more)")
	c.Flags().StringVar(&thread, "thread", "", "go on with this thread (its id, as an earlier respond printed it)")
	return c
}

// toolList returns the named tools, or nil when --tool was not given
// (every tool); --tool "" names none.
func toolList(cmd *cobra.Command, named []string) []string {
	if !cmd.Flags().Changed("tool") {
		return nil
	}
	out := []string{}
	for _, n := range named {
		for _, part := range strings.Split(n, ",") {
			if part = strings.TrimSpace(part); part != "" {
				out = append(out, part)
			}
		}
	}
	return out
}

func runRespond(ctx context.Context, stdout, stderr io.Writer, env environ, model string, named []string, thread, prompt string) error {
	conv, err := newConversation(ctx, env, convOptions{
		model: model, named: named, face: unattended.Face{}, thread: thread,
		display: &display{out: stderr, calls: true}, notify: respondNotes{stderr},
	})
	if err != nil {
		return err
	}
	defer conv.Close()
	noteDropped(stderr, conv)
	fmt.Fprintf(stderr, "thread %s\n", conv.Thread())
	reply, err := conv.Respond(ctx, prompt)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, showText(reply.Text))
	for _, f := range reply.Flags {
		fmt.Fprintf(stderr, "! wisp: %s\n", f)
	}
	return nil
}

// respondNotes tells the person on w what wisp respond has to say during
// a turn: that it waits (for its thread, or for the audit log) and how to
// stop it, or that their input was cut. The verification pass's flags it
// shows after the reply.
type respondNotes struct{ w io.Writer }

func (n respondNotes) Notify(_ context.Context, note wisp.Notice) error {
	var err error
	switch note.Kind {
	case wisp.NoticeWaiting:
		_, err = fmt.Fprintf(n.w, "wisp: %s (Ctrl-C stops it)\n", escape.Terminal(note.Text))
	case wisp.NoticeCut:
		_, err = fmt.Fprintf(n.w, "wisp: %s\n", escape.Terminal(note.Text))
	}
	return err
}

func runChat(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, env environ, model string, named []string, yes bool) error {
	interactive := isTerminal(stdin) && isTerminal(stdout)
	in := terminal.NewInput(stdin)
	var faceOpts terminal.Options
	if interactive {
		// At a terminal, keys typed before an approval prompt appeared
		// must not answer it; a pipe is the person's script and is read
		// as it comes.
		tty := stdin.(*os.File)
		faceOpts.FlushTypeAhead = func() {
			flushInput(tty)
			in.Discard()
		}
	}
	face := terminal.NewWithOptions(in, stdout, &faceOpts)
	var asker wisp.Inquirer = face
	var approver wisp.Approver = face
	if yes {
		asker, approver = unattended.Face{}, nil
	}
	out := &lockedWriter{w: stdout}
	st := &streamer{out: out}
	conv, err := newConversation(ctx, env, convOptions{
		model: model, named: named, face: asker, approve: approver, notify: face,
		display: &display{out: out, calls: true, stream: st}, onDelta: st.delta,
	})
	if err != nil {
		return err
	}
	defer conv.Close()
	noteDropped(stdout, conv)
	questions := newChatQuestions(conv, face, in, stdin, stdout, out, yes)
	if interactive {
		names := strings.Join(conv.Tools().Names(), ", ")
		if names == "" {
			names = "none"
		}
		fmt.Fprintf(stdout, "wisp chat · model %s · tools: %s\nType a message and press Enter. Ctrl-C stops a turn; Ctrl-D leaves.\n", showText(conv.ModelName()), names)
	}

	// Ctrl-C stops the running turn (and so ends a question or an
	// approval prompt within it); at the prompt it leaves. With neither, it
	// does nothing, and is not kept for later.
	var mu sync.Mutex
	var stopTurn context.CancelCauseFunc
	release := env.ctrlC.take(func() {
		mu.Lock()
		defer mu.Unlock()
		if stopTurn != nil {
			stopTurn(wisp.ErrInterrupted)
		} else {
			in.Interrupt()
		}
	})
	defer release()

	failed := false
	for {
		if interactive {
			questions.noteWaiting()
			fmt.Fprint(stdout, "› ")
		}
		line, err := in.ReadLine(ctx)
		if errors.Is(err, io.EOF) || errors.Is(err, wisp.ErrInterrupted) {
			if interactive {
				fmt.Fprintln(stdout)
			}
			break
		}
		if errors.Is(err, terminal.ErrLineTooLong) {
			fmt.Fprintln(out, lineTooLong)
			continue
		}
		if err != nil {
			return err
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		if !interactive {
			// The transcript of a piped chat shows a credential as the
			// model and the audit log get it: its marker.
			fmt.Fprintf(stdout, "› %s\n", showText(conv.Redact(line)))
		}
		if strings.HasPrefix(strings.TrimSpace(line), "/") {
			if err := slash(ctx, out, conv, questions, strings.TrimSpace(line)); err != nil {
				fmt.Fprintf(out, "! wisp: %s\n", escape.Terminal(errorLine(err)))
			}
			continue
		}
		turnCtx, cancel := context.WithCancelCause(ctx)
		mu.Lock()
		stopTurn = cancel
		mu.Unlock()
		st.reset()
		reply, err := conv.Respond(turnCtx, line)
		st.end()
		mu.Lock()
		stopTurn = nil
		mu.Unlock()
		cancel(nil)
		switch {
		case errors.Is(err, wisp.ErrInterrupted):
			fmt.Fprintln(stdout, "(turn stopped)")
		case err != nil:
			failed = true
			fmt.Fprintf(stderr, "wisp: %s\n", errorLine(err))
		case !st.streamedReply():
			fmt.Fprintln(out, showText(reply.Text))
		}
	}
	if failed {
		return exitError{code: 1}
	}
	return nil
}

// lineTooLong refuses a chat line over terminal.MaxLine.
const lineTooLong = "! wisp: that line was longer than 1 MiB, the most wisp reads as one line; it was not sent (put a long text in a file and give the model its path)"

func noteDropped(w io.Writer, conv *conversation.Conversation) {
	for _, name := range conv.Tools().Dropped() {
		fmt.Fprintf(w, "! wisp: %s is disabled by tools.disabled and was left out\n", name)
	}
}

// showText escapes the model's text for the terminal, line by line, so it
// keeps its line breaks but can move no cursor and hide nothing.
func showText(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = escape.Terminal(l)
	}
	return strings.Join(lines, "\n")
}

func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// display shows a turn's tool calls as they happen.
type display struct {
	out    io.Writer
	calls  bool
	stream *streamer // nil: nothing streams; text that comes with calls is shown from the event
}

func (d *display) Record(ctx context.Context, e wisp.Event) error {
	switch data := e.Data.(type) {
	case wisp.ToolCallData:
		fmt.Fprintf(d.out, "⚙ %s %s\n", escape.Terminal(data.Name), escape.Terminal(data.Shown()))
	case wisp.ModelMessageData:
		if d.stream != nil {
			d.stream.end() // the step's text streamed as it came
			return nil
		}
		// Text that comes with tool calls is shown before them; a final
		// reply is shown by the command itself.
		if len(data.ToolCalls) > 0 && strings.TrimSpace(data.Content) != "" {
			fmt.Fprintln(d.out, showText(data.Content))
		}
	case wisp.ToolResultData:
		if content := data.Content; content != "" && data.Error == "" {
			lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
			for i, l := range lines {
				lead := "  "
				if i == 0 {
					lead = "↳ "
				}
				fmt.Fprintf(d.out, "%s%s\n", lead, escape.Terminal(l))
			}
		}
	}
	return nil
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

// slash runs a command the person typed in chat: /models ACTION [NAME],
// or /questions [list] | answer ID | decline ID. It is the person's own
// action, through the same rules as everywhere.
func slash(ctx context.Context, out io.Writer, conv *conversation.Conversation, questions *chatQuestions, line string) error {
	f := strings.Fields(line)
	if f[0] == "/questions" {
		return questions.slash(ctx, f[1:])
	}
	if f[0] != "/models" {
		return fmt.Errorf("unknown command %s; chat knows /models list|show|pull|cancel|enable|disable|check|trust and /questions [list]|answer ID|decline ID", f[0])
	}
	if len(f) < 2 {
		return fmt.Errorf("/models needs an action: list [PAGE], show NAME, pull REPO, cancel REPO, enable NAME, disable NAME, check NAME or trust PUBLISHER")
	}
	a := conv.Models()
	arg := ""
	if len(f) > 2 {
		arg = f[2]
	}
	needs := func() error {
		if arg == "" {
			return fmt.Errorf("/models %s needs a name", f[1])
		}
		return nil
	}
	var text string
	switch f[1] {
	case "list":
		page := 1
		if arg != "" {
			if _, err := fmt.Sscan(arg, &page); err != nil {
				return fmt.Errorf("/models list takes a page number; got %q", arg)
			}
		}
		l, err := a.List(ctx, page)
		if err != nil {
			return err
		}
		text = models.FormatListing(l, conv.ModelName())
	case "show":
		if err := needs(); err != nil {
			return err
		}
		m, err := a.Show(ctx, arg)
		if err != nil {
			return err
		}
		text = models.FormatInfo(m)
	case "enable", "disable", "check":
		if err := needs(); err != nil {
			return err
		}
		do := map[string]func(context.Context, string, wisp.Actor) (wisp.Change, error){
			"enable": a.Enable, "disable": a.Disable, "check": a.Check}[f[1]]
		ch, err := do(ctx, arg, wisp.ActorPerson)
		if err != nil {
			return err
		}
		text = models.FormatChange(ch)
	case "pull":
		if err := needs(); err != nil {
			return err
		}
		p, err := a.Pull(ctx, arg, wisp.ActorPerson)
		if err != nil {
			return err
		}
		text = fmt.Sprintf("pulling %s in the background: about %s in %d of %d files; its end will arrive here\n", p.Repo, models.Size(p.Bytes), p.Files, p.Total)
	case "cancel":
		if err := needs(); err != nil {
			return err
		}
		running, err := a.RequestCancel(arg)
		if err != nil {
			return err
		}
		if !running {
			return fmt.Errorf("no pull of %s is running", arg)
		}
		text = "asked the pull of " + arg + " to stop; what arrived is kept\n"
	case "trust":
		if err := needs(); err != nil {
			return err
		}
		if err := a.Trust(ctx, arg, wisp.ActorPerson); err != nil {
			return err
		}
		text = arg + " is trusted\n"
	default:
		return fmt.Errorf("unknown action %q; /models takes list, show, pull, cancel, enable, disable, check or trust", f[1])
	}
	fmt.Fprint(out, showText(strings.TrimSuffix(text, "\n"))+"\n")
	return nil
}

// streamer shows a reply as it arrives, its thinking apart, escaped line
// by line.
type streamer struct {
	out io.Writer

	mu       sync.Mutex
	text     bool // within a step's text
	thinking bool // within a step's thinking
	last     bool // the turn's last step streamed text
}

func (s *streamer) delta(thread string, d wisp.ChatDelta) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d.Thinking != "" {
		if !s.thinking {
			if s.text {
				fmt.Fprintln(s.out)
				s.text = false
			}
			fmt.Fprint(s.out, "(thinking) ")
			s.thinking = true
		}
		fmt.Fprint(s.out, showText(d.Thinking))
	}
	if d.Content != "" {
		if s.thinking {
			fmt.Fprintln(s.out)
			s.thinking = false
		}
		fmt.Fprint(s.out, showText(d.Content))
		s.text = true
	}
}

// end closes a step: what streamed ends its line.
func (s *streamer) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.text || s.thinking {
		s.last = s.text
		fmt.Fprintln(s.out)
	}
	s.text, s.thinking = false, false
}

func (s *streamer) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.text, s.thinking, s.last = false, false, false
}

// streamedReply reports whether the turn's final reply was shown as it
// streamed.
func (s *streamer) streamedReply() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}
