package agent_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/models/script"
	"github.com/wisp-agent/wisp/wisptest"
)

// flakySink fails every record of one kind while failOn names it, as a
// full disk fails the audit log, and keeps the rest.
type flakySink struct {
	wisptest.Recorder
	mu     sync.Mutex
	failOn string
}

func (s *flakySink) fail(kind string) {
	s.mu.Lock()
	s.failOn = kind
	s.mu.Unlock()
}

func (s *flakySink) Record(ctx context.Context, e wisp.Event) error {
	s.mu.Lock()
	fail := e.Kind() == s.failOn
	s.mu.Unlock()
	if fail {
		return errors.New("audit: write: write audit.jsonl: no space left on device")
	}
	return s.Recorder.Record(ctx, e)
}

// counter is a tool that counts its calls.
type counter struct {
	echo
	calls *atomic.Int32
}

func (c counter) Call(ctx context.Context, call wisp.Call) (wisp.Result, error) {
	c.calls.Add(1)
	return c.echo.Call(ctx, call)
}

// A turn whose events the audit log cannot all take is not kept: the turn
// ends with one line saying so, the thread stays as it was, and a tool
// call that is not on record does not run.
func TestUnrecordedTurnIsNotKept(t *testing.T) {
	tests := []struct {
		failOn string
		second []script.Step // the steps of the turn that fails
		ran    int32         // tool calls run in it
	}{
		{wisp.KindTurnStarted, []script.Step{{Content: "two"}}, 0},
		{wisp.KindNotice, []script.Step{{Content: "two"}}, 0},
		{wisp.KindModelMessage, []script.Step{{Content: "two"}}, 0},
		{wisp.KindToolCall, []script.Step{call("echo", `{"text":"x"}`), {Content: "two"}}, 0},
		{wisp.KindToolResult, []script.Step{call("echo", `{"text":"x"}`), {Content: "two"}}, 1},
		{wisp.KindVerificationFlag, []script.Step{{Content: "Done, as you confirmed."}}, 0},
		{wisp.KindTurnEnded, []script.Step{{Content: "two"}}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.failOn, func(t *testing.T) {
			steps := append([]script.Step{{Content: "one"}}, tc.second...)
			steps = append(steps, script.Step{Content: "three"})
			store := &memStore{}
			sink := &flakySink{}
			var calls atomic.Int32
			a := agent.New(script.New("t", steps), &agent.Options{Store: store, Events: sink,
				Tools: set(t, counter{calls: &calls})})
			if _, err := a.Respond(t.Context(), "t", "first"); err != nil {
				t.Fatal(err)
			}
			kept, _, _ := store.Load("t")

			sink.fail(tc.failOn)
			if tc.failOn == wisp.KindNotice {
				a.Note("t", "[wisp: a pull ended]")
			}
			_, err := a.Respond(t.Context(), "t", "second")
			if !errors.Is(err, wisp.ErrNotRecorded) {
				t.Fatalf("Respond with %s unrecorded = %v, want an error wrapping wisp.ErrNotRecorded", tc.failOn, err)
			}
			const want = "the audit log could not be written: audit: write: write audit.jsonl: no space left on device; nothing of this turn was kept"
			if err.Error() != want {
				t.Errorf("Respond error = %q, want %q", err, want)
			}
			if got, _, _ := store.Load("t"); !cmp.Equal(kept, got) {
				t.Errorf("the thread changed although the turn was not kept (-before +after):\n%s", cmp.Diff(kept, got))
			}
			if got := calls.Load(); got != tc.ran {
				t.Errorf("%d tool calls ran, want %d", got, tc.ran)
			}

			// The turn that comes next takes the number the lost one had.
			sink.fail("")
			reply, err := a.Respond(t.Context(), "t", "third")
			if err != nil || reply.Turn != 2 {
				t.Fatalf("the next turn = %+v, %v; want turn 2", reply, err)
			}
		})
	}
}

// A turn whose thread could not be saved is not kept, and says so; the
// audit log's turn.ended says why.
func TestUnsavedTurnIsNotKept(t *testing.T) {
	store := &flakyStore{}
	rec := &wisptest.Recorder{}
	m := script.New("t", []script.Step{{Content: "one"}, {Content: "two"}, {Content: "three"}})
	a := agent.New(m, &agent.Options{Store: store, Events: rec})
	if _, err := a.Respond(t.Context(), "t", "first"); err != nil {
		t.Fatal(err)
	}
	store.setErr(errors.New("no space left on device"))
	reply, err := a.Respond(t.Context(), "t", "second")
	if !errors.Is(err, agent.ErrNotSaved) {
		t.Fatalf("Respond = %v, want ErrNotSaved", err)
	}
	const want = "thread t could not be saved: no space left on device; this turn was not kept"
	if err.Error() != want || reply.Turn != 2 {
		t.Errorf("Respond = turn %d, %q; want turn 2, %q", reply.Turn, err, want)
	}
	ended := rec.Events(wisp.KindTurnEnded)
	if len(ended) != 2 || ended[1].Data.(wisp.TurnEndedData).Error != want {
		t.Errorf("turn.ended records = %+v; want the second to carry %q", ended, want)
	}
	store.setErr(nil)
	if reply, err := a.Respond(t.Context(), "t", "third"); err != nil || reply.Turn != 2 {
		t.Errorf("the next turn = %+v, %v; want turn 2", reply, err)
	}
	st, _, _ := store.Load("t")
	var got []string
	for _, msg := range st.Messages {
		got = append(got, msg.Content)
	}
	if diff := cmp.Diff([]string{"first", "one", "third", "three"}, got); diff != "" {
		t.Errorf("the thread's messages (-want +got):\n%s", diff)
	}
}

// flakyStore is a memStore whose saves fail while err is set.
type flakyStore struct {
	memStore
	errMu sync.Mutex
	err   error
}

func (s *flakyStore) setErr(err error) {
	s.errMu.Lock()
	s.err = err
	s.errMu.Unlock()
}

func (s *flakyStore) Save(id string, st agent.ThreadState) error {
	s.errMu.Lock()
	err := s.err
	s.errMu.Unlock()
	if err != nil {
		return err
	}
	return s.memStore.Save(id, st)
}

// A stored thread with numbers wisp never writes (edited by hand, say) is
// refused before anything happens, rather than run a turn the audit log
// cannot number.
func TestStoredTurnIsChecked(t *testing.T) {
	tests := []struct {
		name string
		st   agent.ThreadState
		want string
	}{
		{"negative turn", agent.ThreadState{Turn: -5},
			"thread t: the stored thread is not one wisp wrote: it is at turn -5, and a turn is 0 to 2147483647; move it aside to start the thread afresh"},
		{"turn past the most", agent.ThreadState{Turn: 1 << 62},
			"thread t: the stored thread is not one wisp wrote: it is at turn 4611686018427387904, and a turn is 0 to 2147483647; move it aside to start the thread afresh"},
		{"negative fact count", agent.ThreadState{Turn: 1, FactSeq: -1},
			"thread t: the stored thread is not one wisp wrote: its factSeq is -1, and that is 0 to 2147483647; move it aside to start the thread afresh"},
		{"the last turn run", agent.ThreadState{Turn: agent.MaxTurn},
			"thread t has run 2147483647 turns, the most a thread runs; start a new thread"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			store := &memStore{m: map[string]agent.ThreadState{"t": tc.st}}
			rec := &wisptest.Recorder{}
			a := agent.New(script.New("t", []script.Step{{Content: "ok"}}), &agent.Options{Store: store, Events: rec})
			_, err := a.Respond(t.Context(), "t", "go")
			if err == nil || err.Error() != tc.want {
				t.Fatalf("Respond = %v, want %q", err, tc.want)
			}
			if kinds := rec.Kinds(); len(kinds) != 0 {
				t.Errorf("events recorded: %v; want none", kinds)
			}
		})
	}
}

// A turn on a thread another turn holds waits for it, says so once, and
// can be stopped while it waits; one on the held context runs at once.
func TestTurnWaitsForItsThread(t *testing.T) {
	told := make(chan wisp.Notice, 4)
	notifier := notifierFunc(func(_ context.Context, n wisp.Notice) error { told <- n; return nil })
	m := script.New("t", []script.Step{{Content: "one"}, {Content: "two"}})
	a := agent.New(m, &agent.Options{Notifier: notifier})
	held, release, err := a.Hold(t.Context(), "t")
	if err != nil {
		t.Fatal(err)
	}

	stop := errors.New("stopped while it waited")
	ctx, cancel := context.WithCancelCause(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := a.Respond(ctx, "t", "waits")
		done <- err
	}()
	want := wisp.Notice{Kind: agent.NoticeWaiting, Thread: "t", Text: "thread t is busy with another turn; waiting…"}
	if diff := cmp.Diff(want, <-told); diff != "" {
		t.Errorf("notice (-want +got):\n%s", diff)
	}
	cancel(stop)
	if err := <-done; !errors.Is(err, stop) {
		t.Fatalf("Respond stopped while it waited = %v, want %v", err, stop)
	}

	go func() {
		r, err := a.Respond(t.Context(), "t", "second")
		if err == nil && r.Turn != 2 {
			err = fmt.Errorf("the turn that waited ran as turn %d", r.Turn)
		}
		done <- err
	}()
	<-told
	if r, err := a.Respond(held, "t", "first"); err != nil || r.Turn != 1 {
		t.Fatalf("Respond on the held context = %+v, %v; want turn 1", r, err)
	}
	release()
	if err := <-done; err != nil {
		t.Errorf("the turn that waited = %v, want turn 2", err)
	}
	if n := len(told); n != 0 {
		t.Errorf("%d more notices; want one a wait", n)
	}
}

type notifierFunc func(ctx context.Context, n wisp.Notice) error

func (f notifierFunc) Notify(ctx context.Context, n wisp.Notice) error { return f(ctx, n) }
