package jsonredact_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp/internal/jsonredact"
	"github.com/wisp-agent/wisp/policy/secrets"
	"github.com/wisp-agent/wisp/policy/secrets/secretstest"
)

// Fakes, assembled here so that no credential-shaped literal sits in the
// source.
var (
	fakeGHP = "ghp_" + "FAKE0test1EXAMPLE2not3real4Token5w6x"
	fakeAWS = "AKIA" + "FAKEKEYEXAMPLE77"
)

func redactor() func(string) string {
	r := secrets.NewRedactor()
	return func(s string) string { out, _ := r.Redact(s); return out }
}

func TestRedact(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"nothing to redact", `{"a": [1, 2.50, true, null, "x"], "b": {"c": "d"}}`, `{"a":[1,2.50,true,null,"x"],"b":{"c":"d"}}`},
		{"a value", `{"k":"use ` + fakeGHP + `"}`, `{"k":"use [REDACTED:github-pat#1]"}`},
		{"a key", `{"` + fakeGHP + `":"value"}`, `{"[REDACTED:github-pat#1]":"value"}`},
		{"a nested key", `{"a":[{"x ` + fakeAWS + `":1}]}`, `{"a":[{"x [REDACTED:aws-access-key#1]":1}]}`},
		{"a value only its key shows secret", `{"password":"hunter2","user":"bob"}`, `{"password":"[REDACTED:generic-secret#1]","user":"bob"}`},
		{"a key and its value", `{"client_secret":"FAKE test EXAMPLE secret"}`, `{"client_secret":"[REDACTED:generic-secret#1]"}`},
		{"array items stand alone", `{"password":["hunter2"]}`, `{"password":["hunter2"]}`},
		{"two credentials as keys", `{"` + fakeGHP + `":1,"[REDACTED:github-pat#1]":2,"` + fakeGHP + ` ":3}`,
			`{"[REDACTED:github-pat#1]":1,"[REDACTED:github-pat#1] (2)":2,"[REDACTED:github-pat#1] ":3}`},
		{"a repeated key", `{"a":1,"a":2}`, `{"a":1,"a (2)":2}`},
		{"escapes and HTML", `{"k":"<a href=\"x\">&amp;</a>\n\u2028"}`, `{"k":"<a href=\"x\">&amp;</a>\n\u2028"}`},
		{"a string", `"` + fakeGHP + `"`, `"[REDACTED:github-pat#1]"`},
		{"a private key that runs on", `{"k":"-----BEGIN RSA PRIVATE KEY-----\nMIIEFAKEEXAMPLEtestNOTaKEYFAKEEXAMPLEtestNOTaKEY\nFAKEEXAMPLE","j":"x"}`,
			`{"k":"[REDACTED:private-key#1]","j":"x"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := jsonredact.Redact([]byte(tt.doc), redactor())
			if err != nil {
				t.Fatalf("Redact(%s) = %v", tt.doc, err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("Redact(%s) (-want +got):\n%s", tt.doc, diff)
			}
			if !json.Valid(got) {
				t.Errorf("Redact(%s) = %s, which is not JSON", tt.doc, got)
			}
		})
	}
}

func TestRedactRefuses(t *testing.T) {
	for _, doc := range []string{``, `{`, `{"a":1}{}`, `{"a":}`, `[1,]`} {
		if got, err := jsonredact.Redact([]byte(doc), redactor()); err == nil {
			t.Errorf("Redact(%q) = %s, nil; want an error", doc, got)
		}
	}
}

// Every case of the corpus, as a value, a key and a member, leaves no
// trace in the document Redact returns.
func TestRedactCorpus(t *testing.T) {
	cases := secretstest.Corpus()
	for _, c := range cases {
		for _, doc := range []map[string]any{
			{"text": c.Text},
			{c.Text: "value"},
			{c.Key: c.Value},
			{"nested": []any{map[string]any{c.Key: c.Value, c.Text: []string{c.Text}}}},
		} {
			b, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			got, err := jsonredact.Redact(b, redactor())
			if err != nil {
				t.Fatalf("Redact(%s) = %v", b, err)
			}
			if leaks := secretstest.Leaks(got, cases); leaks != nil {
				t.Errorf("case %s: Redact(%s) = %s, which holds %v", c.Name, b, got, leaks)
			}
			if !json.Valid(got) {
				t.Errorf("case %s: Redact(%s) = %s, which is not JSON", c.Name, b, got)
			}
		}
	}
}

func TestMember(t *testing.T) {
	tests := []struct{ key, value, want string }{
		{"user", "bob", "bob"},
		{"password", "hunter2", "[REDACTED:generic-secret#1]"},
		{"note", "my password is hunter2", "my password is [REDACTED:generic-secret#1]"},
		{"Authorization", "Bearer FAKEtestEXAMPLEnotReal42abc", "Bearer [REDACTED:bearer-token#1]"},
		{"token", "default", "default"},
		{"token", "session:GH_TOKEN", "session:GH_TOKEN"},
	}
	for _, tt := range tests {
		if got := jsonredact.Member(tt.key, tt.value, redactor()); got != tt.want {
			t.Errorf("Member(%q, %q) = %q, want %q", tt.key, tt.value, got, tt.want)
		}
	}
}

func FuzzRedact(f *testing.F) {
	for _, c := range secretstest.Corpus()[:20] {
		b, _ := json.Marshal(map[string]any{c.Key: c.Value, c.Text: []any{c.Text, 1.5, nil}})
		f.Add(string(b))
	}
	f.Add(`{"a":{"b":[{"c":"d"}]},"e":-1e300}`)
	f.Add(`"\ud800"`)
	f.Add(`{"password":"x\"y","password":"z"}`)
	f.Fuzz(func(t *testing.T, doc string) {
		if !json.Valid([]byte(doc)) {
			return
		}
		redact := redactor()
		once, err := jsonredact.Redact([]byte(doc), redact)
		if err != nil {
			t.Fatalf("Redact(%q) = %v for valid JSON", doc, err)
		}
		if !json.Valid(once) {
			t.Fatalf("Redact(%q) = %q, which is not JSON", doc, once)
		}
		twice, err := jsonredact.Redact(once, redact)
		if err != nil || string(twice) != string(once) {
			t.Fatalf("Redact(Redact(%q)) = %q, %v; want %q", doc, twice, err, once)
		}
	})
}
