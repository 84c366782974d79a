package pending

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDigestRecipe computes a digest by the recipe in the package
// documentation, byte by byte, and checks digestOf agrees.
func TestDigestRecipe(t *testing.T) {
	q := Question{ID: "a1b2c3d4", Asked: t0, Text: "Which?", Options: []string{"a", "bc"}}
	in := "wisp pending question v1\x00" +
		"\x08a1b2c3d4" + "\x142026-03-01T09:30:00Z" + "\x06Which?" +
		"\x02" + "\x01a" + "\x02bc"
	sum := sha256.Sum256([]byte(in))
	if got, want := digestOf(q), hex.EncodeToString(sum[:]); got != want {
		t.Errorf("digestOf = %s, want %s", got, want)
	}
	free := q
	free.Options = nil
	if digestOf(free) == digestOf(q) {
		t.Error("a free-text question has the digest of a choice")
	}
}

// FuzzParseQuestion feeds the question parser anything: it must never
// panic, and a question it accepts must encode back to a file that parses
// to the same question with the same digest.
func FuzzParseQuestion(f *testing.F) {
	for _, name := range []string{"question-choice.json", "question-free.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"version":1}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"version":1,"id":"a1b2c3d4","asked":"0000-01-01T00:00:00+01:00"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		q, err := parseQuestion(data)
		if err != nil {
			return
		}
		if q.Digest != digestOf(q) {
			t.Fatalf("parsed question's digest %s, recomputed %s", q.Digest, digestOf(q))
		}
		again, err := encodeQuestion(q)
		if err != nil {
			t.Fatalf("encode parsed question: %v", err)
		}
		q2, err := parseQuestion(again)
		if err != nil {
			t.Fatalf("parse re-encoded question: %v\n%s", err, again)
		}
		if diff := cmp.Diff(q, q2); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
		if len(again) > MaxFileBytes {
			t.Fatalf("a valid question encodes to %d bytes, more than MaxFileBytes", len(again))
		}
	})
}
