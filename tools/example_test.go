package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/tools"
)

// A tool of one's own: a Go function and the type of its arguments. The
// schema the model reads comes from the type, its descriptions from the
// jsonschema tags; Options.Schema adds the limits a Go type cannot say.
// Arguments that miss the schema never reach the function: the model
// reads what was wrong.
func ExampleNew() {
	type args struct {
		Text  string   `json:"text" jsonschema:"The text to count the words of, up to 2000 characters"`
		Words []string `json:"words,omitempty" jsonschema:"Count only these words; left out, every word"`
	}
	count := tools.New("count_words", "Count the words of a text.",
		func(ctx context.Context, c wisp.Call, a args) (wisp.Result, error) {
			n := 0
			for _, w := range strings.Fields(a.Text) {
				if len(a.Words) == 0 || strings.Contains(strings.Join(a.Words, " "), w) {
					n++
				}
			}
			return wisp.Result{Content: fmt.Sprintf("%d words", n)}, nil
		},
		&tools.Options{Schema: func(s *jsonschema.Schema) {
			s.Properties["text"].MaxLength = jsonschema.Ptr(2000)
			s.Properties["words"].MinItems = jsonschema.Ptr(1)
		}})

	reg := tools.NewRegistry()
	if err := reg.Add(count); err != nil {
		panic(err)
	}
	set, err := reg.Select(tools.Selection{})
	if err != nil {
		panic(err)
	}
	fmt.Println(string(set.Specs()[0].Schema))
	for _, arguments := range []string{`{"text":"one two three"}`, `{"text":"one two","words":[]}`} {
		r, err := set.Call(context.Background(), wisp.Call{Name: "count_words", Arguments: json.RawMessage(arguments)})
		fmt.Println(r.Content, err)
	}
	// Output:
	// {"type":"object","properties":{"text":{"type":"string","description":"The text to count the words of, up to 2000 characters","maxLength":2000},"words":{"type":"array","items":{"type":"string"},"description":"Count only these words; left out, every word","minItems":1}},"required":["text"],"additionalProperties":false}
	// 3 words <nil>
	// error: the arguments for count_words do not match its schema: at /words: minItems: got 0, want 1; send arguments that match it <nil>
}
