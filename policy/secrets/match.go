package secrets

import (
	"math/bits"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// How a rule finds its values: hand-written matchers, one per shape of
// pattern, that find exactly what the rule's regular expression finds in the
// same bytes around each anchor (see spec.pattern; a differential test runs
// both). They never run a regular expression, and no input makes them read
// a byte of the text more than a fixed number of times:
//
//   - a rule looks only where its anchors are, in the window of bytes a
//     match holding the anchor can span (spec.before, spec.maxLen);
//   - the run of a byte class that starts at a position is computed once
//     and remembered, so a thousand anchors in one long run of token
//     characters cost one pass over it (engine.run);
//   - an anchor inside the last match of its rule is skipped, and a value
//     that outgrows its window is extended once.

// A byteClass is a set of bytes that a part of a pattern accepts. Each has
// a number of its own, so that an engine can remember one run per class.
type byteClass struct {
	id int
	in [256]bool
}

// classCount is how many byte classes there are.
var classCount int

// runEnd returns where the run of c in text that starts at i ends. It
// tests eight bytes a step while they are all in c.
func (c *byteClass) runEnd(text string, i int) int {
	in := &c.in
	for ; i+8 <= len(text); i += 8 {
		t := text[i : i+8]
		if !(in[t[0]] && in[t[1]] && in[t[2]] && in[t[3]] && in[t[4]] && in[t[5]] && in[t[6]] && in[t[7]]) {
			break
		}
	}
	for i < len(text) && in[text[i]] {
		i++
	}
	return i
}

func newClass(f func(c byte) bool) *byteClass {
	c := &byteClass{id: classCount}
	classCount++
	for i := range 256 {
		c.in[i] = f(byte(i))
	}
	return c
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isHexLower(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'f' }

func isHexByte(c byte) bool { return isHexLower(c) || 'A' <= c && c <= 'F' }

// isSpace reports whether c is white space as regexp's \s reads it.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

// The byte classes of the rules' patterns.
var (
	clsDigit     = newClass(isDigit)
	clsAlnum     = newClass(isAlnum)
	clsWord      = newClass(isWordByte)
	clsLetter    = newClass(isLetter)
	clsB64URL    = newClass(isBase64URL)
	clsB64       = newClass(func(c byte) bool { return isAlnum(c) || c == '+' || c == '/' })
	clsHexLower  = newClass(isHexLower)
	clsHex       = newClass(isHexByte)
	clsLowerNum  = newClass(func(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'z' })
	clsUpperNum  = newClass(func(c byte) bool { return isDigit(c) || 'A' <= c && c <= 'Z' })
	clsBase32    = newClass(func(c byte) bool { return 'A' <= c && c <= 'Z' || '2' <= c && c <= '7' })
	clsAlnumDash = newClass(isAlnumDash)
	clsWebhook   = newClass(func(c byte) bool { return isBase64URL(c) || c == '+' || c == '/' })
	clsBech32    = newClass(func(c byte) bool { return c < 0x80 && strings.IndexByte("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", c) >= 0 })
	clsSentry    = newClass(func(c byte) bool { return isBase64URL(c) || c == '+' || c == '/' || c == '=' })
	clsSpace     = newClass(isSpace)
	// clsHeader is what the bearer rule's value may hold.
	clsHeader = newClass(func(c byte) bool { return isAlnum(c) || c < 0x80 && strings.IndexByte("._~+/=-", c) >= 0 })
	// clsScheme, clsUser, clsPassword and clsHost are the parts of a URL
	// with a password: scheme://user:password@host.
	clsScheme   = newClass(func(c byte) bool { return isAlnum(c) || c == '+' || c == '.' || c == '-' })
	clsUser     = newClass(func(c byte) bool { return !isSpace(c) && (c >= 0x80 || strings.IndexByte(":/?#@\"'<>`", c) < 0) })
	clsPassword = newClass(func(c byte) bool { return !isSpace(c) && (c >= 0x80 || strings.IndexByte("/\"'<>`", c) < 0) })
	// clsBare is what an unquoted value may hold.
	clsBare = newClass(func(c byte) bool { return !isSpace(c) && (c >= 0x80 || strings.IndexByte("\"'`<>", c) < 0) })
	// clsName is what nearAssign reads as the rest of a name.
	clsName = newClass(func(c byte) bool { return isWordByte(c) || c == '.' || c == '-' })
)

// A match is what a rule's pattern matched at one start: the whole match,
// the value in it, and the number of the pattern's capture group that
// holds the value.
type match struct {
	start, end   int // the whole match
	vstart, vend int // the value
	group        int
}

// An engine runs the rules over one text. It is not safe for concurrent use;
// engines come from enginePool.
type engine struct {
	text string
	// lo and hi bound the window being searched: the bytes a regular
	// expression run at this anchor would see. Matchers read nothing at or
	// past hi, and read it as the end of the text.
	lo, hi int
	// touch is the end of the bytes the current evaluation has read, or
	// hi when it has tested an offset against hi: what its outcome
	// depends on, past the anchor.
	touch int
	memo  []runMemo
}

// A runMemo remembers the run of one byte class from from to to: every
// byte in [from, to) is in the class, and the byte at to is not (or to is
// the end of the text).
type runMemo struct {
	from, to int
	ok       bool
}

var enginePool = sync.Pool{New: func() any {
	return &engine{memo: make([]runMemo, classCount)}
}}

// runTo returns where the run of c that starts at i ends, but no further
// than limit.
func (e *engine) runTo(c *byteClass, i, limit int) int {
	j := e.runEnd(c, i)
	// The run's end was read, or the limit reached.
	e.saw(min(j+1, limit))
	return min(j, limit)
}

// runEnd returns where the run of c that starts at i ends.
func (e *engine) runEnd(c *byteClass, i int) int {
	m := &e.memo[c.id]
	switch {
	case m.ok && m.from <= i && i <= m.to:
		return m.to
	case m.ok && i < m.from:
		// Read up to the run already known.
		j := i
		for j < m.from && c.in[e.text[j]] {
			j++
		}
		if j == m.from {
			m.from = i
			return m.to
		}
		return j
	}
	j := c.runEnd(e.text, i)
	*m = runMemo{from: i, to: j, ok: true}
	return j
}

// saw notes that the evaluation read the bytes before i.
func (e *engine) saw(i int) {
	if i > e.touch {
		e.touch = i
	}
}

// byteAt returns the byte at i, and false when i is not in the window.
func (e *engine) byteAt(i int) (byte, bool) {
	if i >= e.hi {
		e.saw(e.hi)
		return 0, false
	}
	e.saw(i + 1)
	return e.text[i], true
}

// run returns where the run of c that starts at i ends in the window.
func (e *engine) run(c *byteClass, i int) int { return e.runTo(c, i, e.hi) }

// boundary reports whether \b holds at i in the window.
func (e *engine) boundary(i int) bool {
	before := i > e.lo && isWordByte(e.text[i-1])
	c, ok := e.byteAt(i)
	return before != (ok && isWordByte(c))
}

// lit reports whether the window holds s at i. With fold, s is lower case
// and ASCII letters match whatever their case. A '#' in s stands for any
// digit.
func (e *engine) lit(i int, s string, fold bool) bool {
	if i < 0 || i+len(s) > e.hi {
		e.saw(e.hi)
		return false
	}
	for j := 0; j < len(s); j++ {
		c, w := e.text[i+j], s[j]
		e.saw(i + j + 1)
		switch {
		case w == '#':
			if !isDigit(c) {
				return false
			}
		case fold:
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != w {
				return false
			}
		case c != w:
			return false
		}
	}
	return true
}

// is reports whether the byte at i is in the window and is b.
func (e *engine) is(i int, b byte) bool {
	c, ok := e.byteAt(i)
	return ok && c == b
}

// runeEnd returns where the character at i ends in the window, reading
// bytes that are not UTF-8 one at a time, as regexp does.
func (e *engine) runeEnd(i int) int {
	if e.text[i] < utf8.RuneSelf {
		e.saw(i + 1)
		return i + 1
	}
	e.saw(min(i+utf8.UTFMax, e.hi))
	_, w := utf8.DecodeRuneInString(e.text[i:e.hi])
	return i + w
}

// Outcomes of a rule at one anchor, as ruleScan records them.
const (
	skipped uint8 = iota // inside the last match, or not recorded
	missed               // no match
	matched              // a match: see ruleScan.recs
)

// A ruleScan records what one rule found at each of its anchors in a text,
// so that the scan of a copy of it, or of the text with a value found in it
// replaced by its marker, can reuse what it read in the bytes left as they
// were.
type ruleScan struct {
	out  []outcome // per anchor
	recs []matchRecord
}

// An outcome is what a rule found at one anchor.
type outcome struct {
	kind uint8 // skipped, missed or matched
	// touch is the end of the bytes the outcome read, from the anchor on;
	// -1 when it also read where the text ends.
	touch int32
	rec   int32 // for a match, its index in recs
}

// A matchRecord is a match at one anchor.
type matchRecord struct {
	m   match
	end int // the value's end, past the window when it grew
	// kept says the value was kept (see searchWith's emit), and value is
	// then its candidate's value.
	kept  bool
	value string
}

// A reuse is what searchWith may take from an earlier scan of a text whose
// pieces the engine's text holds unchanged (a parent, or the text before
// Redact replaced values in it): for the anchor at at[k],
// from[k] is its index in the earlier scan's anchors of the rule, or -1.
type reuse struct {
	from   []int32
	prev   *ruleScan
	pieces []piece
	// cur is the piece the last anchor looked up was in or before: the
	// anchors come in order.
	cur int
}

// searchWith reports the values of the rule s in the engine's text, given
// where its anchors start, in order: a match holding each anchor, as the
// rule's regular expression run over the anchor's window would find it,
// skipping anchors inside the last match. emit is given the value, where the
// whole match starts (lead) and the capture group that held the value, and
// reports whether it kept the value and the value it kept. When rec is not
// nil, searchWith records the outcome at each anchor in it. When re is not
// nil, an anchor whose outcome in the earlier scan read only bytes that one
// piece holds unchanged gets that outcome again, and add is given a value
// kept then.
func (e *engine) searchWith(s *spec, at []int, re *reuse, rec *ruleScan,
	emit func(start, end, lead, group int) (bool, string), add func(start, end int, value string)) {
	if s.find != nil {
		if rec != nil {
			for range at {
				rec.out = append(rec.out, outcome{kind: skipped, touch: -1, rec: -1})
			}
		}
		s.find(e.text, at, func(start, end int) { emit(start, end, start, 0) })
		return
	}
	clear(e.memo)
	if rec != nil {
		rec.out = slices.Grow(rec.out, len(at))
	}
	done := 0
	// r is the record of the last match: evaluate and reused fill it
	// only when they report one.
	var r matchRecord
	for k, p := range at {
		kind, touch := skipped, -1
		if p >= done {
			if re != nil {
				kind, touch = e.reused(s, re, k, p, &r)
			}
			switch {
			case kind == skipped:
				kind, touch = e.evaluate(s, p, emit, &r)
			case kind == matched && r.kept:
				add(r.m.vstart, r.end, r.value)
			}
			if kind == matched {
				done = max(done, r.m.end, r.end)
			}
		}
		if rec != nil {
			o := outcome{kind: kind, touch: int32(touch), rec: -1}
			if kind == matched {
				o.rec = int32(len(rec.recs))
				rec.recs = append(rec.recs, r)
			}
			rec.out = append(rec.out, o)
		}
	}
}

// evaluate runs s at the anchor at p and reports the outcome, emitting the
// value of a match and filling r with its record, and the end of the bytes
// the outcome depends on, from p on (-1 when that is where the text ends).
func (e *engine) evaluate(s *spec, p int, emit func(start, end, lead, group int) (bool, string), r *matchRecord) (uint8, int) {
	n := len(e.text)
	e.lo = max(0, p-s.before-1)
	e.hi = min(n, p+s.maxLen+1)
	e.touch = p + 1
	touched := func() int {
		if e.touch >= e.hi && e.hi < p+s.maxLen+1 {
			return -1 // the end of the text cut the window short
		}
		return e.touch - p
	}
	if s.near != nil && !s.near(e, p) {
		return missed, touched()
	}
	var m match
	var ok bool
	switch {
	case s.before == 0 && e.lo > 0:
		// The one character before an ASCII anchor ends right before
		// it, so the match can only start at the anchor.
		if s.wordStart && isWordByte(e.text[p-1]) {
			return missed, touched()
		}
		m, ok = s.match.try(e, p)
	default:
		m, ok = e.first(s, p)
	}
	if !ok {
		return missed, touched()
	}
	end := m.vend
	if end == e.hi && e.hi < n {
		// The value runs into the cut. Only a rule whose value has no
		// length bound gets here; let the value run on.
		if s.extend == nil {
			return missed, touched()
		}
		for end < n && s.extend(e.text[end]) {
			end++
		}
		if end == n {
			e.touch = n
			e.record(m, end, emit, r)
			return matched, -1
		}
		e.saw(end + 1)
	}
	e.record(m, end, emit, r)
	return matched, touched()
}

// record emits the value of the match m, which grew to end, and fills r
// with its record.
func (e *engine) record(m match, end int, emit func(start, end, lead, group int) (bool, string), r *matchRecord) {
	r.m, r.end, r.kept, r.value = m, end, false, ""
	if m.vstart < end {
		r.kept, r.value = emit(m.vstart, end, m.start, m.group)
	}
}

// reused returns the earlier scan's outcome at the k-th anchor, at p, and
// what it read, filling r with the record of a match moved to where the
// anchor now is; or skipped when there is none to reuse. re is not nil.
func (e *engine) reused(s *spec, re *reuse, k, p int, r *matchRecord) (uint8, int) {
	if re.from[k] < 0 {
		return skipped, -1
	}
	o := re.prev.out[re.from[k]]
	kind, touch := o.kind, int(o.touch)
	if kind == skipped || touch < 0 {
		return skipped, -1
	}
	for re.cur < len(re.pieces) && re.pieces[re.cur].at+re.pieces[re.cur].n <= p {
		re.cur++
	}
	if re.cur == len(re.pieces) || re.pieces[re.cur].at > p {
		return skipped, -1
	}
	pc := &re.pieces[re.cur]
	// What the outcome read, from the window's first byte, must be bytes
	// of the piece, and the window must start with the text in both or in
	// neither (see engine.first).
	q := p - pc.at + pc.from // where the anchor was
	if q-s.before-1 < pc.from || q+touch > pc.from+pc.n || (q-s.before-1 > 0) != (p-s.before-1 > 0) {
		return skipped, -1
	}
	if kind == missed {
		return missed, touch
	}
	*r = re.prev.recs[o.rec]
	d := p - q
	r.m.start += d
	r.m.end += d
	r.m.vstart += d
	r.m.vend += d
	r.end += d
	return matched, touch
}

// first returns the match of s that starts first in the window of the
// anchor at p. A match may start up to s.before characters before the
// anchor: the window's first character is context, then come the starts
// that a lazy run of 1 to before+1 characters reaches (0 to before+1 at
// the start of the text).
func (e *engine) first(s *spec, p int) (match, bool) {
	if e.lo == 0 {
		if m, ok := s.match.try(e, 0); ok {
			return m, true
		}
	}
	j := e.lo
	for range s.before + 1 {
		if j >= e.hi {
			e.saw(e.hi)
			break
		}
		if e.text[j] < utf8.RuneSelf {
			j++
			e.saw(j)
		} else {
			j = e.runeEnd(j)
		}
		if s.mayStart != nil && !s.mayStart(e, j) {
			continue
		}
		if m, ok := s.match.try(e, j); ok {
			return m, true
		}
	}
	return match{}, false
}

// A matcher finds a rule's match that starts at a given offset of the
// engine's window, if there is one.
type matcher interface {
	try(e *engine, s int) (match, bool)
}

// matchFunc is a matcher written as a function.
type matchFunc func(e *engine, s int) (match, bool)

func (f matchFunc) try(e *engine, s int) (match, bool) { return f(e, s) }

// Token rules: a fixed head and parts that each read a run of a byte class,
// a literal or an edge.

// A partKind says what a part of a token reads.
type partKind uint8

const (
	// partLit reads the literal lit; '#' stands for a digit.
	partLit partKind = iota
	// partExact reads n bytes of set.
	partExact
	// partRun reads the whole run of set, which must be n bytes or more.
	// Only where what follows cannot start with a byte of set does this
	// match what the pattern's greedy repetition does.
	partRun
	// partRange reads the whole run of set, which must be n to m bytes,
	// followed by a byte that is not in set.
	partRange
	// partUpTo reads up to n copies of the byte lit[0].
	partUpTo
	// partValue marks where the value starts, when it is not where the
	// match does.
	partValue
	// partWordEnd requires \b.
	partWordEnd
	// partTokenEnd reads a character that is not [A-Za-z0-9_-], or the end.
	partTokenEnd
)

type part struct {
	kind partKind
	set  *byteClass
	n, m int
	lit  string
}

func lit(s string) part                   { return part{kind: partLit, lit: s} }
func exact(c *byteClass, n int) part      { return part{kind: partExact, set: c, n: n} }
func atLeast(c *byteClass, n int) part    { return part{kind: partRun, set: c, n: n} }
func between(c *byteClass, n, m int) part { return part{kind: partRange, set: c, n: n, m: m} }
func upTo(b byte, n int) part             { return part{kind: partUpTo, lit: string(b), n: n} }

var (
	valueStarts = part{kind: partValue}
	wordEnd     = part{kind: partWordEnd}
	tokenEnds   = part{kind: partTokenEnd}
)

// A form is one alternative of a token: one of its heads, then its parts.
type form struct {
	heads []string
	parts []part
	// words holds the heads as litWords, made by newToken.
	words []litWord
}

// A token matches a credential of fixed shape: \b when wordStart, then the
// first form that matches, in order.
type token struct {
	wordStart bool
	// fold says the heads match whatever the case of ASCII letters; they
	// are written in lower case.
	fold  bool
	forms []form
}

// tok returns the matcher of a token that starts at a word boundary: its
// first form that matches, in order.
func tok(forms ...form) *token {
	return newToken(&token{wordStart: true, forms: forms})
}

// tokFold is tok for heads that match whatever the case of their letters.
func tokFold(forms ...form) *token {
	return newToken(&token{wordStart: true, fold: true, forms: forms})
}

// tokAnywhere is tok for a token that may start inside a word.
func tokAnywhere(forms ...form) *token {
	return newToken(&token{forms: forms})
}

// newToken returns t with the words of its heads made.
func newToken(t *token) *token {
	for i := range t.forms {
		f := &t.forms[i]
		for _, h := range f.heads {
			f.words = append(f.words, newLitWord(h, t.fold))
		}
	}
	return t
}

// A litWord is a literal of up to eight bytes that holds no '#', as one
// word to compare with eight bytes of the text at once (engine.litWord).
type litWord struct {
	// word holds the literal's bytes, the first in the low byte; mask
	// has 0xff at each of them, and fold 0x20 at each letter when the
	// literal matches whatever the case of the text.
	word, mask, fold uint64
	// ok says the literal fits a word.
	ok bool
}

func newLitWord(s string, fold bool) litWord {
	if len(s) > 8 || strings.IndexByte(s, '#') >= 0 {
		return litWord{}
	}
	w := litWord{ok: true}
	for j := 0; j < len(s); j++ {
		c := s[j]
		w.word |= uint64(c) << (8 * j)
		w.mask |= 0xff << (8 * j)
		if fold && 'a' <= c && c <= 'z' {
			w.fold |= 0x20 << (8 * j)
		}
	}
	return w
}

// litWord is lit for the literal s, whose word is w: eight bytes of the
// text compared at once. A letter of the text matches a lower-case letter
// of s whatever its case when the bit 0x20 set in it makes the letter of s.
func (e *engine) litWord(i int, s string, w *litWord, fold bool) bool {
	if !w.ok || i < 0 || i+8 > len(e.text) || i+len(s) > e.hi {
		return e.lit(i, s, fold)
	}
	if x := (load64(e.text[i:i+8], 0) | w.fold ^ w.word) & w.mask; x != 0 {
		// The bytes up to the first that differs were read.
		e.saw(i + bits.TrailingZeros64(x)/8 + 1)
		return false
	}
	e.saw(i + len(s))
	return true
}

// heads returns a form: one of the space-separated heads, then parts.
func heads(hs string, parts ...part) form {
	return form{heads: strings.Fields(hs), parts: parts}
}

// follow returns the bytes that may come right after anchor in a match of
// t that starts with anchor, or nil when it cannot tell.
func (t *token) follow(anchor string) *[256]bool {
	var set [256]bool
	add := func(c byte) {
		switch {
		case c == '#':
			for d := byte('0'); d <= '9'; d++ {
				set[d] = true
			}
		case t.fold && 'a' <= c && c <= 'z':
			set[c], set[c-'a'+'A'] = true, true
		default:
			set[c] = true
		}
	}
	// same reports whether a head and the anchor agree on their first n
	// bytes, as the head would match the anchor's text.
	same := func(h string, n int) bool {
		for i := range n {
			c, w := anchor[i], h[i]
			if t.fold {
				c, w = c|0x20, w|0x20
			}
			if w != c && !(w == '#' && isDigit(anchor[i])) {
				return false
			}
		}
		return true
	}
	for _, f := range t.forms {
		for _, h := range f.heads {
			switch {
			case len(h) < len(anchor) && same(h, len(h)):
				return nil // the head ends inside the anchor
			case len(h) < len(anchor) || !same(h, len(anchor)):
				continue // the head cannot match where the anchor is
			}
			if len(h) > len(anchor) {
				add(h[len(anchor)])
				continue
			}
			switch p := f.parts[0]; {
			case p.kind == partLit:
				add(p.lit[0])
			case (p.kind == partExact || p.kind == partRun || p.kind == partRange) && p.n > 0:
				for c := range 256 {
					set[c] = set[c] || p.set.in[c]
				}
			default:
				return nil
			}
		}
	}
	return &set
}

// try returns the match of t that starts at s.
func (t *token) try(e *engine, s int) (match, bool) {
	if t.wordStart && !e.boundary(s) {
		return match{}, false
	}
	for fi := range t.forms {
		f := &t.forms[fi]
		for k, h := range f.heads {
			if !e.litWord(s, h, &f.words[k], t.fold) {
				continue
			}
			if m, ok := e.parts(f.parts, s, s+len(h)); ok {
				return m, true
			}
		}
	}
	return match{}, false
}

// parts reads ps from k, in a match that starts at s.
func (e *engine) parts(ps []part, s, k int) (match, bool) {
	m := match{start: s, vstart: s, group: 1}
	vend := k
	for _, p := range ps {
		switch p.kind {
		case partLit:
			if !e.lit(k, p.lit, false) {
				return match{}, false
			}
			k += len(p.lit)
		case partExact:
			if e.run(p.set, k)-k < p.n {
				return match{}, false
			}
			k += p.n
		case partRun:
			r := e.run(p.set, k)
			if r-k < p.n {
				return match{}, false
			}
			k = r
		case partRange:
			r := e.run(p.set, k)
			if r-k < p.n || r-k > p.m {
				return match{}, false
			}
			k = r
		case partUpTo:
			for j := 0; j < p.n && e.is(k, p.lit[0]); j++ {
				k++
			}
		case partValue:
			m.vstart = k
		case partWordEnd:
			if !e.boundary(k) {
				return match{}, false
			}
			continue
		case partTokenEnd:
			if c, ok := e.byteAt(k); ok {
				if isBase64URL(c) {
					return match{}, false
				}
				k = e.runeEnd(k)
			}
			continue
		}
		vend = k
	}
	m.vend, m.end = vend, k
	return m, true
}
