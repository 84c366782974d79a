package escape_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp/inquiry/escape"
)

func TestJSON(t *testing.T) {
	tests := []struct {
		in   any
		want string
	}{
		{"plain é ✓", `"plain é ✓"`},
		{"\x1b[2J", `"\u001b[2J"`},
		{"bidi \u202etxt.exe", `"bidi \u202etxt.exe"`},
		{"tag \U000E0041", `"tag \udb40\udc41"`},
		{"bad \xff byte", `"bad \ufffd byte"`},
		{map[string]any{"k\u200b": []any{"\u2028", 1}}, `{"k\u200b":["\u2028",1]}`},
	}
	// Whitespace between values stays: an Encoder's newline, an indent.
	if got, want := string(escape.JSON([]byte("{\n\t\"a\": \"\u202e\"\r\n}\n"))), "{\n\t\"a\": \"\\u202e\"\r\n}\n"; got != want {
		t.Errorf("JSON kept whitespace as %q, want %q", got, want)
	}
	for _, tc := range tests {
		b, err := json.Marshal(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(escape.JSON(b)); got != tc.want {
			t.Errorf("JSON(%s) = %s, want %s", b, got, tc.want)
		}
	}
	clean := []byte(`{"a":"plain"}`)
	if got := escape.JSON(clean); &got[0] != &clean[0] {
		t.Errorf("JSON of clean text allocated; want it returned as it is")
	}
}

// FuzzJSON checks that JSON's output is clean, and decodes to what its
// input decodes to.
func FuzzJSON(f *testing.F) {
	for _, a := range attackCorpus() {
		f.Add(a.input)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(map[string]any{s: []string{s}}); err != nil {
			t.Fatal(err)
		}
		in := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		out := escape.JSON(in)
		if again := escape.JSON(buf.Bytes()); !bytes.Equal(again, append(out, '\n')) {
			t.Fatalf("JSON(%q) = %q, not JSON(%q) and its newline", buf.Bytes(), again, in)
		}
		if !escape.Clean(string(out)) {
			t.Fatalf("JSON(%q) = %q, not clean", in, out)
		}
		var want, got any
		if err := json.Unmarshal(in, &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("JSON(%q) = %q, not JSON: %v", in, out, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("JSON(%q) decodes otherwise (-want +got):\n%s", in, diff)
		}
	})
}

// Marshal writes one line, "<", ">" and "&" as themselves, every unsafe
// rune as a \u escape.
func TestMarshal(t *testing.T) {
	got, err := escape.Marshal(map[string]string{"a<b&c>": "\x1b[2J\u202e"})
	if want := `{"a<b&c>":"\u001b[2J\u202e"}` + "\n"; err != nil || string(got) != want {
		t.Errorf("Marshal = %q, %v; want %q", got, err, want)
	}
	if _, err := escape.Marshal(func() {}); err == nil {
		t.Error("Marshal(a func) = nil error")
	}
}
