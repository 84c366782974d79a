package ask_test

import (
	"context"
	"encoding/json"
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ollama/ollama/api"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/agent/threadfile"
	"github.com/wisp-agent/wisp/inquiry"
	"github.com/wisp-agent/wisp/models/script"
	"github.com/wisp-agent/wisp/tools"
	"github.com/wisp-agent/wisp/tools/ask"
	"github.com/wisp-agent/wisp/wisptest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// The schema is what the model sees: pinned, byte for byte.
func TestSchemaGolden(t *testing.T) {
	wisptest.SchemaGolden(t, ask.New(nil), filepath.Join("testdata", "schema.json"), *update)
}

// The schema carries the contract's limits as keywords: a question of 1 to
// 300 characters, 2 to 6 options of 1 to 80 characters each. They are the
// desk's own, so the schema and the desk cannot disagree. Ollama keeps
// only some keywords of a tool's schema (its server decodes the schema
// into api.ToolFunctionParameters), so the descriptions state the same
// limits in words, and a model served by Ollama reads them too.
func TestSchemaCarriesTheLimits(t *testing.T) {
	type prop struct {
		MinLength   *int            `json:"minLength"`
		MaxLength   *int            `json:"maxLength"`
		MinItems    *int            `json:"minItems"`
		MaxItems    *int            `json:"maxItems"`
		Items       json.RawMessage `json:"items"`
		Description string          `json:"description"`
	}
	var s struct {
		Properties map[string]prop `json:"properties"`
	}
	if err := json.Unmarshal(ask.New(nil).Schema(), &s); err != nil {
		t.Fatal(err)
	}
	var item prop
	if err := json.Unmarshal(s.Properties["options"].Items, &item); err != nil {
		t.Fatalf("options.items = %s: %v", s.Properties["options"].Items, err)
	}
	n := func(p *int) int {
		if p == nil {
			return -1
		}
		return *p
	}
	q, o := s.Properties["question"], s.Properties["options"]
	got := map[string]int{
		"question.minLength": n(q.MinLength), "question.maxLength": n(q.MaxLength),
		"options.minItems": n(o.MinItems), "options.maxItems": n(o.MaxItems),
		"options.items.minLength": n(item.MinLength), "options.items.maxLength": n(item.MaxLength),
	}
	want := map[string]int{
		"question.minLength": 1, "question.maxLength": 300,
		"options.minItems": 2, "options.maxItems": 6,
		"options.items.minLength": 1, "options.items.maxLength": 80,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the schema's limits (-want +got):\n%s", diff)
	}
	desk := map[string]int{
		"question.minLength": 1, "question.maxLength": inquiry.MaxQuestionChars,
		"options.minItems": inquiry.MinOptions, "options.maxItems": inquiry.MaxOptions,
		"options.items.minLength": 1, "options.items.maxLength": inquiry.MaxOptionChars,
	}
	if diff := cmp.Diff(desk, got); diff != "" {
		t.Errorf("the schema's limits and the desk's differ (-desk +schema):\n%s", diff)
	}

	// As Ollama's server reads the schema.
	var p api.ToolFunctionParameters
	if err := json.Unmarshal(ask.New(nil).Schema(), &p); err != nil {
		t.Fatal(err)
	}
	oq, _ := p.Properties.Get("question")
	oo, _ := p.Properties.Get("options")
	items, _ := json.Marshal(oo.Items)
	for _, c := range []struct{ where, text, says string }{
		{"question's description", oq.Description, "1 to 300 characters"},
		{"options' description", oo.Description, "2 to 6 options of up to 80 characters each"},
		{"options' items", string(items), `"maxLength":80`},
	} {
		if !strings.Contains(c.text, c.says) {
			t.Errorf("under Ollama the %s is %q; want it to say %q", c.where, c.text, c.says)
		}
	}
}

func TestDescriptionWordForWord(t *testing.T) {
	const want = "Ask the person one question when you cannot go on without their answer: which of two things they meant, or a value you cannot find. Not for permission (commands ask for themselves), not for secrets. Give options when there are few."
	if got := ask.Description(); got != want {
		t.Errorf("description =\n %q\nwant\n %q", got, want)
	}
}

// The schema tells the model the same limits the desk enforces; a call that
// breaks them never reaches the person.
func TestSchemaLimits(t *testing.T) {
	person := wisptest.NewPerson(wisptest.Says("x"), wisptest.Says("y"))
	reg := tools.NewRegistry()
	if err := reg.AddOptIn(ask.New(inquiry.NewDesk(person, nil))); err != nil {
		t.Fatal(err)
	}
	set, err := reg.Select(tools.Selection{Named: []string{"ask"}})
	if err != nil {
		t.Fatal(err)
	}
	long := make([]byte, 301)
	for i := range long {
		long[i] = 'q'
	}
	tests := []struct {
		args    string
		isError bool
	}{
		{`{"question":"Which?"}`, false},
		{`{"question":"` + string(long) + `"}`, true},
		{`{"question":""}`, true},
		{`{"question":"Which?","options":["a"]}`, true},
		{`{"question":"Which?","options":["a","b","c","d","e","f","g"]}`, true},
		{`{"question":"Which?","options":["a",""]}`, true},
		{`{"question":"Which?","other":1}`, true},
		{`{"options":["a","b"]}`, true},
		{`{"question":"And which?","options":["a","b"]}`, false},
	}
	for _, tc := range tests {
		r, err := set.Call(context.Background(), wisp.Call{Name: "ask", Thread: "t", Turn: 1, Arguments: json.RawMessage(tc.args)})
		if err != nil {
			t.Fatal(err)
		}
		if r.IsError != tc.isError {
			t.Errorf("ask %s = %+v, want IsError %v", tc.args, r, tc.isError)
		}
	}
	if got := len(person.Questions()); got != 2 {
		t.Errorf("the person saw %d questions, want the 2 valid ones", got)
	}
}

func TestCallResult(t *testing.T) {
	person := wisptest.NewPerson(wisptest.Chooses("./wisp.json"))
	tool := ask.New(inquiry.NewDesk(person, nil))
	r, err := tool.Call(context.Background(), wisp.Call{Name: "ask", Thread: "t", Turn: 3,
		Arguments: json.RawMessage(`{"question":"Which config did you mean?","options":["~/.wisp/config.json","./wisp.json"]}`)})
	if err != nil {
		t.Fatal(err)
	}
	want := wisp.Result{Content: "chose: ./wisp.json", Facts: []wisp.Fact{{
		Subject: "answer", Name: "Which config did you mean?", Value: "./wisp.json", Source: "person", Turn: 3}}}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("Call (-want +got):\n%s", diff)
	}
	q := person.Questions()[0]
	if q.Thread != "t" || q.Turn != 3 || q.ID == "" {
		t.Errorf("question = %+v, want thread t turn 3 with an id", q)
	}
}

// A declined question stays declined across processes: the decline is
// kept with the thread, so a second agent and desk over the same thread
// store (a new wisp respond, a restarted wisp mcp) refuse the question
// before the person sees it.
func TestDeclinedAcrossProcesses(t *testing.T) {
	store := threadfile.Dir{Path: filepath.Join(t.TempDir(), "threads")}
	const question = `{"question":"Which config did you mean?","options":["~/.wisp/config.json","./wisp.json"]}`
	run := func(person *wisptest.Person) *script.Model {
		t.Helper()
		reg := tools.NewRegistry()
		if err := reg.AddOptIn(ask.New(inquiry.NewDesk(person, nil))); err != nil {
			t.Fatal(err)
		}
		set, err := reg.Select(tools.Selection{Named: []string{"ask"}})
		if err != nil {
			t.Fatal(err)
		}
		m := script.New("s", []script.Step{
			{ToolCalls: []script.ToolCall{{Name: "ask", Arguments: json.RawMessage(question)}}},
			{Content: "done"},
		})
		if _, err := agent.New(m, &agent.Options{Tools: set, Store: store}).Respond(t.Context(), "shared", "replace the config"); err != nil {
			t.Fatal(err)
		}
		return m
	}
	first := wisptest.NewPerson(wisptest.Reply{Answer: wisp.Answer{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson}})
	run(first)
	if n := len(first.Questions()); n != 1 {
		t.Fatalf("the first process asked %d questions, want 1", n)
	}
	second := wisptest.NewPerson(wisptest.Chooses("./wisp.json"))
	m := run(second)
	if n := len(second.Questions()); n != 0 {
		t.Errorf("the second process put the declined question to the person (%d asked)", n)
	}
	reqs := m.Requests()
	msgs := reqs[len(reqs)-1].Messages
	if got := msgs[len(msgs)-1].Content; got != inquiry.ErrLineDeclinedBefore {
		t.Errorf("the model got %q, want %q", got, inquiry.ErrLineDeclinedBefore)
	}
	if facts := msgs[0].Content; !strings.Contains(facts, `declined "Which config did you mean?" = the person declined to answer`) {
		t.Errorf("the model's facts lack the decline:\n%s", facts)
	}
}
