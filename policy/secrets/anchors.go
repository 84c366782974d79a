package secrets

import "strings"

// An anchorSet finds every occurrence of every rule's anchors in one pass
// over a text (an Aho-Corasick automaton, as a table of byte transitions).
// It runs over the ASCII-lower-cased text; an anchor that is not folded is
// then checked against the text itself.
type anchorSet struct {
	next [][256]uint16 // next[state][byte] is the state after byte
	out  [][]anchorEnd // out[state] lists the anchors that end in state
}

// An anchorEnd is an anchor of one rule.
type anchorEnd struct {
	rule   int
	anchor string // as written in the rule
	fold   bool
}

// newAnchorSet builds the automaton for the anchors of rules.
func newAnchorSet(rules []Rule) *anchorSet {
	a := &anchorSet{next: make([][256]uint16, 1), out: make([][]anchorEnd, 1)}
	// The trie: next holds its edges, 0 meaning none (the root is never a
	// child).
	for i, r := range rules {
		for _, anchor := range r.spec.anchors {
			state := 0
			for _, c := range []byte(strings.ToLower(anchor)) {
				if a.next[state][c] == 0 {
					a.next = append(a.next, [256]uint16{})
					a.out = append(a.out, nil)
					a.next[state][c] = uint16(len(a.next) - 1)
				}
				state = int(a.next[state][c])
			}
			a.out[state] = append(a.out[state], anchorEnd{rule: i, anchor: anchor, fold: r.spec.fold})
		}
	}
	if len(a.next) > 1<<16 {
		panic("secrets: too many anchor states")
	}
	// Breadth first, turn the trie into a full transition table: a missing
	// edge goes where the longest proper suffix that is in the trie goes,
	// and each state also reports the anchors of that suffix.
	fail := make([]uint16, len(a.next))
	var queue []int
	for c := range 256 {
		if s := a.next[0][c]; s != 0 {
			queue = append(queue, int(s))
		}
	}
	for len(queue) > 0 {
		state := queue[0]
		queue = queue[1:]
		a.out[state] = append(a.out[state], a.out[fail[state]]...)
		for c := range 256 {
			s := a.next[state][c]
			if s == 0 {
				a.next[state][c] = a.next[fail[state]][c]
				continue
			}
			fail[s] = a.next[fail[state]][c]
			queue = append(queue, int(s))
		}
	}
	return a
}

// find calls hit with the rule and start of every anchor in text. lower is
// text with its ASCII letters lower-cased. Starts come in the order anchors
// end.
func (a *anchorSet) find(text, lower string, hit func(rule, start int)) {
	state := 0
	for i := 0; i < len(lower); i++ {
		state = int(a.next[state][lower[i]])
		for _, e := range a.out[state] {
			start := i + 1 - len(e.anchor)
			if e.fold || text[start:i+1] == e.anchor {
				hit(e.rule, start)
			}
		}
	}
}
