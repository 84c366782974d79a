package agent

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/wisp-agent/wisp"
)

// The limits of what a thread keeps, in bytes as its store writes them
// (JSON: a text that needs escaping takes more than its length; plain
// text takes about as much). They hold whatever the model sends, so a
// model cannot make its thread too large to load: older turns are
// condensed away to keep a thread under MaxThreadBytes before each model
// step, one step adds at most MaxStepBytes, and a turn ends after the step
// that takes it past MaxTurnBytes. A thread is therefore never much more
// than MaxThreadBytes + MaxStepBytes (about 38 MiB), well inside the
// 64 MiB a thread file may hold (threadfile.MaxFile). Facts are never
// condensed; a thread whose facts alone pass MaxThreadBytes is refused by
// its store when saved, rather than written too large to load.
const (
	// MaxMessageBytes bounds a message the thread keeps from the model,
	// and a tool's result. Longer ones are cut, ending with LineCut; a
	// model that streams past it is stopped there (LineStoppedLong).
	MaxMessageBytes = 256 << 10
	// MaxInputBytes bounds the person's input on one turn; longer input is
	// cut, with LineCut, and the person is told.
	MaxInputBytes = 1 << 20
	// MaxToolCalls bounds the tool calls of one model message; further
	// calls are dropped, and the message ends with LineDroppedCalls.
	MaxToolCalls = 16
	// MaxArgumentsBytes bounds one tool call's arguments. A call with
	// longer ones is not run: it keeps {} as its arguments, and its result
	// says why (LineArgumentsTooLong).
	MaxArgumentsBytes = 64 << 10
	// MaxThinkingBytes bounds the model's thinking in one step; a model
	// that thinks past it is stopped there (LineStoppedThinking). Thinking
	// is shown, never kept.
	MaxThinkingBytes = 1 << 20
	// MaxStepBytes is the most one model step adds to a thread: the
	// model's message, its tool calls and their results, with room for
	// the keys around them.
	MaxStepBytes = MaxMessageBytes + MaxToolCalls*(MaxArgumentsBytes+MaxMessageBytes+2*messageOverhead) + messageOverhead
	// MaxTurnBytes: a turn that has grown past it ends after its step,
	// with ErrTurnTooLarge, kept as far as it went.
	MaxTurnBytes = 16 << 20
	// MaxThreadBytes: before each model step, older turns are condensed
	// away while the thread's messages and facts take more.
	MaxThreadBytes = 32 << 20
)

// messageOverhead is room for a stored message's keys and short values
// (role, ids, names): {"role":"assistant","content":"",...}.
const messageOverhead = 512

// maxIDBytes and maxNameBytes bound a tool call's id and name as the model
// sends them; a longer id is replaced, a longer name cut (no tool has it).
const (
	maxIDBytes   = 64
	maxNameBytes = 128
)

// ErrTurnTooLarge: a turn grew past MaxTurnBytes and was ended after its
// step. It is kept as far as it went.
var ErrTurnTooLarge = errors.New("the turn grew too large")

// LineCut ends a text wisp cut to what a thread keeps of one message. The
// model reads it where the rest was.
func LineCut(stored, limit int) string {
	return fmt.Sprintf("\n[cut by wisp: this message takes %d bytes as the thread stores it, and a thread keeps at most %d of one]", stored, limit)
}

// LineStoppedLong ends the message of a model that wisp stopped because
// it went on past what a thread keeps.
func LineStoppedLong(limit int) string {
	return fmt.Sprintf("\n[cut by wisp: the model went on past %d bytes, the most a thread keeps of one message, and was stopped here]", limit)
}

// LineStoppedThinking ends the message of a model that wisp stopped
// because it thought past MaxThinkingBytes.
func LineStoppedThinking() string {
	return fmt.Sprintf("\n[cut by wisp: the model thought past %d bytes, the most wisp reads of one step's thinking, and was stopped here]", MaxThinkingBytes)
}

// LineDroppedCalls ends a model message whose tool calls were more than a
// message may make.
func LineDroppedCalls(dropped int) string {
	return fmt.Sprintf("\n[wisp dropped %d more tool calls of this message: a message makes at most %d; make the rest in the next]", dropped, MaxToolCalls)
}

// LineArgumentsTooLong is the result of a call whose arguments were longer
// than a call takes; the call did not run.
func LineArgumentsTooLong(stored int) string {
	return fmt.Sprintf("error: the arguments of this call took %d bytes, and a call takes at most %d; it did not run. Send shorter arguments", stored, MaxArgumentsBytes)
}

// lineInputCut tells the person their input was cut.
func lineInputCut(stored int) string {
	return fmt.Sprintf("your message takes %d bytes as the thread stores it; wisp kept the first %d and the model read that it was cut", stored, MaxInputBytes)
}

// storedLen is how many bytes s takes as a JSON string, quotes included,
// the way encoding/json writes it (HTML characters escaped).
func storedLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			n += asciiLen(c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1, r == '\u2028', r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}

// asciiLen is how many bytes encoding/json writes for the ASCII byte c
// inside a string.
func asciiLen(c byte) int {
	switch {
	case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
		return 2
	case c < 0x20 || c == '<' || c == '>' || c == '&':
		return 6
	}
	return 1
}

// rawStoredLen is how many bytes the JSON b takes once encoding/json has
// compacted and HTML-escaped it; at most that for b that is not JSON.
func rawStoredLen(b []byte) int {
	n := len(b)
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '<', '>', '&':
			n += 5
		case 0xe2: // U+2028 and U+2029 are escaped too
			if i+2 < len(b) && b[i+1] == 0x80 && (b[i+2] == 0xa8 || b[i+2] == 0xa9) {
				n += 3
			}
		}
	}
	return n
}

// cutStored returns the longest prefix of s, cut at a character, that
// takes at most limit bytes stored.
func cutStored(s string, limit int) string {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		size, w := 1, 0
		if c < utf8.RuneSelf {
			w = asciiLen(c)
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			w = size
			if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
				w = 6
			}
		}
		if n+w > limit {
			return s[:i]
		}
		n += w
		i += size
	}
	return s
}

// fit cuts s to what a thread keeps of one message (limit), ending it with
// LineCut, and reports whether it cut.
func fit(s string, limit int) (string, bool) {
	stored := storedLen(s)
	if stored <= limit {
		return s, false
	}
	note := LineCut(stored, limit)
	return cutStored(s, limit-storedLen(note)+2) + note, true
}

// messageBytes is how many bytes m takes in its thread's store, near
// enough: its texts exactly, its keys within messageOverhead.
func messageBytes(m wisp.Message) int {
	n := messageOverhead + storedLen(m.Content) + storedLen(m.ToolCallID) + storedLen(m.Name)
	for _, c := range m.ToolCalls {
		n += storedLen(c.ID) + storedLen(c.Name) + rawStoredLen(c.Arguments) + messageOverhead/8
	}
	return n
}

func messagesBytes(ms []ThreadRecord) int {
	n := 0
	for _, m := range ms {
		n += messageBytes(m.Message) + storedLen(string(m.Kind))
	}
	return n
}

func factBytes(f wisp.Fact) int {
	return messageOverhead/4 + storedLen(f.ID) + storedLen(f.Subject) + storedLen(f.Name) + storedLen(f.Value) + storedLen(f.Source)
}
