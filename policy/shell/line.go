package shell

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/policy"
)

// A Line is an Invocation as the Judge read it: each part of it that
// runs a program or writes a file, rated, and the line's rating, the
// highest of its parts'.
type Line struct {
	Invocation
	Rating policy.Rating
	// Reason says why, naming the part that set the rating:
	// "rm -rf build: deletes folders and all they hold". For a line only
	// the person may run, it is the person-only row's reason alone.
	Reason string
	// PersonOnly is set when a part is a command only the person may run.
	PersonOnly bool
	// Parts are what the line does, in the order the judge read them.
	Parts []Part
}

// A Part is one thing a line does: a command (each command a wrapper
// such as timeout runs is a part of its own, and so is each command of a
// line read again, such as the argument of sh -c), a redirection that
// writes, a variable the runner sets, a part of the shell's language that
// runs code unseen.
type Part struct {
	// Text is the part as written, shortened to a line.
	Text       string
	Rating     policy.Rating
	Reason     string
	PersonOnly bool
	// Pattern is the entry of a pattern that covers the part: the words of
	// the table's row and "*" for a command ("git commit *"), "> FILE" for
	// a redirection, "-e NAME" for a variable. nil when no pattern may
	// cover it (a part rated dangerous never is).
	Pattern []string
}

// Verdict returns the line's rating as the classifier gives it.
func (l *Line) Verdict() policy.Verdict {
	return policy.Verdict{Rating: l.Rating, Reason: l.Reason, PersonOnly: l.PersonOnly}
}

// Pattern returns what an answer that covers more than this one call
// covers: the entries of every part, sorted, without repeats. nil when
// nothing may cover the line: it is dangerous or the person's alone.
func (l *Line) Pattern() Pattern {
	if l.Rating >= policy.Dangerous || l.PersonOnly {
		return nil
	}
	var p Pattern
	for _, part := range l.Parts {
		if part.Pattern == nil {
			return nil
		}
		if !slices.ContainsFunc(p, func(e []string) bool { return slices.Equal(e, part.Pattern) }) {
			p = append(p, slices.Clone(part.Pattern))
		}
	}
	slices.SortFunc(p, func(a, b []string) int { return slices.Compare(a, b) })
	return p
}

// Widest returns the widest scope an answer about the line may have: once
// for a dangerous line (and one only the person may run, which the gate
// refuses without asking) or one no pattern covers, always otherwise.
func (l *Line) Widest() wisp.Scope {
	if l.Pattern() == nil {
		return wisp.ScopeOnce
	}
	return wisp.ScopeAlways
}

// Scopes returns the answers a request about the line allows, narrowest
// first, up to Widest: wisp.Action.Scopes.
func (l *Line) Scopes() []wisp.Scope {
	var out []wisp.Scope
	for s := wisp.ScopeOnce; s <= l.Widest(); s++ {
		out = append(out, s)
	}
	return out
}

// A Pattern is what an answer covers beyond the call it was given for:
// entries, each the Part.Pattern of a part it covers.
type Pattern [][]string

// String writes the pattern as the person reads it and ParsePattern
// reads it: its entries separated by " ; ", each entry's words by
// spaces; a word is written bare when it is plain, and in Go's double
// quotes otherwise (a "*" word in quotes is a star, not any arguments).
func (p Pattern) String() string {
	entries := make([]string, len(p))
	for i, e := range p {
		words := make([]string, len(e))
		for k, w := range e {
			words[k] = patternWord(w, k == len(e)-1)
		}
		entries[i] = strings.Join(words, " ")
	}
	return strings.Join(entries, " ; ")
}

// patternWord writes one word of an entry; only the last may be a bare
// "*".
func patternWord(w string, last bool) string {
	if w == "*" && last {
		return w
	}
	plain := w != "" && w != ";" && strings.IndexFunc(w, func(r rune) bool {
		return r <= ' ' || r >= 0x7f || r == '"' || r == '\\' || r == '*'
	}) < 0
	if plain {
		return w
	}
	return strconv.Quote(w)
}

// ParsePattern reads a pattern written by Pattern.String. It refuses an
// empty pattern, an empty entry, a quoted word that is not closed, and a
// bare "*" anywhere but at the end of an entry, each with a line that
// says so.
func ParsePattern(s string) (Pattern, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("shell: an empty pattern covers nothing")
	}
	var p Pattern
	var entry []string
	bareStar := false
	end := func() error {
		if len(entry) == 0 {
			return fmt.Errorf("shell: the pattern %q has an empty entry", s)
		}
		p = append(p, entry)
		entry, bareStar = nil, false
		return nil
	}
	for rest := s; ; {
		rest = strings.TrimLeft(rest, " ")
		if rest == "" {
			break
		}
		var w string
		switch {
		case bareStar && !strings.HasPrefix(rest, "; ") && rest != ";":
			return nil, fmt.Errorf("shell: the pattern %q has * before the end of an entry", s)
		case strings.HasPrefix(rest, `"`):
			q, err := strconv.QuotedPrefix(rest)
			if err != nil {
				return nil, fmt.Errorf("shell: the pattern %q has a quoted word that is not closed", s)
			}
			w, _ = strconv.Unquote(q)
			rest = rest[len(q):]
			if rest != "" && rest[0] != ' ' {
				return nil, fmt.Errorf("shell: the pattern %q has no space after a quoted word", s)
			}
		default:
			w, rest, _ = strings.Cut(rest, " ")
			rest = " " + rest
			if w == ";" {
				if err := end(); err != nil {
					return nil, err
				}
				continue
			}
			bareStar = w == "*"
		}
		entry = append(entry, w)
	}
	if err := end(); err != nil {
		return nil, err
	}
	return p, nil
}

// Match reports whether p covers l: l is neither dangerous nor the
// person's alone, and every part of it rated at or above threshold has
// its Part.Pattern among p's entries. Parts rated below threshold need no
// cover, since the gate allows them without asking.
func (p Pattern) Match(l *Line, threshold policy.Rating) bool {
	if l == nil || l.Rating >= policy.Dangerous || l.PersonOnly || len(p) == 0 {
		return false
	}
	for _, part := range l.Parts {
		if part.Rating < threshold {
			continue
		}
		if part.Pattern == nil || !slices.ContainsFunc(p, func(e []string) bool { return slices.Equal(e, part.Pattern) }) {
			return false
		}
	}
	return true
}
