package outofband

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wisp-agent/wisp"
)

// TestDigestRecipe computes a digest by the recipe in the package
// documentation, byte by byte, and checks digestOf agrees.
func TestDigestRecipe(t *testing.T) {
	r := Request{
		ID: "7f3a2c1d", Session: "s1", Thread: "t1", Turn: 12, Kind: "k", Command: "models enable x",
		Pattern: "models enable *", Text: "", Scopes: []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession},
		Asked: t0, Deadline: t0.Add(time.Minute),
	}
	in := "wisp approval request v1\x00" +
		"\x087f3a2c1d" + "\x02s1" + "\x02t1" + "\x0212" + "\x01k" + "\x0fmodels enable x" + "\x0fmodels enable *" + "\x00" +
		"\x02" + "\x04once" + "\x07session" +
		"\x142026-03-01T09:30:00Z" + "\x142026-03-01T09:31:00Z"
	sum := sha256.Sum256([]byte(in))
	if got, want := digestOf(r), hex.EncodeToString(sum[:]); got != want {
		t.Errorf("digestOf = %s, want %s", got, want)
	}
	forever := r
	forever.Deadline = time.Time{}
	in = in[:len(in)-len("\x142026-03-01T09:31:00Z")] + "\x00"
	sum = sha256.Sum256([]byte(in))
	if got, want := digestOf(forever), hex.EncodeToString(sum[:]); got != want {
		t.Errorf("digestOf without a deadline = %s, want %s", got, want)
	}
	// Moving a byte from one field to the next changes the digest.
	shifted := r
	shifted.Session, shifted.Thread = "s", "1t1"
	if digestOf(shifted) == digestOf(r) {
		t.Error("the digest does not tell the fields apart")
	}
}

// seeds adds the golden files to f's corpus.
func seeds(f *testing.F, names ...string) {
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// FuzzParseRequest feeds the request parser anything: it must never
// panic, and a request it accepts must encode back to a file that parses
// to the same request with the same digest, within MaxFileBytes.
func FuzzParseRequest(f *testing.F) {
	seeds(f, "request-enable.json", "request-pull.json")
	f.Add([]byte(`{"version":1}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"version":1,"id":"7f3a2c1d","scopes":["once","once"],"asked":"2026-03-01T09:30:00Z"}`))
	f.Add([]byte(`{"version":1,"id":"7f3a2c1d","command":"x","scopes":["none"],"asked":"0000-01-01T00:00:00+01:00"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := parseRequest(data)
		if err != nil {
			return
		}
		if r.Digest != digestOf(r) {
			t.Fatalf("parsed request's digest %s, recomputed %s", r.Digest, digestOf(r))
		}
		for _, s := range r.Scopes {
			if s == wisp.ScopeNone {
				t.Fatalf("parsed request offers none: %v", r.Scopes)
			}
		}
		again, err := encodeRequest(r)
		if err != nil {
			t.Fatalf("encode parsed request: %v", err)
		}
		r2, err := parseRequest(again)
		if err != nil {
			t.Fatalf("parse re-encoded request: %v\n%s", err, again)
		}
		if diff := cmp.Diff(r, r2); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
		if len(again) > MaxFileBytes {
			t.Fatalf("a valid request encodes to %d bytes, more than MaxFileBytes", len(again))
		}
	})
}

// FuzzParseDecision feeds the decision parser anything: it must never
// panic, and a decision it accepts must carry a scope a decision may give
// and round-trip.
func FuzzParseDecision(f *testing.F) {
	seeds(f, "decision.json", "withdrawn.json")
	f.Add([]byte(`{"version":1,"id":"7f3a2c1d","digest":"","scope":"always","from":"terminal","at":"2026-03-01T09:30:00Z"}`))
	f.Add([]byte(`{"version":1,"id":"7f3a2c1d","digest":"","scope":"none","from":"model","at":"2026-03-01T09:30:00Z"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if w, err := parseWithdrawn(data); err == nil && (w.Why == "" || !ValidID(w.ID)) {
			t.Fatalf("parseWithdrawn accepted %+v", w)
		}
		d, err := parseDecision(data)
		if err != nil {
			return
		}
		if d.Scope > wisp.ScopeSession || d.Scope < wisp.ScopeNone || (d.From != FromTerminal && d.From != FromElicitation) {
			t.Fatalf("parsed decision %+v breaks the rules", d)
		}
		again, err := encodeDecision(d)
		if err != nil {
			t.Fatal(err)
		}
		d2, err := parseDecision(again)
		if err != nil || d2 != d {
			t.Fatalf("round trip: %+v, %v; want %+v", d2, err, d)
		}
	})
}
