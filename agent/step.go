package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/wisp-agent/wisp"
)

// errTooLong stops a model that streams past what a thread keeps.
var errTooLong = errors.New("the model went on past what a thread keeps of one message")

// ask runs one model step: it sends req, passes the reply's pieces to
// OnDelta as they stream, and returns the model's message as the thread
// keeps it (see admit), with the result of each call that must not run
// ("" for one that may). A model that streams more text than a thread
// keeps of one message, or more thinking than MaxThinkingBytes, is stopped
// there, so its reply never fills the memory.
func (a *Agent) ask(ctx context.Context, threadID string, req wisp.ChatRequest) (wisp.Message, []string, error) {
	stepCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	var text strings.Builder
	thought, streamed, stopped := 0, false, ""
	deliver := func(d wisp.ChatDelta) {
		if a.opts.OnDelta != nil && (d.Content != "" || d.Thinking != "") {
			streamed = true
			a.opts.OnDelta(threadID, d)
		}
	}
	stream := func(d wisp.ChatDelta) {
		if stopped != "" {
			return
		}
		thought += len(d.Thinking)
		if room := MaxMessageBytes + 1 - text.Len(); len(d.Content) > room || thought > MaxThinkingBytes {
			stopped = LineStoppedLong(MaxMessageBytes)
			if thought > MaxThinkingBytes {
				stopped = LineStoppedThinking()
			}
			stop(errTooLong)
			d.Content = validPrefix(d.Content[:min(max(room, 0), len(d.Content))])
			d.Thinking = ""
		}
		text.WriteString(d.Content)
		deliver(d)
	}
	resp, err := a.model.Chat(stepCtx, req, stream)
	var msg wisp.Message
	switch {
	case err == nil:
		msg = resp.Message
	case stopped != "" && ctx.Err() == nil:
		msg = wisp.Message{Content: text.String()}
	default:
		return wisp.Message{}, nil, fmt.Errorf("model: %w", err)
	}
	msg.Role = wisp.RoleAssistant
	if err == nil {
		stopped = "" // it ended of itself: what it sent is measured whole
	}
	refused, suffix := a.admit(&msg, stopped)
	if streamed && suffix != "" {
		deliver(wisp.ChatDelta{Content: suffix})
	}
	return msg, refused, nil
}

// admit makes m what a thread keeps of a model message: its text cut to
// MaxMessageBytes, with a note the model reads (stopped, when the model
// was stopped mid-stream, is that note); no more than MaxToolCalls calls,
// with a note for the dropped; ids and names of a sane length. It returns
// the result of each call that must not run (arguments longer than
// MaxArgumentsBytes, replaced by {}), and the notes it added to the text.
func (a *Agent) admit(m *wisp.Message, stopped string) (refused []string, suffix string) {
	if stopped != "" {
		suffix = stopped
	} else if stored := storedLen(m.Content); stored > MaxMessageBytes {
		suffix = LineCut(stored, MaxMessageBytes)
	}
	if n := len(m.ToolCalls); n > MaxToolCalls {
		m.ToolCalls = m.ToolCalls[:MaxToolCalls]
		suffix += LineDroppedCalls(n - MaxToolCalls)
	}
	if suffix != "" {
		// Redacted before it is cut, so no credential is cut in half where
		// the redactor could no longer know it.
		m.Content = cutStored(a.redact(m.Content), MaxMessageBytes-storedLen(suffix)+2) + suffix
	}
	m.ToolCalls = slices.Clone(m.ToolCalls)
	refused = make([]string, len(m.ToolCalls))
	for i := range m.ToolCalls {
		c := &m.ToolCalls[i]
		if c.ID == "" || storedLen(c.ID) > maxIDBytes+2 {
			c.ID = "call_" + a.opts.NewID()
		}
		if storedLen(c.Name) > maxNameBytes+2 {
			// No tool has such a name; what is kept of it is redacted
			// first, so no part of a credential is.
			c.Name = cutStored(a.redact(c.Name), maxNameBytes+2)
		}
		if stored := rawStoredLen(c.Arguments); stored > MaxArgumentsBytes {
			c.Arguments = json.RawMessage("{}")
			refused[i] = LineArgumentsTooLong(stored)
		}
	}
	return refused, suffix
}

// validPrefix drops a character cut in half at the end of s.
func validPrefix(s string) string {
	for i := 0; i < utf8.UTFMax && len(s) > 0; i++ {
		r, size := utf8.DecodeLastRuneInString(s)
		if r != utf8.RuneError || size != 1 {
			break
		}
		s = s[:len(s)-1]
	}
	return s
}
