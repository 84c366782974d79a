package secrets

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
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
	var findings []Finding
	vals := r.unseal()
	defer wipe(vals)
	known := newKnownSet(vals)
	defer known.wipe()
	for {
		cands := scan(text, known)
		if len(cands) == 0 {
			return text, findings
		}
		// Every candidate lies outside every marker, so each pass turns
		// bytes that are not markers into markers and the loop ends.
		var b strings.Builder
		b.Grow(len(text))
		at := 0
		for _, c := range cands {
			var id, marker string
			if c.rule == vaultRule {
				id, marker = RefPrefix+c.value, VaultMarker(c.value)
			} else {
				id = ruleTable[c.rule].ID
				marker = Marker(id, r.number(id, c.value))
			}
			b.WriteString(text[at:c.start])
			b.WriteString(marker)
			at = c.end
			findings = append(findings, Finding{Rule: id, Marker: marker})
		}
		b.WriteString(text[at:])
		text = b.String()
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

// number returns the number of value under rule, giving it the next one if
// the Redactor has not seen it.
func (r *Redactor) number(rule, value string) int {
	mac := hmac.New(sha256.New, r.key)
	mac.Write([]byte(value))
	k := seenKey{rule: rule}
	mac.Sum(k.sum[:0])

	r.mu.Lock()
	defer r.mu.Unlock()
	if n, ok := r.seen[k]; ok {
		return n
	}
	n := r.last[rule] + 1
	r.last[rule] = n
	r.seen[k] = n
	return n
}

// Marker returns the marker for the n-th value of a rule:
// "[REDACTED:<rule>#<n>]".
func Marker(rule string, n int) string {
	return "[REDACTED:" + rule + "#" + strconv.Itoa(n) + "]"
}
