package secrets

import "strings"

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
}

// newAnchorSet builds the automaton for the anchors of rules.
func newAnchorSet(rules []Rule) *anchorSet {
	a := &anchorSet{}
	var patterns []string
	for i, r := range rules {
		for _, anchor := range r.spec.anchors {
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
	auto := a.auto
	state := int32(0)
	delta, class, accept := auto.delta, &auto.class, auto.accept
	for i := 0; i < len(text); i++ {
		state = delta[state+int32(class[text[i]])]
		if state < accept {
			continue
		}
		for _, p := range auto.out[(state-accept)/int32(auto.nclass)] {
			start := i + 1 - auto.lens[p]
			if a.fold[p] || text[start:i+1] == a.anchor[p] {
				r := a.rule[p]
				at[r] = append(at[r], start)
			}
		}
	}
}
