package outofband_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/internal/fsx"
	"github.com/wisp-agent/wisp/internal/spool"
	"github.com/wisp-agent/wisp/policy"
	"github.com/wisp-agent/wisp/policy/outofband"
	"github.com/wisp-agent/wisp/wisptest"
)

// failingWitness records nothing.
type failingWitness struct{}

func (failingWitness) Record(context.Context, wisp.Event) error { return errors.New("disk full") }
func (failingWitness) Vouched(context.Context, string, string, string) (bool, error) {
	return false, nil
}

// With a Witness, Decide records approval.answered, bound to the
// decision's file, before the file appears; when that cannot be recorded
// nothing is filed.
func TestDecideIsWitnessed(t *testing.T) {
	s := newStore(t)
	rec := &wisptest.Recorder{}
	s.Witness = rec
	r, err := s.File(t.Context(), enable())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Decide(t.Context(), outofband.Decision{ID: r.ID, Digest: r.Digest, Scope: wisp.ScopeOnce, From: outofband.FromTerminal, Terminal: "/dev/pts/7"}); err != nil {
		t.Fatalf("Decide = %v", err)
	}
	data, err := os.ReadFile(filepath.Join(s.Dir, r.ID+".decision.json"))
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := fsx.CurrentUID()
	want := []wisp.Event{{
		Time: t0, Session: r.Session, Thread: r.Thread, Turn: r.Turn,
		Source: wisp.SourcePerson, Approval: r.ID,
		Data: wisp.ApprovalAnsweredData{
			ID: r.ID, Command: r.Command, Scope: "once", From: outofband.FromTerminal,
			Terminal: "/dev/pts/7", UID: &uid, PID: os.Getpid(), FileSHA256: spool.Sum(data),
		},
	}}
	if diff := cmp.Diff(want, rec.Events("")); diff != "" {
		t.Errorf("recorded (-want +got):\n%s", diff)
	}
	if d, ok, err := s.Decided(r.ID); err != nil || !ok || d.FileSHA256 != spool.Sum(data) {
		t.Errorf("Decided = %+v, %v, %v; want the decision, vouched for", d, ok, err)
	}

	s = newStore(t)
	s.Witness = failingWitness{}
	r, err = s.File(t.Context(), enable())
	if err != nil {
		t.Fatal(err)
	}
	err = s.Decide(t.Context(), outofband.Decision{ID: r.ID, Digest: r.Digest, Scope: wisp.ScopeOnce, From: outofband.FromTerminal})
	if !errors.Is(err, outofband.ErrUnrecorded) || !errors.Is(err, wisp.ErrNotRecorded) {
		t.Errorf("Decide with a Witness that cannot record = %v, want ErrUnrecorded and wisp.ErrNotRecorded", err)
	}
	if _, err := s.Get(r.ID); err != nil {
		t.Errorf("Get = %v; want the request still waiting", err)
	}
}

// A decision written into the folder by anything that did not record it
// (a copied digest in a hand-written file) never approves: the Approver
// refuses it (approval.refused), removes it, and waits on; the person's
// decision, recorded, still wins.
func TestPlantedDecisionIsRefused(t *testing.T) {
	planter := newStore(t) // no Witness: writes as a hand would
	rec := &wisptest.Recorder{}
	s := planter
	s.Witness = rec
	c := newClock()
	planted := make(chan string, 1)
	a := outofband.NewApprover(s, &outofband.ApproverOptions{
		After: c.After,
		Announce: func(ctx context.Context, r outofband.Request) {
			if err := planter.Decide(ctx, outofband.Decision{ID: r.ID, Digest: r.Digest, Scope: wisp.ScopeSession, From: outofband.FromTerminal}); err != nil {
				t.Error(err)
			}
			data, _ := os.ReadFile(filepath.Join(s.Dir, r.ID+".decision.json"))
			planted <- spool.Sum(data)
			go func() {
				// Once the planted decision is refused, the person denies.
				for len(rec.Events(wisp.KindApprovalRefused)) == 0 {
					if ctx.Err() != nil {
						return
					}
					waitABit()
				}
				for {
					err := s.Decide(ctx, outofband.Decision{ID: r.ID, Digest: r.Digest, Scope: wisp.ScopeNone, From: outofband.FromTerminal})
					if !errors.Is(err, outofband.ErrDecided) {
						if err != nil {
							t.Error(err)
						}
						return
					}
					waitABit()
				}
			}()
		},
	})
	got, err := a.Approve(t.Context(), enable())
	if err != nil {
		t.Fatalf("Approve = %v", err)
	}
	if got.Approved() || got.Reason != policy.ReasonDeclined || got.FileSHA256 == "" {
		t.Errorf("Approve = %+v; want the person's denial, not the planted approval", got)
	}
	sum := <-planted
	refused := rec.Events(wisp.KindApprovalRefused)
	want := []wisp.Event{{
		Time: t0, Session: "3f2a9c1d", Thread: "t-81b2c3d4", Turn: 3,
		Source: wisp.SourceWisp, Approval: "7f3a2c1d",
		Data: wisp.ApprovalRefusedData{
			ID: "7f3a2c1d", Command: "models enable ollama:qwen3:4b", Scope: "session", From: outofband.FromTerminal,
			FileSHA256: sum, Reason: outofband.ReasonUnvouched,
		},
	}}
	if diff := cmp.Diff(want, refused); diff != "" {
		t.Errorf("approval.refused (-want +got):\n%s", diff)
	}
	if kinds := rec.Kinds(); !cmp.Equal(kinds, []string{wisp.KindApprovalRefused, wisp.KindApprovalAnswered}) {
		t.Errorf("recorded %v; want the refusal, then the person's answer", kinds)
	}
}

// Silence after a planted decision is still silence: refused, never
// approved.
func TestPlantedDecisionAloneIsSilence(t *testing.T) {
	planter := newStore(t)
	rec := &wisptest.Recorder{}
	s := planter
	s.Witness = rec
	c := newClock()
	a := outofband.NewApprover(s, &outofband.ApproverOptions{
		After: c.After,
		Announce: func(ctx context.Context, r outofband.Request) {
			if err := planter.Decide(ctx, outofband.Decision{ID: r.ID, Digest: r.Digest, Scope: wisp.ScopeOnce, From: outofband.FromTerminal}); err != nil {
				t.Error(err)
			}
			go func() {
				for len(rec.Events(wisp.KindApprovalRefused)) == 0 && ctx.Err() == nil {
					waitABit()
				}
				c.fire <- t0
			}()
		},
	})
	got, err := a.Approve(t.Context(), enable())
	if err != nil || got.Approved() || got.Provenance != wisp.FromTimeout {
		t.Errorf("Approve = %+v, %v; want refused for silence", got, err)
	}
	if n := len(rec.Events(wisp.KindApprovalRefused)); n != 1 {
		t.Errorf("%d approval.refused records, want 1", n)
	}
}

// waitABit lets another goroutine run before a condition is looked at
// again.
func waitABit() { time.Sleep(time.Millisecond) }
