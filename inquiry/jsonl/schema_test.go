package jsonl_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wisp-agent/wisp/inquiry/jsonl"
)

// compileSchema compiles the protocol's schema; strict also closes every
// object to the keys the schema names, so that a key the Go types write
// and the schema does not describe fails.
func compileSchema(t *testing.T, strict bool) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(jsonl.Schema()))
	if err != nil {
		t.Fatalf("the schema is not JSON: %v", err)
	}
	if strict {
		closeObjects(doc)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	const url = "mem://jsonl/schema.json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		t.Fatalf("the schema does not compile: %v", err)
	}
	return sch
}

// closeObjects sets additionalProperties false on every schema that lists
// properties.
func closeObjects(v any) {
	switch v := v.(type) {
	case map[string]any:
		if _, ok := v["properties"]; ok {
			if _, set := v["additionalProperties"]; !set {
				v["additionalProperties"] = false
			}
		}
		for _, e := range v {
			closeObjects(e)
		}
	case []any:
		for _, e := range v {
			closeObjects(e)
		}
	}
}

func validate(sch *jsonschema.Schema, line []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
	if err != nil {
		return err
	}
	return sch.Validate(v)
}

// TestSchemaGolden validates every golden line against the schema, as
// published and closed to the keys it names.
func TestSchemaGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, strict := range []bool{false, true} {
		sch := compileSchema(t, strict)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
				if err := validate(sch, line); err != nil {
					t.Errorf("%s (strict %v) does not validate: %v", f, strict, err)
				}
			}
		}
	}
}

// TestSchemaRefuses checks that the schema is not vacuous: lines the
// protocol refuses do not validate.
func TestSchemaRefuses(t *testing.T) {
	sch := compileSchema(t, false)
	for _, line := range []string{
		`{}`,
		`{"type":"nope"}`,
		`{"type":"message"}`,
		`{"type":"message","text":""}`,
		`{"type":"choose","id":"a1"}`,
		`{"type":"choose","id":"a1","option":0}`,
		`{"type":"choose","id":"a1","option":1,"text":"x"}`,
		`{"type":"choose","id":"a1","none":false}`,
		`{"type":"choose","id":"a1","answers":[{"decline":true,"text":"x"}]}`,
		`{"type":"choose","id":"a1","answers":[{"option":1,"options":[2]}]}`,
		`{"type":"choose","id":"a1","answers":[{}]}`,
		`{"type":"approve","id":"a1","scope":"forever"}`,
		`{"type":"approve","id":"a1"}`,
		`{"type":"deny"}`,
		`{"type":"choice","kind":"question","id":"a1","thread":"t","turn":1,"title":"wisp asks your approval","text":"Approve?","acceptsText":true}`,
		`{"type":"choice","kind":"approval","id":"a1","thread":"t","turn":1,"title":"the model asks","command":"x","text":"","scopes":["once"]}`,
		`{"type":"choice","kind":"question","id":"a1","thread":"t","turn":1,"title":"the model asks","text":"x","acceptsText":true,"deadline":"tomorrow"}`,
		`{"type":"end","thread":"t","turn":1}`,
		`{"type":"end","thread":"t","turn":1,"reply":"x","error":"y"}`,
		`{"type":"end","thread":"t","turn":0,"error":"the person stopped the turn","stopped":true}`,
		`{"type":"settled","id":"a1","outcome":"guessed"}`,
		`{"type":"hello","protocol":"wisp-chat","version":2}`,
	} {
		if err := validate(sch, []byte(line)); err == nil {
			t.Errorf("the schema accepts %s, which the protocol refuses", line)
		}
	}
}

// TestSchemaIgnoresUnknownKeys: unknown keys are allowed, as the
// versioning policy says.
func TestSchemaIgnoresUnknownKeys(t *testing.T) {
	sch := compileSchema(t, false)
	line := `{"type":"choose","id":"a1","option":2,"from":"a later client"}`
	if err := validate(sch, []byte(line)); err != nil {
		t.Errorf("the schema refuses %s: %v", line, err)
	}
	if _, err := jsonl.Decode([]byte(line)); err != nil {
		t.Errorf("Decode(%s) = %v, want unknown keys ignored", line, err)
	}
}

// TestSchemaNamesEveryType checks that the schema describes each type the
// package has, under the name docs/jsonl.md uses.
func TestSchemaNamesEveryType(t *testing.T) {
	var doc struct {
		Defs map[string]json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal(jsonl.Schema(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"hello", "turn", "delta", "toolCall", "toolResult", "note", "question", "card", "approval",
		"settled", "end", "error", "bye", "message", "choose", "approve", "deny", "cancel", "fromWisp", "fromClient"} {
		if _, ok := doc.Defs[name]; !ok {
			t.Errorf("the schema has no $defs/%s", name)
		}
	}
}

// TestSchemaStrictIsClosed checks that the strict schema of the tests
// refuses a key it does not name, so that TestSchemaGolden catches one.
func TestSchemaStrictIsClosed(t *testing.T) {
	sch := compileSchema(t, true)
	for _, line := range []string{
		`{"type":"cancel","x":1}`,
		`{"type":"choose","id":"a1","answers":[{"option":1,"x":1}]}`,
		`{"type":"choice","kind":"card","id":"a1","thread":"t","turn":1,"title":"the model asks","questions":[{"text":"x","multiSelect":false,"acceptsText":true,"x":1}]}`,
	} {
		if err := validate(sch, []byte(line)); err == nil {
			t.Errorf("the strict schema accepts %s", line)
		}
	}
}
