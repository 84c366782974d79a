package secrets

import (
	"encoding/base64"
	"encoding/hex"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A view is the scanned text or a transformed copy of part of it. Each byte
// of a copy remembers the range of original bytes it came from, so a match
// in the copy can be mapped back onto the original.
//
// A copy holds only the stretches of its parent near something to undo (an
// invisible character, an escape), each stretch transformed and followed by
// a line break. Far from those places a copy would read like its parent,
// which is scanned already.
type view struct {
	text string
	// segs map the bytes of a copy onto the original text, in order.
	segs []seg
	// origLen is the length of the original text.
	origLen int
	// parent is the view a copy was made from (nil for the original text
	// itself).
	parent *view
	// pieces are the runs of bytes that the view holds unchanged from
	// hitsFrom, in order: the parent of a copy, or, for a text that
	// Redact scans again after replacing values, the text as it was.
	hitsFrom *view
	pieces   []piece
	// at[rule], once the view is scanned, lists where the rule's anchors
	// start in text, in order.
	at [][]int
	// from[rule][k], when hitsFrom recorded its scan, is the index in
	// hitsFrom.at[rule] of the anchor at at[rule][k], or -1 for one that
	// is new.
	from [][]int32
	// record says to record, in scans[rule], what each rule found at each
	// of its anchors (see ruleScan), for the copies made of the view and
	// for a text Redact scans again after it. Copies record when their
	// parent does.
	record bool
	scans  []ruleScan
	// noBlob, for a text (not a copy), says blobView decoded no run of
	// it.
	noBlob bool
}

// A seg is a run of the bytes of a copy, from the copy's offset at to the
// next seg's: bytes of the original, the k-th of them original byte lo+k
// (when copied), or bytes that the original bytes [lo, hi) produced, every
// one of them.
type seg struct {
	at, lo, hi int
	copied     bool
}

// A piece is a run of n bytes of a copy, from offset at, that are the bytes
// of its parent from offset from, unchanged.
type piece struct {
	at, from, n int
}

// segAt returns the index of the seg that holds byte i of v, searching from
// index k on.
func (v *view) segAt(i, k int) int {
	segs := v.segs
	if k < len(segs) && segs[k].at <= i && (k+1 == len(segs) || i < segs[k+1].at) {
		return k
	}
	lo, hi := 0, len(segs)
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if segs[mid].at <= i {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// origOf returns the original bytes that produced byte i of v.
func (v *view) origOf(i int) (int, int) {
	s := v.segs[v.segAt(i, 0)]
	if s.copied {
		return s.lo + i - s.at, s.lo + i - s.at + 1
	}
	return s.lo, s.hi
}

// orig maps the byte range [start, end) of v onto the original text.
func (v *view) orig(start, end int) (int, int) {
	if v.parent == nil {
		return start, end
	}
	lo, _ := v.origOf(start)
	_, hi := v.origOf(end - 1)
	return lo, hi
}

// A viewBuilder assembles a copy of a parent view.
type viewBuilder struct {
	parent *view
	buf    strings.Builder
	segs   []seg
	pieces []piece
	// k is the parent's seg that the last copy ended in.
	k int
}

func newViewBuilder(parent *view) *viewBuilder {
	return &viewBuilder{parent: parent}
}

// addSeg appends a seg for n bytes about to be appended to buf, merging it
// with the last one when it continues it.
func (b *viewBuilder) addSeg(s seg, n int) {
	if n == 0 {
		return
	}
	if k := len(b.segs) - 1; k >= 0 {
		last := b.segs[k]
		switch {
		case s.copied && last.copied && s.lo == last.lo+s.at-last.at:
			return
		case !s.copied && !last.copied && s.lo == last.lo && s.hi == last.hi:
			return
		}
	}
	b.segs = append(b.segs, s)
}

// add appends out, which the parent's bytes [start, end) produced.
func (b *viewBuilder) add(out string, start, end int) {
	lo, hi := b.parent.orig(start, end)
	if len(out) == 1 && hi == lo+1 {
		// One byte for one: it maps as a copied byte does, and so goes
		// in the run of copied bytes around it.
		b.addSeg(seg{at: b.buf.Len(), lo: lo, copied: true}, 1)
	} else {
		b.addSeg(seg{at: b.buf.Len(), lo: lo, hi: hi}, len(out))
	}
	b.buf.WriteString(out)
}

// copy appends the parent's bytes [start, end) unchanged.
func (b *viewBuilder) copy(start, end int) {
	if start >= end {
		return
	}
	p := b.parent
	if n := len(b.pieces); n > 0 && b.pieces[n-1].at+b.pieces[n-1].n == b.buf.Len() && b.pieces[n-1].from+b.pieces[n-1].n == start {
		b.pieces[n-1].n += end - start
	} else {
		b.pieces = append(b.pieces, piece{at: b.buf.Len(), from: start, n: end - start})
	}
	if p.parent == nil {
		b.addSeg(seg{at: b.buf.Len(), lo: start, copied: true}, end-start)
		b.buf.WriteString(p.text[start:end])
		return
	}
	for i := start; i < end; {
		b.k = p.segAt(i, b.k)
		s := p.segs[b.k]
		next := len(p.text)
		if b.k+1 < len(p.segs) {
			next = p.segs[b.k+1].at
		}
		j := min(end, next)
		if s.copied {
			b.addSeg(seg{at: b.buf.Len(), lo: s.lo + i - s.at, copied: true}, j-i)
		} else {
			b.addSeg(seg{at: b.buf.Len(), lo: s.lo, hi: s.hi}, j-i)
		}
		b.buf.WriteString(p.text[i:j])
		i = j
	}
}

func (b *viewBuilder) view() *view {
	return &view{text: b.buf.String(), segs: b.segs, origLen: b.parent.size(), parent: b.parent, hitsFrom: b.parent, pieces: b.pieces, record: b.parent.record}
}

// size returns the length of the original text.
func (v *view) size() int {
	if v.parent == nil {
		return len(v.text)
	}
	return v.origLen
}

// tooLong reports whether a text is too long for a derived view, whose
// offsets are 32-bit.
func tooLong(s string) bool { return len(s) >= math.MaxInt32 }

// reach is how far around something to undo a copy extends. It covers the
// longest match of any rule with a length bound. A private key block that a
// copy cuts off still counts whole: see spec.toEnd.
const reach = 2 << 10

// stretches turns the offsets of things to undo, in order, into the
// stretches of a text of length n to copy: reach bytes either side, merged
// when they come within slack bytes of each other, and cut at rune starts.
func stretches(s string, at []int, slack int) [][2]int {
	var out [][2]int
	for _, p := range at {
		lo, hi := max(0, p-reach), min(len(s), p+reach)
		for lo > 0 && !utf8.RuneStart(s[lo]) {
			lo--
		}
		for hi < len(s) && !utf8.RuneStart(s[hi]) {
			hi++
		}
		if n := len(out); n > 0 && lo <= out[n-1][1]+slack {
			out[n-1][1] = max(out[n-1][1], hi)
			continue
		}
		out = append(out, [2]int{lo, hi})
	}
	return out
}

// derive builds a copy of v from the stretches around at: each stretch goes
// through undo, which appends its transformed bytes to b and returns where
// it stopped (an escape may run a little past the stretch), then a line
// break that maps to the stretch's last byte.
func derive(v *view, at []int, slack int, undo func(b *viewBuilder, start, end int) int) *view {
	if len(at) == 0 || tooLong(v.text) {
		return nil
	}
	sts := stretches(v.text, at, slack)
	n := 0
	for _, st := range sts {
		n += st[1] - st[0] + 1
	}
	b := newViewBuilder(v)
	b.buf.Grow(n)
	done := 0
	for _, st := range sts {
		start := max(st[0], done)
		if start >= st[1] {
			continue
		}
		done = undo(b, start, st[1])
		b.add("\n", done-1, done)
	}
	return b.view()
}

// stripView returns a copy of v without its default-ignorable code points,
// or nil when v has none.
func stripView(v *view) *view {
	s := v.text
	var at []int
	for i := 0; i < len(s); i++ {
		if i = asciiEnd(s, i); i == len(s) {
			break
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if isIgnorable(r) {
			at = append(at, i)
		}
		i += size - 1
	}
	return derive(v, at, 0, func(b *viewBuilder, start, end int) int {
		run := start // start of the bytes not yet copied
		for i := start; i < end; {
			if i = asciiEnd(s[:end], i); i == end {
				break
			}
			r, size := utf8.DecodeRuneInString(s[i:])
			if isIgnorable(r) {
				b.copy(run, i)
				run = i + size
			}
			i += size
		}
		b.copy(run, end)
		return end
	})
}

// A decoder derives a decoded copy of a view, or returns nil when there is
// nothing to decode.
type decoder func(v *view) *view

// decoders are applied, in this order, to each view; see walk.
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

// indexByteIn returns the offset of the first c in s[from:to], or to.
func indexByteIn(s string, from, to int, c byte) int {
	if j := strings.IndexByte(s[from:to], c); j >= 0 {
		return from + j
	}
	return to
}

// indexAll returns the offsets of c in s at which ok holds.
func indexAll(s string, c byte, ok func(i int) bool) []int {
	var at []int
	for i := 0; ; {
		j := strings.IndexByte(s[i:], c)
		if j < 0 {
			return at
		}
		i += j
		if ok(i) {
			at = append(at, i)
		}
		i++
	}
}

// percentView decodes percent-escapes ("%2F") and, as in a query string,
// reads "+" as a space. It returns nil when v holds no percent-escape.
func percentView(v *view) *view {
	s := v.text
	at := indexAll(s, '%', func(i int) bool { _, ok := percentAt(s, i); return ok })
	return derive(v, at, 3, func(b *viewBuilder, start, end int) int {
		i, run := start, start
		// pct and plus are the next '%' and '+' at or after i, or end.
		pct, plus := -1, -1
		for i < end {
			if pct < i {
				pct = indexByteIn(s, i, end, '%')
			}
			if plus < i {
				plus = indexByteIn(s, i, end, '+')
			}
			if i = min(pct, plus); i == end {
				break
			}
			c, ok := percentAt(s, i)
			switch {
			case ok:
				b.copy(run, i)
				b.add(string(c), i, i+3)
				i += 3
				run = i
			case s[i] == '+':
				b.copy(run, i)
				b.add(" ", i, i+1)
				i++
				run = i
			default:
				i++
			}
		}
		b.copy(run, i)
		return i
	})
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
	at := indexAll(s, '\\', func(i int) bool { _, n := escapeAt(s, i); return n > 0 })
	return derive(v, at, 12, func(b *viewBuilder, start, end int) int {
		i, run := start, start
		for i < end {
			if i = indexByteIn(s, i, end, '\\'); i == end {
				break
			}
			if out, n := escapeAt(s, i); n > 0 {
				b.copy(run, i)
				b.add(out, i, i+n)
				i += n
				run = i
				continue
			}
			i++
		}
		b.copy(run, i)
		return i
	})
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
	if tooLong(s) {
		return nil
	}
	var b *viewBuilder
	for _, rg := range blobRanges(v) {
		b = decodeRuns(v, rg[0], rg[1], b)
	}
	if v.parent == nil {
		v.noBlob = b == nil
	}
	if b == nil {
		return nil
	}
	return b.view()
}

// blobRanges returns the stretches of v that blobView reads, in order: the
// whole text, but for a text scanned again after the one before it
// decoded no run, only what lies between the pieces it holds unchanged
// and the runs that touch it. A run that lies in a piece, with the bytes
// that end it, is a run of the text before, which did not decode.
func blobRanges(v *view) [][2]int {
	s := v.text
	p := v.hitsFrom
	if v.parent != nil || p == nil || !p.noBlob || !piecesInOrder(v.pieces) {
		return [][2]int{{0, len(s)}}
	}
	var ranges [][2]int
	// add adds the bytes [lo, hi) that differ from the text before, with
	// the runs that touch them; with edge, also where they are none.
	add := func(lo, hi int, edge bool) {
		if lo >= hi && !edge {
			return
		}
		// Back to the start of the run before lo, eight bytes a step
		// while all are in it, and on to the end of the run from hi.
		for ; lo >= 8; lo -= 8 {
			t := s[lo-8 : lo]
			if blobBytes[t[0]]&blobBytes[t[1]]&blobBytes[t[2]]&blobBytes[t[3]]&
				blobBytes[t[4]]&blobBytes[t[5]]&blobBytes[t[6]]&blobBytes[t[7]] == 0 {
				break
			}
		}
		for lo > 0 && blobBytes[s[lo-1]] != 0 {
			lo--
		}
		hi = clsBlob.runEnd(s, hi)
		if n := len(ranges); n > 0 && lo <= ranges[n-1][1] {
			ranges[n-1][1] = max(ranges[n-1][1], hi)
			return
		}
		ranges = append(ranges, [2]int{lo, hi})
	}
	pieces := v.pieces
	if len(pieces) == 0 {
		return [][2]int{{0, len(s)}}
	}
	add(0, pieces[0].at, pieces[0].from != 0)
	for k := 1; k < len(pieces); k++ {
		add(pieces[k-1].at+pieces[k-1].n, pieces[k].at, true)
	}
	last := pieces[len(pieces)-1]
	add(last.at+last.n, len(s), last.from+last.n != len(p.text))
	return ranges
}

// decodeRuns adds to b, made when first needed, the runs of v's text that
// start in [from, to) and decode to text, and returns b. A run that starts
// at from starts after a byte that ends a run, or at the start.
func decodeRuns(v *view, from, to int, b *viewBuilder) *viewBuilder {
	s := v.text
	for i := from; i < to; {
		if blobBytes[s[i]] == 0 {
			i++
			continue
		}
		j := i
		var seen uint8
		// Eight bytes a step while all are in the run.
		for ; j+8 <= len(s); j += 8 {
			t := s[j : j+8]
			c0, c1, c2, c3 := blobBytes[t[0]], blobBytes[t[1]], blobBytes[t[2]], blobBytes[t[3]]
			c4, c5, c6, c7 := blobBytes[t[4]], blobBytes[t[5]], blobBytes[t[6]], blobBytes[t[7]]
			if c0&c1&c2&c3&c4&c5&c6&c7 == 0 {
				break
			}
			seen |= c0 | c1 | c2 | c3 | c4 | c5 | c6 | c7
		}
		for j < len(s) && blobBytes[s[j]] != 0 {
			seen |= blobBytes[s[j]]
			j++
		}
		end := j
		for end < len(s) && end-j < 2 && s[end] == '=' {
			end++
		}
		if j-i >= minBase64Run {
			if out, ok := decodeBlob(s[i:j], seen); ok {
				if b == nil {
					b = newViewBuilder(v)
				}
				b.add(out, i, end)
				b.add("\n", i, end)
			}
		}
		i = end
	}
	return b
}

// clsBlob holds the bytes of a run that blobView may decode.
var clsBlob = newClass(func(c byte) bool { return blobBytes[c] != 0 })

// blobBytes classifies the bytes of a run that blobView may decode: 0 for a
// byte that ends a run, else blobByte and what else the byte is.
var blobBytes = func() (t [256]uint8) {
	for c := range 256 {
		switch b := byte(c); {
		case !isBase64Byte(b):
		case b == '-' || b == '_':
			t[c] = blobByte | blobNotHex | blobURL
		case b == '+' || b == '/':
			t[c] = blobByte | blobNotHex | blobStd
		case isHexByte(b):
			t[c] = blobByte
		default:
			t[c] = blobByte | blobNotHex
		}
	}
	return t
}()

const (
	blobByte   = 1 << iota // a byte of a run
	blobNotHex             // not a hex digit
	blobURL                // only in the URL alphabet of base64
	blobStd                // only in the standard alphabet
)

// decodeBlob decodes a run of hex or base64 (standard or URL alphabet,
// padding removed) and reports whether the result reads as text; seen holds
// the blobBytes flags of the run's bytes. It looks at a short head of the
// run first, since most runs are not encoded text.
func decodeBlob(run string, seen uint8) (string, bool) {
	// The head is decoded from and into arrays of the stack.
	var src [64]byte
	var dst [48]byte
	if len(run) >= minHexRun && len(run)%2 == 0 && seen&blobNotHex == 0 {
		head := src[:copy(src[:], run)]
		if n, err := hex.Decode(dst[:4], head[:8]); err != nil || invalidUTF8(dst[:n]) {
			return "", false
		}
		if n, err := hex.Decode(dst[:], head); err != nil || !readsAsText(trimRune(dst[:n])) {
			return "", false
		}
		out, err := hex.DecodeString(run)
		if err == nil && readsAsText(out) {
			return string(out), true
		}
		return "", false
	}
	enc := base64.RawStdEncoding
	if seen&blobURL != 0 {
		if seen&blobStd != 0 {
			return "", false
		}
		enc = base64.RawURLEncoding
	}
	head := src[:copy(src[:], run[:min(len(run), 64)&^3])]
	if n, err := enc.Decode(dst[:6], head[:8]); err != nil || invalidUTF8(dst[:n]) {
		return "", false
	}
	if n, err := enc.Decode(dst[:], head); err != nil || !readsAsText(trimRune(dst[:n])) {
		return "", false
	}
	if len(run)%4 == 1 {
		run = run[:len(run)-1]
	}
	out, err := enc.DecodeString(run)
	if err != nil || !readsAsText(out) {
		return "", false
	}
	return string(out), true
}

// invalidUTF8 reports whether the first bytes of a decoded head, b, hold a
// sequence that is not UTF-8 whatever bytes follow: the head then does not
// read as text, and decoding the first few bytes of a run spares decoding
// the rest of its head, as most runs are not text.
func invalidUTF8(b []byte) bool {
	for len(b) > 0 && utf8.FullRune(b) {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			return true
		}
		b = b[size:]
	}
	return false
}

// trimRune drops a rune that a cut at the end of b left incomplete.
func trimRune(b []byte) []byte {
	for k := 1; k <= 3 && k <= len(b); k++ {
		if utf8.RuneStart(b[len(b)-k]) {
			if !utf8.FullRune(b[len(b)-k:]) {
				return b[:len(b)-k]
			}
			break
		}
	}
	return b
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
