package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp/policy/secrets"
	"github.com/wisp-agent/wisp/policy/secrets/secretstest"
)

func TestRedact(t *testing.T) {
	const secret = "sk-live-0123456789abcdef"
	redact := func(s string) string { return strings.ReplaceAll(s, secret, "[REDACTED:1]") }
	l, dir := openTest(t, &Options{Redact: redact})
	data := map[string]any{
		"top":    "key " + secret,
		"nested": map[string]any{"deep": []any{"x", map[string]any{"v": secret, "k " + secret: 1}}, "n": 7},
		secret:   "a key is redacted too",
		"list":   []string{secret, "plain"},
		// Redacted, two keys would be one: they are kept apart.
		"[REDACTED:1]":           "first",
		"[REDACTED:1] (2)":       "second",
		"z" + secret + secret:    "third",
		"z[REDACTED:1]" + secret: "fourth",
	}
	rec := mustAppend(t, l, Entry{Kind: "tool.result", Session: "s1", Source: SourceTool, Data: data})

	want := `{"[REDACTED:1]":"first","[REDACTED:1] (2)":"second","list":["[REDACTED:1]","plain"],` +
		`"nested":{"deep":["x",{"k [REDACTED:1]":1,"v":"[REDACTED:1]"}],"n":7},` +
		`"[REDACTED:1] (3)":"a key is redacted too","top":"key [REDACTED:1]",` +
		`"z[REDACTED:1][REDACTED:1]":"fourth","z[REDACTED:1][REDACTED:1] (2)":"third"}`
	if diff := cmp.Diff(want, string(rec.Data)); diff != "" {
		t.Errorf("Append(...).Data (-want +got):\n%s", diff)
	}
	file := logBytes(t, dir)
	if bytes.Contains(file, []byte(secret)) {
		t.Errorf("the file holds the secret:\n%s", file)
	}
	if !bytes.Contains(file, []byte(want)) {
		t.Errorf("the file does not hold the redacted data %s:\n%s", want, file)
	}
	if _, err := Verify(dir); err != nil {
		t.Errorf("Verify after keys were redacted = %v", err)
	}
}

// TestRedactKeepsForm checks that the walk done for redaction keeps key
// order, numbers as written, and the other JSON values.
func TestRedactKeepsForm(t *testing.T) {
	type inner struct {
		Z string  `json:"z"`
		A float64 `json:"a"`
	}
	in := struct {
		B    bool            `json:"b"`
		N    any             `json:"n"`
		Big  json.Number     `json:"big"`
		In   inner           `json:"in"`
		Raw  json.RawMessage `json:"raw"`
		Tags string          `json:"tags"`
	}{true, nil, "12345678901234567890.5e3", inner{"zz", 0.1}, json.RawMessage(`[[],{}]`), "<&>"}
	plain, err := encodeData(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	walked, err := encodeData(in, func(s string) string { return s })
	if err != nil {
		t.Fatal(err)
	}
	want := `{"b":true,"n":null,"big":12345678901234567890.5e3,"in":{"z":"zz","a":0.1},"raw":[[],{}],"tags":"<&>"}`
	if diff := cmp.Diff(want, string(plain)); diff != "" {
		t.Errorf("encodeData without Redact (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, string(walked)); diff != "" {
		t.Errorf("encodeData with an identity Redact (-want +got):\n%s", diff)
	}
}

func TestEncodeDataErrors(t *testing.T) {
	tests := []struct {
		name string
		data any
		want string // "" for an error
	}{
		{"nil", nil, "{}"},
		{"nil map", map[string]any(nil), "{}"},
		{"empty map", map[string]int{}, "{}"},
		{"string", "text", ""},
		{"array", []int{1}, ""},
		{"number", 3, ""},
		{"unencodable", map[string]any{"f": func() {}}, ""},
		{"raw non-object", json.RawMessage(`[1]`), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := encodeData(tt.data, nil)
			switch {
			case tt.want == "" && !errors.Is(err, ErrInvalidEntry):
				t.Errorf("encodeData(%#v) = %s, %v; want an error wrapping ErrInvalidEntry", tt.data, got, err)
			case tt.want != "" && (err != nil || string(got) != tt.want):
				t.Errorf("encodeData(%#v) = %s, %v; want %s", tt.data, got, err, tt.want)
			}
		})
	}
}

// No case of the corpus reaches the file, whether a value, an array item,
// an object key or a key deep inside a tool call's arguments.
func TestRedactCorpus(t *testing.T) {
	r := secrets.NewRedactor()
	l, dir := openTest(t, &Options{Redact: func(s string) string { out, _ := r.Redact(s); return out }, Sync: func(string) bool { return false }})
	cases := secretstest.Corpus()
	for _, c := range cases {
		args, err := json.Marshal(map[string]any{c.Text: "x", "list": []any{map[string]string{c.Text: c.Text}}})
		if err != nil {
			t.Fatal(err)
		}
		mustAppend(t, l, Entry{Kind: "tool.call", Session: "s1", Source: SourceModel, Data: map[string]any{
			"name": c.Text, "text": c.Text, c.Text: []string{c.Text}, "arguments": json.RawMessage(args),
		}})
	}
	if leaks := secretstest.Leaks(logBytes(t, dir), cases); leaks != nil {
		t.Errorf("the audit log holds %d cases of the corpus: %v", len(leaks), leaks)
	}
	if _, err := Verify(dir); err != nil {
		t.Errorf("Verify = %v", err)
	}
}
