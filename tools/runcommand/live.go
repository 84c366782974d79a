package runcommand

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/wisp-agent/wisp"
)

// Bounds of what a face is shown of a command's output as it comes.
const (
	// MaxLiveBytes bounds what a face is shown of one call's output as
	// it comes; the result keeps the head and tail of the rest.
	MaxLiveBytes = 1 << 20
	// maxLiveLine bounds a line a face is shown as it comes: a longer one
	// is left out of the live view.
	maxLiveLine = 64 << 10
	// maxHold bounds the output held back while a PEM block is open: a
	// longer block is left out of the live view.
	maxHold = 256 << 10
)

// The lines that start and end a PEM block, such as a private key.
const (
	pemBegin = "-----BEGIN "
	pemEnd   = "-----END "
)

// The notes the live view gives in place of output it does not show.
const (
	noteLongLine  = "[a line longer than 64 KiB is not shown as it comes; the result keeps what the runner kept of it]\n"
	noteLongBlock = "[a PEM block longer than 256 KiB is not shown as it comes]\n"
	noteStopped   = "[the output goes on; no more of it is shown as it comes]\n"
)

// live turns a command's raw output into what a face is shown as it
// comes (wisp.Call.Output): whole lines, passed through the redactor, a
// stream at a time, each piece given from one goroutine at a time and
// none after close.
//
// A line is shown only once it is whole, so that a credential split
// between two pieces of output is redacted whole; and lines are held back
// while a PEM block (a private key) has begun and not ended, so that
// every line of a key is redacted with it. Each byte is looked at a
// bounded number of times, however the output is cut into pieces.
type live struct {
	out    func(wisp.ToolOutput)
	base   wisp.ToolOutput
	redact func(string) string

	mu      sync.Mutex
	streams map[string]*pend
	sent    int
	done    bool // closed, or MaxLiveBytes shown
}

// pend is one stream's output not shown yet.
type pend struct {
	buf     []byte
	scanned int  // how much of buf has been looked at
	nl      int  // just past the last line feed in buf[:scanned]; 0: none
	open    bool // buf[:scanned] has a PEM BEGIN line with no END after it
	skip    skipping
}

// skipping says what a stream is leaving out of the view.
type skipping int

const (
	showing   skipping = iota
	longLine           // the rest of a line too long to show
	longBlock          // the rest of a PEM block too long to hold
)

func newLive(out func(wisp.ToolOutput), base wisp.ToolOutput, redact func(string) string) *live {
	return &live{out: out, base: base, redact: redact, streams: map[string]*pend{}}
}

// write takes a piece of the stream's output.
func (l *live) write(stream string, p []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done {
		return
	}
	s := l.streams[stream]
	if s == nil {
		s = &pend{}
		l.streams[stream] = s
	}
	switch s.skip {
	case longLine:
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			return
		}
		p, s.skip = p[i+1:], showing
	case longBlock:
		// Drop whole lines until the one that ends the block.
		s.buf = append(s.buf, p...)
		for {
			i := bytes.IndexByte(s.buf, '\n')
			if i < 0 {
				if len(s.buf) > maxLiveLine {
					s.buf = s.buf[:0]
				}
				return
			}
			line := s.buf[:i+1]
			s.buf = s.buf[i+1:]
			if bytes.Contains(line, []byte(pemEnd)) {
				s.skip = showing
				p, s.buf = append([]byte(nil), s.buf...), nil
				break
			}
		}
	}
	s.buf = append(s.buf, p...)
	l.flush(stream, s, false)
}

// close shows what is left of each stream and ends the view.
func (l *live) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done {
		return
	}
	for _, name := range []string{Stdout, Stderr} {
		if s := l.streams[name]; s != nil && s.skip == showing {
			l.flush(name, s, true)
		}
	}
	l.done = true
}

// flush shows the whole lines of a stream's pending output (all of it at
// the end), unless a PEM block among them has not ended yet. The caller
// holds l.mu.
func (l *live) flush(name string, s *pend, end bool) {
	s.look()
	n := s.nl
	if end {
		n = len(s.buf)
	}
	switch {
	case n == 0:
		if len(s.buf) > maxLiveLine {
			*s = pend{skip: longLine}
			l.show(name, noteLongLine)
		}
		return
	case s.open && !end && len(s.buf) < maxHold:
		return
	case s.open && !end:
		*s = pend{skip: longBlock}
		l.show(name, noteLongBlock)
		return
	}
	text := l.redact(string(s.buf[:n]))
	rest := append([]byte(nil), s.buf[n:]...)
	*s = pend{buf: rest}
	s.look()
	l.show(name, text)
}

// look brings what is known of the stream's pending output up to date,
// looking only at what came since it last looked (and the few bytes
// before, where a BEGIN or END line may have been split).
func (s *pend) look() {
	from := s.scanned
	if i := bytes.LastIndexByte(s.buf[from:], '\n'); i >= 0 {
		s.nl = from + i + 1
	}
	region := s.buf[max(0, from-len(pemBegin)):]
	b, e := bytes.LastIndex(region, []byte(pemBegin)), bytes.LastIndex(region, []byte(pemEnd))
	switch {
	case b > e:
		s.open = true
	case e >= 0:
		s.open = false
	}
	s.scanned = len(s.buf)
}

// show gives text to the face, until MaxLiveBytes have been shown. The
// caller holds l.mu.
func (l *live) show(stream, text string) {
	if text == "" || l.done {
		return
	}
	if l.sent+len(text) > MaxLiveBytes-len(noteStopped) {
		text, l.done = noteStopped, true
	}
	l.sent += len(text)
	o := l.base
	o.Stream, o.Text = stream, text
	l.out(o)
}

// sizeText writes a byte count the way the tool's lines speak of it:
// "812 bytes", "12.4 KiB", "3.1 MiB".
func sizeText(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
}
