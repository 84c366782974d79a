package askuser_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/agent/threadfile"
	"github.com/wisp-agent/wisp/inquiry"
	"github.com/wisp-agent/wisp/models/script"
	"github.com/wisp-agent/wisp/tools"
	"github.com/wisp-agent/wisp/tools/askuser"
	"github.com/wisp-agent/wisp/wisptest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// face is a card face whose person gives the answers it holds, the same
// for every card.
type face struct {
	mu      sync.Mutex
	answers []wisp.CardAnswer
	cards   []wisp.Card
}

func (f *face) AskCard(ctx context.Context, c wisp.Card) ([]wisp.CardAnswer, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cards = append(f.cards, c)
	answers := make([]wisp.CardAnswer, len(c.Questions))
	copy(answers, f.answers)
	return answers, nil
}

func (f *face) Ask(ctx context.Context, q wisp.Question) (wisp.Answer, error) {
	return wisp.Answer{}, errors.New("a card face asked a single question")
}

func (f *face) Cards() []wisp.Card {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]wisp.Card(nil), f.cards...)
}

// vault keeps values as the session's vault would.
type vault struct {
	mu     sync.Mutex
	values map[string]string
}

func (v *vault) Put(name, value string) (string, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.values == nil {
		v.values = map[string]string{}
	}
	v.values[name] = value
	return "session:" + name, nil
}

func newSet(t *testing.T, f wisp.Inquirer, v inquiry.Vault) *tools.Set {
	t.Helper()
	reg := tools.NewRegistry()
	if err := reg.AddOptIn(askuser.New(inquiry.NewDesk(f, &inquiry.Options{Vault: v}))); err != nil {
		t.Fatal(err)
	}
	set, err := reg.Select(tools.Selection{Named: []string{askuser.Name}})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// The schema is what the model sees: pinned, byte for byte.
func TestSchemaGolden(t *testing.T) {
	tool := askuser.New(inquiry.NewDesk(&face{}, nil))
	wisptest.SchemaGolden(t, tool, filepath.Join("testdata", "schema.json"), *update)
}

// The schema carries the limits ask_user's contract fixes: 1 to 4
// questions a call, 2 to 6 options a question, a timeout of at most 300
// seconds, with the question's 1 to 300 characters and an option's 80
// that the desk enforces. Ollama keeps only some keywords of the top
// level (its server decodes the schema into api.ToolFunctionParameters),
// so the descriptions say the same in words.
func TestSchemaCarriesTheLimits(t *testing.T) {
	var s map[string]any
	if err := json.Unmarshal(askuser.New(nil).Schema(), &s); err != nil {
		t.Fatal(err)
	}
	// at finds a keyword by its dotted path.
	at := func(path string) any {
		var v any = s
		for k := range strings.SplitSeq(path, ".") {
			m, _ := v.(map[string]any)
			v = m[k]
		}
		return v
	}
	const q = "properties.questions.items.properties." // a question's
	tests := []struct {
		path string
		want any
	}{
		{"properties.questions.minItems", 1.0},
		{"properties.questions.maxItems", 4.0},
		{q + "question.minLength", 1.0},
		{q + "question.maxLength", float64(inquiry.MaxQuestionChars)},
		{q + "options.minItems", float64(inquiry.MinOptions)},
		{q + "options.maxItems", float64(inquiry.MaxOptions)},
		{q + "options.items.properties.label.maxLength", float64(inquiry.MaxOptionChars)},
		{"properties.timeout_seconds.maximum", 300.0},
		{"properties.secret.properties.question.maxLength", 300.0},
	}
	for _, tc := range tests {
		if got := at(tc.path); got != tc.want {
			t.Errorf("schema %s = %v, want %v", tc.path, got, tc.want)
		}
	}
	if inquiry.MinOptions != 2 || inquiry.MaxOptions != 6 || inquiry.MaxQuestionChars != 300 || inquiry.MaxOptionChars != 80 {
		t.Errorf("the desk's limits are %d to %d options of %d characters, questions of %d; the contract says 2 to 6, 80, 300",
			inquiry.MinOptions, inquiry.MaxOptions, inquiry.MaxOptionChars, inquiry.MaxQuestionChars)
	}
	for _, c := range []struct{ path, says string }{
		{"properties.questions.description", "1 to 4 questions"},
		{"properties.timeout_seconds.description", "10 to 300 seconds"},
		{q + "options.description", "2 to 6 options"},
		{q + "question.description", "1 to 300 characters"},
	} {
		if d, _ := at(c.path).(string); !strings.Contains(d, c.says) {
			t.Errorf("schema %s = %q, want it to say %q", c.path, d, c.says)
		}
	}
}

// The description tells the model when to use ask_user rather than
// request_approval or ask, and how to collect a credential.
func TestDescription(t *testing.T) {
	d := askuser.New(nil).Description()
	if d != askuser.Description() {
		t.Errorf("Tool.Description and Description differ")
	}
	for _, want := range []string{
		"1 to 4 structured questions",
		"2 to 6 options, most applicable first",
		"recommended",
		"allowOther",
		"the person, a timeout, or an unattended fallback",
		"Not for permission",
		"request_approval, which never answers itself",
		"ask is enough",
		`{"secret": {"name": "GH_TOKEN", "question": "…"}}`,
		"session:GH_TOKEN, never the value",
		"declined is final",
	} {
		if !strings.Contains(d, want) {
			t.Errorf("description does not say %q:\n%s", want, d)
		}
	}
	if strings.HasSuffix(d, "\n") {
		t.Errorf("description ends with a line break")
	}
}

// The schema tells the model the limits the desk enforces; a call that
// breaks them never reaches the person.
func TestSchemaLimits(t *testing.T) {
	q := func(extra string) string { return `{"questions":[{"question":"Which?"` + extra + `}]}` }
	opts := func(n int) string {
		var o []string
		for i := range n {
			o = append(o, fmt.Sprintf(`{"label":"o%d"}`, i))
		}
		return `,"options":[` + strings.Join(o, ",") + `]`
	}
	tests := []struct {
		name    string
		args    string
		isError bool
	}{
		{"one free-text question", q(""), false},
		{"a choice", q(opts(2)), false},
		{"every field", `{"questions":[{"question":"Which regions?","header":"Regions","multiSelect":true,"allowOther":true,` +
			`"options":[{"label":"eu","description":"near","recommended":true},{"label":"us"}]}],"timeout_seconds":60}`, false},
		{"no arguments", `{}`, true},
		{"no questions", `{"questions":[]}`, true},
		{"five questions", `{"questions":[{"question":"A?"},{"question":"B?"},{"question":"C?"},{"question":"D?"},{"question":"E?"}]}`, true},
		{"four questions", `{"questions":[{"question":"A?"},{"question":"B?"},{"question":"C?"},{"question":"D?"}]}`, false},
		{"empty question", `{"questions":[{"question":""}]}`, true},
		{"question of 301", `{"questions":[{"question":"` + strings.Repeat("q", 301) + `"}]}`, true},
		{"question of 300", `{"questions":[{"question":"` + strings.Repeat("q", 300) + `"}]}`, false},
		{"no question", `{"questions":[{"header":"A"}]}`, true},
		{"header of 13", q(`,"header":"` + strings.Repeat("h", 13) + `"`), true},
		{"header of 12", q(`,"header":"` + strings.Repeat("h", 12) + `"`), false},
		{"one option", q(opts(1)), true},
		{"seven options", q(opts(7)), true},
		{"six options", q(opts(6)), false},
		{"empty label", q(`,"options":[{"label":""},{"label":"b"}]`), true},
		{"label of 81", q(`,"options":[{"label":"` + strings.Repeat("l", 81) + `"},{"label":"b"}]`), true},
		{"no label", q(`,"options":[{"description":"x"},{"label":"b"}]`), true},
		{"same labels", q(`,"options":[{"label":"a"},{"label":"A"}]`), true},
		{"description of 201", q(`,"options":[{"label":"a","description":"` + strings.Repeat("d", 201) + `"},{"label":"b"}]`), true},
		{"two recommended", q(`,"options":[{"label":"a","recommended":true},{"label":"b","recommended":true}]`), true},
		{"recommended not a boolean", q(`,"options":[{"label":"a","recommended":"yes"},{"label":"b"}]`), true},
		{"options as strings, as ask takes them", q(`,"options":["a","b"]`), true},
		{"an unknown field", q(`,"default":"a"`), true},
		{"multiSelect on free text", q(`,"multiSelect":true`), true},
		{"timeout of 9", `{"questions":[{"question":"A?"}],"timeout_seconds":9}`, true},
		{"timeout of 301", `{"questions":[{"question":"A?"}],"timeout_seconds":301}`, true},
		{"timeout of 10", `{"questions":[{"question":"A?"}],"timeout_seconds":10}`, false},
		{"timeout as a string", `{"questions":[{"question":"A?"}],"timeout_seconds":"30"}`, true},
		{"timeout not whole", `{"questions":[{"question":"A?"}],"timeout_seconds":30.5}`, true},
		{"a secret", `{"secret":{"name":"GH_TOKEN","question":"Paste a GitHub token."}}`, false},
		{"a secret named in lower case", `{"secret":{"name":"gh_token","question":"Paste it."}}`, true},
		{"a secret with no question", `{"secret":{"name":"GH_TOKEN"}}`, true},
		{"a secret with questions", `{"questions":[{"question":"A?"}],"secret":{"name":"GH_TOKEN","question":"Paste it."}}`, true},
		{"a question asking for a password", `{"questions":[{"question":"What is your password?"}]}`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &face{}
			set := newSet(t, f, &vault{})
			r, err := set.Call(context.Background(), wisp.Call{Name: askuser.Name, Thread: "t", Turn: 1, Arguments: json.RawMessage(tc.args)})
			if err != nil {
				t.Fatal(err)
			}
			if r.IsError != tc.isError {
				t.Errorf("ask_user %s = %+v, want IsError %v", tc.args, r, tc.isError)
			}
			if r.IsError && !strings.HasPrefix(r.Content, "error: ") {
				t.Errorf("error result %q does not start with \"error: \"", r.Content)
			}
			if reached := len(f.Cards()) == 1; reached == tc.isError {
				t.Errorf("ask_user %s reached the face: %v, want %v", tc.args, reached, !tc.isError)
			}
			// Called directly, the tool says the same as through the set.
			direct, err := askuser.New(inquiry.NewDesk(&face{}, &inquiry.Options{Vault: &vault{}})).Call(context.Background(),
				wisp.Call{Name: askuser.Name, Thread: "t", Turn: 1, Arguments: json.RawMessage(tc.args)})
			if diff := cmp.Diff(r, direct); err != nil || diff != "" {
				t.Errorf("ask_user %s called directly: %v; (-through a set +directly):\n%s", tc.args, err, diff)
			}
		})
	}
}

// The call's arguments become the card the person sees, and the result
// says what was chosen and who chose it.
func TestCall(t *testing.T) {
	f := &face{answers: []wisp.CardAnswer{
		{Outcome: wisp.OutcomeChose, Chosen: []string{"production"}, Provenance: wisp.FromPerson},
		{Outcome: wisp.OutcomeChose, Chosen: []string{"eu-west-1", "us-east-1"}, Provenance: wisp.FromPerson},
		{Outcome: wisp.OutcomeTimedOut},
	}}
	tool := askuser.New(inquiry.NewDesk(f, nil))
	args := `{"questions":[
	  {"question":"Which environment should the migration run against?","header":"Env","options":[
	    {"label":"staging","description":"safe to break","recommended":true},
	    {"label":"production","description":"real data"}]},
	  {"question":"Which regions?","header":"Regions","multiSelect":true,"allowOther":true,"options":[
	    {"label":"eu-west-1"},{"label":"us-east-1"}]},
	  {"question":"Which branch?","options":[{"label":"main"},{"label":"release","recommended":true}]}],
	 "timeout_seconds":120}`
	r, err := tool.Call(context.Background(), wisp.Call{Name: askuser.Name, Thread: "t", Turn: 3, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatal(err)
	}
	want := wisp.Result{
		Content: "1 (Env): chose: production (from the person)\n" +
			"2 (Regions): chose: eu-west-1, us-east-1 (from the person)\n" +
			"3: fallback: release (the recommended option; no answer within 2 min, so the person did not choose it)",
		Facts: []wisp.Fact{
			{Subject: "answer", Name: "Which environment should the migration run against?", Value: "production", Source: "person", Turn: 3},
			{Subject: "answer", Name: "Which regions?", Value: "eu-west-1, us-east-1", Source: "person", Turn: 3},
			{Subject: "fallback", Name: "Which branch?", Value: "release (no answer within 2 min; not the person's choice)", Source: "wisp", Turn: 3},
		},
	}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("Call (-want +got):\n%s", diff)
	}
	cards := f.Cards()
	if len(cards) != 1 {
		t.Fatalf("the face saw %d cards, want 1", len(cards))
	}
	wantQs := []wisp.CardQuestion{
		{Text: "Which environment should the migration run against?", Header: "Env", Options: []wisp.Option{
			{Label: "staging", Description: "safe to break", Recommended: true}, {Label: "production", Description: "real data"}}},
		{Text: "Which regions?", Header: "Regions", Multi: true, Other: true, Options: []wisp.Option{{Label: "eu-west-1"}, {Label: "us-east-1"}}},
		{Text: "Which branch?", Options: []wisp.Option{{Label: "main"}, {Label: "release", Recommended: true}}},
	}
	if diff := cmp.Diff(wantQs, cards[0].Questions); diff != "" {
		t.Errorf("card questions (-want +got):\n%s", diff)
	}
	if c := cards[0]; c.Thread != "t" || c.Turn != 3 || c.ID == "" || c.Deadline.IsZero() {
		t.Errorf("card = %+v, want thread t, turn 3, an id and a deadline", c)
	}
}

// A face that cannot show a card (wisp respond, --yes, wisp mcp) gets the
// defaults in the same call, marked as unattended fallbacks.
func TestUnattended(t *testing.T) {
	plain := wisp.InquirerFunc(func(ctx context.Context, q wisp.Question) (wisp.Answer, error) {
		return wisp.Answer{Outcome: wisp.OutcomeNoPerson, Provenance: wisp.FromUnattended}, nil
	})
	set := newSet(t, plain, &vault{})
	start := time.Now()
	r, err := set.Call(context.Background(), wisp.Call{Name: askuser.Name, Thread: "t", Turn: 1, Arguments: json.RawMessage(
		`{"questions":[{"question":"Which environment?","options":[{"label":"staging"},{"label":"production","recommended":true}]},{"question":"Anything else?"}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Errorf("waited %v for a face that cannot show a card", waited)
	}
	want := "1: fallback: production (the recommended option; no person can answer here, so the person did not choose it)\n" +
		"2: no person can answer here; this question has no default. Do not guess what the person would say"
	if r.Content != want || r.IsError {
		t.Errorf("Call = %+v, want %q", r, want)
	}
	r, err = set.Call(context.Background(), wisp.Call{Name: askuser.Name, Thread: "t", Turn: 2, Arguments: json.RawMessage(
		`{"secret":{"name":"GH_TOKEN","question":"Paste a GitHub token."}}`)})
	if err != nil {
		t.Fatal(err)
	}
	if want := "1: " + inquiry.LineSecretDeclined("GH_TOKEN", wisp.FromUnattended, 0); r.Content != want {
		t.Errorf("secret with no person = %q, want %q", r.Content, want)
	}
}

// The secret's value reaches the vault and nothing the model gets.
func TestSecret(t *testing.T) {
	const value = "ghp_FAKE0test1EXAMPLE2not3real4Token5w6x"
	f := &face{answers: []wisp.CardAnswer{{Outcome: wisp.OutcomeAnswered, Text: value, Provenance: wisp.FromPerson}}}
	v := &vault{}
	set := newSet(t, f, v)
	r, err := set.Call(context.Background(), wisp.Call{Name: askuser.Name, Thread: "t", Turn: 1, Arguments: json.RawMessage(
		`{"secret":{"name":"GH_TOKEN","question":"Paste a GitHub token with repo scope."}}`)})
	if err != nil {
		t.Fatal(err)
	}
	want := wisp.Result{
		Content: "1: stored: session:GH_TOKEN (from the person). You never see the value; give the reference to the tools that need it",
		Facts:   []wisp.Fact{{Subject: "secret", Name: "GH_TOKEN", Value: "session:GH_TOKEN", Source: "person", Turn: 1}},
	}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("Call (-want +got):\n%s", diff)
	}
	if b, _ := json.Marshal(r); bytes.Contains(b, []byte(value)) || strings.Contains(fmt.Sprintf("%#v", r), value) {
		t.Errorf("the result holds the secret's value: %s", b)
	}
	if v.values["GH_TOKEN"] != value {
		t.Errorf("vault holds %q, want the value", v.values["GH_TOKEN"])
	}
	if q := f.Cards()[0].Questions; len(q) != 1 || q[0].Secret != "GH_TOKEN" || len(q[0].Options) != 0 {
		t.Errorf("card questions = %+v, want the secret alone", q)
	}
}

func TestDecode(t *testing.T) {
	tests := []struct {
		args    string
		want    inquiry.CardRequest
		wantErr string
	}{
		{args: `{"questions":[{"question":"A?","header":"H","options":[{"label":"a","description":"d","recommended":true},{"label":"b"}],"multiSelect":true,"allowOther":true}]}`,
			want: inquiry.CardRequest{Questions: []wisp.CardQuestion{{Text: "A?", Header: "H", Multi: true, Other: true,
				Options: []wisp.Option{{Label: "a", Description: "d", Recommended: true}, {Label: "b"}}}}}},
		{args: `{"secret":{"name":"GH_TOKEN","question":"Paste it."},"timeout_seconds":60}`,
			want: inquiry.CardRequest{Timeout: time.Minute, Questions: []wisp.CardQuestion{{Text: "Paste it.", Secret: "GH_TOKEN"}}}},
		{args: `{"questions":[{"question":"A?"}],"secret":{"name":"X","question":"Q"}}`,
			want: inquiry.CardRequest{Questions: []wisp.CardQuestion{{Text: "A?"}, {Text: "Q", Secret: "X"}}}},
		{args: `{"timeout_seconds":0}`, want: inquiry.CardRequest{}},
		{args: `{"timeout_seconds":1e300}`, want: inquiry.CardRequest{Timeout: -1}},
		{args: `{"timeout_seconds":-20}`, want: inquiry.CardRequest{Timeout: -1}},
		{args: `{"timeout_seconds":12.5}`, want: inquiry.CardRequest{Timeout: -1}},
		{args: `{"timeout_seconds":30.0}`, want: inquiry.CardRequest{Timeout: 30 * time.Second}},
		{args: `{"secret":{"name":"","question":"Q"}}`, wantErr: "the arguments for ask_user are not valid: the secret has no name; name it like an environment variable, such as GH_TOKEN"},
	}
	for _, tc := range tests {
		got, err := askuser.Decode(json.RawMessage(tc.args))
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("Decode(%s) error = %v, want %q", tc.args, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("Decode(%s) error = %v", tc.args, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("Decode(%s) (-want +got):\n%s", tc.args, diff)
		}
	}
}

// A card question, or a secret, the person declined stays declined
// across processes: a second agent and desk over the same thread store
// refuse it before anything is shown.
func TestDeclinedAcrossProcesses(t *testing.T) {
	const card = `{"questions":[{"question":"Which environment?","header":"Env","options":[{"label":"staging"},{"label":"production"}]}]}`
	const secret = `{"secret":{"name":"GH_TOKEN","question":"Paste a GitHub token with repo scope."}}`
	declines := []wisp.CardAnswer{{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson}}
	tests := []struct {
		name, args, want string
	}{
		{"question", card, inquiry.ErrLineCardDeclinedBefore(1)},
		{"secret", secret, inquiry.ErrLineSecretDeclinedBefore("GH_TOKEN")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			store := threadfile.Dir{Path: t.TempDir()}
			run := func(f *face) string {
				t.Helper()
				m := script.New("s", []script.Step{
					{ToolCalls: []script.ToolCall{{Name: askuser.Name, Arguments: json.RawMessage(tc.args)}}},
					{Content: "done"},
				})
				a := agent.New(m, &agent.Options{Tools: newSet(t, f, &vault{}), Store: store})
				if _, err := a.Respond(t.Context(), "shared", "go"); err != nil {
					t.Fatal(err)
				}
				msgs := m.Requests()[1].Messages
				return msgs[len(msgs)-1].Content
			}
			first := &face{answers: declines}
			run(first)
			second := &face{answers: []wisp.CardAnswer{{Outcome: wisp.OutcomeAnswered, Text: "x", Provenance: wisp.FromPerson}}}
			got := run(second)
			if n := len(second.Cards()); n != 0 || got != tc.want {
				t.Errorf("the second process showed %d cards, and the model got %q; want none shown and %q", n, got, tc.want)
			}
		})
	}
}
