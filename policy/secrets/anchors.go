package secrets

import (
	"cmp"
	"slices"
	"strings"
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
type automaton struct {
	class  [256]uint8
	nclass int
	// delta[state+class] is the next state. States are numbered as
	// offsets into delta (the state's index times nclass), so the loop
	// needs no multiplication.
	delta []int32
	// States at or above accept end at least one pattern; out lists the
	// patterns of each, indexed by (state-accept)/nclass.
	accept int32
	out    [][]int32
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
	a.out = make([][]int32, len(next)-int(acceptIndex))
	for s := range next {
		row := order[s] * int32(n)
		for c := range n {
			a.delta[row+int32(c)] = order[next[s][c]] * int32(n)
		}
		if order[s] >= acceptIndex {
			a.out[order[s]-acceptIndex] = outs[s]
		}
	}
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
			for _, p := range a.out[(state-accept)/int32(a.nclass)] {
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
	for _, o := range a.out {
		clear(o)
	}
}

// An anchorSet finds the anchors of every rule.
type anchorSet struct {
	auto *automaton
	// rule, anchor and fold describe each pattern of auto: the rule whose
	// anchor it is, the anchor as the rule writes it, and whether the
	// anchor matches whatever the case of the text. An anchor that does
	// not fold is checked against the text on each hit.
	rule   []int
	anchor []string
	fold   []bool
	// longest[rule] is the length of the rule's longest anchor, and
	// longestAll the longest of all.
	longest    []int
	longestAll int
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
			a.rule = append(a.rule, i)
			a.anchor = append(a.anchor, anchor)
			a.fold = append(a.fold, r.spec.fold)
		}
	}
	a.auto = newAutomaton(patterns, true)
	return a
}

// find appends the start of every anchor in text to at[rule], for the rule
// whose anchor it is. Starts come in the order the anchors end.
func (a *anchorSet) find(text string, at [][]int) {
	a.findIn(text, 0, len(text), at, nil)
}

// findIn is find for the anchors that start in text[from:to], reading on
// past to as far as they reach. When keep is not nil, only the anchors it
// accepts are appended.
func (a *anchorSet) findIn(text string, from, to int, at [][]int, keep func(rule, start int) bool) {
	auto := a.auto
	state := int32(0)
	delta, class, accept := auto.delta, &auto.class, auto.accept
	end := min(len(text), to+a.longestAll-1)
	for i := from; i < end; i++ {
		state = delta[state+int32(class[text[i]])]
		if state < accept {
			continue
		}
		for _, p := range auto.out[(state-accept)/int32(auto.nclass)] {
			start := i + 1 - auto.lens[p]
			if start >= to || !a.fold[p] && text[start:i+1] != a.anchor[p] {
				continue
			}
			r := a.rule[p]
			if keep == nil || keep(r, start) {
				at[r] = append(at[r], start)
			}
		}
	}
}

// inView fills v.at with where each rule's anchors start in v. In a copy of
// a scanned view, an anchor that lies wholly in a piece of bytes the copy
// holds unchanged is one the parent has, at the same place in the piece;
// only the rest of the copy is read.
func (a *anchorSet) inView(v *view) {
	v.at = make([][]int, len(a.longest))
	p := v.parent
	if p == nil || p.at == nil || len(v.pieces) == 0 || !piecesInOrder(v.pieces) {
		a.find(v.text, v.at)
		return
	}
	pieces := v.pieces
	// A hit of rule r at c is the parent's when c and the rule's longest
	// anchor after it fit in one piece.
	for r, hits := range p.at {
		if !slices.IsSorted(hits) {
			slices.Sort(hits)
		}
		n := a.longest[r]
		k := 0
		for _, h := range hits {
			for k < len(pieces) && pieces[k].from+pieces[k].n < h+n {
				k++
			}
			if k == len(pieces) {
				break
			}
			if pc := pieces[k]; pc.from <= h {
				v.at[r] = append(v.at[r], pc.at+h-pc.from)
			}
		}
	}
	// The rest of the copy: what lies between pieces, and the last bytes
	// of each, where an anchor may run past it.
	keep := func(r, c int) bool {
		k, _ := slices.BinarySearchFunc(pieces, c, func(pc piece, c int) int { return cmp.Compare(pc.at+pc.n, c+1) })
		return k == len(pieces) || c < pieces[k].at || c+a.longest[r] > pieces[k].at+pieces[k].n
	}
	from := 0
	for _, pc := range pieces {
		if from < pc.at {
			a.findIn(v.text, from, pc.at, v.at, keep)
		}
		from = max(pc.at, pc.at+pc.n-a.longestAll+1)
	}
	if from < len(v.text) {
		a.findIn(v.text, from, len(v.text), v.at, keep)
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
