package secrets

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Fakes assembled once for the tests below.
var (
	fakeGHP1 = "ghp_" + "FAKE0test1EXAMPLE2not3real4Token5w6x"
	fakeGHP2 = "ghp_" + "FAKE9test8EXAMPLE7not6real5Token4w3y"
	fakeAWS1 = "AKIA" + "FAKEKEYEXAMPLE77"
	fakeAWS2 = "AKIA" + "FAKEKEYEXAMPLE23"
	fakePW1  = "FakePass-EXAMPLE-123"
)

func TestRedact(t *testing.T) {
	tests := []struct {
		name     string
		text     string
		want     string
		findings []Finding
	}{
		{
			name: "nothing to redact",
			text: "Use the staging database, please.",
			want: "Use the staging database, please.",
		},
		{
			name:     "one token",
			text:     "my token is " + fakeGHP1,
			want:     "my token is [REDACTED:github-pat#1]",
			findings: []Finding{{"github-pat", "[REDACTED:github-pat#1]"}},
		},
		{
			name: "same value same number",
			text: fakeGHP1 + " and again " + fakeGHP1,
			want: "[REDACTED:github-pat#1] and again [REDACTED:github-pat#1]",
			findings: []Finding{
				{"github-pat", "[REDACTED:github-pat#1]"},
				{"github-pat", "[REDACTED:github-pat#1]"},
			},
		},
		{
			name: "different values count up",
			text: fakeGHP1 + " then " + fakeGHP2,
			want: "[REDACTED:github-pat#1] then [REDACTED:github-pat#2]",
			findings: []Finding{
				{"github-pat", "[REDACTED:github-pat#1]"},
				{"github-pat", "[REDACTED:github-pat#2]"},
			},
		},
		{
			name: "counters are per rule",
			text: fakeGHP1 + " " + fakeAWS1 + " " + fakeAWS2 + " " + fakeGHP2,
			want: "[REDACTED:github-pat#1] [REDACTED:aws-access-key#1] [REDACTED:aws-access-key#2] [REDACTED:github-pat#2]",
			findings: []Finding{
				{"github-pat", "[REDACTED:github-pat#1]"},
				{"aws-access-key", "[REDACTED:aws-access-key#1]"},
				{"aws-access-key", "[REDACTED:aws-access-key#2]"},
				{"github-pat", "[REDACTED:github-pat#2]"},
			},
		},
		{
			name:     "only the password of a URL",
			text:     "postgres://app:" + fakePW1 + "@db.example.invalid:5432/app",
			want:     "postgres://app:[REDACTED:url-password#1]@db.example.invalid:5432/app",
			findings: []Finding{{"url-password", "[REDACTED:url-password#1]"}},
		},
		{
			name:     "invisible characters go with the value",
			text:     "x " + fakeGHP1[:9] + "\u200b\u00ad" + fakeGHP1[9:] + " y",
			want:     "x [REDACTED:github-pat#1] y",
			findings: []Finding{{"github-pat", "[REDACTED:github-pat#1]"}},
		},
		{
			name: "a split value numbers like the whole one",
			text: fakeGHP1 + " / " + fakeGHP1[:9] + "\u200b" + fakeGHP1[9:],
			want: "[REDACTED:github-pat#1] / [REDACTED:github-pat#1]",
			findings: []Finding{
				{"github-pat", "[REDACTED:github-pat#1]"},
				{"github-pat", "[REDACTED:github-pat#1]"},
			},
		},
		{
			name:     "cut-off private key runs to the end",
			text:     "here:\n-----BEGIN RSA PRIVATE KEY-----\n" + "MIIEFAKEEXAMPLEtestNOTaKEYFAKEEXAMPLEtestNOTaKEY\nMIIE",
			want:     "here:\n[REDACTED:private-key#1]",
			findings: []Finding{{"private-key", "[REDACTED:private-key#1]"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, findings := NewRedactor().Redact(tt.text)
			if got != tt.want {
				t.Errorf("Redact(%q) = %q, want %q", tt.text, got, tt.want)
			}
			if diff := cmp.Diff(tt.findings, findings); diff != "" {
				t.Errorf("Redact(%q) findings mismatch (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

// TestRedactorRemembers checks numbering across calls: a Redactor is one
// session.
func TestRedactorRemembers(t *testing.T) {
	r := NewRedactor()
	steps := []struct{ text, want string }{
		{"first " + fakeGHP1, "first [REDACTED:github-pat#1]"},
		{"second " + fakeGHP2, "second [REDACTED:github-pat#2]"},
		{"first again " + fakeGHP1, "first again [REDACTED:github-pat#1]"},
		{"DB_PASSWORD=" + fakePW1, "DB_PASSWORD=[REDACTED:generic-secret#1]"},
		{"password: " + fakePW1, "password: [REDACTED:generic-secret#1]"},
		// A value is numbered without its invisible characters, a byte
		// that is not UTF-8 read as U+FFFD: the same value as the next,
		// though as long as it.
		{"token=FAKE-x9\u00ad\xffQ7zK-EXAMPLE", "token=[REDACTED:generic-secret#2]"},
		{"token=FAKE-x9\ufffdQ7zK-EXAMPLE", "token=[REDACTED:generic-secret#2]"},
	}
	for _, s := range steps {
		if got, _ := r.Redact(s.text); got != s.want {
			t.Errorf("Redact(%q) = %q, want %q", s.text, got, s.want)
		}
	}
	// A new Redactor starts again from 1.
	if got, _ := NewRedactor().Redact(fakeGHP2); got != "[REDACTED:github-pat#1]" {
		t.Errorf("new Redactor: Redact(%q) = %q, want %q", fakeGHP2, got, "[REDACTED:github-pat#1]")
	}
}

// Replace is Redact without the findings, and numbers a value as Redact
// does on the same Redactor.
func TestReplace(t *testing.T) {
	r := NewRedactor()
	if got, _ := r.Redact("a " + fakeGHP1); got != "a [REDACTED:github-pat#1]" {
		t.Fatalf("Redact = %q", got)
	}
	for text, want := range map[string]string{
		"b " + fakeGHP2: "b [REDACTED:github-pat#2]",
		"c " + fakeGHP1: "c [REDACTED:github-pat#1]",
		"nothing here":  "nothing here",
	} {
		if got := r.Replace(text); got != want {
			t.Errorf("Replace(%q) = %q, want %q", text, got, want)
		}
	}
}

// TestRedactorKeepsNoValue checks that the Redactor's memory holds no raw
// value: a formatted dump of it must not contain the secret.
func TestRedactorKeepsNoValue(t *testing.T) {
	r := NewRedactor()
	r.Redact("token " + fakeGHP1 + " and password: " + fakePW1)
	dump := fmt.Sprintf("%#v %#v", r.seen, r.last)
	for _, v := range []string{fakeGHP1, fakePW1, "FAKE0test1EXAMPLE"} {
		if strings.Contains(dump, v) {
			t.Errorf("Redactor state holds %q: %s", v, dump)
		}
	}
	if len(r.seen) != 2 {
		t.Errorf("Redactor remembers %d values, want 2", len(r.seen))
	}
}

func TestRedactIdempotent(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	var texts []string
	for _, rule := range Rules() {
		for _, c := range syntaxContexts {
			f := fakers[rule.ID](r)
			v := f.text
			if c.keyed && f.named {
				v = f.secret
			}
			texts = append(texts, c.wrap(f.key, v))
		}
	}
	texts = append(texts,
		"password=[REDACTED:generic-secret#1]",
		"token: [REDACTED:github-pat#3] and "+fakeGHP1,
		"[REDACTED:jwt#1][REDACTED:jwt#2]",
	)
	for _, text := range texts {
		red := NewRedactor()
		once, _ := red.Redact(text)
		twice, findings := red.Redact(once)
		if twice != once {
			t.Errorf("Redact(Redact(%q)) = %q, want %q", text, twice, once)
		}
		if len(findings) != 0 {
			t.Errorf("second Redact(%q) findings = %v, want none", once, findings)
		}
		if m := Scan(once); len(m) != 0 {
			t.Errorf("Scan(%q) = %v, want no match in redacted text", once, m)
		}
	}
}

func TestRedactConcurrent(t *testing.T) {
	r := NewRedactor()
	tokens := make([]string, 8)
	for i := range tokens {
		tokens[i] = "ghp_" + "FAKE" + strings.Repeat(string(rune('a'+i)), 4) + "0test1EXAMPLE2not3real4Token"
	}
	const workers, rounds = 8, 20
	markers := make([][]string, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				tok := tokens[(w+i)%len(tokens)]
				out, _ := r.Redact("value " + tok)
				markers[w] = append(markers[w], tok+" "+out)
			}
		}()
	}
	wg.Wait()
	// Every token got one number, the numbers are 1..8, and all workers
	// agree.
	number := map[string]string{}
	used := map[string]bool{}
	for _, ms := range markers {
		for _, m := range ms {
			tok, out, _ := strings.Cut(m, " ")
			if prev, ok := number[tok]; ok && prev != out {
				t.Errorf("token %q got %q and %q", tok, prev, out)
			}
			number[tok] = out
		}
	}
	for _, out := range number {
		used[out] = true
	}
	var want []string
	for i := 1; i <= len(tokens); i++ {
		want = append(want, fmt.Sprintf("value [REDACTED:github-pat#%d]", i))
	}
	var got []string
	for i := 1; i <= len(tokens); i++ {
		m := fmt.Sprintf("value [REDACTED:github-pat#%d]", i)
		if used[m] {
			got = append(got, m)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("numbers used mismatch (-want +got):\n%s", diff)
	}
}

func TestMarker(t *testing.T) {
	if got, want := Marker("aws-access-key", 1), "[REDACTED:aws-access-key#1]"; got != want {
		t.Errorf("Marker(%q, 1) = %q, want %q", "aws-access-key", got, want)
	}
	for _, r := range Rules() {
		if m := Marker(r.ID, 3); !markerPattern.MatchString(m) {
			t.Errorf("Marker(%q, 3) = %q does not match the marker pattern", r.ID, m)
		}
	}
}
