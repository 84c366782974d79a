// Package tools decides which tools a conversation gets and checks every
// call against the tool's JSON Schema before the tool runs.
package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wisp-agent/wisp"
)

var validName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// A Registry holds every tool a program offers. It is built once, before
// conversations start, and is then safe for concurrent reads.
type Registry struct {
	entries map[string]*entry
	order   []string
}

type entry struct {
	tool   wisp.Tool
	optIn  bool
	schema *jsonschema.Schema
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{entries: make(map[string]*entry)} }

// Add registers a tool that every conversation given every tool gets.
func (r *Registry) Add(t wisp.Tool) error { return r.add(t, false) }

// AddOptIn registers a tool that is off by default: a conversation given
// every tool gets it only when Selection.Enabled turns it on (tools.ask,
// tools.models); a named list gets it whenever it names it.
func (r *Registry) AddOptIn(t wisp.Tool) error { return r.add(t, true) }

func (r *Registry) add(t wisp.Tool, optIn bool) error {
	name := t.Name()
	if !validName.MatchString(name) {
		return fmt.Errorf("tool name %q: use lower-case letters, digits and _, starting with a letter", name)
	}
	if _, dup := r.entries[name]; dup {
		return fmt.Errorf("tool %q is registered twice", name)
	}
	var sch *jsonschema.Schema
	if c, ok := t.(interface{ compiled() *jsonschema.Schema }); ok {
		sch = c.compiled() // a tool from New: compiled already
	} else {
		var err error
		if sch, err = compile(name, t.Schema()); err != nil {
			return err
		}
	}
	r.entries[name] = &entry{tool: t, optIn: optIn, schema: sch}
	r.order = append(r.order, name)
	return nil
}

// Names returns the registered tools' names, in the order they were added.
func (r *Registry) Names() []string { return slices.Clone(r.order) }

func compile(name string, schema json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("tool %q: schema is not JSON: %w", name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	url := "mem://tools/" + name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("tool %q: %w", name, err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("tool %q: schema does not compile: %w", name, err)
	}
	return sch, nil
}

// A Selection says which tools a conversation asked for and what the
// settings allow.
type Selection struct {
	// Named is the conversation's tool list (--tool, MCP tools); nil means
	// every tool. A named list wins over Enabled.
	Named []string
	// Enabled turns opt-in tools on for conversations given every tool:
	// {"ask": true} from tools.ask.
	Enabled map[string]bool
	// Disabled removes tools from every conversation (tools.disabled).
	Disabled []string
}

// Interactive returns the opt-in tools of an agent that works with a
// person, for Selection.Enabled: ask_user, for decisions and preferences,
// and request_approval, for permission to act, with the tools that only
// read the workspace (read_file, list_files, search). ask_user and
// request_approval are enabled together so that the model has a place
// for preferences and stops putting permission questions there: an
// ask_user question nobody answers falls back to a default, which is
// right for a preference and wrong for permission, while a
// request_approval nobody answers is refused. Leave them off for an
// agent nobody watches. A name the registry does not have is ignored, so
// the preset names tools a program may not offer.
//
// Each call returns a new map, which the caller may change:
//
//	enabled := tools.Interactive()
//	enabled["models"] = true
//	set, err := reg.Select(tools.Selection{Enabled: enabled})
func Interactive() map[string]bool {
	return map[string]bool{
		"ask_user": true, "request_approval": true,
		"read_file": true, "list_files": true, "search": true,
	}
}

// ErrUnknownTool reports a named tool that the registry does not have.
var ErrUnknownTool = errors.New("unknown tool")

// An UnknownToolError is a name in Selection.Named that the registry does
// not have. It wraps ErrUnknownTool and keeps the known tools apart, so
// each face can say, in its own terms, where to name one instead (a
// flag, an MCP argument).
type UnknownToolError struct {
	Name  string   // the name asked for
	Known []string // the registry's tools, in the order they were added
}

func (e *UnknownToolError) Error() string {
	return fmt.Sprintf("%v %q; known tools: %s", ErrUnknownTool, e.Name, strings.Join(e.Known, ", "))
}

// Unwrap returns ErrUnknownTool.
func (e *UnknownToolError) Unwrap() error { return ErrUnknownTool }

// Select returns the set of tools a conversation gets:
//
//   - no named list: every tool, less opt-in tools not enabled;
//   - a named list: exactly the tools it names, whatever Enabled says;
//   - a tool in Disabled: never, in either case.
//
// A name the registry does not have is an *UnknownToolError, which lists
// the known tools.
func (r *Registry) Select(s Selection) (*Set, error) {
	set := &Set{entries: make(map[string]*entry)}
	disabled := func(name string) bool { return slices.Contains(s.Disabled, name) }
	if s.Named == nil {
		for _, name := range r.order {
			e := r.entries[name]
			if disabled(name) || (e.optIn && !s.Enabled[name]) {
				continue
			}
			set.add(name, e)
		}
		return set, nil
	}
	for _, name := range s.Named {
		e, ok := r.entries[name]
		if !ok {
			return nil, &UnknownToolError{Name: name, Known: slices.Clone(r.order)}
		}
		if disabled(name) {
			if !slices.Contains(set.dropped, name) {
				set.dropped = append(set.dropped, name)
			}
			continue
		}
		if _, dup := set.entries[name]; !dup {
			set.add(name, e)
		}
	}
	return set, nil
}

// A Set is the tools one conversation has. It is safe for concurrent use.
type Set struct {
	entries map[string]*entry
	order   []string
	dropped []string
}

func (s *Set) add(name string, e *entry) {
	s.entries[name] = e
	s.order = append(s.order, name)
}

// Names returns the tools in the set.
func (s *Set) Names() []string { return slices.Clone(s.order) }

// Has reports whether the set has the named tool.
func (s *Set) Has(name string) bool { _, ok := s.entries[name]; return ok }

// Dropped returns the tools the named list asked for that tools.disabled
// removed.
func (s *Set) Dropped() []string { return slices.Clone(s.dropped) }

// Specs returns what the model is told about the set's tools.
func (s *Set) Specs() []wisp.ToolSpec {
	specs := make([]wisp.ToolSpec, 0, len(s.order))
	for _, name := range s.order {
		specs = append(specs, wisp.SpecOf(s.entries[name].tool))
	}
	return specs
}

// Summary returns what a face shows of a call of the named tool with
// these arguments, when the tool is a wisp.Summarizer; ok is false
// otherwise.
func (s *Set) Summary(name string, arguments json.RawMessage) (summary string, ok bool) {
	e, found := s.entries[name]
	if !found {
		return "", false
	}
	sum, ok := e.tool.(wisp.Summarizer)
	if !ok {
		return "", false
	}
	return sum.Summary(arguments), true
}

// Call runs a tool call, as Check finds it: a tool the set does not have,
// or arguments that fail the tool's schema, come back as an error result
// the model can read and act on; the tool does not run. Call asks no one:
// the agent puts the checked call to its guard first.
func (s *Set) Call(ctx context.Context, c wisp.Call) (wisp.Result, error) {
	t, c, refused := s.Check(c)
	if t == nil {
		return refused, nil
	}
	return t.Call(ctx, c)
}

// Check finds the tool a call names and holds the call's arguments to the
// tool's schema. It returns the tool and the call as the tool runs it
// (its arguments "{}" when it gave none); or a nil tool, and the error
// result the model reads: there is no such tool in the set, or the
// arguments do not match its schema.
func (s *Set) Check(c wisp.Call) (wisp.Tool, wisp.Call, wisp.Result) {
	e, ok := s.entries[c.Name]
	if !ok {
		if len(s.order) == 0 {
			return nil, c, wisp.ErrorResult(fmt.Sprintf("there is no tool named %q in this conversation; it has no tools", c.Name))
		}
		return nil, c, wisp.ErrorResult(fmt.Sprintf("there is no tool named %q in this conversation; its tools are: %s", c.Name, strings.Join(s.order, ", ")))
	}
	args, problem := check(c.Name, e.schema, c.Arguments)
	if problem != "" {
		return nil, c, wisp.ErrorResult(problem)
	}
	c.Arguments = args
	return e.tool, c, wisp.Result{}
}

// check holds the arguments of a call of the named tool to its compiled
// schema. It returns the arguments to run the tool with ("{}" for none),
// or the line that tells the model what was wrong.
func check(name string, schema *jsonschema.Schema, args json.RawMessage) (json.RawMessage, string) {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return nil, fmt.Sprintf("the arguments for %s are not valid JSON (%v); send one JSON object that matches its schema", name, err)
	}
	if err := schema.Validate(inst); err != nil {
		return nil, fmt.Sprintf("the arguments for %s do not match its schema: %s; send arguments that match it", name, describe(err))
	}
	return args, ""
}

// describe turns a validation error into one line: each failure with the
// place in the arguments it concerns, in the order of those places, so
// that the same arguments always get the same line.
func describe(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	var parts []string
	var walk func(v *jsonschema.ValidationError)
	walk = func(v *jsonschema.ValidationError) {
		if len(v.Causes) == 0 {
			at := "/" + strings.Join(v.InstanceLocation, "/")
			if at == "/" {
				at = "the arguments"
			}
			parts = append(parts, fmt.Sprintf("at %s: %s", at, leafMessage(v)))
			return
		}
		for _, c := range v.Causes {
			walk(c)
		}
	}
	walk(ve)
	slices.Sort(parts)
	return strings.Join(parts, "; ")
}

func leafMessage(v *jsonschema.ValidationError) string {
	// The error text of a leaf is "at '<loc>': <message>"; keep the message.
	s := v.Error()
	if _, msg, ok := strings.Cut(s, "': "); ok {
		s = msg
	}
	return strings.TrimSpace(s)
}
