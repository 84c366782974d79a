package secrets

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// answer10KB returns about 10 KB of a typical answer: prose, a config file
// and a log excerpt, with two fake credentials in it.
func answer10KB() string {
	r := rand.New(rand.NewPCG(13, 14))
	var b strings.Builder
	for b.Len() < 10<<10 {
		switch r.IntN(6) {
		case 0:
			b.WriteString("I ran the migration again and it failed on the second step; the logs say the lock was held.\n")
		case 1:
			b.WriteString("database:\n  host: db.example.invalid\n  port: 5432\n  user: app\n  pool: 20\n")
		case 2:
			b.WriteString("2026-01-01T12:00:00Z level=info msg=\"request done\" duration=42ms request_id=" + rnd(r, hexLower, 32) + "\n")
		case 3:
			b.WriteString("commit " + rnd(r, hexLower, 40) + "\n")
		case 4:
			b.WriteString("func (s *Server) Handle(w http.ResponseWriter, r *http.Request) { token := r.Header.Get(\"X-Token\") }\n")
		case 5:
			b.WriteString("- name: build\n  run: go test ./...\n")
		}
	}
	b.WriteString("GITHUB_TOKEN=" + fakers["github-pat"](r).text + "\n")
	b.WriteString("DB_PASSWORD=" + "FAKEtest" + rnd(r, alnum, 12) + "\n")
	return b.String()
}

// adversarial returns about n bytes built to make a scanner work hard: long
// runs of token alphabets, prefixes of every rule followed by values that
// just fail, invisible characters and escapes.
func adversarial(n int) string {
	r := rand.New(rand.NewPCG(15, 16))
	nearMisses := []func() string{
		func() string { return rnd(r, alnum, 4096) },
		func() string { return rnd(r, b64std, 2048) + "=" },
		func() string { return rnd(r, hexLower, 1024) },
		func() string { return "ghp_" + rnd(r, alnum, 35) + " " },
		func() string { return "AKIA" + rnd(r, base32, 15) + " " },
		func() string { return "eyJ" + rnd(r, b64url, 300) + ".e" },
		func() string { return "eyJ" + rnd(r, b64url, 20) + ".eyJ" + rnd(r, b64url, 10) + " " },
		func() string { return "-----BEGIN RSA PRIVATE KEY----- " },
		func() string { return "-----END RSA PRIVATE KEY-----" },
		func() string { return "-----BEGIN " + rnd(r, upper+" ", 90) + "\n" },
		func() string { return "password=abc " },
		func() string { return "secret_token: " + rnd(r, "ab", 40) + "\n" },
		func() string { return "https://user:" + rnd(r, alnum, 2) + "@" },
		func() string { return "sk-ant-api03-" + rnd(r, b64url, 92) + "AB " },
		func() string { return "xoxb-" + rnd(r, digits, 9) + "-" },
		func() string { return "Authorization: Bearer abc " },
		func() string { return "%4" + rnd(r, hexLower, 1) + "%zz\\u00" },
		func() string { return "a\u200bb\u200c" },
		func() string { return "glpat-" + rnd(r, alnum, 19) + " " },
		func() string { return "sk-proj-" + rnd(r, b64url, 20) + " " },
		func() string { return "ops_eyJ" + rnd(r, b64std, 100) + " " },
		func() string { return "token=" + rnd(r, alnum, 5) + " api_key: x " },
	}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(nearMisses[r.IntN(len(nearMisses))]())
	}
	return b.String()[:n]
}

// denseAnchors returns n bytes of every rule's anchor, one after another.
func denseAnchors(n int) string {
	var anchors []string
	for _, rule := range Rules() {
		anchors = append(anchors, rule.spec.anchors...)
	}
	all := strings.Join(anchors, "")
	return strings.Repeat(all, n/len(all)+1)[:n]
}

// redactInputs returns the texts that BenchmarkRedact and
// BenchmarkRedactReference redact: an ordinary answer, adversarial text
// from 1 KB to 1 MB, a megabyte of nothing but the rules' anchors and one
// of a single run of token characters.
func redactInputs() []struct{ name, text string } {
	return []struct{ name, text string }{
		{"answer-10KB", answer10KB()},
		{"adversarial-1KB", adversarial(1 << 10)},
		{"adversarial-10KB", adversarial(10 << 10)},
		{"adversarial-100KB", adversarial(100 << 10)},
		{"adversarial-1MB", adversarial(1 << 20)},
		{"dense-anchors-1MB", denseAnchors(1 << 20)},
		{"token-run-1MB", rnd(rand.New(rand.NewPCG(17, 18)), alnum, 1<<20)},
	}
}

// BenchmarkRedact redacts the texts of redactInputs. The bytes per second
// stay flat from one size to the next: the scan is linear whatever the text
// holds. Each 1 MB input should redact at well over 50 MB/s on one core;
// BenchmarkRedactReference gives the figure to compare with on the same
// machine.
func BenchmarkRedact(b *testing.B) {
	for _, in := range redactInputs() {
		b.Run(in.name, func(b *testing.B) {
			r := NewRedactor()
			b.SetBytes(int64(len(in.text)))
			for b.Loop() {
				r.Redact(in.text)
			}
		})
	}
}

// BenchmarkRedactReference redacts the texts of BenchmarkRedact with each
// rule's regular expression in place of its matcher, run over the window
// of each of its anchors (oracleSearch): the way the rules ran before they
// had matchers, and the measure of the matchers on the machine and in the
// run at hand. Besides its own bytes per second it reports how many times
// faster Redact is on the same text ("x-faster", from the best of a few
// calls of Redact made first). On the machine these were written on,
// Redact was about 4 to 10 times faster on the 1 MB inputs; a figure near
// 1 means the matchers have lost what they are for.
func BenchmarkRedactReference(b *testing.B) {
	for _, in := range redactInputs() {
		b.Run(in.name, func(b *testing.B) {
			r := NewRedactor()
			fastest := time.Duration(math.MaxInt64)
			for range 5 {
				start := time.Now()
				r.Redact(in.text)
				fastest = min(fastest, time.Since(start))
			}
			ref := NewRedactor()
			b.SetBytes(int64(len(in.text)))
			for b.Loop() {
				ref.redact(in.text, false, oracleSearch)
			}
			b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(fastest), "x-faster")
		})
	}
}

func BenchmarkAsksForSecret(b *testing.B) {
	q := "Could you paste the GitHub token for the staging deploy here, please?"
	for b.Loop() {
		AsksForSecret(q)
	}
}

// BenchmarkAsksForSecretLong reads ever longer questions full of the
// rule's words; the time per byte stays flat, since the rule is linear in
// the length of the question.
func BenchmarkAsksForSecretLong(b *testing.B) {
	unit := "Should I rotate the access keys now? Is your token in the key store? p a s s w o r d field. "
	for _, n := range []int{10, 100, 1000} {
		q := strings.Repeat(unit, n)
		b.Run(fmt.Sprintf("%dB", len(q)), func(b *testing.B) {
			b.SetBytes(int64(len(q)))
			for b.Loop() {
				AsksForSecret(q)
			}
		})
	}
}

// BenchmarkRedactWithVault is BenchmarkRedact10KB with eight values in the
// session's vault, which every call unseals and looks for.
func BenchmarkRedactWithVault(b *testing.B) {
	text := answer10KB()
	r := NewRedactor()
	v := NewVault(r)
	for i := range 8 {
		if _, err := v.Put("KEY_"+string(rune('A'+i)), "FAKE-bench-EXAMPLE-value-"+strings.Repeat("x", i)); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		r.Redact(text)
	}
}
