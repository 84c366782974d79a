package secrets

import (
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
	// clsName is what assignsSoon reads as the rest of a name.
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
	memo   []runMemo
	// at[rule] lists where the rule's anchors start.
	at [][]int
}

// A runMemo remembers the run of one byte class from from to to: every
// byte in [from, to) is in the class, and the byte at to is not (or to is
// the end of the text).
type runMemo struct {
	from, to int
	ok       bool
}

var enginePool = sync.Pool{New: func() any {
	return &engine{memo: make([]runMemo, classCount), at: make([][]int, len(ruleTable))}
}}

// runTo returns where the run of c that starts at i ends, but no further
// than limit.
func (e *engine) runTo(c *byteClass, i, limit int) int {
	m := &e.memo[c.id]
	switch {
	case m.ok && m.from <= i && i <= m.to:
		return min(m.to, limit)
	case m.ok && i < m.from:
		// Read up to the run already known.
		j := i
		for j < m.from && c.in[e.text[j]] {
			j++
		}
		if j == m.from {
			m.from = i
			return min(m.to, limit)
		}
		return min(j, limit)
	}
	j := i
	for j < len(e.text) && c.in[e.text[j]] {
		j++
	}
	*m = runMemo{from: i, to: j, ok: true}
	return min(j, limit)
}

// run returns where the run of c that starts at i ends in the window.
func (e *engine) run(c *byteClass, i int) int { return e.runTo(c, i, e.hi) }

// boundary reports whether \b holds at i in the window.
func (e *engine) boundary(i int) bool {
	before := i > e.lo && isWordByte(e.text[i-1])
	after := i < e.hi && isWordByte(e.text[i])
	return before != after
}

// lit reports whether the window holds s at i. With fold, s is lower case
// and ASCII letters match whatever their case. A '#' in s stands for any
// digit.
func (e *engine) lit(i int, s string, fold bool) bool {
	if i < 0 || i+len(s) > e.hi {
		return false
	}
	for j := 0; j < len(s); j++ {
		c, w := e.text[i+j], s[j]
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
func (e *engine) is(i int, b byte) bool { return i < e.hi && e.text[i] == b }

// in reports whether the byte at i is in the window and in c.
func (e *engine) in(i int, c *byteClass) bool { return i < e.hi && c.in[e.text[i]] }

// runeEnd returns where the character at i ends in the window, reading
// bytes that are not UTF-8 one at a time, as regexp does.
func (e *engine) runeEnd(i int) int {
	if e.text[i] < utf8.RuneSelf {
		return i + 1
	}
	_, w := utf8.DecodeRuneInString(e.text[i:e.hi])
	return i + w
}

// search reports the values of the rule s in the engine's text, given where
// its anchors start: a match holding each anchor, as a regular expression
// run over the anchor's window would find it, skipping anchors inside the
// last match. lead is where the whole match starts, and group the capture
// group that held the value.
func (e *engine) search(s *spec, at []int, emit func(start, end, lead, group int)) {
	if !slices.IsSorted(at) {
		slices.Sort(at)
	}
	if s.find != nil {
		s.find(e.text, at, func(start, end int) { emit(start, end, start, 0) })
		return
	}
	clear(e.memo)
	n := len(e.text)
	done := 0
	for _, p := range at {
		if p < done || s.near != nil && !s.near(e, p) {
			continue
		}
		e.lo = max(0, p-s.before-1)
		e.hi = min(n, p+s.maxLen+1)
		m, ok := e.first(s, p)
		if !ok {
			continue
		}
		start, end := m.vstart, m.vend
		if end == e.hi && e.hi < n {
			// The value runs into the cut. Only a rule whose value has no
			// length bound gets here; let the value run on.
			if s.extend == nil {
				continue
			}
			for end < n && s.extend(e.text[end]) {
				end++
			}
		}
		done = max(done, m.end, end)
		if start < end {
			emit(start, end, m.start, m.group)
		}
	}
}

// first returns the match of s that starts first in the window of the
// anchor at p. A match may start up to s.before characters before the
// anchor: the window's first character is context, then come the starts
// that a lazy run of 1 to before+1 characters reaches (0 to before+1 at
// the start of the text).
func (e *engine) first(s *spec, p int) (match, bool) {
	if s.before == 0 && e.lo > 0 {
		// The one character before an ASCII anchor ends right before it.
		return s.try(e, p)
	}
	if e.lo == 0 {
		if m, ok := s.try(e, 0); ok {
			return m, true
		}
	}
	j := e.lo
	for range s.before + 1 {
		if j >= e.hi {
			break
		}
		j = e.runeEnd(j)
		if m, ok := s.try(e, j); ok {
			return m, true
		}
	}
	return match{}, false
}

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
func tok(forms ...form) func(*engine, int) (match, bool) {
	return (&token{wordStart: true, forms: forms}).try
}

// tokFold is tok for heads that match whatever the case of their letters.
func tokFold(forms ...form) func(*engine, int) (match, bool) {
	return (&token{wordStart: true, fold: true, forms: forms}).try
}

// tokAnywhere is tok for a token that may start inside a word.
func tokAnywhere(forms ...form) func(*engine, int) (match, bool) {
	return (&token{forms: forms}).try
}

// heads returns a form: one of the space-separated heads, then parts.
func heads(hs string, parts ...part) form {
	return form{heads: strings.Fields(hs), parts: parts}
}

// try returns the match of t that starts at s.
func (t *token) try(e *engine, s int) (match, bool) {
	if t.wordStart && !e.boundary(s) {
		return match{}, false
	}
	for _, f := range t.forms {
		for _, h := range f.heads {
			if !e.lit(s, h, t.fold) {
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
			if k < e.hi {
				if isBase64URL(e.text[k]) {
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
