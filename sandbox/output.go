package sandbox

import (
	"fmt"
	"unicode/utf8"
)

// Stream names one of a command's output streams.
type Stream int

// The streams a command writes.
const (
	Stdout Stream = 1
	Stderr Stream = 2
)

// String returns "stdout" or "stderr".
func (s Stream) String() string {
	switch s {
	case Stdout:
		return "stdout"
	case Stderr:
		return "stderr"
	}
	return fmt.Sprintf("stream(%d)", int(s))
}

// Output is what a Result keeps of one stream: all of it when it fits the
// limit, else its first and last bytes, cut at character boundaries.
type Output struct {
	// Head is the start of the stream; all of it when nothing was cut.
	Head []byte
	// Tail is the end of the stream; empty when nothing was cut.
	Tail []byte
	// Bytes is how many bytes the command wrote to the stream.
	Bytes int64
	// Cut is how many bytes between Head and Tail were dropped.
	Cut int64
}

// String returns the stream as kept: Head, and when bytes were cut, a line
// that says how many, then Tail.
func (o Output) String() string {
	if o.Cut == 0 {
		return string(o.Head) + string(o.Tail)
	}
	sep := "\n"
	if len(o.Head) == 0 || o.Head[len(o.Head)-1] == '\n' {
		sep = ""
	}
	return fmt.Sprintf("%s%s[… %d bytes cut …]\n%s", o.Head, sep, o.Cut, o.Tail)
}

// capture keeps the first half of limit bytes written to it and the last
// half, and counts the rest. It is not safe for concurrent use.
type capture struct {
	head  []byte
	tail  []byte // a ring of cap tailMax once full
	next  int    // where the ring's next byte goes
	full  bool   // the ring has wrapped
	half  int
	total int64
}

func newCapture(limit int) *capture {
	half := max(limit/2, 1)
	return &capture{half: half}
}

func (c *capture) Write(p []byte) {
	c.total += int64(len(p))
	if n := c.half - len(c.head); n > 0 {
		n = min(n, len(p))
		c.head = append(c.head, p[:n]...)
		p = p[n:]
	}
	if len(p) >= c.half {
		c.tail = append(c.tail[:0], p[len(p)-c.half:]...)
		c.next, c.full = 0, true
		return
	}
	for len(p) > 0 {
		if !c.full && len(c.tail) < c.half {
			n := min(c.half-len(c.tail), len(p))
			c.tail = append(c.tail, p[:n]...)
			p = p[n:]
			if len(c.tail) == c.half {
				c.next, c.full = 0, true
			}
			continue
		}
		n := copy(c.tail[c.next:], p)
		p = p[n:]
		c.next = (c.next + n) % c.half
	}
}

// output returns what was kept, cut at character boundaries.
func (c *capture) output() Output {
	tail := c.tail
	if c.full && c.next > 0 {
		tail = append(append([]byte(nil), c.tail[c.next:]...), c.tail[:c.next]...)
	} else {
		tail = append([]byte(nil), tail...)
	}
	head := append([]byte(nil), c.head...)
	cut := c.total - int64(len(head)) - int64(len(tail))
	if cut == 0 {
		return Output{Head: append(head, tail...), Bytes: c.total}
	}
	// Move a character split at either seam into the cut part.
	for i := 0; i < utf8.UTFMax-1 && partial(head); i++ {
		head = head[:len(head)-1]
		cut++
	}
	for i := 0; i < utf8.UTFMax-1 && len(tail) > 0 && !utf8.RuneStart(tail[0]); i++ {
		tail = tail[1:]
		cut++
	}
	return Output{Head: head, Tail: tail, Bytes: c.total, Cut: cut}
}

// partial reports whether b ends with the start of a character whose
// remaining bytes are missing.
func partial(b []byte) bool {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		c := b[len(b)-i]
		if utf8.RuneStart(c) {
			return !utf8.FullRune(b[len(b)-i:])
		}
	}
	return false
}
