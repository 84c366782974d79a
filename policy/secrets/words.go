package secrets

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// How AsksForSecret reads a question: as letters with word edges for the
// strong terms, and as a list of words for the weak ones.

// squeezed is a text's letters and digits with everything else taken out,
// where each word started and ended, and the words themselves: a term
// found in the letters is read in the company of the words around it.
type squeezed struct {
	letters    string
	start, end []bool
	// wordOf is the index in words of the word each byte of letters is in.
	wordOf []int
	words  []word
}

func squeeze(text string) squeezed {
	var s squeezed
	var b, w strings.Builder
	inWord := false
	endWord := func(i int) {
		s.end[len(s.end)-1] = true
		lw := w.String()
		s.words = append(s.words, word{cased: lw, lower: lw, stop: stopsAt(text[i:]), colon: colonAt(text[i:])})
		w.Reset()
	}
	for i, r := range text {
		switch {
		case unicode.Is(unicode.Mn, r):
			// A combining mark stays inside its word and is dropped.
		case isWordRune(r):
			for k := range utf8.RuneLen(r) {
				s.start = append(s.start, !inWord && k == 0)
				s.end = append(s.end, false)
				s.wordOf = append(s.wordOf, len(s.words))
			}
			b.WriteRune(r)
			w.WriteRune(r)
			inWord = true
		default:
			if inWord {
				endWord(i)
			}
			inWord = false
		}
	}
	if inWord {
		endWord(len(text))
	}
	s.letters = b.String()
	return s
}

// stopsAt reports whether a sentence ends at rest, the text after a word:
// the text ends, or a '?', '!', ';' or line break comes before the next
// word, or a '.' or ':' that a blank or the end follows ("./keys" and
// "https://" go on).
func stopsAt(rest string) bool {
	rest = strings.TrimLeft(rest, " \t")
	switch {
	case rest == "" || strings.IndexByte("?!;\n", rest[0]) >= 0:
		return true
	case rest[0] == '.' || rest[0] == ':':
		after := strings.TrimLeft(rest, ".:")
		return after == "" || strings.IndexByte(" \t\n?!;\"')", after[0]) >= 0
	}
	return false
}

// colonAt reports whether a ':' follows a word at once, but for blanks.
func colonAt(rest string) bool {
	rest = strings.TrimLeft(rest, " \t")
	return rest != "" && rest[0] == ':'
}

// find returns where term first occurs in s at word edges, or -1.
func (s squeezed) find(term string) int { return s.findFrom(term, 0) }

// findFrom returns where term first occurs in s at word edges at or after
// byte from, or -1.
func (s squeezed) findFrom(term string, from int) int {
	for from < len(s.letters) {
		i := strings.Index(s.letters[from:], term)
		if i < 0 {
			return -1
		}
		if s.fits(from+i, len(term)) {
			return from + i
		}
		from += i + 1
	}
	return -1
}

// fits reports whether the n bytes at i start at a word start and end at a
// word end, or one plural "s" before one.
func (s squeezed) fits(i, n int) bool {
	if !s.start[i] {
		return false
	}
	last := i + n - 1
	if s.end[last] {
		return true
	}
	return last+1 < len(s.letters) && s.letters[last+1] == 's' && s.end[last+1]
}

// A word is a run of letters and digits in a question.
type word struct {
	cased, lower string
	// stop says a sentence ends after the word: the text ends, or a '?', '.',
	// '!', ':' or ';' follows.
	stop bool
	// colon says a ':' follows.
	colon bool
	// hyphen says a '-' and a letter follow at once ("PIN-out").
	hyphen bool
}

// splitWords splits a folded question into words. Runs of three or more
// single letters ("p a s s", "t-o-k-e-n") are joined into one word, and so
// are pieces that make a weak word only together ("to ken").
func splitWords(text string) []word {
	type raw struct {
		w          word
		start, end int
	}
	var ws []raw
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !isWordRune(r) {
			i += size
			continue
		}
		j := i
		for j < len(text) {
			r, size := utf8.DecodeRuneInString(text[j:])
			if !isWordRune(r) {
				break
			}
			j += size
		}
		ws = append(ws, raw{w: word{cased: text[i:j]}, start: i, end: j})
		i = j
	}
	for k := range ws {
		ws[k].w.stop = stopsAt(text[ws[k].end:])
		ws[k].w.colon = colonAt(text[ws[k].end:])
		after := text[ws[k].end:]
		if len(after) >= 2 && after[0] == '-' {
			r, _ := utf8.DecodeRuneInString(after[1:])
			ws[k].w.hyphen = unicode.IsLetter(r)
		}
	}
	// gap reports whether the text between words k and k+1 is a short run
	// of spaces and separators, the kind used to spell a word out.
	gap := func(k int) bool {
		g := text[ws[k].end:ws[k+1].start]
		return len(g) <= 3 && strings.Trim(g, " -._/*|,+~") == ""
	}
	single := func(k int) bool { return utf8.RuneCountInString(ws[k].w.cased) == 1 }
	var out []word
	for k := 0; k < len(ws); {
		n := 1
		if single(k) {
			for k+n < len(ws) && single(k+n) && gap(k+n-1) {
				n++
			}
		}
		if n < 3 {
			n = 1
			// Pieces that make a weak word only together.
			for m := 3; m >= 2; m-- {
				if k+m > len(ws) {
					continue
				}
				joined := ""
				ok := true
				for t := k; t < k+m; t++ {
					joined += strings.ToLower(ws[t].w.cased)
					if t > k && !gap(t-1) {
						ok = false
					}
				}
				if ok && isWeakForm(joined) && !isWeakForm(strings.ToLower(ws[k].w.cased)) {
					n = m
					break
				}
			}
		}
		w := ws[k+n-1].w
		var b strings.Builder
		for t := k; t < k+n; t++ {
			b.WriteString(ws[t].w.cased)
		}
		w.cased = b.String()
		w.lower = strings.ToLower(w.cased)
		out = append(out, splitCompound(unleet(w))...)
		k += n
	}
	return out
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// ignorableToSpace replaces each default-ignorable code point with a space,
// so one between two words ("your\u200bpassword") keeps them apart.
func ignorableToSpace(s string) string {
	if !hasIgnorable(s) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isIgnorable(r) {
			return ' '
		}
		return r
	}, s)
}

// symbolLetters reads '@' as 'a' and '$' as 's' where they touch a letter or
// a digit ("@cc3$$", "$ecret"), so the words they spell hold together.
func symbolLetters(s string) string {
	if !strings.ContainsAny(s, "@$") {
		return s
	}
	rs := []rune(s)
	touches := func(i int) bool {
		for _, j := range []int{i - 1, i + 1} {
			if j >= 0 && j < len(rs) && (isWordRune(rs[j]) || rs[j] == '@' || rs[j] == '$') {
				return true
			}
		}
		return false
	}
	out := make([]rune, len(rs))
	for i, r := range rs {
		out[i] = r
		switch {
		case r == '@' && touches(i):
			out[i] = 'a'
		case r == '$' && touches(i):
			out[i] = 's'
		}
	}
	return string(out)
}

// unleet reads a word that mixes letters and digits ("t0k3n", "P1N") as the
// weak word or qualifier it spells, if it spells one.
func unleet(w word) word {
	if !strings.ContainsAny(w.lower, "0134579") || strings.IndexFunc(w.lower, unicode.IsLetter) < 0 {
		return w
	}
	for _, r := range []*strings.Replacer{leetI, leetL} {
		l := r.Replace(w.lower)
		if !isWeakForm(l) && !isQualifier(l) && !isWeakCompound(l) {
			continue
		}
		w.lower = l
		if w.cased == strings.ToUpper(w.cased) {
			w.cased = strings.ToUpper(l)
		} else {
			w.cased = l
		}
		return w
	}
	return w
}

// isQualifier reports whether s qualifies any weak word.
func isQualifier(s string) bool {
	for _, wk := range weakWords {
		if wk.qualifiers[s] {
			return true
		}
	}
	return false
}

// isWeakCompound reports whether s is a qualifier and a weak word run
// together.
func isWeakCompound(s string) bool { return len(splitCompound(word{cased: s, lower: s})) == 2 }

// splitCompound splits a word written as qualifier and weak word run
// together ("accesstoken", "yourpin") into the two.
func splitCompound(w word) []word {
	for _, wk := range weakWords {
		for _, form := range []string{wk.word + "s", wk.word} {
			q, ok := strings.CutSuffix(w.lower, form)
			if !ok || q == "" || !wk.qualifiers[q] || len(w.cased) != len(w.lower) {
				continue
			}
			first := word{cased: w.cased[:len(q)], lower: q}
			second := w
			second.cased, second.lower = w.cased[len(q):], form
			return []word{first, second}
		}
	}
	return []word{w}
}
