package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/tools"
)

// fake is a tool that echoes its arguments.
type fake struct {
	name   string
	schema string
	calls  int
}

func (f *fake) Name() string            { return f.name }
func (f *fake) Description() string     { return "a fake " + f.name }
func (f *fake) Schema() json.RawMessage { return json.RawMessage(f.schema) }
func (f *fake) Call(ctx context.Context, c wisp.Call) (wisp.Result, error) {
	f.calls++
	return wisp.Result{Content: "ran " + string(c.Arguments)}, nil
}

const objectSchema = `{"type":"object","properties":{"question":{"type":"string","minLength":1,"maxLength":5},"options":{"type":"array","minItems":2}},"required":["question"],"additionalProperties":false}`

func registry(t *testing.T) *tools.Registry {
	t.Helper()
	r := tools.NewRegistry()
	for _, name := range []string{"run_command", "read_file"} {
		if err := r.Add(&fake{name: name, schema: `{"type":"object"}`}); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"ask", "models"} {
		if err := r.AddOptIn(&fake{name: name, schema: `{"type":"object"}`}); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// The table of spec/ask.md: which conversations get ask.
func TestSelect(t *testing.T) {
	tests := []struct {
		name    string
		sel     tools.Selection
		want    []string
		dropped []string
	}{
		{"every tool, ask off (the default)", tools.Selection{}, []string{"run_command", "read_file"}, nil},
		{"every tool, tools.ask true", tools.Selection{Enabled: map[string]bool{"ask": true}}, []string{"run_command", "read_file", "ask"}, nil},
		{"named list with ask, setting off", tools.Selection{Named: []string{"ask"}}, []string{"ask"}, nil},
		{"named list without ask, setting on", tools.Selection{Named: []string{"run_command"}, Enabled: map[string]bool{"ask": true}}, []string{"run_command"}, nil},
		{"disabled, every tool, setting on", tools.Selection{Enabled: map[string]bool{"ask": true}, Disabled: []string{"ask"}}, []string{"run_command", "read_file"}, nil},
		{"disabled, named list", tools.Selection{Named: []string{"ask", "read_file"}, Disabled: []string{"ask"}}, []string{"read_file"}, []string{"ask"}},
		{"empty named list: no tools", tools.Selection{Named: []string{}}, []string{}, nil},
		{"named twice", tools.Selection{Named: []string{"ask", "ask"}}, []string{"ask"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			set, err := registry(t).Select(tc.sel)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, set.Names(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Select(%+v) names (-want +got):\n%s", tc.sel, diff)
			}
			if diff := cmp.Diff(tc.dropped, set.Dropped()); diff != "" {
				t.Errorf("Select(%+v) dropped (-want +got):\n%s", tc.sel, diff)
			}
		})
	}
}

func TestSelectUnknown(t *testing.T) {
	_, err := registry(t).Select(tools.Selection{Named: []string{"aks"}})
	if !errors.Is(err, tools.ErrUnknownTool) {
		t.Fatalf("Select(aks) error = %v, want ErrUnknownTool", err)
	}
	if want := `unknown tool "aks"; known tools: run_command, read_file, ask, models`; err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
	var unknown *tools.UnknownToolError
	if !errors.As(err, &unknown) {
		t.Fatalf("Select(aks) error = %T, want *tools.UnknownToolError", err)
	}
	want := &tools.UnknownToolError{Name: "aks", Known: []string{"run_command", "read_file", "ask", "models"}}
	if diff := cmp.Diff(want, unknown); diff != "" {
		t.Errorf("Select(aks) error (-want +got):\n%s", diff)
	}
}

func TestAdd(t *testing.T) {
	r := tools.NewRegistry()
	tests := []struct {
		tool wisp.Tool
		want string
	}{
		{&fake{name: "Bad Name", schema: `{}`}, `tool name "Bad Name": use lower-case letters, digits and _, starting with a letter`},
		{&fake{name: "x", schema: `{"type":`}, `tool "x": schema is not JSON`},
		{&fake{name: "y", schema: `{"type":"nonsense"}`}, `tool "y": schema does not compile`},
	}
	for _, tc := range tests {
		err := r.Add(tc.tool)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Add(%s) = %v, want an error starting %q", tc.tool.Name(), err, tc.want)
		}
	}
	if err := r.Add(&fake{name: "z", schema: `{}`}); err != nil {
		t.Fatal(err)
	}
	if err := r.Add(&fake{name: "z", schema: `{}`}); err == nil {
		t.Error("adding z twice succeeded")
	}
}

func TestCall(t *testing.T) {
	askTool := &fake{name: "ask", schema: objectSchema}
	r := tools.NewRegistry()
	if err := r.AddOptIn(askTool); err != nil {
		t.Fatal(err)
	}
	if err := r.Add(&fake{name: "read_file", schema: `{"type":"object"}`}); err != nil {
		t.Fatal(err)
	}
	set, err := r.Select(tools.Selection{Named: []string{"ask"}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		call wisp.Call
		want wisp.Result
	}{
		{"valid", wisp.Call{Name: "ask", Arguments: json.RawMessage(`{"question":"Hi?"}`)},
			wisp.Result{Content: `ran {"question":"Hi?"}`}},
		{"tool not in this conversation", wisp.Call{Name: "read_file", Arguments: json.RawMessage(`{}`)},
			wisp.Result{IsError: true, Content: `error: there is no tool named "read_file" in this conversation; its tools are: ask`}},
		{"unknown tool", wisp.Call{Name: "rm", Arguments: json.RawMessage(`{}`)},
			wisp.Result{IsError: true, Content: `error: there is no tool named "rm" in this conversation; its tools are: ask`}},
		{"not JSON", wisp.Call{Name: "ask", Arguments: json.RawMessage(`{"question":`)},
			wisp.Result{IsError: true, Content: `error: the arguments for ask are not valid JSON (unexpected EOF); send one JSON object that matches its schema`}},
		{"missing required", wisp.Call{Name: "ask", Arguments: json.RawMessage(`{}`)},
			wisp.Result{IsError: true, Content: `error: the arguments for ask do not match its schema: at the arguments: missing property 'question'; send arguments that match it`}},
		{"too long and extra", wisp.Call{Name: "ask", Arguments: json.RawMessage(`{"question":"toolong","extra":1}`)},
			wisp.Result{IsError: true, Content: `error: the arguments for ask do not match its schema: at /question: maxLength: got 7, want 5; at the arguments: additional properties 'extra' not allowed; send arguments that match it`}},
		{"wrong type in array", wisp.Call{Name: "ask", Arguments: json.RawMessage(`{"question":"a","options":["x"]}`)},
			wisp.Result{IsError: true, Content: `error: the arguments for ask do not match its schema: at /options: minItems: got 1, want 2; send arguments that match it`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := askTool.calls
			got, err := set.Call(context.Background(), tc.call)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Call(%s %s) (-want +got):\n%s", tc.call.Name, tc.call.Arguments, diff)
			}
			if ran := askTool.calls > before; ran == got.IsError {
				t.Errorf("tool ran = %v on a result with IsError %v", ran, got.IsError)
			}
		})
	}
}

// Check finds the tool and holds the arguments to its schema, as Call
// does, without running the tool: the agent puts what it returns to its
// guard.
func TestCheck(t *testing.T) {
	askTool := &fake{name: "ask", schema: objectSchema}
	r := tools.NewRegistry()
	if err := r.Add(askTool); err != nil {
		t.Fatal(err)
	}
	set, err := r.Select(tools.Selection{})
	if err != nil {
		t.Fatal(err)
	}
	tl, c, refused := set.Check(wisp.Call{Name: "ask", Thread: "t1", Arguments: json.RawMessage(`{"question":"Hi?"}`)})
	if tl != askTool || c.Thread != "t1" || string(c.Arguments) != `{"question":"Hi?"}` || refused.IsError || refused.Content != "" {
		t.Errorf("Check(ask) = %v, %+v, %+v; want the tool and the call", tl, c, refused)
	}
	if tl, _, refused := set.Check(wisp.Call{Name: "ask", Arguments: json.RawMessage(`{}`)}); tl != nil || !refused.IsError {
		t.Errorf("Check(ask {}) = %v, %+v; want no tool, and the schema's line", tl, refused)
	}
	if tl, _, refused := set.Check(wisp.Call{Name: "rm"}); tl != nil || refused.Content != `error: there is no tool named "rm" in this conversation; its tools are: ask` {
		t.Errorf("Check(rm) = %v, %+v; want no tool, and the line naming the tools", tl, refused)
	}
	if askTool.calls != 0 {
		t.Errorf("Check ran the tool %d times", askTool.calls)
	}
}

// Failures at several places come in the order of the places, so the
// same arguments always get the same line.
func TestCallLineIsStable(t *testing.T) {
	r := tools.NewRegistry()
	const schema = `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"},"c":{"type":"string"},"d":{"type":"string"}}}`
	if err := r.Add(&fake{name: "four", schema: schema}); err != nil {
		t.Fatal(err)
	}
	set, err := r.Select(tools.Selection{})
	if err != nil {
		t.Fatal(err)
	}
	const want = `error: the arguments for four do not match its schema: at /a: got number, want string; at /b: got number, want string; at /c: got number, want string; at /d: got number, want string; send arguments that match it`
	for range 20 {
		got, err := set.Call(context.Background(), wisp.Call{Name: "four", Arguments: json.RawMessage(`{"d":4,"c":3,"b":2,"a":1}`)})
		if err != nil || got.Content != want {
			t.Fatalf("Call(four) = %q, %v; want %q", got.Content, err, want)
		}
	}
}

// TestInteractive checks the preset that enables ask_user and
// request_approval together.
func TestInteractive(t *testing.T) {
	r := registry(t)
	for _, name := range []string{"ask_user", "request_approval"} {
		if err := r.AddOptIn(&fake{name: name, schema: `{"type":"object"}`}); err != nil {
			t.Fatal(err)
		}
	}
	set, err := r.Select(tools.Selection{Enabled: tools.Interactive()})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"run_command", "read_file", "ask_user", "request_approval"}, set.Names()); diff != "" {
		t.Errorf("Select(Interactive) (-want +got):\n%s", diff)
	}
	// Each call is a new map: changing one changes no other.
	m := tools.Interactive()
	m["models"] = true
	delete(m, "ask_user")
	want := map[string]bool{"ask_user": true, "request_approval": true, "read_file": true, "list_files": true, "search": true}
	if diff := cmp.Diff(want, tools.Interactive()); diff != "" {
		t.Errorf("Interactive() after a caller changed its map (-want +got):\n%s", diff)
	}
}
