package agent_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/models/script"
)

// inbox holds mail for one turn and records what it was told.
type inbox struct {
	mu        sync.Mutex
	mail      map[int][]wisp.Mail // by turn
	err       error
	takes     []int
	delivered [][]string // keys, each call
	saved     []int      // the thread's turn in the store when Delivered ran
	store     *memStore
}

func (b *inbox) Take(_ context.Context, thread string, turn int) ([]wisp.Mail, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.takes = append(b.takes, turn)
	return b.mail[turn], b.err
}

func (b *inbox) Delivered(_ context.Context, thread string, mail []wisp.Mail) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var keys []string
	for _, m := range mail {
		keys = append(keys, m.Key)
	}
	b.delivered = append(b.delivered, keys)
	st, _, _ := b.store.Load(thread)
	b.saved = append(b.saved, st.Turn)
}

// memStore is a ThreadStore in memory.
type memStore struct {
	mu sync.Mutex
	m  map[string]agent.ThreadState
}

func (s *memStore) Load(id string) (agent.ThreadState, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.m[id]
	return st, ok, nil
}

func (s *memStore) Save(id string, st agent.ThreadState) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]agent.ThreadState{}
	}
	s.m[id] = st
	return nil
}

func TestInbox(t *testing.T) {
	m := script.New("t", []script.Step{{Content: "a"}, {Content: "You chose ./wisp.json, so I used it."}})
	store := &memStore{}
	b := &inbox{store: store, mail: map[int][]wisp.Mail{2: {
		{Text: "[wisp: your question was answered: chose: ./wisp.json]", Key: "a1b2c3d4",
			Facts: []wisp.Fact{{Subject: "answer", Name: "Which config?", Value: "./wisp.json", Source: wisp.SourcePerson}}},
		{Key: "withdrawn1"}, // no text: nothing for the model, only to be settled
	}}}
	a := agent.New(m, &agent.Options{Inbox: b, Store: store})
	if _, err := a.Respond(t.Context(), "t", "one"); err != nil {
		t.Fatal(err)
	}
	r, err := a.Respond(t.Context(), "t", "two")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, msg := range m.Requests()[1].Messages {
		if msg.Role != wisp.RoleSystem {
			got = append(got, msg.Content)
		}
	}
	if diff := cmp.Diff([]string{"one", "a", "[wisp: your question was answered: chose: ./wisp.json]", "two"}, got); diff != "" {
		t.Errorf("turn 2's request (-want +got):\n%s", diff)
	}
	wantFacts := []wisp.Fact{{ID: "c1", Subject: "answer", Name: "Which config?", Value: "./wisp.json", Source: wisp.SourcePerson, Turn: 2}}
	if diff := cmp.Diff(wantFacts, r.Facts); diff != "" {
		t.Errorf("turn 2's facts (-want +got):\n%s", diff)
	}
	if len(r.Flags) != 0 {
		t.Errorf("a reply backed by the mail's answer was flagged: %q", r.Flags)
	}
	if diff := cmp.Diff([]int{1, 2}, b.takes); diff != "" {
		t.Errorf("Take's turns (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][]string{{"a1b2c3d4", "withdrawn1"}}, b.delivered); diff != "" {
		t.Errorf("Delivered (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{2}, b.saved); diff != "" {
		t.Errorf("the thread's saved turn when Delivered ran (-want +got):\n%s", diff)
	}
}

func TestInboxFailure(t *testing.T) {
	m := script.New("t", []script.Step{{Content: "a"}})
	b := &inbox{store: &memStore{}, err: errors.New("the pending folder is a symbolic link")}
	_, err := agent.New(m, &agent.Options{Inbox: b}).Respond(t.Context(), "t", "one")
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("Respond = %v, want the inbox's error", err)
	}
	if n := len(m.Requests()); n != 0 {
		t.Errorf("the model was asked %d times, want none", n)
	}
}

// A tool's output passes through Options.Redact before the model or the
// thread sees it.
func TestRedactToolResults(t *testing.T) {
	m := script.New("t", []script.Step{call("echo", `{"text":"token hunter2-secret"}`), {Content: "done"}})
	store := &memStore{}
	a := agent.New(m, &agent.Options{Tools: set(t, echo{}), Store: store,
		Redact: func(s string) string { return strings.ReplaceAll(s, "hunter2-secret", "[REDACTED:session:PW]") }})
	if _, err := a.Respond(t.Context(), "t", "go"); err != nil {
		t.Fatal(err)
	}
	reqs := m.Requests()
	last := reqs[len(reqs)-1].Messages
	got := last[len(last)-1].Content
	if got != "echo: token [REDACTED:session:PW]" {
		t.Errorf("the model read %q, want the value replaced by its marker", got)
	}
	st, _, _ := store.Load("t")
	for _, msg := range st.Messages {
		if strings.Contains(msg.Content, "hunter2-secret") {
			t.Errorf("the saved thread holds the value: %q", msg.Content)
		}
	}
}

// Two agents on one store (wisp mcp keeps one per tool list) never build
// a turn on a stale copy of the thread.
func TestTurnsLoadTheStoredThread(t *testing.T) {
	store := &memStore{}
	m := script.New("t", []script.Step{{Content: "a"}, {Content: "b"}, {Content: "c"}})
	first := agent.New(m, &agent.Options{Store: store})
	second := agent.New(m, &agent.Options{Store: store})
	for i, a := range []*agent.Agent{first, second, first} {
		r, err := a.Respond(t.Context(), "t", "go")
		if err != nil {
			t.Fatal(err)
		}
		if r.Turn != i+1 {
			t.Errorf("turn %d ran as turn %d", i+1, r.Turn)
		}
	}
	st, _, _ := store.Load("t")
	if st.Turn != 3 || len(st.Messages) != 6 {
		t.Errorf("the stored thread has turn %d and %d messages, want 3 and 6", st.Turn, len(st.Messages))
	}
}

// Mail the thread could not be saved with is not forgotten.
func TestInboxKeepsMailWhenSaveFails(t *testing.T) {
	m := script.New("t", []script.Step{{Content: "a"}})
	b := &inbox{store: &memStore{}, mail: map[int][]wisp.Mail{1: {{Text: "[wisp: an answer]", Key: "a1b2c3d4"}}}}
	a := agent.New(m, &agent.Options{Inbox: b, Store: failingStore{}})
	if _, err := a.Respond(t.Context(), "t", "go"); !errors.Is(err, agent.ErrNotSaved) {
		t.Fatalf("Respond = %v, want ErrNotSaved", err)
	}
	if len(b.delivered) != 0 {
		t.Errorf("Delivered %v although the thread was not saved", b.delivered)
	}
}

// failingStore loads nothing and saves nothing.
type failingStore struct{}

func (failingStore) Load(string) (agent.ThreadState, bool, error) {
	return agent.ThreadState{}, false, nil
}
func (failingStore) Save(string, agent.ThreadState) error { return errors.New("disk full") }

// The person's input passes through Options.Redact too.
func TestRedactInput(t *testing.T) {
	m := script.New("t", []script.Step{{Content: "ok"}})
	store := &memStore{}
	a := agent.New(m, &agent.Options{Store: store,
		Redact: func(s string) string { return strings.ReplaceAll(s, "hunter2-secret", "[REDACTED:session:PW]") }})
	if _, err := a.Respond(t.Context(), "t", "I meant hunter2-secret"); err != nil {
		t.Fatal(err)
	}
	msgs := m.Requests()[0].Messages
	if got := msgs[len(msgs)-1].Content; got != "I meant [REDACTED:session:PW]" {
		t.Errorf("the model read %q, want the value replaced by its marker", got)
	}
}

// A turn on a free thread starts even when its ctx is already done, so
// it has a number and its end is recorded.
func TestTurnStartsUnderDoneContext(t *testing.T) {
	m := script.New("t", []script.Step{{Content: "ok"}})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for range 20 {
		r, err := agent.New(m, nil).Respond(ctx, "t", "go")
		if err == nil || r.Turn != 1 {
			t.Fatalf("Respond = %+v, %v; want turn 1 ended by the cancelled ctx", r, err)
		}
	}
}
