package secrets

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/policy/secrets/secretstest"
)

// The corpus that the other packages run through what they write is one
// the Redactor hides whole, as text and as a JSON object's member, so that
// a case that leaks from a file leaks because the file skipped the
// Redactor.
func TestCorpusIsRedacted(t *testing.T) {
	cases := secretstest.Corpus()
	if len(cases) < 100 {
		t.Fatalf("the corpus has %d cases, want at least 100", len(cases))
	}
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.Name] {
			t.Errorf("case %s is in the corpus twice", c.Name)
		}
		seen[c.Name] = true
		if len(c.Probes) == 0 {
			t.Errorf("case %s has nothing to look for", c.Name)
		}
		if leaks := secretstest.Leaks([]byte(c.Text), []secretstest.Case{c}); leaks == nil {
			t.Errorf("Leaks(%q) = nil, want the case itself", c.Text)
		}
		member, _ := json.Marshal(map[string]string{c.Key: c.Value})
		for _, text := range []string{c.Text, string(member)} {
			out, _ := NewRedactor().Redact(text)
			if leaks := secretstest.Leaks([]byte(out), cases); leaks != nil {
				t.Errorf("case %s: Redact(%q) = %q, which still holds %v", c.Name, text, out, leaks)
			}
			if !strings.Contains(out, "[REDACTED:"+c.Rule+"#") {
				t.Errorf("case %s: Redact(%q) = %q, want a marker of %s", c.Name, text, out, c.Rule)
			}
		}
	}
	for _, rule := range Rules() {
		if !seen[rule.ID+"/1"] {
			t.Errorf("the corpus has no case of rule %s", rule.ID)
		}
	}
}
