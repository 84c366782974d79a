package secrets

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"hash"
	"io"
	"strconv"
	"strings"
	"sync"
)

// Finding is one value that Redact replaced. It names the rule and the
// marker; it never holds the value.
type Finding struct {
	// Rule is the ID of the rule that found the value.
	Rule string
	// Marker is the text that took the value's place, such as
	// "[REDACTED:github-pat#2]".
	Marker string
}

// Redactor replaces credential-shaped values with numbered markers of the
// form "[REDACTED:<rule-id>#<n>]", and the values a [Vault] made with it
// holds with "[REDACTED:session:<NAME>]".
//
// Numbers count from 1 for each rule ID, and a Redactor gives a value it has
// already seen the number it gave it before, so a model can tell the same
// key from a new one. Use one Redactor for one session: numbers mean nothing
// across Redactors.
//
// A Redactor keeps no value. It remembers each one by a keyed SHA-256 (HMAC)
// under a random key of its own, in memory only. A Vault's values it reads
// sealed from the Vault on each call of Redact and wipes when the call ends.
//
// A Redactor is safe for concurrent use. The zero value is not usable; call
// [NewRedactor].
type Redactor struct {
	key []byte

	mu     sync.Mutex
	seen   map[seenKey]int
	last   map[string]int // per rule ID: the highest number given so far
	vaults []*Vault       // whose values are replaced wherever they appear
}

type seenKey struct {
	rule string
	sum  [sha256.Size]byte
}

// NewRedactor returns a Redactor that has seen no value.
func NewRedactor() *Redactor {
	key := make([]byte, 32)
	rand.Read(key) // never returns an error; on failure it ends the program
	return &Redactor{key: key, seen: map[seenKey]int{}, last: map[string]int{}}
}

// Redact returns text with every value that [Scan] finds replaced by its
// marker, and the findings in the order the values were replaced. Text with
// nothing to redact comes back unchanged, with no findings.
//
// A value that a Vault made with r holds is replaced by [VaultMarker]
// wherever it appears exactly, and in the copies of the text that the
// scanner decodes (without invisible characters, with percent, JSON and
// backslash escapes undone, long base64 and hex runs decoded), whether or
// not any rule would find it. Its Finding's Rule is its reference,
// "session:NAME". Where it overlaps what a rule finds, it wins.
//
// When replacing one value changes what is found around it (a cut-off
// assignment, say), Redact scans again until nothing is found, so that
// Redact(Redact(x)) is Redact(x) and Scan finds nothing in what Redact
// returns.
func (r *Redactor) Redact(text string) (string, []Finding) {
	return r.redact(text, true, nil)
}

// redact is Redact. With again, each pass after the first takes what it can
// from the pass before; without it, each pass scans the whole text. The
// rules run by search, or by an engine when search is nil.
func (r *Redactor) redact(text string, again bool, search searcher) (string, []Finding) {
	var findings []Finding
	vals := r.unseal()
	defer wipe(vals)
	known := newKnownSet(vals)
	defer known.wipe()
	var nb numberer
	root := &view{text: text, record: true}
	for {
		cands, scanned := rescan(root, known, search)
		if root.hitsFrom != nil {
			root.hitsFrom.release()
		}
		if len(cands) == 0 {
			root.release()
			return text, findings
		}
		// Every candidate lies outside every marker, so each pass turns
		// bytes that are not markers into markers and the loop ends. The
		// next pass scans again only what the markers changed: the rest
		// of the text is pieces of this one.
		var b strings.Builder
		b.Grow(len(text))
		var pieces []piece
		at := 0
		for _, c := range cands {
			var id, marker string
			if c.rule == vaultRule {
				id, marker = RefPrefix+c.value, VaultMarker(c.value)
			} else {
				id = ruleTable[c.rule].ID
				marker = Marker(id, nb.number(r, c.rule, c.stripped()))
			}
			if at < c.start {
				pieces = append(pieces, piece{at: b.Len(), from: at, n: c.start - at})
			}
			b.WriteString(text[at:c.start])
			b.WriteString(marker)
			at = c.end
			findings = append(findings, Finding{Rule: id, Marker: marker})
		}
		if at < len(text) {
			pieces = append(pieces, piece{at: b.Len(), from: at, n: len(text) - at})
		}
		b.WriteString(text[at:])
		text = b.String()
		root = &view{text: text, record: true}
		if again {
			root.hitsFrom, root.pieces = scanned, pieces
		} else {
			scanned.release()
		}
	}
}

// Replace returns text as Redact does, without the findings: the form of
// a redactor that audit.Options, agent.Options and threadfile.Dir take
// (r.Replace), so that every sink of a session shares r's markers.
func (r *Redactor) Replace(text string) string {
	out, _ := r.Redact(text)
	return out
}

// watch makes r replace the values v holds.
func (r *Redactor) watch(v *Vault) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.vaults = append(r.vaults, v)
}

// unseal returns the values of r's Vaults, which the caller must wipe.
func (r *Redactor) unseal() []known {
	r.mu.Lock()
	vaults := r.vaults
	r.mu.Unlock()
	var vals []known
	for _, v := range vaults {
		vals = v.unsealAll(vals)
	}
	return vals
}

// A numberer numbers the values of one call of Redact. It asks the
// Redactor once for each value, however often the value occurs, and keeps
// one keyed hash for all of them.
type numberer struct {
	mac  hash.Hash
	last struct {
		rule  int
		value string
		n     int
	}
	done map[numbered]int
}

type numbered struct {
	rule  int
	value string
}

// number returns the number r gives value under ruleTable[rule].
func (nb *numberer) number(r *Redactor, rule int, value string) int {
	if nb.last.n > 0 && nb.last.rule == rule && nb.last.value == value {
		return nb.last.n
	}
	if n, ok := nb.done[numbered{rule, value}]; ok {
		return n
	}
	if nb.mac == nil {
		nb.mac = hmac.New(sha256.New, r.key)
		nb.done = map[numbered]int{}
	}
	nb.mac.Reset()
	io.WriteString(nb.mac, value)
	id := ruleTable[rule].ID
	k := seenKey{rule: id}
	nb.mac.Sum(k.sum[:0])

	r.mu.Lock()
	n, ok := r.seen[k]
	if !ok {
		n = r.last[id] + 1
		r.last[id] = n
		r.seen[k] = n
	}
	r.mu.Unlock()
	nb.done[numbered{rule, value}] = n
	nb.last.rule, nb.last.value, nb.last.n = rule, value, n
	return n
}

// Marker returns the marker for the n-th value of a rule:
// "[REDACTED:<rule>#<n>]".
func Marker(rule string, n int) string {
	return "[REDACTED:" + rule + "#" + strconv.Itoa(n) + "]"
}
