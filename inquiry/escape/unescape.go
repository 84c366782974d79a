package escape

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// SyntaxError reports text that [Unescape] rejects because [Terminal] could
// not have written it.
type SyntaxError struct {
	// Offset is the byte offset in the input at which the offending escape,
	// rune or byte begins.
	Offset int
	// Text is the offending escape, rune or byte exactly as it appears in
	// the input. It may hold control characters; Error quotes it.
	Text string
	// Reason says what is wrong and, where there is one, what Terminal
	// writes instead. It is printable ASCII.
	Reason string
}

// Error returns the offset, the offending text quoted as printable ASCII,
// and the reason, so that printing the error can never itself inject
// control characters.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("escape: offset %d: %+q: %s", e.Offset, e.Text, e.Reason)
}

// Unescape reverses [Terminal]: Unescape(Terminal(x)) returns x for every
// string x, including strings that are not valid UTF-8.
//
// Unescape accepts only the canonical form, the strings that Terminal can
// return. Anything else, including a well-formed escape that Terminal would
// not have written (\u{41}, \u{1B} for \e, \u{01B}, \u{202e}, \x{41}), is
// reported as a [*SyntaxError] at the first offending offset. So whenever
// Unescape(s) succeeds with y, Terminal(y) == s.
func Unescape(s string) (string, error) {
	var b strings.Builder
	start := 0 // start of the raw run not yet copied to b
	for i := 0; i < len(s); {
		c := s[i]
		if c == '\\' {
			if b.Cap() == 0 {
				// An escape is never shorter than what it stands for.
				b.Grow(len(s))
			}
			b.WriteString(s[start:i])
			n, err := unescapeOne(&b, s, i)
			if err != nil {
				return "", err
			}
			i += n
			start = i
			continue
		}
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7F {
				return "", rawError(s, i, 1)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if n == 1 || Unsafe(r) {
			return "", rawError(s, i, n)
		}
		i += n
	}
	if start == 0 {
		return s, nil
	}
	b.WriteString(s[start:])
	return b.String(), nil
}

// rawError reports the unescaped rune or byte s[i:i+n].
func rawError(s string, i, n int) error {
	raw := s[i : i+n]
	what := fmt.Sprintf("byte 0x%02X, which is not valid UTF-8,", raw[0])
	if r, _ := utf8.DecodeRuneInString(raw); r != utf8.RuneError || n > 1 {
		what = fmt.Sprintf("U+%04X", r)
	}
	return &SyntaxError{
		Offset: i,
		Text:   raw,
		Reason: fmt.Sprintf("raw %s must be written as %s", what, Terminal(raw)),
	}
}

// writtenAs describes how Terminal writes the valid rune r, in printable
// ASCII.
func writtenAs(r rune) string {
	if r != '\\' && !Unsafe(r) {
		return "itself"
	}
	return Terminal(string(r))
}

// unescapeOne decodes the escape that starts with the backslash at s[i],
// writes what it stands for to b, and returns the escape's length.
func unescapeOne(b *strings.Builder, s string, i int) (int, error) {
	if i+1 == len(s) {
		return 0, &SyntaxError{Offset: i, Text: s[i:],
			Reason: `backslash at end of text; a backslash is written as \\`}
	}
	switch s[i+1] {
	case '\\':
		b.WriteByte('\\')
		return 2, nil
	case 'e':
		b.WriteByte(0x1B)
		return 2, nil
	case 'n':
		b.WriteByte('\n')
		return 2, nil
	case 'r':
		b.WriteByte('\r')
		return 2, nil
	case 't':
		b.WriteByte('\t')
		return 2, nil
	case 'x':
		return unescapeByte(b, s, i)
	case 'u':
		return unescapeRune(b, s, i)
	}
	_, n := utf8.DecodeRuneInString(s[i+1:])
	return 0, &SyntaxError{Offset: i, Text: s[i : i+1+n],
		Reason: `unknown escape; want \\, \e, \n, \r, \t, \x{HH} or \u{X}`}
}

// unescapeByte decodes the \x{HH} escape at s[i].
func unescapeByte(b *strings.Builder, s string, i int) (int, error) {
	digits, n, err := braced(s, i, 2)
	if err != nil {
		return 0, err
	}
	fail := func(reason string, args ...any) (int, error) {
		return 0, &SyntaxError{Offset: i, Text: s[i : i+n], Reason: fmt.Sprintf(reason, args...)}
	}
	if len(digits) != 2 {
		return fail(`want exactly two hex digits in \x{HH}`)
	}
	c := byte(hexValue(digits))
	if c < utf8.RuneSelf {
		return fail("byte 0x%02X is valid UTF-8 and is written as %s", c, writtenAs(rune(c)))
	}
	// Terminal writes a byte as \x{HH} only where it does not start valid
	// UTF-8. Only bytes from the \x{HH} escapes that follow can continue
	// it: raw text and every other escape start with a byte that is not a
	// UTF-8 continuation byte.
	var buf [utf8.UTFMax]byte
	buf[0] = c
	seq := buf[:1]
	for j := i + n; len(seq) < utf8.UTFMax; j += len(`\x{HH}`) {
		next, ok := byteEscapeAt(s, j)
		if !ok {
			break
		}
		seq = append(seq, next)
	}
	if r, size := utf8.DecodeRune(seq); size > 1 {
		return fail("bytes 0x%X form valid UTF-8 for U+%04X, which is written as %s",
			string(seq[:size]), r, writtenAs(r))
	}
	b.WriteByte(c)
	return n, nil
}

// byteEscapeAt reports whether s[j:] starts with a well-formed \x{HH}
// escape, and the byte it names.
func byteEscapeAt(s string, j int) (byte, bool) {
	if len(s)-j < len(`\x{HH}`) || s[j:j+3] != `\x{` || s[j+5] != '}' {
		return 0, false
	}
	digits := s[j+3 : j+5]
	if !isUpperHex(digits[0]) || !isUpperHex(digits[1]) {
		return 0, false
	}
	return byte(hexValue(digits)), true
}

// unescapeRune decodes the \u{X} escape at s[i].
func unescapeRune(b *strings.Builder, s string, i int) (int, error) {
	digits, n, err := braced(s, i, len("10FFFF"))
	if err != nil {
		return 0, err
	}
	fail := func(reason string, args ...any) (int, error) {
		return 0, &SyntaxError{Offset: i, Text: s[i : i+n], Reason: fmt.Sprintf(reason, args...)}
	}
	if len(digits) > 1 && digits[0] == '0' {
		return fail("leading zeros are not canonical")
	}
	r := hexValue(digits)
	switch {
	case r > utf8.MaxRune:
		return fail("code point beyond U+10FFFF")
	case 0xD800 <= r && r <= 0xDFFF:
		return fail("U+%04X is a surrogate half, not a character", r)
	case shortEscape(r) != 0 || !Unsafe(r):
		return fail("U+%04X is written as %s", r, writtenAs(r))
	}
	b.WriteRune(r)
	return n, nil
}

// braced parses the {digits} that follow the two-character \x or \u at
// s[i], allowing at most maxDigits digits. It returns the digits, which are
// uppercase hexadecimal and not empty, and the length of the whole escape.
func braced(s string, i, maxDigits int) (digits string, n int, err error) {
	fail := func(n int, reason string) (string, int, error) {
		return "", 0, &SyntaxError{Offset: i, Text: s[i : i+n], Reason: reason}
	}
	form := `\x{HH}`
	if s[i+1] == 'u' {
		form = `\u{X}`
	}
	j := i + 2
	if j == len(s) || s[j] != '{' {
		return fail(2, "want { after "+s[i:i+2]+" as in "+form)
	}
	j++
	for j < len(s) && j-(i+3) <= maxDigits && s[j] != '}' {
		c := s[j]
		switch {
		case isUpperHex(c):
		case 'a' <= c && c <= 'f':
			return fail(j+1-i, "hex digits must be uppercase")
		default:
			_, size := utf8.DecodeRuneInString(s[j:])
			return fail(j+size-i, "want uppercase hex digits and } in "+form)
		}
		j++
	}
	switch {
	case j-(i+3) > maxDigits:
		return fail(j-i, "too many hex digits in "+form)
	case j == len(s):
		return fail(j-i, "unterminated "+form+"; want }")
	case j == i+3:
		return fail(j+1-i, "no hex digits in "+form)
	}
	return s[i+3 : j], j + 1 - i, nil
}

func isUpperHex(c byte) bool {
	return '0' <= c && c <= '9' || 'A' <= c && c <= 'F'
}

// hexValue returns the value of at most seven uppercase hex digits.
func hexValue(digits string) rune {
	var v rune
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c <= '9' {
			v = v<<4 | rune(c-'0')
		} else {
			v = v<<4 | rune(c-'A'+10)
		}
	}
	return v
}
