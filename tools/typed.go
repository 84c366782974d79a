package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
	validator "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wisp-agent/wisp"
)

// Options are the settings of a tool built with New. A nil *Options is
// all defaults: the schema as the argument type gives it, and no summary.
type Options struct {
	// Schema, when set, completes the schema inferred from the argument
	// type with what a Go type cannot say: limits (MinLength, MaxItems,
	// Minimum), enums, patterns. New calls it once, with the inferred
	// schema, before it compiles the schema.
	Schema func(s *jsonschema.Schema)
	// Summary, when set, makes the tool a wisp.Summarizer: it says in a
	// few words what a call with these arguments does, for the trace a
	// face shows. The arguments have not been checked against the schema.
	Summary func(arguments json.RawMessage) string
	// Action, when set, makes the tool a wisp.Guarded: it says what a
	// call would do, as the command the approval gate judges, before the
	// call runs. It is called only with arguments that pass the schema
	// (c.Arguments, "{}" for none); arguments that do not are refused by
	// the call, and need no approval. NoApproval is the Action of a tool
	// whose calls change nothing. nil: the tool is judged by its name, so
	// every call is asked (see wisp.Guarded).
	Action func(ctx context.Context, c wisp.Call) (wisp.Action, error)
}

// NoApproval is the Options.Action of a tool whose calls change nothing,
// such as one that only reads or only asks the person something: every
// call runs at once, without asking.
func NoApproval(context.Context, wisp.Call) (wisp.Action, error) {
	return wisp.Action{NoApproval: true}, nil
}

// New returns a tool named name, which the model reads about in
// description, and whose calls run call with their arguments decoded
// into an Args.
//
// The tool's JSON Schema is inferred from Args, which must be a struct or
// a pointer to one (github.com/google/jsonschema-go's For): each exported
// field is a property, named as encoding/json names it, required unless
// its json tag says omitempty or omitzero, and described by its
// jsonschema tag, whose whole value is the description; no other
// property is allowed. A slice or a pointer takes its type alone, not
// null as well: Go decodes a null and a missing field alike, and a plain
// type is easier for a small model to read. Options.Schema adds the
// limits.
//
// Before call runs, the arguments are checked against the schema, with
// the validator and the lines of Set.Call, and decoded with unknown
// fields refused; arguments that fail come back to the model as an error
// result that says what was wrong, and call does not run. So a tool from
// New may be called outside a Set as well.
//
// New panics if Args has no schema of an object, or if the schema does
// not compile: both are mistakes in the program, found the first time it
// runs, as regexp.MustCompile's are.
func New[Args any](name, description string, call func(ctx context.Context, c wisp.Call, args Args) (wisp.Result, error), opts *Options) wisp.Tool {
	var o Options
	if opts != nil {
		o = *opts
	}
	s, err := jsonschema.For[Args](nil)
	if err != nil {
		panic(fmt.Sprintf("tools.New(%q): %v", name, err))
	}
	if s.Type != "object" && !slices.Equal(s.Types, []string{"null", "object"}) {
		panic(fmt.Sprintf("tools.New(%q): the arguments are a JSON object, so Args must be a struct or a pointer to one", name))
	}
	plain(s)
	if o.Schema != nil {
		o.Schema(s)
	}
	raw, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("tools.New(%q): %v", name, err))
	}
	compiled, err := compile(name, raw)
	if err != nil {
		panic(fmt.Sprintf("tools.New(%q): %v", name, err))
	}
	t := typed{schema: compiled, ToolFunc: wisp.ToolFunc{
		Spec: wisp.ToolSpec{Name: name, Description: description, Schema: raw},
		Func: func(ctx context.Context, c wisp.Call) (wisp.Result, error) {
			args, problem := check(name, compiled, c.Arguments)
			if problem != "" {
				return wisp.ErrorResult(problem), nil
			}
			a, err := decode[Args](args)
			if err != nil {
				return wisp.ErrorResult(fmt.Sprintf("the arguments for %s are not valid: %v; send arguments that match its schema", name, err)), nil
			}
			c.Arguments = args
			return call(ctx, c, a)
		},
	}}
	switch {
	case o.Action != nil && o.Summary != nil:
		return guardedSummarized{guarded: guarded{typed: t, action: o.Action}, summary: o.Summary}
	case o.Action != nil:
		return guarded{typed: t, action: o.Action}
	case o.Summary != nil:
		return summarized{typed: t, summary: o.Summary}
	}
	return t
}

// typed is a tool from New. A Registry takes its compiled schema rather
// than compile the schema again.
type typed struct {
	wisp.ToolFunc
	schema *validator.Schema
}

func (t typed) compiled() *validator.Schema { return t.schema }

// summarized is a tool from New with Options.Summary.
type summarized struct {
	typed
	summary func(json.RawMessage) string
}

func (t summarized) Summary(arguments json.RawMessage) string { return t.summary(arguments) }

// guarded is a tool from New with Options.Action.
type guarded struct {
	typed
	action func(context.Context, wisp.Call) (wisp.Action, error)
}

// Action holds the arguments to the schema first: a call whose arguments
// fail it is refused when it is run, so it needs no approval.
func (t guarded) Action(ctx context.Context, c wisp.Call) (wisp.Action, error) {
	args, problem := check(t.Name(), t.schema, c.Arguments)
	if problem != "" {
		return wisp.Action{NoApproval: true}, nil
	}
	c.Arguments = args
	return t.action(ctx, c)
}

// guardedSummarized is a tool from New with Options.Action and
// Options.Summary.
type guardedSummarized struct {
	guarded
	summary func(json.RawMessage) string
}

func (t guardedSummarized) Summary(arguments json.RawMessage) string { return t.summary(arguments) }

// plain gives every property that For made nullable (slices, pointers)
// its type alone.
func plain(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if types := slices.DeleteFunc(slices.Clone(s.Types), func(t string) bool { return t == "null" }); len(types) == 1 {
		s.Type, s.Types = types[0], nil
	}
	for _, p := range s.Properties {
		plain(p)
	}
	plain(s.Items)
	plain(s.AdditionalProperties)
}

// decode decodes arguments that passed the schema, one JSON object, into
// an Args, refusing fields Args does not have.
func decode[Args any](raw json.RawMessage) (Args, error) {
	var a Args
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(&a)
	return a, err
}
