package secrets

import (
	"regexp"
	"slices"
	"strconv"
	"sync"
)

// The oracle: each rule's regular expression, run the way the rules ran
// before they had matchers of their own. For each anchor, the anchored
// pattern runs once over the anchor's window, with one byte of context
// first; anchors inside the last match are skipped. The matchers must find
// exactly what it finds (see differential_test.go).

// markerPattern matches a redaction marker: a rule's, numbered, or a
// Vault's, named.
var markerPattern = regexp.MustCompile(`\[REDACTED:(?:[a-z0-9-]{1,64}#[0-9]{1,19}|session:[A-Z][A-Z0-9_]{0,63})\]`)

// oracleRegexps holds the compiled windows of a spec's pattern.
type oracleRegexps struct {
	// anchored is the pattern, captured as group 1, after a lazy run of 1
	// to before+1 characters; atStart is the same for a window that starts
	// at the start of the text, where there is no character of context.
	anchored, atStart *regexp.Regexp
}

var oracleCache sync.Map // *spec -> *oracleRegexps

func oracleFor(s *spec) *oracleRegexps {
	if o, ok := oracleCache.Load(s); ok {
		return o.(*oracleRegexps)
	}
	n := strconv.Itoa(s.before + 1)
	o := &oracleRegexps{
		anchored: regexp.MustCompile(`^[\s\S]{1,` + n + `}?(` + s.pattern + `)`),
		atStart:  regexp.MustCompile(`^[\s\S]{0,` + n + `}?(` + s.pattern + `)`),
	}
	oracleCache.Store(s, o)
	return o
}

// oracleSearch is a searcher that runs the rules' regular expressions.
func oracleSearch(text string, s *spec, at []int, emit func(start, end, lead, group int)) {
	if !slices.IsSorted(at) {
		slices.Sort(at)
	}
	if s.find != nil {
		s.find(text, at, func(start, end int) { emit(start, end, start, 0) })
		return
	}
	o := oracleFor(s)
	done := 0
	for _, p := range at {
		if p < done || s.near != nil && !oracleAssignsSoon(text, p) {
			continue
		}
		lo := max(0, p-s.before-1)
		hi := min(len(text), p+s.maxLen+1)
		re := o.anchored
		if lo == 0 {
			re = o.atStart
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

// oracleAssignsSoon is nearAssign without the engine: it reads the name
// byte by byte.
func oracleAssignsSoon(text string, p int) bool {
	i, limit := p, min(len(text), p+96)
	for i < limit && (isWordByte(text[i]) || text[i] == '.' || text[i] == '-') {
		i++
	}
	ok, _ := assignsAfter(text, i, limit)
	return ok
}

// oracleScan is Scan with the oracle in place of the matchers.
func oracleScan(text string) []Match {
	return matches(scanWith(text, nil, oracleSearch))
}

// engineScan is Scan.
func engineScan(text string) []Match {
	return matches(scanWith(text, nil, nil))
}
