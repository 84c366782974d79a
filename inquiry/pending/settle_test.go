package pending

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/internal/spool/spooltest"
)

// answered files a question with an answer and returns it.
func answered(t *testing.T, s Store) Question {
	t.Helper()
	q := mustFile(t, s, free)
	if err := s.Answer(t.Context(), Answer{ID: q.ID, Digest: q.Digest, Outcome: wisp.OutcomeAnswered, Text: "8080", From: FromTerminal}); err != nil {
		t.Fatal(err)
	}
	return q
}

// TestSettle checks that Settle leaves nothing of the question and that
// settling twice, or a question never filed, does nothing.
func TestSettle(t *testing.T) {
	s := testStore(t)
	q := answered(t, s)
	keep := mustFile(t, s, choice)
	for range 2 {
		if err := s.Settle(t.Context(), q.ID); err != nil {
			t.Fatalf("Settle = %v", err)
		}
	}
	want := []string{lockName, keep.ID + ".question.json"}
	if diff := cmp.Diff(want, spooltest.Names(t, s.Dir)); diff != "" {
		t.Errorf("folder after Settle (-want +got):\n%s", diff)
	}
	if _, _, err := s.Answered(q.ID); !errors.Is(err, ErrNoQuestion) {
		t.Errorf("Answered after Settle = %v, want ErrNoQuestion", err)
	}
	if err := (Store{Dir: filepath.Join(t.TempDir(), "none")}).Settle(t.Context(), q.ID); err != nil {
		t.Errorf("Settle in a missing folder = %v", err)
	}
}

// TestSettleCrash does Settle's first step by hand, as a crash would leave
// it, and checks that the question is gone for every method and that the
// next Settle or Sweep clears what is left.
func TestSettleCrash(t *testing.T) {
	tests := []struct {
		name string
		// crash makes the state a crash leaves; it returns the question.
		crash func(t *testing.T, s Store) Question
	}{
		{"answer left", func(t *testing.T, s Store) Question {
			q := answered(t, s)
			os.Remove(s.path(q.ID, kindQuestion))
			return q
		}},
		{"withdrawal left", func(t *testing.T, s Store) Question {
			q := mustFile(t, s, free)
			if err := s.Withdraw(t.Context(), q.ID, "the thread ended"); err != nil {
				t.Fatal(err)
			}
			os.Remove(s.path(q.ID, kindQuestion))
			return q
		}},
		{"temp files left", func(t *testing.T, s Store) Question {
			q := answered(t, s)
			os.Remove(s.path(q.ID, kindQuestion))
			os.Remove(s.path(q.ID, kindAnswer))
			for _, name := range []string{"." + q.ID + ".answer.json.tmp-123", "." + q.ID + ".question.json.tmp-456"} {
				if err := os.WriteFile(filepath.Join(s.Dir, name), []byte("{"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			return q
		}},
	}
	for _, tt := range tests {
		for _, repair := range []string{"Settle", "Sweep"} {
			t.Run(tt.name+"/"+repair, func(t *testing.T) {
				s := testStore(t)
				q := tt.crash(t, s)
				keep := answered(t, s)
				if got, err := s.List(); err != nil || len(got) != 0 {
					t.Errorf("List() = %v, %v; want nothing", got, err)
				}
				if _, err := s.Get(q.ID); !errors.Is(err, ErrNoQuestion) {
					t.Errorf("Get = %v, want ErrNoQuestion", err)
				}
				if _, _, err := s.Answered(q.ID); !errors.Is(err, ErrNoQuestion) {
					t.Errorf("Answered = %v, want ErrNoQuestion", err)
				}
				if err := s.Answer(t.Context(), Answer{ID: q.ID, Digest: q.Digest, Outcome: wisp.OutcomeDeclined, From: FromTerminal}); !errors.Is(err, ErrNoQuestion) {
					t.Errorf("Answer = %v, want ErrNoQuestion", err)
				}
				if _, err := s.Wait(t.Context(), q.ID); !errors.Is(err, ErrNoQuestion) {
					t.Errorf("Wait = %v, want ErrNoQuestion", err)
				}
				var err error
				if repair == "Settle" {
					err = s.Settle(t.Context(), q.ID)
				} else {
					err = s.Sweep(t.Context())
				}
				if err != nil {
					t.Fatalf("%s = %v", repair, err)
				}
				want := []string{lockName, keep.ID + ".answer.json", keep.ID + ".question.json"}
				if diff := cmp.Diff(want, spooltest.Names(t, s.Dir)); diff != "" {
					t.Errorf("folder after %s (-want +got):\n%s", repair, diff)
				}
			})
		}
	}
}

// TestSettleOrder makes Settle fail after its first step (the answer's
// name holds a folder it cannot remove) and checks that the question was
// removed first: the failure leaves it settled, never open again.
func TestSettleOrder(t *testing.T) {
	s := testStore(t)
	q := mustFile(t, s, free)
	stuck := s.path(q.ID, kindAnswer)
	if err := os.MkdirAll(filepath.Join(stuck, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := s.Settle(t.Context(), q.ID); err == nil {
		t.Fatal("Settle removed a folder it should not have")
	}
	if _, err := os.Lstat(s.path(q.ID, kindQuestion)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after a failed Settle the question file is still there (%v); it must go first", err)
	}
	if got, err := s.List(); err != nil || len(got) != 0 {
		t.Errorf("List() = %v, %v; want nothing", got, err)
	}
}
