package escape

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// JSON returns b, JSON text as encoding/json writes it, with every unsafe
// rune (see [Unsafe]) that the encoder left raw inside a string written
// as a \u escape (a rune beyond U+FFFF as its UTF-16 surrogate pair), so
// that the text can be printed on a terminal as it is and still decodes
// to the same values. encoding/json already escapes the C0 controls,
// quotes and backslashes, so every rune rewritten is inside a string;
// a byte that is not valid UTF-8 is written as \ufffd, as the encoder
// writes it. Tab, newline and carriage return, which valid JSON holds raw
// only as whitespace between values (the newline an Encoder ends each
// value with, say), are left as they are.
//
// When b needs no escaping, JSON returns b itself without allocating. It
// runs in time linear in len(b).
func JSON(b []byte) []byte {
	i := 0
	for i < len(b) {
		r, n := utf8.DecodeRune(b[i:])
		if jsonUnsafe(r) {
			break
		}
		i += n
	}
	if i == len(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	out = append(out, b[:i]...)
	for i < len(b) {
		r, n := utf8.DecodeRune(b[i:])
		i += n
		if !jsonUnsafe(r) {
			out = append(out, b[i-n:i]...)
			continue
		}
		if r >= 0x10000 {
			r -= 0x10000
			out = appendU(out, 0xD800+(r>>10))
			out = appendU(out, 0xDC00+(r&0x3FF))
			continue
		}
		out = appendU(out, r)
	}
	return out
}

// jsonUnsafe reports whether JSON rewrites r: an unsafe rune, but for the
// whitespace JSON allows between values.
func jsonUnsafe(r rune) bool {
	return Unsafe(r) && r != '\t' && r != '\n' && r != '\r'
}

// appendU appends the JSON escape \uXXXX of r, a rune below U+10000.
func appendU(b []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	return append(b, '\\', 'u', hex[r>>12&0xF], hex[r>>8&0xF], hex[r>>4&0xF], hex[r&0xF])
}

// Marshal returns v as one line of JSON ended by a newline, as a
// json.Encoder writes it, with "<", ">" and "&" as themselves and every
// unsafe rune written as a \u escape ([JSON]): data for a program that
// can be printed on a terminal as it is.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return JSON(b.Bytes()), nil
}
