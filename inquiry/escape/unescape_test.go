package escape_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp/inquiry/escape"
)

func TestUnescape(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"empty", "", ""},
		{"no escapes", "héllo 你好 😀 [y/n]", "héllo 你好 😀 [y/n]"},
		{"backslash", `a\\b`, `a\b`},
		{"short escapes", `\e\n\r\t`, "\x1b\n\r\t"},
		{"byte", `\x{9B}2J`, "\x9b2J"},
		{"truncated sequence", `ok\x{C3}`, "ok\xc3"},
		{"overlong NUL", `\x{C0}\x{80}`, "\xc0\x80"},
		{"lead byte before a rune", `\x{C3}é`, "\xc3é"},
		{"lead byte before a rune escape", `\x{E2}\u{9B}`, "\xe2\u009b"},
		{"lead byte before a short escape", `\x{C3}\e`, "\xc3\x1b"},
		{"three bytes of a four-byte sequence", `\x{F0}\x{9F}\x{98}`, "\xf0\x9f\x98"},
		{"NUL", `\u{0}`, "\x00"},
		{"C1", `\u{9B}`, "\u009b"},
		{"RLO", `\u{202E}`, "\u202e"},
		{"tag character", `\u{E0041}`, "\U000E0041"},
		{"largest", `\u{10FFFF}`, "\U0010FFFF"},
		{"mixed", `a\\b\e]0;t\u{7}\u{202E}\x{FF}é\t`, "a\\b\x1b]0;t\x07\u202E\xffé\t"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := escape.Unescape(tt.in)
			if err != nil {
				t.Fatalf("Unescape(%q) = %v, want %q", tt.in, err, tt.want)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Unescape(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// TestUnescapeRejects checks that Unescape reports text Terminal could not
// have written, at the first offending offset, with the offending text.
func TestUnescapeRejects(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want escape.SyntaxError // Reason is checked only for being non-empty
	}{
		{"unknown escape", `ab\q`, escape.SyntaxError{Offset: 2, Text: `\q`}},
		{"unknown escape with non-ASCII", `\é`, escape.SyntaxError{Offset: 0, Text: `\é`}},
		{"unknown escape with invalid byte", "\\\xff", escape.SyntaxError{Offset: 0, Text: "\\\xff"}},
		{"trailing backslash", `abc\`, escape.SyntaxError{Offset: 3, Text: `\`}},
		{"empty braces", `\u{}`, escape.SyntaxError{Offset: 0, Text: `\u{}`}},
		{"no braces", `\u202E`, escape.SyntaxError{Offset: 0, Text: `\u`}},
		{"no brace at end", `\x`, escape.SyntaxError{Offset: 0, Text: `\x`}},
		{"unterminated", `\u{202E`, escape.SyntaxError{Offset: 0, Text: `\u{202E`}},
		{"beyond U+10FFFF", `\u{110000}`, escape.SyntaxError{Offset: 0, Text: `\u{110000}`}},
		{"too many digits", `\u{1234567}`, escape.SyntaxError{Offset: 0, Text: `\u{1234567`}},
		{"leading zero", `\u{09B}`, escape.SyntaxError{Offset: 0, Text: `\u{09B}`}},
		{"lowercase hex in \\u", `\u{202e}`, escape.SyntaxError{Offset: 0, Text: `\u{202e`}},
		{"non-hex digit in \\x", `\x{G1}`, escape.SyntaxError{Offset: 0, Text: `\x{G`}},
		{"lowercase hex in \\x", `\x{9b}`, escape.SyntaxError{Offset: 0, Text: `\x{9b`}},
		{"one digit in \\x", `\x{9}`, escape.SyntaxError{Offset: 0, Text: `\x{9}`}},
		{"three digits in \\x", `\x{9B0}`, escape.SyntaxError{Offset: 0, Text: `\x{9B0`}},
		{"surrogate", `\u{D800}`, escape.SyntaxError{Offset: 0, Text: `\u{D800}`}},
		{"safe rune escaped", `x\u{41}`, escape.SyntaxError{Offset: 1, Text: `\u{41}`}},
		{"safe non-ASCII rune escaped", `\u{E9}`, escape.SyntaxError{Offset: 0, Text: `\u{E9}`}},
		{"ESC spelled long", `\u{1B}`, escape.SyntaxError{Offset: 0, Text: `\u{1B}`}},
		{"LF spelled long", `\u{A}`, escape.SyntaxError{Offset: 0, Text: `\u{A}`}},
		{"TAB spelled long", `\u{9}`, escape.SyntaxError{Offset: 0, Text: `\u{9}`}},
		{"backslash spelled long", `\u{5C}`, escape.SyntaxError{Offset: 0, Text: `\u{5C}`}},
		{"ASCII byte escaped", `\x{41}`, escape.SyntaxError{Offset: 0, Text: `\x{41}`}},
		{"ESC byte escaped", `\x{1B}`, escape.SyntaxError{Offset: 0, Text: `\x{1B}`}},
		{"valid UTF-8 as bytes", `a\x{C3}\x{A9}`, escape.SyntaxError{Offset: 1, Text: `\x{C3}`}},
		{"C1 as bytes", `\x{C2}\x{9B}`, escape.SyntaxError{Offset: 0, Text: `\x{C2}`}},
		{"emoji as bytes", `\x{F0}\x{9F}\x{98}\x{80}`, escape.SyntaxError{Offset: 0, Text: `\x{F0}`}},
		{"raw ESC", "ok\x1b[2J", escape.SyntaxError{Offset: 2, Text: "\x1b"}},
		{"raw LF", "a\nb", escape.SyntaxError{Offset: 1, Text: "\n"}},
		{"raw DEL", "\x7f", escape.SyntaxError{Offset: 0, Text: "\x7f"}},
		{"raw RLO", "x\u202E", escape.SyntaxError{Offset: 1, Text: "\u202E"}},
		{"raw replacement character", "\uFFFD", escape.SyntaxError{Offset: 0, Text: "\uFFFD"}},
		{"raw invalid byte", "ok\x9b", escape.SyntaxError{Offset: 2, Text: "\x9b"}},
		{"first error wins", "\\q\x1b", escape.SyntaxError{Offset: 0, Text: `\q`}},
		{"raw error before escape error", "\x1b\\q", escape.SyntaxError{Offset: 0, Text: "\x1b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := escape.Unescape(tt.in)
			var se *escape.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Unescape(%q) = %q, %v, want a *SyntaxError", tt.in, got, err)
			}
			if got != "" {
				t.Errorf("Unescape(%q) returned %q with its error, want \"\"", tt.in, got)
			}
			if se.Reason == "" {
				t.Errorf("Unescape(%q): SyntaxError has no Reason", tt.in)
			}
			gotErr := escape.SyntaxError{Offset: se.Offset, Text: se.Text}
			if diff := cmp.Diff(tt.want, gotErr); diff != "" {
				t.Errorf("Unescape(%q) error mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// TestSyntaxErrorMessages pins a few messages in full and checks that
// every message is printable ASCII, so that showing an error on a terminal
// cannot itself inject control characters.
func TestSyntaxErrorMessages(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{`\q`, `escape: offset 0: "\\q": unknown escape; want \\, \e, \n, \r, \t, \x{HH} or \u{X}`},
		{`ab\`, `escape: offset 2: "\\": backslash at end of text; a backslash is written as \\`},
		{`\u{110000}`, `escape: offset 0: "\\u{110000}": code point beyond U+10FFFF`},
		{`\u{41}`, `escape: offset 0: "\\u{41}": U+0041 is written as itself`},
		{`\u{1B}`, `escape: offset 0: "\\u{1B}": U+001B is written as \e`},
		{`\x{C3}\x{A9}`, `escape: offset 0: "\\x{C3}": bytes 0xC3A9 form valid UTF-8 for U+00E9, which is written as itself`},
		{"\x1b[2J", `escape: offset 0: "\x1b": raw U+001B must be written as \e`},
		{"\u202E", `escape: offset 0: "\u202e": raw U+202E must be written as \u{202E}`},
		{"\x9b", `escape: offset 0: "\x9b": raw byte 0x9B, which is not valid UTF-8, must be written as \x{9B}`},
	}
	for _, tt := range tests {
		_, err := escape.Unescape(tt.in)
		if err == nil {
			t.Errorf("Unescape(%q) succeeded, want an error", tt.in)
			continue
		}
		if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
			t.Errorf("Unescape(%q) message mismatch (-want +got):\n%s", tt.in, diff)
		}
	}

	var hostile []string
	for _, a := range attackCorpus() {
		hostile = append(hostile, a.input, `\`+a.input, `\u{`+a.input, `\x{`+a.input, `\x{C3}`+a.input)
	}
	for _, in := range hostile {
		_, err := escape.Unescape(in)
		if err == nil {
			continue
		}
		msg := err.Error()
		for i := 0; i < len(msg); i++ {
			if c := msg[i]; c < 0x20 || c >= 0x7F {
				t.Errorf("Unescape(%q) error %q holds byte 0x%02X", in, msg, c)
				break
			}
		}
		if strings.Contains(msg, "\n") {
			t.Errorf("Unescape(%q) error spans lines: %q", in, msg)
		}
	}
}
