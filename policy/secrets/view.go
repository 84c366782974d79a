package secrets

import (
	"encoding/base64"
	"encoding/hex"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A view is the scanned text or a transformed copy of it. Each byte of a copy
// remembers the range of original bytes it came from, so a match in the copy
// can be mapped back onto the original.
type view struct {
	text string
	// lo[i] and hi[i] bound the original bytes that produced byte i of text.
	// Both are nil for the original text itself.
	lo, hi []int32
}

// orig maps the byte range [start, end) of v onto the original text.
func (v *view) orig(start, end int) (int, int) {
	if v.lo == nil {
		return start, end
	}
	return int(v.lo[start]), int(v.hi[end-1])
}

// A viewBuilder assembles a copy of a parent view byte by byte.
type viewBuilder struct {
	parent *view
	buf    []byte
	lo, hi []int32
}

func newViewBuilder(parent *view, n int) *viewBuilder {
	return &viewBuilder{
		parent: parent,
		buf:    make([]byte, 0, n),
		lo:     make([]int32, 0, n),
		hi:     make([]int32, 0, n),
	}
}

// add appends out, which the parent's bytes [start, end) produced.
func (b *viewBuilder) add(out string, start, end int) {
	lo, hi := b.parent.orig(start, end)
	for i := 0; i < len(out); i++ {
		b.buf = append(b.buf, out[i])
		b.lo = append(b.lo, int32(lo))
		b.hi = append(b.hi, int32(hi))
	}
}

// copy appends the parent's bytes [start, end) unchanged, byte for byte.
func (b *viewBuilder) copy(start, end int) {
	for i := start; i < end; i++ {
		b.add(b.parent.text[i:i+1], i, i+1)
	}
}

func (b *viewBuilder) view() *view {
	return &view{text: string(b.buf), lo: b.lo, hi: b.hi}
}

// tooLong reports whether a text is too long for a derived view, whose
// offsets are 32-bit.
func tooLong(s string) bool { return len(s) >= math.MaxInt32 }

// stripView returns v without its default-ignorable code points, or nil when
// v has none.
func stripView(v *view) *view {
	if tooLong(v.text) || !hasIgnorable(v.text) {
		return nil
	}
	s := v.text
	b := newViewBuilder(v, len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isIgnorable(r) {
			b.copy(i, i+size)
		}
		i += size
	}
	return b.view()
}

// A decoder derives a decoded copy of a view, or returns nil when there is
// nothing to decode.
type decoder func(v *view) *view

// decoders are applied, in this order, to each view; see scan.
var decoders = []decoder{percentView, escapeView, blobView}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// percentAt decodes the escape "%XX" at s[i:], if there is one.
func percentAt(s string, i int) (byte, bool) {
	if i+2 >= len(s) || s[i] != '%' {
		return 0, false
	}
	h, ok1 := unhex(s[i+1])
	l, ok2 := unhex(s[i+2])
	return h<<4 | l, ok1 && ok2
}

// percentView decodes percent-escapes ("%2F") and, as in a query string,
// reads "+" as a space. It returns nil when v holds no percent-escape.
func percentView(v *view) *view {
	s := v.text
	first := -1
	for i := strings.IndexByte(s, '%'); i >= 0 && i < len(s); {
		if _, ok := percentAt(s, i); ok {
			first = i
			break
		}
		j := strings.IndexByte(s[i+1:], '%')
		if j < 0 {
			break
		}
		i += j + 1
	}
	if first < 0 || tooLong(s) {
		return nil
	}
	b := newViewBuilder(v, len(s))
	for i := 0; i < len(s); {
		if c, ok := percentAt(s, i); ok {
			b.add(string(c), i, i+3)
			i += 3
			continue
		}
		if s[i] == '+' {
			b.add(" ", i, i+1)
		} else {
			b.copy(i, i+1)
		}
		i++
	}
	return b.view()
}

// escapeAt decodes the backslash escape at s[i:] as JSON, Go, Python and
// JavaScript write them: \n \r \t \b \f \" \' \\ \/ \xHH \uXXXX (with UTF-16
// surrogate pairs) and \UXXXXXXXX. It returns the decoded bytes and the length
// of the escape, or 0 when s[i:] is not one.
func escapeAt(s string, i int) (string, int) {
	if i+1 >= len(s) || s[i] != '\\' {
		return "", 0
	}
	switch s[i+1] {
	case 'n':
		return "\n", 2
	case 'r':
		return "\r", 2
	case 't':
		return "\t", 2
	case 'b':
		return "\b", 2
	case 'f':
		return "\f", 2
	case '"', '\'', '\\', '/', '`':
		return s[i+1 : i+2], 2
	case 'x':
		if c, ok := hexDigits(s, i+2, 2); ok {
			return string([]byte{byte(c)}), 4
		}
	case 'u':
		r, ok := hexDigits(s, i+2, 4)
		if !ok {
			break
		}
		if 0xD800 <= r && r < 0xDC00 && i+11 < len(s) && s[i+6] == '\\' && s[i+7] == 'u' {
			if r2, ok := hexDigits(s, i+8, 4); ok && 0xDC00 <= r2 && r2 < 0xE000 {
				return string(rune((r-0xD800)<<10 + (r2 - 0xDC00) + 0x10000)), 12
			}
		}
		return string(rune(r)), 6
	case 'U':
		if r, ok := hexDigits(s, i+2, 8); ok {
			return string(rune(r)), 10
		}
	}
	return "", 0
}

// hexDigits reads n hex digits at s[i:].
func hexDigits(s string, i, n int) (int, bool) {
	if i+n > len(s) {
		return 0, false
	}
	v := 0
	for _, c := range []byte(s[i : i+n]) {
		d, ok := unhex(c)
		if !ok {
			return 0, false
		}
		v = v<<4 | int(d)
	}
	return v, true
}

// escapeView decodes backslash escapes. It returns nil when v holds none.
func escapeView(v *view) *view {
	s := v.text
	found := false
	for i := strings.IndexByte(s, '\\'); i >= 0; {
		if _, n := escapeAt(s, i); n > 0 {
			found = true
			break
		}
		j := strings.IndexByte(s[i+1:], '\\')
		if j < 0 {
			break
		}
		i += j + 1
	}
	if !found || tooLong(s) {
		return nil
	}
	b := newViewBuilder(v, len(s))
	for i := 0; i < len(s); {
		if out, n := escapeAt(s, i); n > 0 {
			b.add(out, i, i+n)
			i += n
			continue
		}
		b.copy(i, i+1)
		i++
	}
	return b.view()
}

// Runs of base64 or hex shorter than these are not decoded.
const (
	minBase64Run = 24
	minHexRun    = 32
)

func isBase64Byte(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' ||
		c == '+' || c == '/' || c == '-' || c == '_'
}

// blobView decodes each long run of base64 or hex that decodes to text, and
// lays the decoded texts end to end, one a line. Every byte of a decoded run
// maps to the whole run, so a match inside it replaces the whole run. It
// returns nil when no run decodes to text.
func blobView(v *view) *view {
	s := v.text
	var b *viewBuilder
	for i := 0; i < len(s); {
		if !isBase64Byte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isBase64Byte(s[j]) {
			j++
		}
		end := j
		for end < len(s) && end-j < 2 && s[end] == '=' {
			end++
		}
		if j-i >= minBase64Run {
			if out, ok := decodeBlob(s[i:j]); ok {
				if b == nil {
					if tooLong(s) {
						return nil
					}
					b = newViewBuilder(v, 0)
				}
				b.add(out, i, end)
				b.add("\n", i, end)
			}
		}
		i = end
	}
	if b == nil {
		return nil
	}
	return b.view()
}

// decodeBlob decodes a run of hex or base64 (standard or URL alphabet,
// padding removed) and reports whether the result reads as text.
func decodeBlob(run string) (string, bool) {
	if len(run) >= minHexRun && len(run)%2 == 0 && isHex(run) {
		out, err := hex.DecodeString(run)
		if err == nil && readsAsText(out) {
			return string(out), true
		}
		return "", false
	}
	if len(run)%4 == 1 {
		run = run[:len(run)-1]
	}
	enc := base64.RawStdEncoding
	if strings.ContainsAny(run, "-_") {
		if strings.ContainsAny(run, "+/") {
			return "", false
		}
		enc = base64.RawURLEncoding
	}
	out, err := enc.DecodeString(run)
	if err != nil || !readsAsText(out) {
		return "", false
	}
	return string(out), true
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if _, ok := unhex(s[i]); !ok {
			return false
		}
	}
	return true
}

// readsAsText reports whether b is valid UTF-8 of which at least 95% of the
// characters are printable or ordinary white space.
func readsAsText(b []byte) bool {
	if len(b) < 12 || !utf8.Valid(b) {
		return false
	}
	total, bad := 0, 0
	for _, r := range string(b) {
		total++
		if !unicode.IsPrint(r) && r != '\n' && r != '\r' && r != '\t' {
			bad++
		}
	}
	return bad*20 <= total
}
