package secrets

import (
	"cmp"
	"slices"
	"strings"
	"sync"
)

// An automaton finds every occurrence of a set of byte strings in one pass
// over a text: an Aho-Corasick automaton, turned into a table of
// transitions over byte classes. Every byte that occurs in a pattern has a
// class of its own (upper- and lower-case letters one between them when the
// automaton folds case), every other byte shares class 0; the table is
// small enough to stay in the processor's cache, and the loop that steps
// through it does one load per byte.
//
// The rules' anchors are one automaton, built once. A Vault's values are
// another, built for one call of Redact and wiped when it ends.
//
// It is written here rather than taken from a library: the Go libraries
// for it (BobuSumisu/aho-corasick, petar-dambovaliev/aho-corasick,
// cloudflare/ahocorasick) report matches as allocated objects or not at all
// where they are, fold case by a lower-cased copy of the text, and cannot
// be wiped; this table folds case in its byte classes, reports a match
// where its pattern ends with no allocation, and lets the caller drop a
// match by the bytes around it as it is found (see anchorSet.findIn).
type automaton struct {
	class  [256]uint8
	nclass int
	// delta[state+class] is the next state. States are numbered as
	// offsets into delta (the state's index times nclass), so the loop
	// needs no multiplication.
	delta []int32
	// States at or above accept end at least one pattern; the patterns
	// of state are outs[outAt[state-accept]:outAt[state-accept+1]].
	accept int32
	outAt  []int32
	outs   []int32
	// lens holds the length of each pattern.
	lens []int
}

// newAutomaton builds the automaton for patterns. With fold, ASCII letters
// match whatever their case, and the patterns must be lower case.
func newAutomaton[T string | []byte](patterns []T, fold bool) *automaton {
	a := &automaton{lens: make([]int, len(patterns))}
	// Byte classes.
	n := 1
	for _, p := range patterns {
		for i := 0; i < len(p); i++ {
			c := p[i]
			if a.class[c] != 0 {
				continue
			}
			if n > 255 {
				panic("secrets: too many byte classes")
			}
			a.class[c] = uint8(n)
			if fold && 'a' <= c && c <= 'z' {
				a.class[c-'a'+'A'] = uint8(n)
			}
			n++
		}
	}
	a.nclass = n

	// The trie, over classes; 0 means no edge (the root is no one's
	// child).
	next := [][]int32{make([]int32, n)}
	outs := [][]int32{nil}
	for i, p := range patterns {
		a.lens[i] = len(p)
		state := int32(0)
		for j := 0; j < len(p); j++ {
			c := a.class[p[j]]
			if next[state][c] == 0 {
				next = append(next, make([]int32, n))
				outs = append(outs, nil)
				next[state][c] = int32(len(next) - 1)
			}
			state = next[state][c]
		}
		outs[state] = append(outs[state], int32(i))
	}

	// Breadth first, turn the trie into a full transition table: a missing
	// edge goes where the longest proper suffix in the trie goes, and a
	// state also ends the patterns its suffix ends.
	fail := make([]int32, len(next))
	var queue []int32
	for c := range n {
		if s := next[0][c]; s != 0 {
			queue = append(queue, s)
		}
	}
	for len(queue) > 0 {
		state := queue[0]
		queue = queue[1:]
		outs[state] = append(outs[state], outs[fail[state]]...)
		for c := range n {
			s := next[state][c]
			if s == 0 {
				next[state][c] = next[fail[state]][c]
				continue
			}
			fail[s] = next[fail[state]][c]
			queue = append(queue, s)
		}
	}

	// Number the states that end a pattern last, so that one comparison
	// tells them apart.
	order := make([]int32, len(next)) // old state -> new index
	k := int32(0)
	for s := range next {
		if len(outs[s]) == 0 {
			order[s] = k
			k++
		}
	}
	acceptIndex := k
	for s := range next {
		if len(outs[s]) != 0 {
			order[s] = k
			k++
		}
	}
	a.accept = acceptIndex * int32(n)
	a.delta = make([]int32, len(next)*n)
	byOrder := make([][]int32, len(next))
	for s := range next {
		row := order[s] * int32(n)
		for c := range n {
			a.delta[row+int32(c)] = order[next[s][c]] * int32(n)
		}
		byOrder[order[s]] = outs[s]
	}
	// outAt is indexed by state-accept, which steps by nclass from one
	// state to the next: each state's entry is followed by nclass-1 that
	// repeat its end, so that outAt[x+1] is always the end of x's list.
	a.outAt = make([]int32, len(a.delta)-int(a.accept)+1)
	for st := int(acceptIndex); st < len(next); st++ {
		x := (st - int(acceptIndex)) * n
		for i := x; i < x+n; i++ {
			a.outAt[i] = int32(len(a.outs))
		}
		a.outs = append(a.outs, byOrder[st]...)
		a.outAt[x+1] = int32(len(a.outs))
	}
	a.outAt[len(a.outAt)-1] = int32(len(a.outs))
	if order[0] != 0 {
		// The root ends no pattern unless one is empty, which callers
		// never pass.
		panic("secrets: empty pattern")
	}
	return a
}

// each calls hit with the index and end of every occurrence of a pattern in
// text, in the order the occurrences end.
func (a *automaton) each(text string, hit func(pattern, end int)) {
	state := int32(0)
	delta, class, accept := a.delta, &a.class, a.accept
	for i := 0; i < len(text); i++ {
		state = delta[state+int32(class[text[i]])]
		if state >= accept {
			x := state - accept
			for _, p := range a.outs[a.outAt[x]:a.outAt[x+1]] {
				hit(int(p), i+1)
			}
		}
	}
}

// wipe clears the tables, which spell out the patterns.
func (a *automaton) wipe() {
	clear(a.class[:])
	clear(a.delta)
	clear(a.lens)
	clear(a.outs)
}

// An anchorSet finds the anchors of every rule.
type anchorSet struct {
	auto *automaton
	// delta is auto.delta in 16 bits, with the bit accepts set in the
	// states that end an anchor: a table half the size stays in the
	// fastest cache, its size, a power of two, spares the loop a bounds
	// check, and one test of the bit tells four states apart.
	delta *[deltaMask + 1]uint16
	// pats describe the patterns of auto, in its order, and outPats the
	// patterns of auto.outs, in its order.
	pats    []anchorPat
	outPats []anchorPat
	// longest[rule] is the length of the rule's longest anchor, and
	// longestAll the longest of all.
	longest    []int
	longestAll int
	// checkFrom is the largest anchorPat.checkFrom.
	checkFrom int
}

// An anchorPat is one anchor of one rule.
type anchorPat struct {
	rule int32
	n    int32  // the anchor's length
	text string // the anchor as the rule writes it
	// fold says the anchor matches whatever the case of the text; one
	// that does not is checked against the text on each hit.
	fold bool
	// Hits that cannot start a match are dropped as they are found:
	// wordStart says the rule's match must start at its anchor and after
	// a byte that is not a word byte; follow, when not nil, holds the
	// bytes that may come right after the anchor. Neither applies to an
	// anchor that starts before checkFrom, whose window starts with the
	// text and may hold a match that starts after it.
	wordStart bool
	follow    *[256]bool
	checkFrom int
}

// newAnchorSet builds the automaton for the anchors of rules.
func newAnchorSet(rules []Rule) *anchorSet {
	a := &anchorSet{longest: make([]int, len(rules))}
	var patterns []string
	for i, r := range rules {
		for _, anchor := range r.spec.anchors {
			a.longest[i] = max(a.longest[i], len(anchor))
			a.longestAll = max(a.longestAll, len(anchor))
			patterns = append(patterns, strings.ToLower(anchor))
			pat := anchorPat{rule: int32(i), n: int32(len(anchor)), text: anchor, fold: r.spec.fold,
				wordStart: r.spec.before == 0 && r.spec.wordStart}
			if t, ok := r.spec.match.(*token); ok && r.spec.before == 0 {
				pat.follow = t.follow(anchor)
			}
			if r.spec.follow != "" {
				set := new([256]bool)
				for i := 0; i < len(r.spec.follow); i++ {
					set[r.spec.follow[i]] = true
				}
				pat.follow = set
			}
			pat.checkFrom = r.spec.before + 2
			a.checkFrom = max(a.checkFrom, pat.checkFrom)
			a.pats = append(a.pats, pat)
		}
	}
	a.auto = newAutomaton(patterns, true)
	if len(a.auto.delta) > len(a.delta) {
		panic("secrets: too many states for the anchors' automaton")
	}
	a.delta = new([deltaMask + 1]uint16)
	for i, d := range a.auto.delta {
		a.delta[i] = uint16(d)
		if d >= a.auto.accept {
			a.delta[i] |= accepts
		}
	}
	a.outPats = make([]anchorPat, len(a.auto.outs))
	for i, p := range a.auto.outs {
		a.outPats[i] = a.pats[p]
	}
	return a
}

// find appends the start of every anchor in text to at[rule], for the rule
// whose anchor it is.
//
// A long text is read as four quarters stepped in one loop: each step of
// an automaton waits on the load of the step before, and the other
// quarters' steps fill the wait. Each quarter reads on past its end as far
// as its anchors reach; the anchors of the later quarters are gathered
// apart and appended in order.
func (a *anchorSet) find(text string, at [][]int) {
	if len(text) < splitFind {
		a.findIn(text, 0, len(text), at, nil)
		return
	}
	q := len(text) / 4
	ends := [4]int{q, 2 * q, 3 * q, len(text)}
	var lists [4][][]int
	lists[0] = at
	for k := 1; k < 4; k++ {
		lists[k] = takeHitLists()
	}
	delta, class := a.delta, &a.auto.class
	reach := a.longestAll - 1
	n := min(q+reach, len(text)-3*q)
	var s0, s1, s2, s3 uint16
	var buf stepHits
	for k := 0; k < n; {
		var m int
		k, m, s0, s1, s2, s3 = a.step4(text[:3*q+n], q, k, s0, s1, s2, s3, &buf)
		a.hits(text, buf[:m], &ends, &lists, nil)
	}
	// The rest of each quarter: the last reads less than the others.
	states := [4]uint16{s0, s1, s2, s3}
	for x := range 4 {
		from := 0
		if x > 0 {
			from = ends[x-1]
		}
		state := states[x]
		for i := from + n; i < min(len(text), ends[x]+reach); i++ {
			if state = delta[(int(state)+int(class[text[i]]))&deltaMask]; state&accepts != 0 {
				a.hits(text, []stepHit{{i: i, x: x, state: state}}, &ends, &lists, nil)
			}
		}
	}
	for k := 1; k < 4; k++ {
		for r := range at {
			at[r] = append(at[r], lists[k][r]...)
		}
		hitLists.Put(lists[k])
	}
}

// A stepHit is where an automaton of find ended an anchor, and its state
// then; stepHits holds them until they are read.
type (
	stepHit struct {
		i     int    // where in the text
		x     int    // which quarter, or 0 for findIn
		state uint16 // the automaton's state
	}
	stepHits [64]stepHit
)

// step4 steps find's four automata, in states s0 to s3, from the k-th byte
// of each of the quarters of t that start q bytes apart, to the end of the
// last; it notes in hits where and in which state one of them ends an
// anchor, and stops when hits may not hold another step's. It returns the
// next step, how many hits it noted and the states. It calls nothing, so
// that the states stay in registers.
func (a *anchorSet) step4(t string, q, k int, s0, s1, s2, s3 uint16, hits *stepHits) (int, int, uint16, uint16, uint16, uint16) {
	delta, class := a.delta, &a.auto.class
	m := 0
	for ; 3*q+k < len(t); k++ {
		s0 = delta[(int(s0)+int(class[t[k]]))&deltaMask]
		s1 = delta[(int(s1)+int(class[t[q+k]]))&deltaMask]
		s2 = delta[(int(s2)+int(class[t[2*q+k]]))&deltaMask]
		s3 = delta[(int(s3)+int(class[t[3*q+k]]))&deltaMask]
		if (s0|s1|s2|s3)&accepts == 0 {
			continue
		}
		for x, s := range [4]uint16{s0, s1, s2, s3} {
			if s&accepts != 0 {
				h := &hits[m&(len(hits)-1)]
				h.i, h.x, h.state = x*q+k, x, s
				m++
			}
		}
		if m > len(hits)-4 {
			k++
			break
		}
	}
	return k, m, s0, s1, s2, s3
}

// deltaMask masks an index into anchorSet.delta, and accepts marks a state
// that ends an anchor. A state's offset plus a class stays below the
// table's size, so masking the sum drops the mark.
const (
	deltaMask = 1<<14 - 1
	accepts   = 1 << 15
)

// splitFind is the length of text from which find reads four quarters at
// once.
const splitFind = 4 << 10

// findIn is find for the anchors that start in text[from:to], reading on
// past to as far as they reach. When keep is not nil, only the anchors it
// accepts are appended.
func (a *anchorSet) findIn(text string, from, to int, at [][]int, keep func(rule, start int) bool) {
	state := uint16(0)
	delta, class := a.delta, &a.auto.class
	end := min(len(text), to+a.longestAll-1)
	ends, lists := [4]int{to}, [4][][]int{at}
	// A few hits at a time: findIn reads short stretches, and its buffer
	// is cleared on each call.
	var buf [8]stepHit
	m := 0
	for i := from; i < end; i++ {
		if state = delta[(int(state)+int(class[text[i]]))&deltaMask]; state&accepts != 0 {
			buf[m&(len(buf)-1)] = stepHit{i: i, state: state}
			if m++; m == len(buf) {
				a.hits(text, buf[:m], &ends, &lists, keep)
				m = 0
			}
		}
	}
	a.hits(text, buf[:m], &ends, &lists, keep)
}

// hits appends, for each of found, the anchors that end with text[i], where
// the automaton of quarter x is in state, and start before ends[x], to
// lists[x].
func (a *anchorSet) hits(text string, found []stepHit, ends *[4]int, lists *[4][][]int, keep func(rule, start int) bool) {
	auto := a.auto
	for _, h := range found {
		i, to, at := h.i, ends[h.x&3], lists[h.x&3]
		x := int32(h.state&deltaMask) - auto.accept
		outs := a.outPats[auto.outAt[x]:auto.outAt[x+1]]
		for o := range outs {
			pat := &outs[o]
			start := i + 1 - int(pat.n)
			// As engine.searchWith would find, a rule that must start at
			// its anchor cannot after a word byte, nor before a byte that
			// none of its heads or values takes. Near the start of the
			// text a match may start before the anchor.
			if start >= to || start >= pat.checkFrom && (pat.wordStart && isWordByte(text[start-1]) ||
				pat.follow != nil && i+1 < len(text) && !pat.follow[text[i+1]]) ||
				!pat.fold && text[start:i+1] != pat.text {
				continue
			}
			if keep == nil || keep(int(pat.rule), start) {
				at[pat.rule] = append(at[pat.rule], start)
			}
		}
	}
}

// inView fills v.at with where each rule's anchors start in v. In a copy of
// a scanned view, an anchor that lies wholly in a piece of bytes the copy
// holds unchanged is one the parent has, at the same place in the piece;
// only the rest of the copy is read.
func (a *anchorSet) inView(v *view) {
	v.at = takeHitLists()
	p := v.hitsFrom
	if p == nil || p.at == nil || len(v.pieces) == 0 || !piecesInOrder(v.pieces) {
		a.find(v.text, v.at)
		return
	}
	pieces := v.pieces
	// A text scanned again, or a copy, notes where each anchor came from,
	// so that what was found there can be reused.
	track := p.scans != nil
	if track {
		v.from = takeFromLists()
	}
	// A hit of rule r at c is the parent's when the byte before c, and the
	// rule's longest anchor and the byte after it, fit in one piece: the
	// bytes that decide whether the anchor is a hit. Near the start of a
	// text, where the window of an anchor starts with the text, hits are
	// decided otherwise (see anchorPat.checkFrom), so those are read again.
	m := a.checkFrom
	for r, hits := range p.at {
		sorted := slices.IsSorted(hits)
		if !sorted {
			hits = slices.Sorted(slices.Values(hits))
		}
		n := a.longest[r] + 1
		at := slices.Grow(v.at[r], len(hits))
		var from []int32
		if track {
			from = slices.Grow(v.from[r], len(hits))
		}
		// The hits of each piece follow each other in hits: those after
		// its first byte whose longest anchor and the byte after it end
		// in it.
		j := 0
		for k := 0; k < len(pieces) && j < len(hits); k++ {
			pc := &pieces[k]
			lo, hi := max(pc.from+1, m, pc.from+m-pc.at), pc.from+pc.n-n
			for j < len(hits) && hits[j] < lo {
				j++
			}
			d := pc.at - pc.from
			for ; j < len(hits) && hits[j] <= hi; j++ {
				at = append(at, hits[j]+d)
				if track {
					from = append(from, int32(j))
				}
			}
		}
		v.at[r] = at
		if track {
			v.from[r] = from
		}
	}
	// The rest of the copy: what lies between pieces, the first and last
	// bytes of each, and the bytes near the start of either text.
	keep := func(r, c int) bool {
		k, _ := slices.BinarySearchFunc(pieces, c, func(pc piece, c int) int { return cmp.Compare(pc.at+pc.n, c+1) })
		if k == len(pieces) || c <= pieces[k].at || c+a.longest[r]+1 > pieces[k].at+pieces[k].n {
			return true
		}
		return c < m || pieces[k].from+c-pieces[k].at < m
	}
	regions := [][2]int{{0, m}}
	from := 0
	for _, pc := range pieces {
		regions = append(regions, [2]int{from, pc.at + 1})
		if pc.from < m {
			regions = append(regions, [2]int{pc.at, pc.at + m - pc.from})
		}
		from = max(pc.at+1, pc.at+pc.n-a.longestAll)
	}
	regions = append(regions, [2]int{from, len(v.text)})
	slices.SortFunc(regions, func(x, y [2]int) int { return cmp.Compare(x[0], y[0]) })
	from = 0 // read up to here
	for _, rg := range regions {
		lo, hi := max(rg[0], from), min(rg[1], len(v.text))
		if lo < hi {
			a.findIn(v.text, lo, hi, v.at, keep)
			from = hi
		}
	}
	if track {
		// The anchors read here follow those taken from the earlier
		// scan.
		for r := range v.at {
			if !slices.IsSorted(p.at[r]) {
				v.from[r] = nil // the earlier scan did not search the rule
			} else {
				for len(v.from[r]) < len(v.at[r]) {
					v.from[r] = append(v.from[r], -1)
				}
			}
			sortAnchors(v.at[r], v.from[r])
		}
	}
}

// sortAnchors sorts at, and from along with it when it is not nil. The
// anchors that inView takes from an earlier scan come first, in order, and
// those it reads itself, few, after them: the two runs are merged.
func sortAnchors(at []int, from []int32) {
	if slices.IsSorted(at) {
		return
	}
	if from == nil {
		slices.Sort(at)
		return
	}
	k := 1
	for k < len(at) && at[k-1] <= at[k] {
		k++
	}
	tail := slices.Clone(at[k:])
	tailFrom := slices.Clone(from[k:])
	if !slices.IsSorted(tail) {
		sortAnchorsSlowly(tail, tailFrom)
	}
	// Merge from the back, so that at[:k] is read before it is written.
	i, j, o := k-1, len(tail)-1, len(at)-1
	for j >= 0 {
		if i >= 0 && at[i] > tail[j] {
			at[o], from[o] = at[i], from[i]
			i--
		} else {
			at[o], from[o] = tail[j], tailFrom[j]
			j--
		}
		o--
	}
}

// sortAnchorsSlowly sorts at and from by at.
func sortAnchorsSlowly(at []int, from []int32) {
	idx := make([]int, len(at))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(x, y int) int { return cmp.Compare(at[x], at[y]) })
	a2 := make([]int, len(at))
	f2 := make([]int32, len(at))
	for i, x := range idx {
		a2[i], f2[i] = at[x], from[x]
	}
	copy(at, a2)
	copy(from, f2)
}

// hitLists keeps the lists of anchors of views that are done with, for the
// views to come: a scan of a large text fills long ones.
var hitLists = sync.Pool{New: func() any { return make([][]int, len(ruleTable)) }}

// takeHitLists returns empty lists of anchors, one per rule.
func takeHitLists() [][]int {
	at := hitLists.Get().([][]int)
	for i := range at {
		at[i] = at[i][:0]
	}
	return at
}

// fromLists and scanLists keep a view's view.from and view.scans for the
// views to come, as hitLists does its anchors.
var (
	fromLists = sync.Pool{New: func() any { return make([][]int32, len(ruleTable)) }}
	scanLists = sync.Pool{New: func() any { return make([]ruleScan, len(ruleTable)) }}
)

// takeFromLists returns empty view.from lists.
func takeFromLists() [][]int32 {
	from := fromLists.Get().([][]int32)
	for i := range from {
		from[i] = from[i][:0]
	}
	return from
}

// takeScans returns empty view.scans.
func takeScans() []ruleScan {
	scans := scanLists.Get().([]ruleScan)
	for i := range scans {
		s := &scans[i]
		s.out, s.recs = s.out[:0], s.recs[:0]
	}
	return scans
}

// release gives the lists of v back, once nothing will read them: v and
// the copies made from it are scanned, and a text scanned again after it
// is too.
func (v *view) release() {
	if v.at != nil {
		hitLists.Put(v.at)
		v.at = nil
	}
	if v.from != nil {
		fromLists.Put(v.from)
		v.from = nil
	}
	if v.scans != nil {
		for i := range v.scans {
			clear(v.scans[i].recs) // their values are the text's
		}
		scanLists.Put(v.scans)
		v.scans = nil
	}
}

// piecesInOrder reports whether pieces follow each other in the parent as
// they do in the copy.
func piecesInOrder(pieces []piece) bool {
	for i := 1; i < len(pieces); i++ {
		if pieces[i].from < pieces[i-1].from+pieces[i-1].n || pieces[i].at < pieces[i-1].at+pieces[i-1].n {
			return false
		}
	}
	return true
}
