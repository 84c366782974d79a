package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/tools"
)

type findArgs struct {
	Pattern string   `json:"pattern" jsonschema:"What to look for"`
	Globs   []string `json:"globs,omitempty" jsonschema:"Where to look; left out, everywhere"`
	Limit   *int     `json:"limit,omitempty"`
	Case    bool     `json:"case,omitempty"`
	Skip    string   `json:"-"`
}

// find is a tool built with New whose function says what it was given.
func find(t *testing.T, opts *tools.Options) (wisp.Tool, *[]findArgs) {
	t.Helper()
	var got []findArgs
	tool := tools.New("find", "Find text.", func(ctx context.Context, c wisp.Call, a findArgs) (wisp.Result, error) {
		got = append(got, a)
		return wisp.Result{Content: fmt.Sprintf("found %q", a.Pattern)}, nil
	}, opts)
	return tool, &got
}

func limits(s *jsonschema.Schema) {
	p := s.Properties["pattern"]
	p.MinLength, p.MaxLength = jsonschema.Ptr(1), jsonschema.Ptr(20)
	s.Properties["globs"].MaxItems = jsonschema.Ptr(3)
	s.Properties["limit"].Minimum = jsonschema.Ptr(1.0)
}

// The schema is the argument type's: a property for each field, named
// and described by its tags, required unless omitempty, nothing else
// allowed, a slice or a pointer of its type alone (never null), and the
// limits Options.Schema adds.
func TestNewSchema(t *testing.T) {
	tool, _ := find(t, &tools.Options{Schema: limits})
	var got any
	if err := json.Unmarshal(tool.Schema(), &got); err != nil {
		t.Fatalf("schema %s: %v", tool.Schema(), err)
	}
	var want any
	if err := json.Unmarshal([]byte(`{
		"type": "object",
		"properties": {
			"pattern": {"type": "string", "description": "What to look for", "minLength": 1, "maxLength": 20},
			"globs": {"type": "array", "items": {"type": "string"}, "description": "Where to look; left out, everywhere", "maxItems": 3},
			"limit": {"type": "integer", "minimum": 1},
			"case": {"type": "boolean"}
		},
		"required": ["pattern"],
		"additionalProperties": false
	}`), &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("New(find).Schema() (-want +got):\n%s", diff)
	}
	if tool.Name() != "find" || tool.Description() != "Find text." {
		t.Errorf("New(find) = %q, %q; want find, Find text.", tool.Name(), tool.Description())
	}
}

// A call is checked against the schema, with the lines Set.Call gives,
// and decoded into the argument type; only arguments that pass reach
// the function.
func TestNewCall(t *testing.T) {
	tests := []struct {
		args string
		want wisp.Result
		got  []findArgs
	}{
		{`{"pattern":"x","globs":["*.go"],"limit":2,"case":true}`, wisp.Result{Content: `found "x"`},
			[]findArgs{{Pattern: "x", Globs: []string{"*.go"}, Limit: jsonschema.Ptr(2), Case: true}}},
		{`{"pattern":"x"}`, wisp.Result{Content: `found "x"`}, []findArgs{{Pattern: "x"}}},
		{``, wisp.ErrorResult(`the arguments for find do not match its schema: at the arguments: missing property 'pattern'; send arguments that match it`), nil},
		{`{"pattern":`, wisp.ErrorResult(`the arguments for find are not valid JSON (unexpected EOF); send one JSON object that matches its schema`), nil},
		{`{"pattern":"x"} {}`, wisp.ErrorResult(`the arguments for find are not valid JSON (invalid character after top-level value); send one JSON object that matches its schema`), nil},
		{`{"pattern":"x","Skip":"y"}`, wisp.ErrorResult(`the arguments for find do not match its schema: at the arguments: additional properties 'Skip' not allowed; send arguments that match it`), nil},
		{`{"pattern":"","globs":["a","b","c","d"]}`, wisp.ErrorResult(`the arguments for find do not match its schema: at /globs: maxItems: got 4, want 3; at /pattern: minLength: got 0, want 1; send arguments that match it`), nil},
		{`{"pattern":"x","globs":null}`, wisp.ErrorResult(`the arguments for find do not match its schema: at /globs: got null, want array; send arguments that match it`), nil},
		// Whole in JSON Schema, not in Go.
		{`{"pattern":"x","limit":2.0}`, wisp.ErrorResult(`the arguments for find are not valid: json: cannot unmarshal number 2.0 into Go struct field findArgs.limit of type int; send arguments that match its schema`), nil},
	}
	for _, tc := range tests {
		tool, got := find(t, &tools.Options{Schema: limits})
		r, err := tool.Call(context.Background(), wisp.Call{Name: "find", Arguments: json.RawMessage(tc.args)})
		if err != nil {
			t.Fatalf("Call(%s) error = %v", tc.args, err)
		}
		if diff := cmp.Diff(tc.want, r); diff != "" {
			t.Errorf("Call(%s) (-want +got):\n%s", tc.args, diff)
		}
		if diff := cmp.Diff(tc.got, *got); diff != "" {
			t.Errorf("Call(%s) ran with (-want +got):\n%s", tc.args, diff)
		}
	}
}

// Through a Set, the model reads the same lines as from the tool alone.
func TestNewInASet(t *testing.T) {
	tool, _ := find(t, &tools.Options{Schema: limits})
	reg := tools.NewRegistry()
	if err := reg.Add(tool); err != nil {
		t.Fatal(err)
	}
	set, err := reg.Select(tools.Selection{})
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range []string{`{"pattern":"x"}`, `{"pattern":""}`, `{}`, `{"pattern":"x","other":1}`} {
		c := wisp.Call{Name: "find", Arguments: json.RawMessage(args)}
		alone, _ := tool.Call(context.Background(), c)
		inSet, _ := set.Call(context.Background(), c)
		if diff := cmp.Diff(alone, inSet); diff != "" {
			t.Errorf("Call(%s) alone and in a set (-alone +set):\n%s", args, diff)
		}
	}
}

// A tool is a wisp.Summarizer when Options.Summary says what a call does,
// and only then.
func TestNewSummary(t *testing.T) {
	plain, _ := find(t, nil)
	if _, ok := plain.(wisp.Summarizer); ok {
		t.Errorf("New(find, nil) is a wisp.Summarizer; want none without Options.Summary")
	}
	summed, _ := find(t, &tools.Options{Summary: func(json.RawMessage) string { return "a search" }})
	s, ok := summed.(wisp.Summarizer)
	if !ok {
		t.Fatalf("New(find, Summary) is not a wisp.Summarizer")
	}
	if got := s.Summary(json.RawMessage(`not json`)); got != "a search" {
		t.Errorf("Summary(not json) = %q, want %q", got, "a search")
	}
}

// Arguments that are not an object, or a schema that does not compile,
// are mistakes in the program: New panics at once, naming the tool.
func TestNewPanics(t *testing.T) {
	tests := []struct {
		name string
		new  func()
		want string
	}{
		{"string arguments", func() {
			tools.New("s", "", func(context.Context, wisp.Call, string) (wisp.Result, error) { return wisp.Result{}, nil }, nil)
		}, `tools.New("s"): the arguments are a JSON object, so Args must be a struct or a pointer to one`},
		{"a func field", func() {
			tools.New("f", "", func(context.Context, wisp.Call, struct{ F func() }) (wisp.Result, error) { return wisp.Result{}, nil }, nil)
		}, `tools.New("f"): For[struct { F func() }](): type func() is unsupported by jsonschema`},
		{"a bad pattern", func() {
			find(t, &tools.Options{Schema: func(s *jsonschema.Schema) { s.Properties["pattern"].Pattern = "(" }})
		}, `tools.New("find"): tool "find": schema does not compile`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				got, _ := recover().(string)
				if len(got) < len(tc.want) || got[:len(tc.want)] != tc.want {
					t.Errorf("New panicked with %q, want a panic starting %q", got, tc.want)
				}
			}()
			tc.new()
		})
	}
}

// A pointer to a struct serves as well as the struct.
func TestNewPointerArgs(t *testing.T) {
	tool := tools.New("p", "", func(ctx context.Context, c wisp.Call, a *findArgs) (wisp.Result, error) {
		return wisp.Result{Content: a.Pattern}, nil
	}, nil)
	if got := string(tool.Schema()); got[:17] != `{"type":"object",` {
		t.Errorf("New(*findArgs).Schema() = %s, want an object", got)
	}
	r, err := tool.Call(context.Background(), wisp.Call{Arguments: json.RawMessage(`{"pattern":"x"}`)})
	if err != nil || r.Content != "x" {
		t.Errorf("Call = %+v, %v; want x", r, err)
	}
}

// Options.Action makes the tool a wisp.Guarded, with a summary or
// without; it is asked only about arguments that pass the schema, as the
// call runs them. Without it the tool says nothing of its calls.
func TestNewAction(t *testing.T) {
	var seen []string
	action := func(ctx context.Context, c wisp.Call) (wisp.Action, error) {
		seen = append(seen, string(c.Arguments))
		var a findArgs
		if err := json.Unmarshal(c.Arguments, &a); err != nil {
			return wisp.Action{}, err
		}
		return wisp.Action{Kind: "command", Command: "find " + a.Pattern, Pattern: "find *", AlwaysAsk: true}, nil
	}
	summary := func(json.RawMessage) string { return "a search" }
	for _, opts := range []*tools.Options{{Action: action}, {Action: action, Summary: summary, Schema: limits}} {
		seen = nil
		tool, _ := find(t, opts)
		g, ok := tool.(wisp.Guarded)
		if !ok {
			t.Fatalf("New with Options.Action = %T, not a wisp.Guarded", tool)
		}
		if _, ok := tool.(wisp.Summarizer); ok != (opts.Summary != nil) {
			t.Errorf("New with Options.Summary %v is a Summarizer: %v", opts.Summary != nil, ok)
		}
		for _, tc := range []struct {
			args string
			want wisp.Action
		}{
			{`{"pattern":"x"}`, wisp.Action{Kind: "command", Command: "find x", Pattern: "find *", AlwaysAsk: true}},
			{`{"pattern":5}`, wisp.Action{NoApproval: true}},
			{``, wisp.Action{NoApproval: true}},
			{`{"pattern":"x","extra":1}`, wisp.Action{NoApproval: true}},
		} {
			got, err := g.Action(context.Background(), wisp.Call{Name: "find", Arguments: json.RawMessage(tc.args)})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Action(%s) (-want +got):\n%s", tc.args, diff)
			}
		}
		if diff := cmp.Diff([]string{`{"pattern":"x"}`}, seen); diff != "" {
			t.Errorf("Options.Action saw (-want +got):\n%s", diff)
		}
	}
	if tool, _ := find(t, nil); func() bool { _, ok := tool.(wisp.Guarded); return ok }() {
		t.Errorf("New without Options.Action is a wisp.Guarded; want it judged by its name")
	}
	if got, err := tools.NoApproval(context.Background(), wisp.Call{}); err != nil || !got.NoApproval {
		t.Errorf("NoApproval = %+v, %v; want an action that needs no approval", got, err)
	}
}
