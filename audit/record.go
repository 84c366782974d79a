package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Sources: who caused what a record tells.
const (
	SourceTool   = "tool"
	SourcePerson = "person"
	SourceWisp   = "wisp"
	SourceModel  = "model"
)

// KindRecovered is the kind of the record Append writes after it has set
// aside a torn last line. Its source is "wisp" and its data holds
// droppedBytes (how many bytes were cut) and droppedSHA256 (their hash).
// Callers cannot record kinds that begin with "audit.".
const KindRecovered = "audit.recovered"

// reservedPrefix begins the kinds that belong to the log itself.
const reservedPrefix = "audit."

// genesis is the prev of the first line.
const genesis = "0000000000000000000000000000000000000000000000000000000000000000"

// timeLayout is RFC 3339 in UTC with exactly nine fractional digits.
const timeLayout = "2006-01-02T15:04:05.000000000Z"

// An Entry is what a caller records. Append adds the seq, time and prev.
type Entry struct {
	// Kind names the event, as dotted words ("inquiry.settled"). Required;
	// kinds beginning "audit." are the log's own.
	Kind string
	// Session names the session the event belongs to.
	Session string
	// Thread and Turn place the event in a conversation; leave them zero
	// when it is about none.
	Thread string
	Turn   int
	// Source is who caused the event: SourceTool, SourcePerson, SourceWisp
	// or SourceModel.
	Source string
	// Approval names the approval the event acted under, if any.
	Approval string
	// Data holds the details. It must marshal (encoding/json) to a JSON
	// object, or be nil for {}. Its string values pass through
	// Options.Redact before they are written.
	Data any
}

// A Record is one stored line of the log. The json tags give its keys; the
// order of the fields is the order of the keys on the line.
type Record struct {
	Seq      int64           `json:"seq"`
	Time     time.Time       `json:"time"`
	Kind     string          `json:"kind"`
	Session  string          `json:"session"`
	Thread   string          `json:"thread"`
	Turn     int             `json:"turn"`
	Source   string          `json:"source"`
	Approval string          `json:"approval,omitempty"`
	Data     json.RawMessage `json:"data"`
	// Prev is the lowercase hex SHA-256 of the previous line.
	Prev string `json:"prev"`
}

// validSource reports whether s is one of the four sources.
func validSource(s string) bool {
	switch s {
	case SourceTool, SourcePerson, SourceWisp, SourceModel:
		return true
	}
	return false
}

// validate checks what Append can check of an Entry before it takes a lock.
func (e Entry) validate() error {
	switch {
	case e.Kind == "":
		return fmt.Errorf("%w: kind is empty", ErrInvalidEntry)
	case strings.HasPrefix(e.Kind, reservedPrefix):
		return fmt.Errorf("%w: kind %q: kinds beginning %q belong to the log", ErrInvalidEntry, e.Kind, reservedPrefix)
	case !validSource(e.Source):
		return fmt.Errorf("%w: source %q is not one of %q, %q, %q, %q",
			ErrInvalidEntry, e.Source, SourceTool, SourcePerson, SourceWisp, SourceModel)
	case e.Turn < 0:
		return fmt.Errorf("%w: turn %d is negative", ErrInvalidEntry, e.Turn)
	}
	return nil
}

// hashLine is the lowercase hex SHA-256 of a line without its newline.
func hashLine(line []byte) string {
	sum := sha256.Sum256(line)
	return hex.EncodeToString(sum[:])
}

// appendLine appends r as a line of the log, newline included. r.Time must
// be within years 0 to 9999 and r.Data a JSON object (empty means {}).
func appendLine(dst []byte, r Record) []byte {
	dst = append(dst, `{"seq":`...)
	dst = strconv.AppendInt(dst, r.Seq, 10)
	dst = append(dst, `,"time":"`...)
	dst = r.Time.UTC().AppendFormat(dst, timeLayout)
	dst = append(dst, `","kind":`...)
	dst = appendString(dst, r.Kind)
	dst = append(dst, `,"session":`...)
	dst = appendString(dst, r.Session)
	dst = append(dst, `,"thread":`...)
	dst = appendString(dst, r.Thread)
	dst = append(dst, `,"turn":`...)
	dst = strconv.AppendInt(dst, int64(r.Turn), 10)
	dst = append(dst, `,"source":`...)
	dst = appendString(dst, r.Source)
	if r.Approval != "" {
		dst = append(dst, `,"approval":`...)
		dst = appendString(dst, r.Approval)
	}
	dst = append(dst, `,"data":`...)
	if len(r.Data) == 0 {
		dst = append(dst, "{}"...)
	} else {
		dst = append(dst, r.Data...)
	}
	dst = append(dst, `,"prev":`...)
	dst = appendString(dst, r.Prev)
	return append(dst, "}\n"...)
}

// appendString appends s as a JSON string. Like encoding/json with HTML
// escaping off, it keeps <, > and & as they are, escapes U+2028 and U+2029
// (which some JavaScript parsers take for line ends), and writes invalid
// UTF-8 as U+FFFD.
func appendString(dst []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// parseLine reads one line (without its newline) strictly: the keys in
// order with nothing between them, valid UTF-8, and each value of the form
// the format gives it. Anything else is an error, since the writer never
// produces it.
func parseLine(line []byte) (Record, error) {
	if !utf8.Valid(line) {
		return Record{}, fmt.Errorf("not valid UTF-8")
	}
	p := lineParser{b: line}
	var r Record
	var ts string
	p.lit(`{"seq":`)
	r.Seq = p.number()
	p.lit(`,"time":`)
	ts = p.str()
	p.lit(`,"kind":`)
	r.Kind = p.str()
	p.lit(`,"session":`)
	r.Session = p.str()
	p.lit(`,"thread":`)
	r.Thread = p.str()
	p.lit(`,"turn":`)
	turn := p.number()
	if r.Turn = int(turn); int64(r.Turn) != turn {
		p.fail("turn out of range")
	}
	p.lit(`,"source":`)
	r.Source = p.str()
	if p.has(`,"approval":`) {
		if r.Approval = p.str(); r.Approval == "" && p.err == nil {
			p.fail("approval is present but empty")
		}
	}
	p.lit(`,"data":`)
	r.Data = p.object()
	p.lit(`,"prev":`)
	r.Prev = p.str()
	p.lit(`}`)
	if p.err == nil && p.i != len(line) {
		p.fail("bytes after the closing brace")
	}
	if p.err != nil {
		return Record{}, p.err
	}
	switch {
	case r.Seq < 1:
		return Record{}, fmt.Errorf("seq is 0")
	case r.Kind == "":
		return Record{}, fmt.Errorf("kind is empty")
	case !validSource(r.Source):
		return Record{}, fmt.Errorf("source %q is unknown", r.Source)
	case !isHash(r.Prev):
		return Record{}, fmt.Errorf("prev is not 64 lowercase hex digits")
	}
	t, err := time.Parse(timeLayout, ts)
	if err != nil {
		return Record{}, fmt.Errorf("time %q: %v", ts, err)
	}
	var buf [len(timeLayout) + 8]byte
	if string(t.AppendFormat(buf[:0], timeLayout)) != ts {
		return Record{}, fmt.Errorf("time %q is not in canonical form", ts)
	}
	r.Time = t
	return r, nil
}

// lineSeq reads the seq at the start of a line, without checking the rest.
func lineSeq(line []byte) (int64, bool) {
	p := lineParser{b: line}
	p.lit(`{"seq":`)
	seq := p.number()
	if p.err != nil || seq < 1 || p.i >= len(line) || line[p.i] != ',' {
		return 0, false
	}
	return seq, true
}

// isHash reports whether s is 64 lowercase hex digits.
func isHash(s string) bool {
	if len(s) != len(genesis) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// lineParser reads a line from left to right; after the first error it
// does nothing and keeps that error.
type lineParser struct {
	b   []byte
	i   int
	err error
}

func (p *lineParser) fail(format string, args ...any) {
	if p.err == nil {
		p.err = fmt.Errorf("at byte %d: %s", p.i, fmt.Sprintf(format, args...))
	}
}

// has consumes s if the line goes on with it.
func (p *lineParser) has(s string) bool {
	if p.err == nil && bytes.HasPrefix(p.b[p.i:], []byte(s)) {
		p.i += len(s)
		return true
	}
	return false
}

// lit consumes s, which must come next.
func (p *lineParser) lit(s string) {
	if p.err == nil && !p.has(s) {
		p.fail("want %s", s)
	}
}

// number reads a non-negative integer in JSON's form (no sign, no leading
// zero, no fraction) that fits an int64.
func (p *lineParser) number() int64 {
	if p.err != nil {
		return 0
	}
	start := p.i
	var n int64
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		d := int64(p.b[p.i] - '0')
		if n > (math.MaxInt64-d)/10 {
			p.fail("number out of range")
			return 0
		}
		n = n*10 + d
		p.i++
	}
	switch {
	case p.i == start:
		p.fail("want a number")
	case p.b[start] == '0' && p.i-start > 1:
		p.fail("number with a leading zero")
	}
	return n
}

// str reads a JSON string.
func (p *lineParser) str() string {
	if p.err != nil {
		return ""
	}
	end, escaped := p.skipString()
	if p.err != nil {
		return ""
	}
	raw := p.b[p.i:end]
	p.i = end
	if !escaped {
		return string(raw[1 : len(raw)-1])
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		p.fail("bad string: %v", err)
	}
	return s
}

// skipString finds the end (one past the closing quote) of the string at
// p.i, and whether it holds escapes, without moving p.i.
func (p *lineParser) skipString() (end int, escaped bool) {
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		p.fail("want a string")
		return 0, false
	}
	for j := p.i + 1; j < len(p.b); j++ {
		switch c := p.b[j]; {
		case c == '"':
			return j + 1, escaped
		case c == '\\':
			escaped = true
			j++
		case c < 0x20:
			p.fail("control character in a string")
			return 0, false
		}
	}
	p.fail("unterminated string")
	return 0, false
}

// object reads a JSON object and returns a copy of its bytes.
func (p *lineParser) object() json.RawMessage {
	if p.err != nil {
		return nil
	}
	if p.i >= len(p.b) || p.b[p.i] != '{' {
		p.fail("data is not an object")
		return nil
	}
	start, depth := p.i, 0
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case '"':
			end, _ := p.skipString()
			if p.err != nil {
				return nil
			}
			p.i = end
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		}
		p.i++
		if depth == 0 {
			raw := p.b[start:p.i]
			if !json.Valid(raw) {
				p.i = start
				p.fail("data is not valid JSON")
				return nil
			}
			return bytes.Clone(raw)
		}
	}
	p.fail("unterminated data")
	return nil
}
