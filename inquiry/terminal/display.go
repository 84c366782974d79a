package terminal

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/escape"
)

// display shows a turn's tool calls as they happen, by the type of each
// event's data: "⚙ NAME SUMMARY" for a call, "  │ " and each line it
// prints as it runs (output), "↳ " and the lines of what it gave the
// model, and the text that came with tool calls. The lines a tool gave
// are a file's or a program's, shown with their tabs as blanks.
type display struct {
	out    io.Writer
	stream *streamer // nil: nothing streams; text that comes with calls is shown from the event

	mu       sync.Mutex
	streamed map[string]bool // the calls whose output was shown as it came, by id
}

// output shows what a tool call prints as it runs, each line escaped
// after "  │ ", and marks the call as shown: its result then shows only its
// first line ("↳ exit status 0 after 12ms"), since the rest was seen.
func (d *display) output(o wisp.ToolOutput) {
	if o.Text == "" {
		return
	}
	d.mu.Lock()
	if d.streamed == nil {
		d.streamed = map[string]bool{}
	}
	d.streamed[o.CallID] = true
	d.mu.Unlock()
	var b strings.Builder
	for l := range strings.SplitSeq(strings.TrimSuffix(o.Text, "\n"), "\n") {
		b.WriteString("  │ " + fileLine(strings.TrimSuffix(l, "\r")) + "\n")
	}
	io.WriteString(d.out, b.String())
}

// shown reports whether call's output was shown as it came, and forgets
// it.
func (d *display) shown(call string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	ok := d.streamed[call]
	delete(d.streamed, call)
	return ok
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
		// reply is shown by whoever ran the turn.
		if len(data.ToolCalls) > 0 && strings.TrimSpace(data.Content) != "" {
			fmt.Fprintln(d.out, Lines(data.Content))
		}
	case wisp.ToolResultData:
		streamed := d.shown(data.ID)
		if content := data.Content; content != "" && data.Error == "" {
			lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
			if streamed {
				lines = lines[:1]
			}
			for i, l := range lines {
				lead := "  "
				if i == 0 {
					lead = "↳ "
				}
				fmt.Fprintf(d.out, "%s%s\n", lead, fileLine(l))
			}
		}
	}
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

func (s *streamer) delta(d wisp.ChatDelta) {
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
		fmt.Fprint(s.out, Lines(d.Thinking))
	}
	if d.Content != "" {
		if s.thinking {
			fmt.Fprintln(s.out)
			s.thinking = false
		}
		fmt.Fprint(s.out, Lines(d.Content))
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

// reset readies the streamer for a new turn.
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
