package escape_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp/inquiry/escape"
)

func TestTerminal(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"empty", "", ""},
		{"plain ASCII", "Run go test ./... now? (yes/no)", "Run go test ./... now? (yes/no)"},
		{"backslash", `C:\dir\file`, `C:\\dir\\file`},
		{"literal \\e cannot pass for ESC", `\e[2J`, `\\e[2J`},
		{"literal \\u{} cannot pass for an escape", `\u{202E}`, `\\u{202E}`},
		{"ESC", "\x1b[2J", `\e[2J`},
		{"LF", "one\ntwo", `one\ntwo`},
		{"CR", "one\rtwo", `one\rtwo`},
		{"TAB", "a\tb", `a\tb`},
		{"NUL", "\x00", `\u{0}`},
		{"BEL", "\x07", `\u{7}`},
		{"BS", "abc\b", `abc\u{8}`},
		{"VT and FF", "\x0b\x0c", `\u{B}\u{C}`},
		{"last C0", "\x1f", `\u{1F}`},
		{"DEL", "\x7f", `\u{7F}`},
		{"C1 CSI as UTF-8", "\u009b2J", `\u{9B}2J`},
		{"C1 NEL as UTF-8", "\u0085", `\u{85}`},
		{"raw 8-bit CSI byte", "\x9b2J", `\x{9B}2J`},
		{"raw 8-bit OSC byte", "\x9d0;t\x07", `\x{9D}0;t\u{7}`},
		{"raw 0xFF", "\xff", `\x{FF}`},
		{"truncated sequence", "ok\xc3", `ok\x{C3}`},
		{"overlong NUL", "\xc0\x80", `\x{C0}\x{80}`},
		{"encoded surrogate", "\xed\xa0\x80", `\x{ED}\x{A0}\x{80}`},
		{"beyond U+10FFFF", "\xf4\x90\x80\x80", `\x{F4}\x{90}\x{80}\x{80}`},
		{"RLO", "invoice\u202Egpj.exe", `invoice\u{202E}gpj.exe`},
		{"isolates", "\u2066x\u2069", `\u{2066}x\u{2069}`},
		{"ALM", "\u061C", `\u{61C}`},
		{"LRM and RLM", "\u200E\u200F", `\u{200E}\u{200F}`},
		{"tag character", "\U000E0041", `\u{E0041}`},
		{"zero-width space", "pass\u200Bword", `pass\u{200B}word`},
		{"word joiner", "\u2060", `\u{2060}`},
		{"byte order mark", "\uFEFF", `\u{FEFF}`},
		{"soft hyphen", "pass\u00ADword", `pass\u{AD}word`},
		{"interlinear annotation", "\uFFF9\uFFFA\uFFFB", `\u{FFF9}\u{FFFA}\u{FFFB}`},
		{"Hangul filler", "\u3164", `\u{3164}`},
		{"halfwidth Hangul filler", "\uFFA0", `\u{FFA0}`},
		{"combining grapheme joiner", "a\u034Fb", `a\u{34F}b`},
		{"Khmer inherent vowel", "\u17B4", `\u{17B4}`},
		{"VS16 in emoji", "\u2764\uFE0F", `❤\u{FE0F}`},
		{"supplementary variation selector", "\U000E0100", `\u{E0100}`},
		{"ZWJ in emoji sequence", "👩\u200D💻", `👩\u{200D}💻`},
		{"line separator", "\u2028", `\u{2028}`},
		{"paragraph separator", "\u2029", `\u{2029}`},
		{"private use", "\uE000\U0010FFFD", `\u{E000}\u{10FFFD}`},
		{"replacement character", "\uFFFD", `\u{FFFD}`},
		{"noncharacters", "\uFDD0\uFFFE\uFFFF\U0010FFFF", `\u{FDD0}\u{FFFE}\u{FFFF}\u{10FFFF}`},
		{
			"letters in many scripts and emoji untouched",
			"héllo Привет 你好 مرحبا שלום 한국어 ñ 😀 🇫🇷",
			"héllo Привет 你好 مرحبا שלום 한국어 ñ 😀 🇫🇷",
		},
		{"combining mark and no-break space untouched", "e\u0301\u00A0x", "e\u0301\u00A0x"},
		{
			"forged approval prompt",
			"list files?\r\x1b[1A\x1b[2KApprove rm -rf build? [y/n]",
			`list files?\r\e[1A\e[2KApprove rm -rf build? [y/n]`,
		},
		{
			"mixed",
			"a\\b\x1b]0;t\x07\u202E\xffé\t",
			`a\\b\e]0;t\u{7}\u{202E}\x{FF}é\t`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := escape.Terminal(tt.in)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Terminal(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestUnsafe(t *testing.T) {
	tests := []struct {
		r    rune
		want bool
	}{
		{'a', false}, {' ', false}, {'~', false}, {'\\', false},
		{0x00, true}, {'\t', true}, {'\n', true}, {'\r', true}, {0x1B, true}, {0x1F, true},
		{0x7F, true}, {0x80, true}, {0x9B, true}, {0x9F, true},
		{0xA0, false}, {0xAD, true}, {'é', false}, {0x0301, false}, {0x034F, true},
		{0x061C, true}, {0x115F, true}, {0x1160, true}, {0x17B4, true}, {0x180E, true},
		{0x200B, true}, {0x200C, true}, {0x200D, true}, {0x200E, true}, {0x200F, true},
		{0x2028, true}, {0x2029, true}, {0x202A, true}, {0x202E, true}, {0x2060, true},
		{0x2066, true}, {0x2069, true}, {0x3164, true}, {'你', false}, {'한', false},
		{0xE000, true}, {0xF8FF, true}, {0xFDD0, true}, {0xFE00, true}, {0xFE0F, true},
		{0xFEFF, true}, {0xFFA0, true}, {0xFFF9, true}, {0xFFFB, true}, {0xFFFC, false},
		{0xFFFD, true}, {0xFFFE, true}, {0xFFFF, true}, {'😀', false}, {0x1FFFE, true},
		{0xE0001, true}, {0xE0041, true}, {0xE007F, true}, {0xE0100, true}, {0xE01EF, true},
		{0xF0000, true}, {0x10FFFD, true}, {0x10FFFF, true},
		{-1, true}, {0xD800, true}, {0xDFFF, true}, {0x110000, true},
	}
	for _, tt := range tests {
		if got := escape.Unsafe(tt.r); got != tt.want {
			t.Errorf("Unsafe(%U) = %v, want %v", tt.r, got, tt.want)
		}
	}
}

// TestUnsafeMatchesDefinition checks Unsafe against the Unicode tables for
// every value from just below zero to just above U+10FFFF, so its
// shortcuts can never drift from the documented set.
func TestUnsafeMatchesDefinition(t *testing.T) {
	bad := 0
	for r := rune(-2); r <= unicode.MaxRune+2 && bad < 10; r++ {
		if got, want := escape.Unsafe(r), unsafeByDefinition(r); got != want {
			t.Errorf("Unsafe(%U) = %v, want %v", r, got, want)
			bad++
		}
	}
}

// TestTerminalEveryRune checks the escaped form and the round trip of
// every Unicode scalar value on its own.
func TestTerminalEveryRune(t *testing.T) {
	short := map[rune]string{'\\': `\\`, 0x1B: `\e`, '\n': `\n`, '\r': `\r`, '\t': `\t`}
	bad := 0
	for r := rune(0); r <= unicode.MaxRune && bad < 10; r++ {
		if 0xD800 <= r && r <= 0xDFFF {
			continue
		}
		in := string(r)
		want, ok := short[r]
		switch {
		case ok:
		case escape.Unsafe(r):
			want = fmt.Sprintf(`\u{%X}`, r)
		default:
			want = in
		}
		got := escape.Terminal(in)
		if got != want {
			t.Errorf("Terminal(%q) = %q, want %q", in, got, want)
			bad++
			continue
		}
		if back, err := escape.Unescape(got); back != in || err != nil {
			t.Errorf("Unescape(%q) = %q, %v, want %q, nil", got, back, err, in)
			bad++
		}
	}
}

func TestTerminalEveryInvalidByte(t *testing.T) {
	for b := 0x80; b <= 0xFF; b++ {
		in := string([]byte{byte(b)})
		want := fmt.Sprintf(`\x{%02X}`, b)
		if got := escape.Terminal(in); got != want {
			t.Errorf("Terminal(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTerminalEveryTwoByteString checks the properties on all 65,536
// two-byte strings, which cover every pairing of a lead byte with a
// continuation byte, valid or not.
func TestTerminalEveryTwoByteString(t *testing.T) {
	bad := 0
	for v := 0; v < 1<<16 && bad < 10; v++ {
		if err := checkProperties(string([]byte{byte(v >> 8), byte(v)})); err != nil {
			t.Error(err)
			bad++
		}
	}
}

func TestClean(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"", true},
		{"Approve? [y/n]", true},
		{`a\b`, true},
		{`\e[2J`, true},
		{"héllo 你好 😀", true},
		{"\x1b[2J", false},
		{"a\tb", false},
		{"a\nb", false},
		{"\x7f", false},
		{"\u009b", false},
		{"\x9b", false},
		{"\xff", false},
		{"ok\xc3", false},
		{"\u202E", false},
		{"\u200B", false},
		{"\u3164", false},
		{"\uFE0F", false},
		{"\U000E0041", false},
		{"\uFFFD", false},
	}
	for _, tt := range tests {
		if got := escape.Clean(tt.in); got != tt.want {
			t.Errorf("Clean(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestAttackCorpus(t *testing.T) {
	corpus := attackCorpus()
	if len(corpus) < 200 {
		t.Fatalf("attack corpus has %d inputs, want at least 200", len(corpus))
	}
	for i, a := range corpus {
		out := escape.Terminal(a.input)
		fail := func(format string, args ...any) {
			t.Helper()
			t.Errorf("%s #%d: Terminal(%q) = %q: %s", a.class, i, a.input, out, fmt.Sprintf(format, args...))
		}
		if out == a.input {
			fail("the attack passed through unchanged")
		}
		if !utf8.ValidString(out) {
			fail("not valid UTF-8")
		}
		if !escape.Clean(out) {
			fail("not clean")
		}
		for j := 0; j < len(out); j++ {
			if c := out[j]; c < 0x20 || c == 0x7F {
				fail("control byte 0x%02X at %d", c, j)
			}
		}
		for j, r := range out {
			// Anything but a visible character or a space could act on
			// the terminal or hide from the person.
			if !unicode.IsGraphic(r) || (0x80 <= r && r <= 0x9F) {
				fail("rune %U at %d is not graphic", r, j)
			}
		}
		if back, err := escape.Unescape(out); back != a.input || err != nil {
			fail("Unescape gives %q, %v", back, err)
		}
	}
}

// TestProperties checks, over the attack corpus and random inputs, that
// the output is valid and clean, that Unescape reverses Terminal, and that
// Terminal changes exactly the strings that are not clean or hold a
// backslash.
func TestProperties(t *testing.T) {
	var inputs []string
	for _, a := range attackCorpus() {
		inputs = append(inputs, a.input)
	}
	inputs = append(inputs, randomInputs(rand.New(rand.NewPCG(1, 2)), 20000)...)
	bad := 0
	for _, in := range inputs {
		if err := checkProperties(in); err != nil {
			t.Error(err)
			if bad++; bad == 10 {
				t.Fatal("too many failures")
			}
		}
	}
}

// TestTerminalIdentityOnSafeText checks that text made only of runes that
// are neither unsafe nor a backslash comes back unchanged.
func TestTerminalIdentityOnSafeText(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 5000 {
		var b strings.Builder
		for n := rng.IntN(30); n > 0; {
			r := randomRune(rng)
			if r == '\\' || escape.Unsafe(r) {
				continue
			}
			b.WriteRune(r)
			n--
		}
		in := b.String()
		if got := escape.Terminal(in); got != in {
			t.Fatalf("Terminal(%q) = %q, want it unchanged", in, got)
		}
	}
}

func TestAllocations(t *testing.T) {
	clean := strings.Repeat("Run go test in 你好? ", 20)
	dirty := strings.Repeat("Run\x1b[2J go\u202E test\xff in 你好? ", 20)
	escaped := escape.Terminal(dirty)
	tests := []struct {
		name string
		f    func()
		want float64
	}{
		{"Terminal of clean text", func() { escape.Terminal(clean) }, 0},
		{"Terminal of text to escape", func() { escape.Terminal(dirty) }, 1},
		{"Unescape of text without escapes", func() { escape.Unescape(clean) }, 0},
		{"Unescape of escaped text", func() { escape.Unescape(escaped) }, 1},
	}
	for _, tt := range tests {
		if got := testing.AllocsPerRun(20, tt.f); got != tt.want {
			t.Errorf("%s: %v allocations, want %v", tt.name, got, tt.want)
		}
	}
}

// checkProperties returns an error if Terminal(in) is not valid UTF-8, not
// clean, not reversed by Unescape, not of the length computed to size its
// buffer, or changed when it need not be or unchanged when it must be.
func checkProperties(in string) error {
	out := escape.Terminal(in)
	if !utf8.ValidString(out) {
		return fmt.Errorf("Terminal(%q) = %q, not valid UTF-8", in, out)
	}
	if !escape.Clean(out) {
		return fmt.Errorf("Terminal(%q) = %q, not clean", in, out)
	}
	if back, err := escape.Unescape(out); back != in || err != nil {
		return fmt.Errorf("Unescape(Terminal(%q)) = %q, %v, want the input", in, back, err)
	}
	if n := escape.EscapedLen(in); n != len(out) {
		return fmt.Errorf("EscapedLen(%q) = %d, want len(Terminal) = %d", in, n, len(out))
	}
	needsNone := escape.Clean(in) && !strings.Contains(in, `\`)
	if changed := out != in; changed == needsNone {
		return fmt.Errorf("Terminal(%q) = %q: changed = %v, but clean and without backslash = %v", in, out, changed, needsNone)
	}
	return nil
}

// randomInputs returns n strings mixing random bytes, random runes,
// unsafe runes, backslashes and fragments of escapes.
func randomInputs(rng *rand.Rand, n int) []string {
	fragments := []string{`\`, `\\`, `\e`, `\u{`, `\u{41}`, `\x{`, `\x{9B}`, "}", "{", "\x1b[", "\r\n"}
	inputs := make([]string, n)
	for i := range inputs {
		var b strings.Builder
		for k := rng.IntN(24); k > 0; k-- {
			switch rng.IntN(6) {
			case 0:
				b.WriteByte(byte(rng.IntN(256)))
			case 1:
				b.WriteByte(byte(0x80 + rng.IntN(0x40)))
			case 2:
				b.WriteString(fragments[rng.IntN(len(fragments))])
			default:
				b.WriteRune(randomRune(rng))
			}
		}
		inputs[i] = b.String()
	}
	return inputs
}

// randomRune returns a rune from a range chosen at random, weighted toward
// ASCII, the unsafe neighbourhoods and common scripts.
func randomRune(rng *rand.Rand) rune {
	ranges := [][2]rune{
		{0, 0x7F}, {0x80, 0x2FF}, {0x300, 0x6FF}, {0x1100, 0x11FF}, {0x2000, 0x206F},
		{0x3000, 0x9FFF}, {0xD7F0, 0xFFFF}, {0x1F000, 0x1FFFF}, {0xE0000, 0xE01FF},
		{0, unicode.MaxRune},
	}
	rg := ranges[rng.IntN(len(ranges))]
	for {
		r := rg[0] + rng.Int32N(rg[1]-rg[0]+1)
		if r < 0xD800 || r > 0xDFFF {
			return r
		}
	}
}

// repeatTo returns chunk repeated as often as fits in size bytes.
func repeatTo(chunk string, size int) string {
	return strings.Repeat(chunk, size/len(chunk))
}

// mixedInput returns about size bytes of prose in several scripts with
// escape sequences, bidirectional controls, invalid bytes and backslashes
// mixed in.
func mixedInput(size int) string {
	chunk := "Should I run `go test ./...` in C:\\src\\wisp? Привет, 你好 😀 " +
		"\x1b[2J\x1b[1;1HApprove? [y/n]\r invoice\u202Egpj.exe pass\u200Bword \xff\t" +
		"plain ASCII text that needs no escaping at all, which is the usual case. "
	return repeatTo(chunk, size)
}

func BenchmarkTerminal(b *testing.B) {
	in := mixedInput(4096)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		escape.Terminal(in)
	}
}

func BenchmarkTerminalClean(b *testing.B) {
	in := repeatTo("Plain text, ñ, 你好 and 😀 need no escaping. ", 4096)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		escape.Terminal(in)
	}
}

func BenchmarkUnescape(b *testing.B) {
	in := escape.Terminal(mixedInput(4096))
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := escape.Unescape(in); err != nil {
			b.Fatal(err)
		}
	}
}
