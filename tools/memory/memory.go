// Package memory is the memory tool and the facts it keeps across
// conversations, in memory.json under the wisp home: each fact with its
// id, its source (the thread and session that kept it) and its time, its
// credentials replaced by markers before it is kept. The model remembers,
// recalls and forgets facts with the tool, each change under the
// person's approval; the person lists and forgets them with RunCommand
// (wisp memory list|forget ID); a conversation offers the newest of them
// to the model in its system prompt (Offered).
//
// The file is written as every file of the home: atomically (a synced
// temp file renamed into place), mode 0600, under a lock, and read only
// when it is the person's own and no link.
package memory

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/policy"
	"github.com/wisp-agent/wisp/tools"
)

// Name is the tool's name.
const Name = "memory"

// Kind is the kind of the tool's approval requests.
const Kind = "memory"

// The actions the tool takes.
const (
	ActionRemember = "remember"
	ActionRecall   = "recall"
	ActionForget   = "forget"
)

// The caps on what is offered and recalled.
const (
	// MaxOfferedFacts and MaxOfferedBytes bound the facts a system
	// prompt offers: the newest first, as many as fit both.
	MaxOfferedFacts = 50
	MaxOfferedBytes = 4 << 10
	// MaxRecallBytes bounds what one recall returns.
	MaxRecallBytes = 8 << 10
)

// The reasons of the classifier's rows (Rules).
const (
	ReasonRemember = "keeps a fact that every later conversation reads"
	ReasonForget   = "removes a fact the person let the model keep"
)

// Rules are the classifier's rows for the commands the tool's changes are
// judged as, for policy.NewClassifier:
//
//	memory remember        moderate
//	memory forget ID       moderate
//
// recall changes nothing and needs no approval. Each call returns a new
// slice.
func Rules() []policy.Rule {
	return []policy.Rule{
		{Pattern: "memory remember", Rating: policy.Moderate, Reason: ReasonRemember},
		{Pattern: "memory forget *", Rating: policy.Moderate, Reason: ReasonForget},
	}
}

//go:embed description.md
var description string

// Description is what the model reads about the tool.
func Description() string { return description }

// New returns the memory tool over store. The tool is a wisp.Guarded:
// remembering and forgetting say what they would change, for the
// agent's guard to put to the person (rated by Rules), and recalling
// needs no approval; nor does a call the store will refuse (a fact kept
// already, an id no fact has).
func New(store Store) wisp.Tool {
	t := &tool{store: store}
	return tools.New(Name, description, t.call, &tools.Options{Schema: limits, Action: t.action, Summary: summary})
}

// args are the call's arguments; the schema the model reads is theirs.
type args struct {
	Action string `json:"action" jsonschema:"remember, recall or forget"`
	Text   string `json:"text,omitempty" jsonschema:"For remember: the fact, a sentence or two of at most 500 bytes. For recall: only facts that contain this text"`
	ID     string `json:"id,omitempty" jsonschema:"For forget: the fact's id, such as m3"`
}

// limits gives the schema its enum and lengths.
func limits(s *jsonschema.Schema) {
	s.Properties["action"].Enum = []any{ActionRemember, ActionRecall, ActionForget}
	s.Properties["text"].MaxLength = jsonschema.Ptr(MaxFactBytes)
	s.Properties["id"].MaxLength = jsonschema.Ptr(16)
}

// summary says what a call does, for the trace a face shows.
func summary(raw json.RawMessage) string {
	var a args
	if json.Unmarshal(raw, &a) != nil {
		return ""
	}
	switch a.Action {
	case ActionForget:
		return "forget " + a.ID
	case ActionRemember, ActionRecall:
		return a.Action
	}
	return ""
}

type tool struct {
	store Store
}

// action says what a call would change: a fact kept or removed.
func (t *tool) action(_ context.Context, c wisp.Call) (wisp.Action, error) {
	var a args
	if err := json.Unmarshal(c.Arguments, &a); err != nil {
		return wisp.Action{NoApproval: true}, nil
	}
	free := wisp.Action{NoApproval: true}
	switch a.Action {
	case ActionRemember:
		text, err := t.store.clean(a.Text)
		if err != nil {
			return free, nil
		}
		facts, err := t.store.List()
		if err != nil || len(facts) >= MaxFacts || containsText(facts, text) {
			return free, nil
		}
		return wisp.Action{
			Kind:    Kind,
			Command: "memory remember",
			Pattern: "memory remember",
			Text:    "keeps this fact for every later conversation to read: " + text,
			Scopes:  []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession},
		}, nil
	case ActionForget:
		f, ok, err := t.store.Find(a.ID)
		if err != nil || !ok {
			return free, nil
		}
		return wisp.Action{
			Kind:    Kind,
			Command: "memory forget " + f.ID,
			Pattern: "memory forget *",
			Text:    "removes the fact " + f.ID + ": " + f.Text,
			Scopes:  []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession},
		}, nil
	}
	return free, nil
}

func containsText(facts []Fact, text string) bool {
	for _, f := range facts {
		if f.Text == text {
			return true
		}
	}
	return false
}

// call runs the action. What the store refuses comes back to the model
// as an error result that says what to send instead.
func (t *tool) call(ctx context.Context, c wisp.Call, a args) (wisp.Result, error) {
	switch a.Action {
	case ActionRemember:
		if strings.TrimSpace(a.Text) == "" {
			return wisp.ErrorResult("error: remember needs the fact in text"), nil
		}
		f, added, err := t.store.Remember(ctx, Fact{Text: a.Text, Source: SourceModel, Thread: c.Thread, Session: c.Session})
		switch {
		case err != nil:
			return t.failed(ctx, err)
		case !added:
			return wisp.Result{Content: fmt.Sprintf("already kept as %s: %s", f.ID, f.Text)}, nil
		}
		return wisp.Result{Content: fmt.Sprintf("remembered as %s: %s", f.ID, f.Text)}, nil
	case ActionForget:
		if a.ID == "" {
			return wisp.ErrorResult("error: forget needs the fact's id in id; recall lists them"), nil
		}
		f, err := t.store.Forget(ctx, a.ID)
		if err != nil {
			return t.failed(ctx, err)
		}
		return wisp.Result{Content: fmt.Sprintf("forgot %s: %s", f.ID, f.Text)}, nil
	}
	facts, err := t.store.List()
	if err != nil {
		return t.failed(ctx, err)
	}
	return wisp.Result{Content: recall(facts, a.Text)}, nil
}

// failed turns a store's refusal into a result the model reads; only a
// cancelled context ends the turn.
func (t *tool) failed(ctx context.Context, err error) (wisp.Result, error) {
	if ctx.Err() != nil {
		return wisp.Result{}, context.Cause(ctx)
	}
	switch {
	case errors.Is(err, ErrNoFact):
		return wisp.ErrorResult("error: " + err.Error() + "; recall lists the facts kept"), nil
	case errors.Is(err, ErrBadFile):
		return wisp.ErrorResult("error: the memory cannot be read; the person must mend it: " + err.Error()), nil
	}
	return wisp.ErrorResult("error: " + err.Error()), nil
}

// recall lists the facts that contain text (all, for ""), newest first,
// within MaxRecallBytes.
func recall(facts []Fact, text string) string {
	var b strings.Builder
	n := 0
	needle := strings.ToLower(strings.TrimSpace(text))
	for i := len(facts) - 1; i >= 0; i-- {
		f := facts[i]
		if needle != "" && !strings.Contains(strings.ToLower(f.Text), needle) {
			continue
		}
		line := fmt.Sprintf("%s (%s): %s\n", f.ID, f.Time.Format("2006-01-02"), f.Text)
		if b.Len()+len(line) > MaxRecallBytes {
			fmt.Fprintf(&b, "(more facts are kept; recall with text to find them)\n")
			break
		}
		b.WriteString(line)
		n++
	}
	switch {
	case n == 0 && needle == "":
		return "no facts are kept"
	case n == 0:
		return fmt.Sprintf("no fact kept contains %q", text)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Offered returns the facts a system prompt offers of facts (as List
// returns them, oldest first): the newest first, at most
// MaxOfferedFacts, whose texts fit MaxOfferedBytes together.
func Offered(facts []Fact) []Fact {
	var out []Fact
	size := 0
	for i := len(facts) - 1; i >= 0 && len(out) < MaxOfferedFacts; i-- {
		if size += len(facts[i].Text); size > MaxOfferedBytes {
			break
		}
		out = append(out, facts[i])
	}
	return out
}
