package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRedact(t *testing.T) {
	const secret = "sk-live-0123456789abcdef"
	redact := func(s string) string { return strings.ReplaceAll(s, secret, "[REDACTED:1]") }
	l, dir := openTest(t, &Options{Redact: redact})
	data := map[string]any{
		"top":    "key " + secret,
		"nested": map[string]any{"deep": []any{"x", map[string]any{"v": secret}}, "n": 7},
		secret:   "a key stays as it is",
		"list":   []string{secret, "plain"},
	}
	rec := mustAppend(t, l, Entry{Kind: "tool.result", Session: "s1", Source: SourceTool, Data: data})

	want := `{"list":["[REDACTED:1]","plain"],"nested":{"deep":["x",{"v":"[REDACTED:1]"}],"n":7},` +
		`"sk-live-0123456789abcdef":"a key stays as it is","top":"key [REDACTED:1]"}`
	if diff := cmp.Diff(want, string(rec.Data)); diff != "" {
		t.Errorf("Append(...).Data (-want +got):\n%s", diff)
	}
	file := logBytes(t, dir)
	if got := bytes.Count(file, []byte(secret)); got != 1 {
		t.Errorf("the file holds the secret %d times, want once (as a key, which Redact does not touch)", got)
	}
	if !bytes.Contains(file, []byte(want)) {
		t.Errorf("the file does not hold the redacted data %s:\n%s", want, file)
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
