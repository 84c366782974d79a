package secrets

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// ignorable is the Unicode Default_Ignorable_Code_Point set: characters that
// render as nothing, so they can split a word or a token without a reader
// seeing it. It includes the zero-width space, joiners, the soft hyphen, the
// byte order mark, bidi controls, variation selectors and the tag characters.
var ignorable = &unicode.RangeTable{
	R16: []unicode.Range16{
		{Lo: 0x00AD, Hi: 0x00AD, Stride: 1},
		{Lo: 0x034F, Hi: 0x034F, Stride: 1},
		{Lo: 0x061C, Hi: 0x061C, Stride: 1},
		{Lo: 0x115F, Hi: 0x1160, Stride: 1},
		{Lo: 0x17B4, Hi: 0x17B5, Stride: 1},
		{Lo: 0x180B, Hi: 0x180F, Stride: 1},
		{Lo: 0x200B, Hi: 0x200F, Stride: 1},
		{Lo: 0x202A, Hi: 0x202E, Stride: 1},
		{Lo: 0x2060, Hi: 0x206F, Stride: 1},
		{Lo: 0x3164, Hi: 0x3164, Stride: 1},
		{Lo: 0xFE00, Hi: 0xFE0F, Stride: 1},
		{Lo: 0xFEFF, Hi: 0xFEFF, Stride: 1},
		{Lo: 0xFFA0, Hi: 0xFFA0, Stride: 1},
		{Lo: 0xFFF0, Hi: 0xFFF8, Stride: 1},
	},
	R32: []unicode.Range32{
		{Lo: 0x1BCA0, Hi: 0x1BCA3, Stride: 1},
		{Lo: 0x1D173, Hi: 0x1D17A, Stride: 1},
		{Lo: 0xE0000, Hi: 0xE0FFF, Stride: 1},
	},
}

// isIgnorable reports whether r is a default-ignorable code point.
func isIgnorable(r rune) bool {
	return r >= 0xAD && unicode.Is(ignorable, r)
}

// hasIgnorable reports whether s holds any default-ignorable code point.
func hasIgnorable(s string) bool {
	for i := 0; i < len(s); i++ {
		if i = asciiEnd(s, i); i == len(s) {
			break
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if isIgnorable(r) {
			return true
		}
		i += size - 1
	}
	return false
}

// asciiEnd returns the offset of the first byte at or after i that is not
// ASCII, or len(s). It reads 32 bytes at a time, then eight.
func asciiEnd(s string, i int) int {
	const high = 0x8080808080808080
	for ; i+32 <= len(s); i += 32 {
		t := s[i : i+32]
		if (load64(t, 0)|load64(t, 8)|load64(t, 16)|load64(t, 24))&high != 0 {
			break
		}
	}
	for ; i+8 <= len(s); i += 8 {
		if load64(s[i:i+8], 0)&high != 0 {
			break
		}
	}
	for i < len(s) && s[i] < utf8.RuneSelf {
		i++
	}
	return i
}

// strippedLen returns the length of stripIgnorable(s) without making it.
func strippedLen(s string) int {
	if !hasIgnorable(s) {
		return len(s)
	}
	n := 0
	for i := 0; i < len(s); {
		if j := asciiEnd(s, i); j > i {
			n += j - i
			i = j
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case isIgnorable(r):
		case r == utf8.RuneError && size == 1:
			n += utf8.RuneLen(utf8.RuneError)
		default:
			n += size
		}
		i += size
	}
	return n
}

// load64 returns the eight bytes of s at i as a little-endian word: one load.
func load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// stripIgnorable returns s without its default-ignorable code points. When
// it has any, bytes that are not UTF-8 become U+FFFD, as strings.Map makes
// them.
func stripIgnorable(s string) string {
	if !hasIgnorable(s) {
		return s
	}
	b := make([]byte, 0, len(s))
	run := 0 // start of the bytes not yet copied
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case isIgnorable(r):
			b = append(b, s[run:i]...)
			run = i + size
		case r == utf8.RuneError && size == 1:
			b = append(b, s[run:i]...)
			b = utf8.AppendRune(b, utf8.RuneError)
			run = i + size
		}
		i += size
	}
	return string(append(b, s[run:]...))
}

// homoglyphs maps Cyrillic and Greek letters that look like Latin ones to the
// Latin letter of the same case, so "раsswоrd" written with Cyrillic р, а and
// о reads as "password".
var homoglyphs = map[rune]rune{
	// Cyrillic lower case.
	'а': 'a', 'в': 'b', 'е': 'e', 'ё': 'e', 'һ': 'h', 'і': 'i', 'ї': 'i',
	'ј': 'j', 'к': 'k', 'ӏ': 'l', 'м': 'm', 'н': 'h', 'о': 'o', 'р': 'p',
	'ԛ': 'q', 'г': 'r', 'ѕ': 's', 'т': 't', 'ц': 'u', 'ѵ': 'v', 'ԝ': 'w',
	'х': 'x', 'у': 'y', 'с': 'c', 'ԁ': 'd', 'ɡ': 'g', 'п': 'n', 'ь': 'b',
	// Cyrillic upper case.
	'А': 'A', 'В': 'B', 'Е': 'E', 'Ё': 'E', 'Һ': 'H', 'І': 'I', 'Ї': 'I',
	'Ј': 'J', 'К': 'K', 'Ӏ': 'I', 'М': 'M', 'Н': 'H', 'О': 'O', 'Р': 'P',
	'Ԛ': 'Q', 'Ѕ': 'S', 'Т': 'T', 'Ѵ': 'V', 'Ԝ': 'W', 'Х': 'X', 'У': 'Y',
	'С': 'C', 'Ԁ': 'D',
	// Greek lower case.
	'α': 'a', 'β': 'b', 'γ': 'y', 'ε': 'e', 'η': 'n', 'ι': 'i', 'κ': 'k',
	'μ': 'u', 'ν': 'v', 'ο': 'o', 'ρ': 'p', 'τ': 't', 'υ': 'u', 'χ': 'x',
	'ω': 'w', 'ς': 's',
	// Greek upper case.
	'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Ζ': 'Z', 'Η': 'H', 'Ι': 'I', 'Κ': 'K',
	'Μ': 'M', 'Ν': 'N', 'Ο': 'O', 'Ρ': 'P', 'Τ': 'T', 'Υ': 'Y', 'Χ': 'X',
	// Latin look-alikes outside ASCII that NFKC keeps.
	'ı': 'i', 'ȷ': 'j', 'ᴀ': 'a', 'ʙ': 'b', 'ᴄ': 'c', 'ᴅ': 'd', 'ᴇ': 'e',
	'ɢ': 'g', 'ʜ': 'h', 'ɪ': 'i', 'ᴊ': 'j', 'ᴋ': 'k', 'ʟ': 'l', 'ᴍ': 'm',
	'ɴ': 'n', 'ᴏ': 'o', 'ᴘ': 'p', 'ʀ': 'r', 'ꜱ': 's', 'ᴛ': 't', 'ᴜ': 'u',
	'ᴠ': 'v', 'ᴡ': 'w', 'ʏ': 'y', 'ᴢ': 'z',
}

// foldHomoglyphs replaces look-alike letters with their Latin counterparts.
func foldHomoglyphs(s string) string {
	return strings.Map(func(r rune) rune {
		if l, ok := homoglyphs[r]; ok {
			return l
		}
		return r
	}, s)
}

// asciiLower lower-cases the ASCII letters of s and leaves every other byte
// alone, so offsets into the result are offsets into s.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; 'A' <= c && c <= 'Z' {
					b[j] = c + ('a' - 'A')
				}
			}
			return string(b)
		}
	}
	return s
}
