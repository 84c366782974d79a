package escape_test

import (
	"testing"
	"unicode/utf8"

	"github.com/wisp-agent/wisp/inquiry/escape"
)

// FuzzTerminal checks that Terminal's output is valid UTF-8, clean and
// reversed exactly by Unescape.
func FuzzTerminal(f *testing.F) {
	for _, a := range attackCorpus() {
		f.Add(a.input)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := escape.Terminal(in)
		if !utf8.ValidString(out) {
			t.Fatalf("Terminal(%q) = %q, not valid UTF-8", in, out)
		}
		if !escape.Clean(out) {
			t.Fatalf("Terminal(%q) = %q, not clean", in, out)
		}
		back, err := escape.Unescape(out)
		if back != in || err != nil {
			t.Fatalf("Unescape(Terminal(%q)) = %q, %v, want the input", in, back, err)
		}
	})
}

// FuzzUnescape checks that Unescape never panics and accepts only what
// Terminal writes: whenever it succeeds, escaping its result gives back
// the input.
func FuzzUnescape(f *testing.F) {
	for _, a := range attackCorpus() {
		f.Add(escape.Terminal(a.input))
		f.Add(a.input)
	}
	for _, s := range []string{`\q`, `\u{}`, `\u{110000}`, `\x{G1}`, `\`, `\u{41}`, `\u{01B}`, `\x{C3}\x{A9}`, `\x{C3}é`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, err := escape.Unescape(in)
		if err != nil {
			if out != "" {
				t.Fatalf("Unescape(%q) = %q, %v, want no text with an error", in, out, err)
			}
			return
		}
		if back := escape.Terminal(out); back != in {
			t.Fatalf("Unescape(%q) = %q, but Terminal of that is %q", in, out, back)
		}
	})
}
