package runcommand

import (
	"bytes"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/wisp-agent/wisp/policy/secrets"
)

// MaxStreamBytes bounds what the model reads of each stream of a
// command's output: its start and its end, half each, with a note of
// what was cut between them.
const MaxStreamBytes = 16 << 10

// seamBytes is how much may be dropped on each side of the seam where a
// runner cut a stream, the partial line there: as much as the longest
// value a session's vault holds, so that no part of one that the cut
// split is left for the redactor to miss.
const seamBytes = secrets.MaxValueBytes

// streamText returns what the model reads of one stream: redacted first,
// then cut to MaxStreamBytes, with a note where bytes were left out, and
// whether any were.
//
// Where the runner cut the stream, the partial lines on each side of the
// cut are dropped before the head and the tail are redacted, each alone:
// a credential the cut split in two is dropped, not half shown.
func streamText(o Output, redact func(string) string) (string, bool) {
	if !o.Cut() {
		return middle(redact(string(o.Head)), MaxStreamBytes)
	}
	head, tail := dropSeam(o.Head, o.Tail)
	dropped := o.Bytes - int64(len(head)+len(tail))
	h, _ := middle(redact(string(head)), MaxStreamBytes/2)
	t, _ := middle(redact(string(tail)), MaxStreamBytes/2)
	return h + cutNote(dropped) + t, true
}

// dropSeam drops from head its last partial line and from tail its first,
// each at most seamBytes; a head or tail that is all one partial line
// loses seamBytes of it.
func dropSeam(head, tail []byte) ([]byte, []byte) {
	if len(head) > 0 && head[len(head)-1] != '\n' {
		n := len(head) - max(bytes.LastIndexByte(head, '\n')+1, len(head)-seamBytes, 0)
		head = head[:len(head)-n]
	}
	if len(tail) > 0 {
		if i := bytes.IndexByte(tail, '\n'); i >= 0 && i < seamBytes {
			tail = tail[i+1:]
		} else {
			tail = tail[min(seamBytes, len(tail)):]
		}
	}
	return head, tail
}

// middle cuts the middle out of text longer than limit bytes, keeping
// half the limit at each end on rune boundaries, with a note of what was
// cut, and reports whether it cut.
func middle(text string, limit int) (string, bool) {
	if len(text) <= limit {
		return text, false
	}
	h := limit / 2
	for h > 0 && !utf8.RuneStart(text[h]) {
		h--
	}
	t := len(text) - limit/2
	for t < len(text) && !utf8.RuneStart(text[t]) {
		t++
	}
	return text[:h] + cutNote(int64(t-h)) + text[t:], true
}

// cutNote stands where bytes of output were left out.
func cutNote(n int64) string {
	return "\n[… " + sizeText(n) + " cut …]\n"
}

// report writes what the model reads of a command's end: how it ended,
// what the sandbox refused it, and each stream.
func report(r Result, timeout time.Duration, redact func(string) string) (text string, cut bool) {
	var b strings.Builder
	took := r.Duration.Round(time.Millisecond)
	switch {
	case r.TimedOut:
		fmt.Fprintf(&b, "timed out: the command was ended after %s (timeoutSeconds %d; at most %d)\n", took, int(timeout/time.Second), int(MaxTimeout/time.Second))
	case r.Signal != "":
		fmt.Fprintf(&b, "ended by signal %s after %s\n", r.Signal, took)
	default:
		fmt.Fprintf(&b, "exit status %d after %s\n", r.ExitCode, took)
	}
	if len(r.Denied) > 0 {
		fmt.Fprintf(&b, "the sandbox refused: %s\n", redact(strings.Join(r.Denied, "; ")))
	}
	for _, s := range []struct {
		name string
		o    Output
	}{{Stdout, r.Stdout}, {Stderr, r.Stderr}} {
		if s.o.Bytes == 0 && len(s.o.Head) == 0 {
			fmt.Fprintf(&b, "%s: (none)\n", s.name)
			continue
		}
		t, c := streamText(s.o, redact)
		cut = cut || c
		if c {
			fmt.Fprintf(&b, "%s (%s, cut):\n", s.name, sizeText(s.o.Bytes))
		} else {
			fmt.Fprintf(&b, "%s:\n", s.name)
		}
		b.WriteString(t)
		if !strings.HasSuffix(t, "\n") {
			b.WriteString("\n")
		}
	}
	return strings.TrimSuffix(b.String(), "\n"), cut
}
