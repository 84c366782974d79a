package prompt_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wisp-agent/wisp/inquiry/escape"
	"github.com/wisp-agent/wisp/prompt"
)

func TestText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"plain text\n\twith a tab\n", "plain text\n\twith a tab\n"},
		{`a\b C:\path`, `a\b C:\path`},
		{"crlf\r\nlines\r\n", "crlf\nlines\n"},
		{"lone\rcr", `lone\rcr`},
		{"esc\x1b[31mred", `esc\e[31mred`},
		{"bidi \u202eevil\u202c", `bidi \u{202E}evil\u{202C}`},
		{"zero\u200bwidth", `zero\u{200B}width`},
		{"tag\U000E0041", `tag\u{E0041}`},
		{"bad \xff byte", `bad \x{FF} byte`},
		{"c1 \u009b", `c1 \u{9B}`},
		{"héllo, 世界", "héllo, 世界"},
	} {
		if got := prompt.Text(c.in); got != c.want {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// checkText fails when Text(s) holds what it must not: invalid UTF-8, an
// unsafe rune but a line break or a tab; or when Text changed text it
// had no reason to change, or is not stable.
func checkText(t *testing.T, s string) {
	got := prompt.Text(s)
	if !utf8.ValidString(got) {
		t.Fatalf("Text(%q) = %q, not valid UTF-8", s, got)
	}
	for _, r := range got {
		if r != '\n' && r != '\t' && escape.Unsafe(r) {
			t.Fatalf("Text(%q) = %q, holds %U raw", s, got, r)
		}
	}
	if again := prompt.Text(got); again != got {
		t.Fatalf("Text(Text(%q)) = %q, want %q", s, again, got)
	}
	plain := utf8.ValidString(s) && !strings.Contains(s, "\r")
	for _, r := range s {
		plain = plain && (r == '\n' || r == '\t' || !escape.Unsafe(r))
	}
	if plain && got != s {
		t.Fatalf("Text(%q) = %q, want it unchanged", s, got)
	}
}

func FuzzText(f *testing.F) {
	for _, s := range []string{"", "plain\n", "a\r\nb", "\x1b[2J", "\u202e", "\xff\xfe", "\u200b\u2028", `\\e`, "\t\r\n\r"} {
		f.Add(s)
	}
	f.Fuzz(checkText)
}
