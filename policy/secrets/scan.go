package secrets

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync/atomic"
)

// Match is one credential-shaped value found in a text.
type Match struct {
	// Rule is the ID of the rule that found the value.
	Rule string
	// Start and End are byte offsets into the scanned text: the value is
	// text[Start:End]. When the value was split by invisible characters or
	// written with escapes, the range covers all of them.
	Start, End int
}

// Scan returns the credential-shaped values in text, sorted by Start. The
// ranges never overlap: where two matches would, the longer one wins, and a
// provider rule wins over the generic rule whatever the lengths. Anything
// that overlaps a redaction marker is left out, so scanning redacted text
// finds nothing new. Scan keeps no state and is safe for concurrent use.
func Scan(text string) []Match {
	return matches(scan(text, nil))
}

// matches returns the Matches of candidates that rules found.
func matches(cands []candidate) []Match {
	if len(cands) == 0 {
		return nil
	}
	out := make([]Match, len(cands))
	for i, c := range cands {
		out[i] = Match{Rule: ruleTable[c.rule].ID, Start: c.start, End: c.end}
	}
	return out
}

// A candidate is a match before overlaps are settled.
type candidate struct {
	rule       int // index into ruleTable, or vaultRule
	start, end int // in the original text
	// value is the matched value as the view that found it reads it: with
	// escapes decoded, and invisible characters removed once stripped
	// returns it. For a Vault's value it is the secret's name instead,
	// never the value. n is the length of the value stripped.
	value string
	n     int
}

// stripped returns c's value without invisible characters. A rule's value
// is stripped only when it is kept, since a value that runs to the end of
// the text may be most of it.
func (c candidate) stripped() string { return stripIgnorable(c.value) }

// vaultRule is the rule of a candidate that is a Vault's value.
const vaultRule = -1

// maxDecodeDepth bounds how many decodings are applied one after another.
const maxDecodeDepth = 2

// A searcher reports the values of the rule s in text, given where its
// anchors start: what engine.searchWith does. Tests pass another to check it.
type searcher func(text string, s *spec, at []int, emit func(start, end, lead, group int))

// scan finds the candidates in text, the rules' and the known values',
// and settles their overlaps.
func scan(text string, known *knownSet) []candidate {
	return scanWith(text, known, nil)
}

// scanWith is scan with the rules run by search, or by an engine when
// search is nil.
func scanWith(text string, known *knownSet, search searcher) []candidate {
	cands, root := rescan(&view{text: text, record: true}, known, search)
	root.release()
	return cands
}

// rescan is scan for the text of root, which may be a text scanned before
// with values replaced (see view.hitsFrom). It returns the root, scanned,
// for the next rescan.
func rescan(root *view, known *knownSet, search searcher) ([]candidate, *view) {
	var cands []candidate
	walk(root, 0, known, search, &cands)
	return settle(root.text, cands), root
}

// walk scans v and its copy without invisible characters, then the decoded
// copies of both, down to maxDecodeDepth decodings.
func walk(v *view, depth int, known *knownSet, search searcher, cands *[]candidate) {
	scanView(v, search, cands)
	known.find(v, cands)
	views := []*view{v}
	if s := stripView(v); s != nil {
		scanView(s, search, cands)
		known.find(s, cands)
		views = append(views, s)
		defer s.release()
	}
	if depth >= maxDecodeDepth {
		return
	}
	for _, w := range views {
		for _, decode := range decoders {
			if d := decode(w); d != nil {
				walk(d, depth+1, known, search, cands)
				d.release()
			}
		}
	}
}

// anchors finds the anchors of every rule.
var anchors = newAnchorSet(ruleTable)

// scanView runs every rule over one view.
func scanView(v *view, search searcher, cands *[]candidate) {
	e := enginePool.Get().(*engine)
	defer func() {
		e.text = ""
		enginePool.Put(e)
	}()
	e.text = v.text
	anchors.inView(v)
	for i := range ruleTable {
		at := v.at[i]
		if len(at) == 0 {
			continue
		}
		if v.record && v.scans == nil {
			v.scans = takeScans()
		}
		s := ruleTable[i].spec
		emit := func(start, end, lead, group int) (bool, string) {
			value := v.text[start:end]
			if len(value) < s.minLen {
				return false, ""
			}
			if s.minEntropy > 0 && entropy(value) < s.minEntropy {
				return false, ""
			}
			if s.keep != nil && !s.keep(value, v.text[lead:start], group) {
				return false, ""
			}
			ostart, oend := v.orig(start, end)
			if s.toEnd && end == len(v.text) {
				oend = v.size()
			}
			*cands = append(*cands, candidate{rule: i, start: ostart, end: oend, value: value, n: strippedLen(value)})
			return true, value
		}
		if search != nil {
			search(v.text, s, at, func(start, end, lead, group int) { emit(start, end, lead, group) })
			continue
		}
		var from []int32
		if v.from != nil {
			from = v.from[i]
		}
		sortAnchors(at, from)
		var re *reuse
		if from != nil && v.hitsFrom.scans != nil {
			re = &reuse{from: from, prev: &v.hitsFrom.scans[i], pieces: v.pieces}
		}
		var rec *ruleScan
		if v.scans != nil {
			rec = &v.scans[i]
		}
		// A value kept in the earlier scan of a text scanned again is
		// kept again: the text is the original, so its offsets need no
		// mapping. In a copy, the parent holds the same bytes, which map
		// to the same bytes of the original: its candidate is this one.
		add := func(start, end int, value string) {
			if v.parent == nil {
				*cands = append(*cands, candidate{rule: i, start: start, end: end, value: value, n: strippedLen(value)})
			}
		}
		e.searchWith(s, at, re, rec, emit, add)
	}
}

// A knownSet finds the values of a Redactor's Vaults: one pass over a text
// finds them all, however many there are.
type knownSet struct {
	vals []known
	auto *automaton
	// which maps the automaton's patterns to vals; last holds, for each
	// value, where its last occurrence ended.
	which []int
	last  []int
}

// newKnownSet returns the set of vals, or nil when there are none. Call
// wipe when done: the automaton spells the values out.
func newKnownSet(vals []known) *knownSet {
	var patterns [][]byte
	var which []int
	for i, k := range vals {
		if len(k.value) > 0 {
			patterns = append(patterns, k.value)
			which = append(which, i)
		}
	}
	if len(patterns) == 0 {
		return nil
	}
	return &knownSet{vals: vals, auto: newAutomaton(patterns, false), which: which, last: make([]int, len(vals))}
}

// wipe clears the automaton.
func (k *knownSet) wipe() {
	if k != nil {
		k.auto.wipe()
	}
}

// find adds a candidate for every occurrence of a known value in v: for
// each value, from the left, each occurrence that does not overlap the
// one before.
func (k *knownSet) find(v *view, cands *[]candidate) {
	if k == nil {
		return
	}
	clear(k.last)
	k.auto.each(v.text, func(p, end int) {
		i := k.which[p]
		start := end - len(k.vals[i].value)
		if start < k.last[i] {
			return
		}
		k.last[i] = end
		ostart, oend := v.orig(start, end)
		*cands = append(*cands, candidate{rule: vaultRule, start: ostart, end: oend, value: k.vals[i].name, n: len(k.vals[i].name)})
	})
}

// entropy returns the Shannon entropy of s in bits per byte: the sum, over
// the bytes it holds in ascending order, of -p·log2(p), p being a byte's
// share of s.
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	if len(s) <= maxEntropyRow {
		return entropyShort(s)
	}
	var counts [256]int32
	var seen [4]uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		counts[c]++
		seen[c/64] |= 1 << (c % 64)
	}
	terms := entropyTerms(len(s))
	h := 0.0
	for w, bitsLeft := range seen {
		for bitsLeft != 0 {
			c := w*64 + bits.TrailingZeros64(bitsLeft)
			bitsLeft &= bitsLeft - 1
			if terms != nil {
				h -= terms[counts[c]]
				continue
			}
			p := float64(counts[c]) / float64(len(s))
			h -= p * math.Log2(p)
		}
	}
	return h
}

// entropyShort is entropy for a value no longer than maxEntropyRow. It
// counts each byte in a 16-bit lane of 64 words, four bytes to a word,
// and reads the counts back in the order of the bytes, a word at a time.
func entropyShort(s string) float64 {
	var counts [64]uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		counts[c>>2] += 1 << (c & 3 * 16)
	}
	terms := entropyTerms(len(s))
	h := 0.0
	for _, w := range counts {
		for w != 0 {
			lane := bits.TrailingZeros64(w) &^ 15
			h -= terms[w>>lane&0xffff]
			w &^= 0xffff << lane
		}
	}
	return h
}

// maxEntropyRow is the longest value whose entropy terms are kept.
const maxEntropyRow = 1024

// entropyRows[n][c] is p·log2(p) for p = c/n, computed as entropy computes
// it, for the n that have been asked for.
var entropyRows [maxEntropyRow + 1]atomic.Pointer[[]float64]

// entropyTerms returns entropyRows[n], making it on first use, or nil when
// n is too large to keep a row for.
func entropyTerms(n int) []float64 {
	if n > maxEntropyRow {
		return nil
	}
	if row := entropyRows[n].Load(); row != nil {
		return *row
	}
	row := make([]float64, n+1)
	for c := 1; c <= n; c++ {
		p := float64(c) / float64(n)
		row[c] = p * math.Log2(p)
	}
	entropyRows[n].Store(&row)
	return row
}

// markerOpen starts every redaction marker.
const markerOpen = "[REDACTED:"

// eachMarker calls f with the start and end of each redaction marker in
// text, from the left.
func eachMarker(text string, f func(start, end int)) {
	for i := 0; ; {
		j := strings.Index(text[i:], markerOpen)
		if j < 0 {
			return
		}
		i += j
		if end := markerEnd(text, i); end > 0 {
			f(i, end)
			i = end
			continue
		}
		i++
	}
}

// markerEnd returns where the redaction marker that starts at i ends, or 0
// when none does: a rule's, numbered, or a Vault's, named. It reads what
// \[REDACTED:(?:[a-z0-9-]{1,64}#[0-9]{1,19}|session:[A-Z][A-Z0-9_]{0,63})\]
// matches.
func markerEnd(text string, i int) int {
	i += len(markerOpen)
	// run returns where the run of bytes that ok accepts, from j, ends, and
	// its length, reading at most limit+1 bytes.
	run := func(j, limit int, ok func(c byte) bool) (int, int) {
		k := j
		for k < len(text) && k-j <= limit && ok(text[k]) {
			k++
		}
		return k, k - j
	}
	closes := func(j int) int {
		if j < len(text) && text[j] == ']' {
			return j + 1
		}
		return 0
	}
	if j, n := run(i, 64, func(c byte) bool { return 'a' <= c && c <= 'z' || isDigit(c) || c == '-' }); n >= 1 && n <= 64 && j < len(text) && text[j] == '#' {
		if k, n := run(j+1, 19, isDigit); n >= 1 && n <= 19 {
			return closes(k)
		}
		return 0
	}
	const ref = RefPrefix
	if !strings.HasPrefix(text[i:], ref) || i+len(ref) >= len(text) || text[i+len(ref)] < 'A' || text[i+len(ref)] > 'Z' {
		return 0
	}
	if k, n := run(i+len(ref)+1, 63, func(c byte) bool { return 'A' <= c && c <= 'Z' || isDigit(c) || c == '_' }); n <= 63 {
		return closes(k)
	}
	return 0
}

// settle drops candidates that overlap a marker and resolves overlaps
// between the rest: a Vault's values first, then provider rules, then the
// generic rule; then longer before shorter (in the text, then as decoded),
// then earlier before later, then rule order. The result is sorted by
// start.
func settle(text string, cands []candidate) []candidate {
	if len(cands) == 0 {
		return nil
	}
	taken := newBitset(len(text))
	eachMarker(text, taken.set)
	slices.SortFunc(cands, func(a, b candidate) int {
		return cmp.Or(
			cmp.Compare(rank(a), rank(b)),
			cmp.Compare(b.end-b.start, a.end-a.start),
			cmp.Compare(b.n, a.n),
			cmp.Compare(a.start, b.start),
			cmp.Compare(a.rule, b.rule),
		)
	})
	out := cands[:0]
	for _, c := range cands {
		if taken.any(c.start, c.end) {
			continue
		}
		taken.set(c.start, c.end)
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b candidate) int { return cmp.Compare(a.start, b.start) })
	return out
}

// rank orders the kinds of candidate: a Vault's value, a provider rule's
// match, the generic rule's.
func rank(c candidate) int {
	switch {
	case c.rule == vaultRule:
		return 0
	case ruleTable[c.rule].Generic:
		return 2
	}
	return 1
}

// A bitset marks byte offsets of a text that a kept match or a marker holds.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, n/64+1) }

func (b bitset) set(start, end int) {
	b.each(start, end, func(w int, mask uint64) bool {
		b[w] |= mask
		return false
	})
}

func (b bitset) any(start, end int) bool {
	return b.each(start, end, func(w int, mask uint64) bool { return b[w]&mask != 0 })
}

// each calls f with each word of b that holds bits of [start, end) and the
// mask of those bits, until f returns true, and reports whether it did.
func (b bitset) each(start, end int, f func(w int, mask uint64) bool) bool {
	if start >= end {
		return false
	}
	first, last := start/64, (end-1)/64
	for w := first; w <= last; w++ {
		mask := ^uint64(0)
		if w == first {
			mask &= ^uint64(0) << (start % 64)
		}
		if w == last {
			mask &= ^uint64(0) >> (63 - (end-1)%64)
		}
		if f(w, mask) {
			return true
		}
	}
	return false
}
