package secrets

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzSeeds returns texts to start fuzzing from: one fake for every rule in
// a few contexts, and inputs built to stress the scanner.
func fuzzSeeds() []string {
	r := rand.New(rand.NewPCG(11, 12))
	var seeds []string
	for _, rule := range Rules() {
		f := fakers[rule.ID](r)
		seeds = append(seeds, f.text, "x="+splitInvisible(f.text), `{"k": `+jsonQuote(f.text)+`}`)
	}
	return append(seeds,
		"",
		"[REDACTED:github-pat#1]",
		"password=[REDACTED:generic-secret#1]x",
		"-----BEGIN PRIVATE KEY-----",
		"-----BEGIN RSA PRIVATE KEY-----\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
		"eyJeyJeyJ.eyJeyJ.",
		"%E2%80%8B%2", `\u200`, `\uD83D\uDE00`, "\xff\xfe%ff",
		"token: \"unterminated",
		strings.Repeat("ghp_", 30),
		"https://a:b@c https://:@ https://x:yyy@",
	)
}

func FuzzRedact(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		r := NewRedactor()
		out, _ := r.Redact(text)
		if utf8.ValidString(text) && !utf8.ValidString(out) {
			t.Fatalf("Redact(%q) = %q, not valid UTF-8", text, out)
		}
		again, findings := r.Redact(out)
		if again != out || len(findings) != 0 {
			t.Fatalf("Redact(Redact(%q)) = %q, %v, want %q and no findings", text, again, findings, out)
		}
		if m := Scan(out); len(m) != 0 {
			t.Fatalf("Scan(Redact(%q)) = %v, want no match", text, m)
		}
		// Scan's ranges are sorted, disjoint and inside the text.
		end := 0
		for _, m := range Scan(text) {
			if m.Start < end || m.End <= m.Start || m.End > len(text) {
				t.Fatalf("Scan(%q) has bad range %v", text, m)
			}
			end = m.End
		}
	})
}

func FuzzAsksForSecret(f *testing.F) {
	for _, q := range benignQuestions {
		f.Add(q)
	}
	for _, c := range secretCategories {
		for _, p := range askPhrasings[:2] {
			f.Add(strings.ReplaceAll(strings.ReplaceAll(p, "%s", c.nouns[0]), "{", ""))
		}
	}
	f.Add("p\u200ba s-s.w\u00adо r d")
	f.Add("\xff\xfe PIN-")
	kinds := map[string]bool{}
	for _, k := range []string{KindPassword, KindPassphrase, KindToken, KindAPIKey, KindSecret, KindPrivateKey,
		KindPIN, KindOneTimeCode, Kind2FACode, KindCredentials, KindAccessKey, KindLoginDetails} {
		kinds[k] = true
	}
	f.Fuzz(func(t *testing.T, q string) {
		kind, ok := AsksForSecret(q)
		if ok != (kind != "") || ok && !kinds[kind] {
			t.Fatalf("AsksForSecret(%q) = %q, %v", q, kind, ok)
		}
	})
}
