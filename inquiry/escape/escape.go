package escape

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

const hexDigits = "0123456789ABCDEF"

// Terminal returns s safe to print on a terminal: every unsafe rune, every
// backslash and every byte that is not valid UTF-8 is written visibly and
// reversibly, as the package documentation describes, and every other rune
// is left as it is.
//
// The result is valid UTF-8 and [Clean]. When s needs no escaping, Terminal
// returns s itself without allocating; otherwise it allocates once. It runs
// in time linear in len(s).
func Terminal(s string) string {
	i := safePrefix(s)
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(i + escapedLen(s[i:]))
	b.WriteString(s[:i])
	for i < len(s) {
		i += writeEscape(&b, s[i:])
		n := safePrefix(s[i:])
		b.WriteString(s[i : i+n])
		i += n
	}
	return b.String()
}

// Unsafe reports whether r must never reach a terminal raw: the C0 and C1
// controls, DEL, U+2028, U+2029, format characters (Cf), private use
// characters (Co), runes with the Other_Default_Ignorable_Code_Point or
// Variation_Selector property, U+FFFD and the noncharacters.
//
// Backslash is not unsafe on a terminal; [Terminal] escapes it only so that
// its output can be read back unambiguously.
//
// Unsafe also reports true for values that are not Unicode scalar values
// (negative, surrogate halves U+D800–U+DFFF, or above U+10FFFF), which have
// no UTF-8 encoding and so can never be written as themselves.
func Unsafe(r rune) bool {
	switch {
	case r < 0xA0:
		// C0, DEL and C1; negative values land here too.
		return r < 0x20 || r >= 0x7F
	case r < 0x100:
		// Latin-1: SOFT HYPHEN is the only format character.
		return r == 0xAD
	case r > unicode.MaxRune, 0xD800 <= r && r <= 0xDFFF:
		return true
	case r == 0x2028, r == 0x2029, r == utf8.RuneError:
		return true
	case privateUse(r), nonCharacter(r):
		return true
	}
	return unicode.Is(unicode.Cf, r) ||
		unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) ||
		unicode.Is(unicode.Variation_Selector, r)
}

// privateUse reports whether r is in one of the three private use areas,
// which Unicode's stability policy fixes for good (general category Co).
func privateUse(r rune) bool {
	return 0xE000 <= r && r <= 0xF8FF ||
		0xF0000 <= r && r <= 0xFFFFD ||
		0x100000 <= r && r <= 0x10FFFD
}

// nonCharacter reports whether r is one of the 66 noncharacters, a set
// that Unicode's stability policy fixes for good.
func nonCharacter(r rune) bool {
	return 0xFDD0 <= r && r <= 0xFDEF || r&0xFFFE == 0xFFFE
}

// Clean reports whether s is valid UTF-8 and holds no unsafe rune, that is
// whether s may be printed on a terminal as it is. Every result of
// [Terminal] is clean. A backslash is clean.
func Clean(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7F {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if n == 1 || Unsafe(r) {
			return false
		}
		i += n
	}
	return true
}

// safePrefix returns the length of the longest prefix of s that Terminal
// writes unchanged.
func safePrefix(s string) int {
	i := 0
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7F || c == '\\' {
				return i
			}
			i++
			continue
		}
		// A lead byte of 0x80 or more decodes to width 1 only when invalid.
		r, n := utf8.DecodeRuneInString(s[i:])
		if n == 1 || Unsafe(r) {
			return i
		}
		i += n
	}
	return i
}

// escapedLen returns the exact length of Terminal(s).
func escapedLen(s string) int {
	total := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case c == '\\', c == 0x1B, c == '\n', c == '\r', c == '\t':
				total += 2
			case c < 0x10:
				total += len(`\u{0}`)
			case c < 0x20:
				total += len(`\u{10}`)
			case c == 0x7F:
				total += len(`\u{7F}`)
			default:
				total++
			}
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case n == 1:
			total += len(`\x{HH}`)
		case Unsafe(r):
			total += len(`\u{}`) + hexLen(r)
		default:
			total += n
		}
	}
	return total
}

// writeEscape writes the escaped form of the byte or rune at the start of s,
// which safePrefix has found to need one, and returns how many bytes of s
// it consumed.
func writeEscape(b *strings.Builder, s string) int {
	c := s[0]
	if c < utf8.RuneSelf {
		if short := shortEscape(rune(c)); short != 0 {
			b.WriteByte('\\')
			b.WriteByte(short)
		} else {
			writeRuneEscape(b, rune(c))
		}
		return 1
	}
	r, n := utf8.DecodeRuneInString(s)
	if n == 1 {
		var buf = [...]byte{'\\', 'x', '{', hexDigits[c>>4], hexDigits[c&0xF], '}'}
		b.Write(buf[:])
		return 1
	}
	writeRuneEscape(b, r)
	return n
}

// shortEscape returns the letter of the two-character escape for r, or 0
// if r has none.
func shortEscape(r rune) byte {
	switch r {
	case '\\':
		return '\\'
	case 0x1B:
		return 'e'
	case '\n':
		return 'n'
	case '\r':
		return 'r'
	case '\t':
		return 't'
	}
	return 0
}

// writeRuneEscape writes r as \u{X}.
func writeRuneEscape(b *strings.Builder, r rune) {
	var buf [len(`\u{10FFFF}`)]byte
	n := copy(buf[:], `\u{`)
	for shift := 4 * (hexLen(r) - 1); shift >= 0; shift -= 4 {
		buf[n] = hexDigits[(r>>shift)&0xF]
		n++
	}
	buf[n] = '}'
	b.Write(buf[:n+1])
}

// hexLen returns the number of hexadecimal digits in r, which is at least
// zero and at most unicode.MaxRune, written without leading zeros.
func hexLen(r rune) int {
	n := 1
	for r >>= 4; r != 0; r >>= 4 {
		n++
	}
	return n
}
