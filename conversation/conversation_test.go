package conversation_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent/threadfile"
	"github.com/wisp-agent/wisp/audit"
	"github.com/wisp-agent/wisp/conversation"
	"github.com/wisp-agent/wisp/inquiry"
	"github.com/wisp-agent/wisp/models/script"
	"github.com/wisp-agent/wisp/policy"
	"github.com/wisp-agent/wisp/policy/secrets/secretstest"
	"github.com/wisp-agent/wisp/tools"
	"github.com/wisp-agent/wisp/wisptest"
)

// model returns a scripted model that plays steps, each a JSON line as a
// script file has it.
func model(t *testing.T, steps ...string) *script.Model {
	t.Helper()
	m, err := script.Parse(strings.NewReader(strings.Join(steps, "\n")), "test")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// leaks returns the cases of the corpus that some file under dir holds,
// by file.
func leaks(t *testing.T, dir string, cases []secretstest.Case, extra ...string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if l := secretstest.Leaks(b, cases); l != nil {
			out[path] = l
		}
		for _, s := range extra {
			if strings.Contains(string(b), s) {
				out[path] = append(out[path], s)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// New refuses what it cannot start a conversation with, each with an
// *OptionError naming the option, which wraps the sentinel to branch on.
func TestNewRefusesOptions(t *testing.T) {
	ctx := context.Background()
	m := model(t, `{"content":"ok"}`)
	for _, c := range []struct {
		name   string
		opts   *conversation.Options
		option string
		is     error
	}{
		{"nil options", nil, "Home", nil},
		{"no model", &conversation.Options{}, "Model", conversation.ErrNoModel},
		{"script without a path", &conversation.Options{ModelName: "script:"}, "Model", nil},
		{"missing script", &conversation.Options{ModelName: "script:" + filepath.Join(t.TempDir(), "none.jsonl")}, "Model", fs.ErrNotExist},
		{"unknown model", &conversation.Options{ModelName: "ollama:none"}, "Model", nil},
		{"bad thread", &conversation.Options{Model: m, Thread: "../x"}, "Thread", threadfile.ErrBadID},
		{"unknown tool", &conversation.Options{Model: m, Named: []string{"aks"}}, "Named", tools.ErrUnknownTool},
		{"bad rule", &conversation.Options{Model: m, Rules: []policy.Rule{{Pattern: "* x", Reason: "r"}}}, "Rules", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.opts != nil {
				c.opts.Home = t.TempDir()
			}
			conv, err := conversation.New(ctx, c.opts)
			var oe *conversation.OptionError
			if !errors.As(err, &oe) || oe.Option != c.option || (c.is != nil && !errors.Is(err, c.is)) {
				if conv != nil {
					conv.Close()
				}
				t.Fatalf("New(%+v) = %v, want an OptionError for %s wrapping %v", c.opts, err, c.option, c.is)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("New(%+v) = %q, want one line", c.opts, err)
			}
		})
	}
}

// A conversation of zero options but its home and its model: every
// credential of the corpus, typed as the person's message, and a secret
// given to an ask_user secret question reach neither the model, nor the
// events, nor any file of the home (the audit log, the thread); the model
// gets the secret's reference, and the audit chain verifies.
func TestNothingRawReachesASink(t *testing.T) {
	const secret = "ghp_Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lm9Nb"
	cases := secretstest.Corpus()
	var message []string
	for _, c := range cases {
		message = append(message, c.Text)
	}
	dir := t.TempDir()
	m := model(t,
		`{"content":"","tool_calls":[{"name":"ask_user","arguments":{"secret":{"name":"GH_TOKEN","question":"Which token should I use?"}}}]}`,
		`{"content":"stored"}`)
	person := wisptest.NewPerson(wisptest.Says(secret))
	events := &wisptest.Recorder{}
	conv, err := conversation.New(context.Background(), &conversation.Options{
		Home: dir, Model: m, Named: []string{"ask_user"}, Face: person, Events: events,
	})
	if err != nil {
		t.Fatal(err)
	}
	reply, err := conv.Respond(context.Background(), strings.Join(message, " ; "))
	if err != nil || reply.Text != "stored" {
		t.Fatalf("Respond = %q, %v; want stored", reply.Text, err)
	}
	if err := conv.Close(); err != nil {
		t.Fatal(err)
	}

	sent, err := json.Marshal(m.Requests())
	if err != nil {
		t.Fatal(err)
	}
	if l := secretstest.Leaks(sent, cases); l != nil || strings.Contains(string(sent), secret) {
		t.Errorf("the model was sent %d cases of the corpus (%v), or the secret", len(l), l)
	}
	if !strings.Contains(string(sent), "session:GH_TOKEN") {
		t.Errorf("the model was not sent the secret's reference: %s", sent)
	}
	recorded, err := json.Marshal(events.Events(""))
	if err != nil {
		t.Fatal(err)
	}
	if l := secretstest.Leaks(recorded, cases); l != nil || strings.Contains(string(recorded), secret) {
		t.Errorf("the events hold %d cases of the corpus (%v), or the secret", len(l), l)
	}
	for path, l := range leaks(t, dir, cases, secret) {
		t.Errorf("%s holds %v", path, l)
	}
	if _, err := os.Stat(filepath.Join(dir, "threads", conv.Thread()+".json")); err != nil {
		t.Errorf("the thread was not kept: %v", err)
	}
	r, err := audit.Verify(filepath.Join(dir, "audit"))
	if err != nil || r.Break != nil || r.Torn != nil || r.Records == 0 {
		t.Errorf("audit.Verify = %+v, %v; want an intact chain", r, err)
	}
}

// With no Face nobody can answer: ask ends with the line that says so;
// and the person's words as a face shows them carry the same markers the
// sinks do.
func TestNoFaceAnswersNobody(t *testing.T) {
	m := model(t, `{"content":"","tool_calls":[{"name":"ask","arguments":{"question":"Which file?"}}]}`, `{"content":"ok"}`)
	conv, err := conversation.New(context.Background(), &conversation.Options{Home: t.TempDir(), Model: m, Named: []string{"ask"}})
	if err != nil {
		t.Fatal(err)
	}
	defer conv.Close()
	if _, err := conv.Respond(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	reqs := m.Requests()
	last := reqs[len(reqs)-1].Messages
	if got := last[len(last)-1].Content; !strings.Contains(got, inquiry.LineNoPerson) {
		t.Errorf("the model read %q, want %q", got, inquiry.LineNoPerson)
	}
	fake := secretstest.Corpus()[0].Text
	if shown := conv.Redact("my key " + fake); strings.Contains(shown, fake) || !strings.Contains(shown, "[REDACTED:") {
		t.Errorf("Redact = %q, want the key as its marker", shown)
	}
}

// weather is a tool of an embedder's own.
type weather struct{}

func (weather) Name() string            { return "weather" }
func (weather) Description() string     { return "The weather." }
func (weather) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (weather) Call(context.Context, wisp.Call) (wisp.Result, error) {
	return wisp.Result{Content: "sunny"}, nil
}

// Wisp's own tools are offered only when the settings or Named ask for
// them; the embedder's are offered to every conversation given every
// tool.
func TestTools(t *testing.T) {
	var mine wisp.Tool = weather{}
	for _, c := range []struct {
		named []string
		want  []string
	}{
		{nil, []string{"weather"}},
		{[]string{"ask", "models"}, []string{"ask", "models"}},
		{[]string{}, nil},
	} {
		conv, err := conversation.New(context.Background(), &conversation.Options{
			Home: t.TempDir(), Model: model(t, `{"content":"ok"}`), Tools: []wisp.Tool{mine}, Named: c.named,
		})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c.want, conv.Tools().Names()); diff != "" {
			t.Errorf("Named %q: tools (-want +got):\n%s", c.named, diff)
		}
		conv.Close()
	}
}

// forecast is a tool of an embedder's own that says its calls change
// nothing.
type forecast struct{ weather }

func (forecast) Name() string { return "forecast" }
func (forecast) Action(context.Context, wisp.Call) (wisp.Action, error) {
	return wisp.Action{NoApproval: true}, nil
}

// deploy is a tool of an embedder's own that says what its calls do, as
// a command the embedder's rules rate.
type deploy struct{ weather }

func (deploy) Name() string { return "deploy" }
func (deploy) Action(context.Context, wisp.Call) (wisp.Action, error) {
	return wisp.Action{Kind: "command", Command: "deploy staging", Pattern: "deploy staging", Text: "deploys to staging"}, nil
}

// Every call goes through the conversation's gate: a tool that does not
// say what its calls do is asked about by its name, one that says they
// need no approval is not, and one whose action the embedder's rules
// rate below approval.threshold goes ahead unasked.
func TestEveryCallThroughTheGate(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"approval":{"threshold":"moderate"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	var asked []string
	person := wisp.ApproverFunc(func(ctx context.Context, r wisp.ApprovalRequest) (wisp.Decision, error) {
		asked = append(asked, r.Command)
		return wisp.Decision{Provenance: wisp.FromPerson}, nil // no
	})
	events := &wisptest.Recorder{}
	conv, err := conversation.New(context.Background(), &conversation.Options{
		Home: dir, Approver: person, Events: events,
		Model: model(t,
			`{"tool_calls":[{"name":"weather","arguments":{}}]}`,
			`{"tool_calls":[{"name":"forecast","arguments":{}}]}`,
			`{"tool_calls":[{"name":"deploy","arguments":{}}]}`,
			`{"content":"ok"}`),
		Tools: []wisp.Tool{weather{}, forecast{}, deploy{}},
		Rules: []policy.Rule{{Pattern: "deploy staging", Rating: policy.Safe, Reason: "deploys where nobody looks"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer conv.Close()
	if _, err := conv.Respond(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"weather"}, asked); diff != "" {
		t.Errorf("the person was asked (-want +got):\n%s", diff)
	}
	var results []string
	for _, e := range events.Events(wisp.KindToolResult) {
		results = append(results, e.Data.(wisp.ToolResultData).Content)
	}
	want := []string{"error: not approved: the person declined", "sunny", "sunny"}
	if diff := cmp.Diff(want, results); diff != "" {
		t.Errorf("tool results (-want +got):\n%s", diff)
	}
}

// A pool starts one conversation for each tool list, whatever the order
// of its names, and keeps it.
func TestPool(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(`{"content":"ok"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := conversation.NewPool(&conversation.Options{Home: dir, ModelName: "script:" + path})
	ctx := context.Background()
	all, err := p.Agent(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	ab, err := p.Agent(ctx, []string{"ask", "models"})
	if err != nil {
		t.Fatal(err)
	}
	again, err := p.Agent(ctx, []string{"models", "ask"})
	if err != nil {
		t.Fatal(err)
	}
	none, err := p.Agent(ctx, []string{})
	if err != nil {
		t.Fatal(err)
	}
	if again != ab || all == ab || none == all || none == ab {
		t.Errorf("Agent gave %p for every tool, %p and %p for ask and models, %p for none; want one agent per list", all, ab, again, none)
	}
	if _, err := p.Agent(ctx, []string{"aks"}); !errors.Is(err, tools.ErrUnknownTool) {
		t.Errorf("Agent(aks) = %v, want ErrUnknownTool", err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
}
