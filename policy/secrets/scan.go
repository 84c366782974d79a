package secrets

import (
	"bytes"
	"cmp"
	"math"
	"regexp"
	"slices"
	"strings"
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
	cands := scan(text, nil)
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
	// escapes decoded and invisible characters removed. For a Vault's
	// value it is the secret's name instead, never the value.
	value string
}

// vaultRule is the rule of a candidate that is a Vault's value.
const vaultRule = -1

// maxDecodeDepth bounds how many decodings are applied one after another.
const maxDecodeDepth = 2

// scan finds the candidates in text, the rules' and the known values',
// and settles their overlaps.
func scan(text string, vals []known) []candidate {
	var cands []candidate
	walk(&view{text: text}, 0, vals, &cands)
	return settle(text, cands)
}

// walk scans v and its copy without invisible characters, then the decoded
// copies of both, down to maxDecodeDepth decodings.
func walk(v *view, depth int, vals []known, cands *[]candidate) {
	scanView(v, cands)
	findKnown(v, vals, cands)
	views := []*view{v}
	if s := stripView(v); s != nil {
		scanView(s, cands)
		findKnown(s, vals, cands)
		views = append(views, s)
	}
	if depth >= maxDecodeDepth {
		return
	}
	for _, w := range views {
		for _, decode := range decoders {
			if d := decode(w); d != nil {
				walk(d, depth+1, vals, cands)
			}
		}
	}
}

// scanView runs every rule over one view.
func scanView(v *view, cands *[]candidate) {
	lower := asciiLower(v.text)
	at := make([][]int, len(ruleTable))
	anchors.find(v.text, lower, func(rule, start int) { at[rule] = append(at[rule], start) })
	for i := range ruleTable {
		if len(at[i]) == 0 {
			continue
		}
		s := ruleTable[i].spec
		s.search(v.text, at[i], func(start, end, lead, group int) {
			value := v.text[start:end]
			if len(value) < s.minLen {
				return
			}
			if s.minEntropy > 0 && entropy(value) < s.minEntropy {
				return
			}
			if s.keep != nil && !s.keep(value, v.text[lead:start], group) {
				return
			}
			ostart, oend := v.orig(start, end)
			if s.toEnd && end == len(v.text) {
				oend = v.size()
			}
			*cands = append(*cands, candidate{rule: i, start: ostart, end: oend, value: stripIgnorable(value)})
		})
	}
}

// findKnown adds a candidate for every occurrence of a known value in v.
func findKnown(v *view, vals []known, cands *[]candidate) {
	if len(vals) == 0 {
		return
	}
	// bytes.Index keeps the value in the wipeable slice; strings.Index
	// would need a string copy of it that nothing can wipe.
	text := []byte(v.text)
	for _, k := range vals {
		if len(k.value) == 0 {
			continue
		}
		for at := 0; at < len(text); {
			i := bytes.Index(text[at:], k.value)
			if i < 0 {
				break
			}
			start, end := at+i, at+i+len(k.value)
			ostart, oend := v.orig(start, end)
			*cands = append(*cands, candidate{rule: vaultRule, start: ostart, end: oend, value: k.name})
			at = end
		}
	}
}

// anchors finds the anchors of every rule.
var anchors = newAnchorSet(ruleTable)

// search reports the values of s in text, given where its anchors start.
// lead is where the whole match starts, and group the capture group that
// held the value.
func (s *spec) search(text string, at []int, emit func(start, end, lead, group int)) {
	if !slices.IsSorted(at) {
		slices.Sort(at)
	}
	if s.find != nil {
		s.find(text, at, func(start, end int) { emit(start, end, start, 0) })
		return
	}
	// Each anchor gets one run of the anchored pattern over the bytes a
	// match holding it can span, with one byte of context on either side
	// for \b and the like. Anchors inside the last match are skipped. A
	// match found may hold an earlier anchor instead; settle drops the copy.
	done := 0
	for _, p := range at {
		if p < done || s.near != nil && !s.near(text, p) {
			continue
		}
		lo := max(0, p-s.before-1)
		hi := min(len(text), p+s.maxLen+1)
		re := s.anchored
		if lo == 0 {
			re = s.atStart
		}
		m := re.FindStringSubmatchIndex(text[lo:hi])
		if m == nil {
			continue
		}
		// Group 1 is the rule's whole pattern; its own groups follow.
		start, end, group := m[2], m[3], 0
		for g := 2; 2*g < len(m); g++ {
			if m[2*g] >= 0 {
				start, end, group = m[2*g], m[2*g+1], g-1
				break
			}
		}
		start, end = start+lo, end+lo
		if end == hi && hi < len(text) {
			// The value runs into the cut. Only a rule whose value has no
			// length bound gets here; let the value run on.
			if s.extend == nil {
				continue
			}
			for end < len(text) && s.extend(text[end]) {
				end++
			}
		}
		done = max(done, lo+m[3], end)
		if start < end {
			emit(start, end, lo+m[2], group)
		}
	}
}

// entropy returns the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	n := float64(len(s))
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// markerPattern matches a redaction marker: a rule's, numbered, or a
// Vault's, named.
var markerPattern = regexp.MustCompile(`\[REDACTED:(?:[a-z0-9-]{1,64}#[0-9]{1,19}|session:[A-Z][A-Z0-9_]{0,63})\]`)

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
	if strings.Contains(text, "[REDACTED:") {
		for _, m := range markerPattern.FindAllStringIndex(text, -1) {
			taken.set(m[0], m[1])
		}
	}
	slices.SortFunc(cands, func(a, b candidate) int {
		return cmp.Or(
			cmp.Compare(rank(a), rank(b)),
			cmp.Compare(b.end-b.start, a.end-a.start),
			cmp.Compare(len(b.value), len(a.value)),
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
	for i := start; i < end; i++ {
		b[i/64] |= 1 << (i % 64)
	}
}

func (b bitset) any(start, end int) bool {
	for i := start; i < end; {
		if i%64 == 0 && i+64 <= end {
			if b[i/64] != 0 {
				return true
			}
			i += 64
			continue
		}
		if b[i/64]&(1<<(i%64)) != 0 {
			return true
		}
		i++
	}
	return false
}
