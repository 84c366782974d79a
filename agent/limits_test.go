package agent

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

var storedSeeds = []string{
	"", "plain text", `quote " and \ backslash`, "line\nbreak\ttab\rcr\b\f",
	"\x00\x01\x1f control", "<html> & 'more'", "caf\u00e9 \u4e16\u754c \U0001F600",
	"\u2028 and \u2029", "bad \xff\xfe utf-8 \xe2\x80", "\xe2\x80\xa8", strings.Repeat("<", 100),
}

// storedLen is the length encoding/json writes.
func FuzzStoredLen(f *testing.F) {
	for _, s := range storedSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := storedLen(s); got != len(b) {
			t.Errorf("storedLen(%q) = %d, want %d", s, got, len(b))
		}
	})
}

// cutStored keeps a prefix, cut between characters, within the limit.
func FuzzCutStored(f *testing.F) {
	for i, s := range storedSeeds {
		f.Add(s, i*3)
	}
	f.Fuzz(func(t *testing.T, s string, limit int) {
		if limit < 2 || limit > 1<<20 {
			return
		}
		got := cutStored(s, limit)
		if !strings.HasPrefix(s, got) {
			t.Fatalf("cutStored(%q, %d) = %q, not a prefix", s, limit, got)
		}
		if n := storedLen(got); n > limit {
			t.Errorf("cutStored(%q, %d) = %q, which takes %d", s, limit, got, n)
		}
		if rest := s[len(got):]; rest != "" && utf8.ValidString(s) && !utf8.RuneStart(rest[0]) {
			t.Errorf("cutStored(%q, %d) = %q cuts a character in half", s, limit, got)
		}
		if got != s && storedLen(s[:len(got)+nextLen(s[len(got):])]) <= limit {
			t.Errorf("cutStored(%q, %d) = %q stops short", s, limit, got)
		}
	})
}

// nextLen is the length of the first character of s.
func nextLen(s string) int {
	_, n := utf8.DecodeRuneInString(s)
	return n
}

// rawStoredLen is the length encoding/json writes for compact JSON, and
// no less for any other.
func FuzzRawStoredLen(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":"<b>&"}`, `{"x":"\u2028"}`, "{\"x\":\"\u2028\u2029\"}", `[1,2,"&&"]`, `{ "spaced" : 1 }`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		out, err := json.Marshal(json.RawMessage(b))
		if err != nil {
			t.Fatal(err)
		}
		var c bytes.Buffer
		if err := json.Compact(&c, b); err != nil {
			t.Fatal(err)
		}
		got := rawStoredLen(b)
		if got < len(out) || bytes.Equal(c.Bytes(), b) && got != len(out) {
			t.Errorf("rawStoredLen(%s) = %d; encoding/json writes %d", b, got, len(out))
		}
	})
}
