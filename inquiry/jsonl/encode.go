package jsonl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/wisp-agent/wisp/inquiry/escape"
)

// Encode returns l as one line of the protocol, ended by '\n': a JSON
// object whose first key is "type" (then "kind" or "phase" where the type
// has one), then l's keys in the order of its fields.
//
// Strings are written exactly, but every character that is unsafe on a
// terminal (escape.Unsafe: controls, DEL, bidirectional and other
// invisible characters) is written as a \u escape, so that the line can
// be printed raw and still decodes to the same text. Bytes that are not
// valid UTF-8 become U+FFFD, as JSON strings are Unicode. "<", ">" and "&"
// are written as themselves.
func Encode(l Line) ([]byte, error) {
	if l == nil {
		return nil, errors.New("jsonl: Encode of a nil Line")
	}
	b, err := marshal(l)
	if err != nil {
		return nil, fmt.Errorf("jsonl: encoding a %s line: %w", l.LineType(), err)
	}
	if len(b) == 0 || b[0] != '{' {
		return nil, fmt.Errorf("jsonl: a %s line did not encode as an object", l.LineType())
	}
	return append(escape.JSON(b), '\n'), nil
}

// marshal is json.Marshal without HTML escaping and without the newline.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// typed marshals v, an object, with "type" (and key: val, when key is not
// empty) put first.
func typed(typ, key, val string, v any) ([]byte, error) {
	b, err := marshal(v)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.Grow(len(b) + 32)
	out.WriteString(`{"type":`)
	writeString(&out, typ)
	if key != "" {
		out.WriteString(`,"` + key + `":`)
		writeString(&out, val)
	}
	if len(b) > 2 {
		out.WriteByte(',')
		out.Write(b[1:])
	} else {
		out.WriteByte('}')
	}
	return out.Bytes(), nil
}

func writeString(b *bytes.Buffer, s string) {
	q, _ := marshal(s) // a string always marshals
	b.Write(q)
}

// MarshalJSON writes the line as Encode does, without the newline and
// without escaping unsafe runes.
func (m Hello) MarshalJSON() ([]byte, error) {
	type wire Hello
	return typed(TypeHello, "", "", wire(m))
}

// MarshalJSON writes the line with its type.
func (m Turn) MarshalJSON() ([]byte, error) {
	type wire Turn
	return typed(TypeTurn, "", "", wire(m))
}

// MarshalJSON writes the line with its type.
func (m Delta) MarshalJSON() ([]byte, error) {
	type wire Delta
	return typed(TypeDelta, "", "", wire(m))
}

// MarshalJSON writes the line with its type and phase.
func (m ToolCall) MarshalJSON() ([]byte, error) {
	type wire ToolCall
	return typed(TypeTool, "phase", PhaseCall, wire(m))
}

// MarshalJSON writes the line with its type and phase.
func (m ToolOutput) MarshalJSON() ([]byte, error) {
	type wire ToolOutput
	return typed(TypeTool, "phase", PhaseOutput, wire(m))
}

// MarshalJSON writes the line with its type and phase.
func (m ToolResult) MarshalJSON() ([]byte, error) {
	type wire ToolResult
	return typed(TypeTool, "phase", PhaseResult, wire(m))
}

// MarshalJSON writes the line with its type.
func (m Note) MarshalJSON() ([]byte, error) {
	type wire Note
	return typed(TypeNote, "", "", wire(m))
}

// MarshalJSON writes the line with its type and kind.
func (m Question) MarshalJSON() ([]byte, error) {
	type wire Question
	return typed(TypeChoice, "kind", KindQuestion, wire(m))
}

// MarshalJSON writes the line with its type and kind.
func (m Card) MarshalJSON() ([]byte, error) {
	type wire Card
	return typed(TypeChoice, "kind", KindCard, wire(m))
}

// MarshalJSON writes the line with its type and kind.
func (m Approval) MarshalJSON() ([]byte, error) {
	type wire Approval
	return typed(TypeChoice, "kind", KindApproval, wire(m))
}

// MarshalJSON writes the line with its type.
func (m Settled) MarshalJSON() ([]byte, error) {
	type wire Settled
	return typed(TypeSettled, "", "", wire(m))
}

// MarshalJSON writes the line with its type: "reply" when Error is empty
// (even an empty reply), "error" otherwise, never both; "turn" only when
// the turn started (Turn is not 0).
func (m End) MarshalJSON() ([]byte, error) {
	if m.Error == "" {
		type ok struct {
			Thread  string   `json:"thread"`
			Turn    int      `json:"turn,omitzero"`
			Reply   string   `json:"reply"`
			Flags   []string `json:"flags,omitempty"`
			Stopped bool     `json:"stopped,omitempty"`
		}
		return typed(TypeEnd, "", "", ok{m.Thread, m.Turn, m.Reply, m.Flags, m.Stopped})
	}
	type failed struct {
		Thread  string   `json:"thread"`
		Turn    int      `json:"turn,omitzero"`
		Flags   []string `json:"flags,omitempty"`
		Error   string   `json:"error"`
		Stopped bool     `json:"stopped,omitempty"`
	}
	return typed(TypeEnd, "", "", failed{m.Thread, m.Turn, m.Flags, m.Error, m.Stopped})
}

// MarshalJSON writes the line with its type.
func (m Error) MarshalJSON() ([]byte, error) {
	type wire Error
	return typed(TypeError, "", "", wire(m))
}

// MarshalJSON writes the line with its type.
func (m Bye) MarshalJSON() ([]byte, error) { return typed(TypeBye, "", "", struct{}{}) }

// MarshalJSON writes the line with its type.
func (m Message) MarshalJSON() ([]byte, error) {
	type wire Message
	return typed(TypeMessage, "", "", wire(m))
}

// MarshalJSON writes the line with its type.
func (m Choose) MarshalJSON() ([]byte, error) {
	type wire Choose
	return typed(TypeChoose, "", "", wire(m))
}

// MarshalJSON writes the line with its type.
func (m Approve) MarshalJSON() ([]byte, error) {
	type wire Approve
	return typed(TypeApprove, "", "", wire(m))
}

// MarshalJSON writes the line with its type.
func (m Deny) MarshalJSON() ([]byte, error) {
	type wire Deny
	return typed(TypeDeny, "", "", wire(m))
}

// MarshalJSON writes the line with its type.
func (m Cancel) MarshalJSON() ([]byte, error) { return typed(TypeCancel, "", "", struct{}{}) }

// MarshalJSON writes the line with its type.
func (m Command) MarshalJSON() ([]byte, error) {
	type wire Command
	return typed(TypeCommand, "", "", wire(m))
}

// MarshalJSON writes the line with its type.
func (m Questions) MarshalJSON() ([]byte, error) {
	type wire Questions
	return typed(TypeQuestions, "", "", wire(m))
}
