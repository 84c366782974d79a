package outofband_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/internal/spool/spooltest"
	"github.com/wisp-agent/wisp/policy"
	"github.com/wisp-agent/wisp/policy/outofband"
)

// t0 is the Store's clock in these tests.
var t0 = time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)

// clock is an injected After: it records what it was asked to wait for
// and fires only when the test says.
type clock struct {
	mu    sync.Mutex
	waits []time.Duration
	fire  chan time.Time
}

func newClock() *clock { return &clock{fire: make(chan time.Time, 1)} }

func (c *clock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.waits = append(c.waits, d)
	return c.fire
}

func (c *clock) asked() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.waits
}

func newStore(t *testing.T) outofband.Store {
	return outofband.Store{Dir: filepath.Join(t.TempDir(), "approvals"), Now: func() time.Time { return t0 }}
}

func enable() wisp.ApprovalRequest {
	return wisp.ApprovalRequest{
		ID: "7f3a2c1d", Session: "3f2a9c1d", Thread: "t-81b2c3d4", Turn: 3,
		Kind: "modelAction", Command: "models enable ollama:qwen3:4b", Pattern: "models enable *",
		Text:   "turns ollama:qwen3:4b on in config.json",
		Scopes: []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession},
	}
}

// TestApproverDecided: a decision in time is the person's, and the
// request's files are removed.
func TestApproverDecided(t *testing.T) {
	tests := []struct {
		name  string
		scope wisp.Scope
		from  string
		want  wisp.Decision
	}{
		{"approved once at a terminal", wisp.ScopeOnce, outofband.FromTerminal, wisp.Decision{Scope: wisp.ScopeOnce, Provenance: wisp.FromPerson}},
		{"approved for the session in the dialog", wisp.ScopeSession, outofband.FromElicitation, wisp.Decision{Scope: wisp.ScopeSession, Provenance: wisp.FromPerson}},
		{"denied", wisp.ScopeNone, outofband.FromTerminal, wisp.Decision{Reason: policy.ReasonDeclined, Provenance: wisp.FromPerson}},
	}
	for _, tt := range tests {
		for _, async := range []bool{false, true} {
			name := tt.name
			if async {
				name += ", later"
			}
			t.Run(name, func(t *testing.T) {
				s := newStore(t)
				c := newClock()
				var announced []outofband.Request
				var announceCtx context.Context
				a := outofband.NewApprover(s, &outofband.ApproverOptions{
					After: c.After,
					Announce: func(ctx context.Context, r outofband.Request) {
						announced = append(announced, r)
						announceCtx = ctx
						decide := func() {
							if err := s.Decide(ctx, outofband.Decision{ID: r.ID, Digest: r.Digest, Scope: tt.scope, From: tt.from}); err != nil {
								t.Error(err)
							}
						}
						if async {
							go decide()
						} else {
							decide()
						}
					},
				})
				got, err := a.Approve(t.Context(), enable())
				if err != nil {
					t.Fatalf("Approve = %v", err)
				}
				if len(got.FileSHA256) != 64 {
					t.Errorf("Approve = %+v; want the SHA-256 of the decision's file", got)
				}
				got.FileSHA256 = ""
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("Approve (-want +got):\n%s", diff)
				}
				if len(announced) != 1 {
					t.Fatalf("Announce called %d times, want once", len(announced))
				}
				r := announced[0]
				if r.Command != enable().Command || !r.Deadline.Equal(t0.Add(time.Minute)) || !r.Asked.Equal(t0) || r.Digest == "" {
					t.Errorf("announced %+v; want the request, asked at t0, due in 60 s", r)
				}
				if announceCtx.Err() == nil {
					t.Error("Announce's context is not done after Approve returned")
				}
				if diff := cmp.Diff([]time.Duration{time.Minute}, c.asked()); diff != "" {
					t.Errorf("waited (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff([]string{".lock"}, spooltest.Names(t, s.Dir)); diff != "" {
					t.Errorf("files after the decision (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestApproverSilence: nobody answers; the request is withdrawn and
// refused, and a late answer is told why.
func TestApproverSilence(t *testing.T) {
	tests := []struct {
		name     string
		opts     outofband.ApproverOptions
		deadline time.Time
		wait     time.Duration
		reason   string
	}{
		{"the default hold", outofband.ApproverOptions{}, time.Time{}, time.Minute, "no answer within 1 min"},
		{"a hold of 10 s", outofband.ApproverOptions{Hold: 10 * time.Second}, time.Time{}, 10 * time.Second, "no answer within 10 s"},
		{"the request's deadline comes first", outofband.ApproverOptions{}, t0.Add(5 * time.Second), 5 * time.Second, "no answer within 5 s"},
		{"the hold comes first", outofband.ApproverOptions{Hold: 30 * time.Second}, t0.Add(5 * time.Minute), 30 * time.Second, "no answer within 30 s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t)
			c := newClock()
			opts := tt.opts
			opts.After = c.After
			var filed outofband.Request
			opts.Announce = func(ctx context.Context, r outofband.Request) {
				filed = r
				c.fire <- t0.Add(tt.wait)
			}
			req := enable()
			req.Deadline = tt.deadline
			got, err := outofband.NewApprover(s, &opts).Approve(t.Context(), req)
			if err != nil {
				t.Fatalf("Approve = %v", err)
			}
			want := wisp.Decision{Reason: tt.reason, Provenance: wisp.FromTimeout}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Approve (-want +got):\n%s", diff)
			}
			if policy.ReasonTimedOut(tt.wait) != tt.reason {
				t.Errorf("the reason is not policy.ReasonTimedOut's wording")
			}
			if diff := cmp.Diff([]time.Duration{tt.wait}, c.asked()); diff != "" {
				t.Errorf("waited (-want +got):\n%s", diff)
			}
			if !filed.Deadline.Equal(t0.Add(tt.wait)) {
				t.Errorf("filed deadline %v, want %v", filed.Deadline, t0.Add(tt.wait))
			}
			_, err = s.Get(filed.ID)
			if !errors.Is(err, outofband.ErrWithdrawn) || err.Error() != "approval request 7f3a2c1d was withdrawn ("+tt.reason+") and takes no answer" {
				t.Errorf("Get after silence = %v, want ErrWithdrawn saying why", err)
			}
			err = s.Decide(t.Context(), outofband.Decision{ID: filed.ID, Digest: filed.Digest, Scope: wisp.ScopeOnce, From: outofband.FromTerminal})
			if !errors.Is(err, outofband.ErrWithdrawn) {
				t.Errorf("a late Decide = %v, want ErrWithdrawn", err)
			}
			if list, err := s.List(); err != nil || len(list) != 0 {
				t.Errorf("List after silence = %v, %v; want nothing", list, err)
			}
		})
	}
}

// TestApproverHoldBeginsBeforeFiling: the hold has begun by the time the
// request can be seen in the folder, so whoever sees it filed and ends
// the hold (a clock, a test) never does so before the hold runs, and the
// hold never outlasts the request's deadline.
func TestApproverHoldBeginsBeforeFiling(t *testing.T) {
	s := newStore(t)
	c := newClock()
	var seen []outofband.Request
	a := outofband.NewApprover(s, &outofband.ApproverOptions{
		After: func(d time.Duration) <-chan time.Time {
			rs, err := s.List()
			if err != nil {
				t.Errorf("List = %v", err)
			}
			seen = rs
			return c.After(d)
		},
		Announce: func(context.Context, outofband.Request) { c.fire <- t0 },
	})
	got, err := a.Approve(t.Context(), enable())
	if err != nil || got != (wisp.Decision{Reason: policy.ReasonTimedOut(time.Minute), Provenance: wisp.FromTimeout}) {
		t.Errorf("Approve = %+v, %v; want refused for silence", got, err)
	}
	if diff := cmp.Diff([]time.Duration{time.Minute}, c.asked()); diff != "" {
		t.Errorf("waited (-want +got):\n%s", diff)
	}
	if len(seen) != 0 {
		t.Errorf("when the hold began the folder listed %+v; want the request not yet filed", seen)
	}
}

// TestApproverDecisionBeatsWithdrawal: a decision filed before the
// withdrawal wins, whichever the Approver notices first.
func TestApproverDecisionBeatsWithdrawal(t *testing.T) {
	for range 20 {
		s := newStore(t)
		c := newClock()
		a := outofband.NewApprover(s, &outofband.ApproverOptions{
			After: c.After,
			Announce: func(ctx context.Context, r outofband.Request) {
				if err := s.Decide(ctx, outofband.Decision{ID: r.ID, Digest: r.Digest, Scope: wisp.ScopeSession, From: outofband.FromTerminal}); err != nil {
					t.Error(err)
				}
				c.fire <- t0
			},
		})
		got, err := a.Approve(t.Context(), enable())
		got.FileSHA256 = ""
		if err != nil || got != (wisp.Decision{Scope: wisp.ScopeSession, Provenance: wisp.FromPerson}) {
			t.Fatalf("Approve = %+v, %v; want the person's session", got, err)
		}
	}
}

// TestApproverCancelled: the turn ends while the request waits; no
// approval, the request withdrawn.
func TestApproverCancelled(t *testing.T) {
	errStop := errors.New("the client cancelled the call")
	s := newStore(t)
	ctx, cancel := context.WithCancelCause(t.Context())
	defer cancel(nil)
	var filed outofband.Request
	a := outofband.NewApprover(s, &outofband.ApproverOptions{
		After: newClock().After,
		Announce: func(_ context.Context, r outofband.Request) {
			filed = r
			cancel(errStop)
		},
	})
	got, err := a.Approve(ctx, enable())
	if !errors.Is(err, errStop) || got != (wisp.Decision{}) {
		t.Fatalf("Approve = %+v, %v; want no decision and %v", got, err, errStop)
	}
	if _, err := s.Get(filed.ID); !errors.Is(err, outofband.ErrWithdrawn) || err.Error() != "approval request 7f3a2c1d was withdrawn (the turn that asked ended) and takes no answer" {
		t.Errorf("Get after the turn ended = %v, want ErrWithdrawn", err)
	}

	// A context done before Approve files nothing.
	s2 := newStore(t)
	got, err = outofband.NewApprover(s2, nil).Approve(ctx, enable())
	if !errors.Is(err, errStop) || got != (wisp.Decision{}) {
		t.Errorf("Approve with a done context = %+v, %v", got, err)
	}
	if _, err := os.Lstat(s2.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Approve with a done context touched the folder: %v", err)
	}
}

// TestApproverRefusesWhatItCannotFile: a request that cannot be filed is
// no approval, and the error says why in one line.
func TestApproverRefusesWhatItCannotFile(t *testing.T) {
	s := newStore(t)
	a := outofband.NewApprover(s, &outofband.ApproverOptions{After: newClock().After})
	bad := enable()
	bad.ID = "id1"
	if got, err := a.Approve(t.Context(), bad); !errors.Is(err, outofband.ErrBadID) || got.Approved() {
		t.Errorf("Approve with ID id1 = %+v, %v; want ErrBadID", got, err)
	}
	past := enable()
	past.Deadline = t0.Add(-time.Second)
	if got, err := a.Approve(t.Context(), past); err != nil || got != (wisp.Decision{Reason: "no answer within 0 s", Provenance: wisp.FromTimeout}) {
		t.Errorf("Approve past its deadline = %+v, %v; want refused", got, err)
	}
	if _, err := os.Lstat(s.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("refused requests touched the folder: %v", err)
	}
}

// TestApproverBehindTheGate runs the Approver as policy.Gate's: the
// person's answer is recorded as the person's, silence as wisp's.
func TestApproverBehindTheGate(t *testing.T) {
	s := newStore(t)
	c := newClock()
	answer := wisp.ScopeSession
	a := outofband.NewApprover(s, &outofband.ApproverOptions{
		After: c.After,
		Announce: func(ctx context.Context, r outofband.Request) {
			if answer == wisp.ScopeNone {
				c.fire <- t0
				return
			}
			if err := s.Decide(ctx, outofband.Decision{ID: r.ID, Digest: r.Digest, Scope: answer, From: outofband.FromElicitation}); err != nil {
				t.Error(err)
			}
		},
	})
	var mu sync.Mutex
	var decided []wisp.Event
	ids := []string{"7f3a2c1d", "0a0b0c0d"}
	rows, err := policy.NewClassifier(policy.Rule{Pattern: "models ...", Rating: policy.Moderate, Reason: "changes the models"})
	if err != nil {
		t.Fatal(err)
	}
	g := policy.NewGate(&policy.GateOptions{
		Approver: a, Session: "3f2a9c1d", Now: func() time.Time { return t0 }, Classifier: rows,
		NewID: func() string { id := ids[0]; ids = ids[1:]; return id },
		Events: wisp.EventSinkFunc(func(ctx context.Context, e wisp.Event) error {
			mu.Lock()
			defer mu.Unlock()
			if e.Kind() == wisp.KindApprovalDecided {
				decided = append(decided, e)
			}
			return nil
		}),
	})
	req := policy.Request{Thread: "t-81b2c3d4", Turn: 3, Kind: "modelAction", Command: "models enable ollama:qwen3:4b",
		Pattern: "models enable *", Scopes: []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession}, AlwaysAsk: true}
	out, err := g.Ask(t.Context(), req)
	if len(out.FileSHA256) != 64 {
		t.Errorf("Ask = %+v; want the SHA-256 of the decision's file", out)
	}
	out.FileSHA256 = ""
	if err != nil || out != (policy.Outcome{Approved: true, ID: "7f3a2c1d", Scope: wisp.ScopeSession}) {
		t.Errorf("Ask = %+v, %v; want approved for the session", out, err)
	}
	answer = wisp.ScopeNone
	req.Command, req.Pattern = "models disable ollama:qwen3:4b", "models disable *"
	out, err = g.Ask(t.Context(), req)
	if err != nil || out != (policy.Outcome{ID: "0a0b0c0d", Reason: "no answer within 1 min"}) {
		t.Errorf("Ask unanswered = %+v, %v; want refused", out, err)
	}
	if len(decided) != 2 || decided[0].Source != wisp.SourcePerson || decided[1].Source != wisp.SourceWisp {
		t.Errorf("approval.decided records %+v; want the person's, then wisp's", decided)
	}
}
