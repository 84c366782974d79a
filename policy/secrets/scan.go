package secrets

import (
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
	cands := scan(text)
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
	rule       int // index into ruleTable
	start, end int // in the original text
	// value is the matched value as the view that found it reads it: with
	// escapes decoded and invisible characters removed.
	value string
}

// maxDecodeDepth bounds how many decodings are applied one after another.
const maxDecodeDepth = 2

// scan finds the candidates in text and settles their overlaps.
func scan(text string) []candidate {
	var cands []candidate
	walk(&view{text: text}, 0, &cands)
	return settle(text, cands)
}

// walk scans v, its copy without invisible characters, and the decoded
// copies of that, down to maxDecodeDepth decodings.
func walk(v *view, depth int, cands *[]candidate) {
	scanView(v, cands)
	if s := stripView(v); s != nil {
		scanView(s, cands)
		v = s
	}
	if depth >= maxDecodeDepth {
		return
	}
	for _, decode := range decoders {
		if d := decode(v); d != nil {
			walk(d, depth+1, cands)
		}
	}
}

// scanView runs every rule over one view.
func scanView(v *view, cands *[]candidate) {
	lower := asciiLower(v.text)
	for i := range ruleTable {
		s := ruleTable[i].spec
		s.search(v.text, lower, func(start, end, lead, group int) {
			value := v.text[start:end]
			if s.minEntropy > 0 && entropy(value) < s.minEntropy {
				return
			}
			if s.keep != nil && !s.keep(value, v.text[lead:start], group) {
				return
			}
			ostart, oend := v.orig(start, end)
			*cands = append(*cands, candidate{rule: i, start: ostart, end: oend, value: stripIgnorable(value)})
		})
	}
}

// search reports the values of s in text. lower is text with its ASCII
// letters lower-cased. lead is where the whole match starts, and group the
// capture group that held the value.
func (s *spec) search(text, lower string, emit func(start, end, lead, group int)) {
	hay := text
	if s.fold {
		hay = lower
	}
	var at []int
	for _, a := range s.anchors {
		for i := 0; ; {
			j := strings.Index(hay[i:], a)
			if j < 0 {
				break
			}
			at = append(at, i+j)
			i += j + 1
		}
	}
	if len(at) == 0 {
		return
	}
	if s.find != nil {
		s.find(text, func(start, end int) { emit(start, end, start, 0) })
		return
	}
	slices.Sort(at)
	// Search windows around the anchors, merged where they overlap. Each
	// window keeps one byte of context on either side for \b and the like.
	ws, we := -1, -1
	for _, p := range at {
		lo := max(0, p-s.before-1)
		hi := min(len(text), p+s.maxLen+1)
		if ws >= 0 && lo <= we {
			we = max(we, hi)
			continue
		}
		if ws >= 0 {
			s.searchWindow(text, ws, we, emit)
		}
		ws, we = lo, hi
	}
	s.searchWindow(text, ws, we, emit)
}

// searchWindow runs s.re over text[ws:we].
func (s *spec) searchWindow(text string, ws, we int, emit func(start, end, lead, group int)) {
	for _, m := range s.re.FindAllStringSubmatchIndex(text[ws:we], -1) {
		if m[0] == 0 && ws > 0 {
			continue // starts at the cut: not a real match
		}
		start, end, group := m[0], m[1], 0
		for g := 1; 2*g < len(m); g++ {
			if m[2*g] >= 0 {
				start, end, group = m[2*g], m[2*g+1], g
				break
			}
		}
		start, end = start+ws, end+ws
		if m[1]+ws == we && we < len(text) {
			// The match runs into the cut. Only a rule without a length
			// bound can get here; let its value run on.
			if s.extend == nil || end != we {
				continue
			}
			for end < len(text) && s.extend(text[end]) {
				end++
			}
		}
		if start < end {
			emit(start, end, m[0]+ws, group)
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

// markerPattern matches a redaction marker.
var markerPattern = regexp.MustCompile(`\[REDACTED:[a-z0-9-]{1,64}#[0-9]{1,19}\]`)

// settle drops candidates that overlap a marker and resolves overlaps
// between the rest: provider rules first, then longer before shorter (in the
// text, then as decoded), then earlier before later, then rule order. The
// result is sorted by start.
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
			cmp.Compare(b2i(ruleTable[a.rule].Generic), b2i(ruleTable[b.rule].Generic)),
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

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
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
