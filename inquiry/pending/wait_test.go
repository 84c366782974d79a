package pending

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/wisp-agent/wisp"
)

// TestWait checks each way Wait ends, in fake time.
func TestWait(t *testing.T) {
	errDone := errors.New("the turn ended")
	tests := []struct {
		name string
		// end ends the wait 10 s in; nil leaves it to ctx.
		end     func(t *testing.T, s Store, q Question)
		wantErr error
	}{
		{"answer", func(t *testing.T, s Store, q Question) {
			if err := s.Answer(context.Background(), Answer{ID: q.ID, Digest: q.Digest, Outcome: wisp.OutcomeAnswered, Text: "8080", From: FromTerminal}); err != nil {
				t.Error(err)
			}
		}, nil},
		{"withdraw", func(t *testing.T, s Store, q Question) {
			if err := s.Withdraw(context.Background(), q.ID, "the thread ended"); err != nil {
				t.Error(err)
			}
		}, ErrWithdrawn},
		{"settle", func(t *testing.T, s Store, q Question) {
			if err := s.Settle(context.Background(), q.ID); err != nil {
				t.Error(err)
			}
		}, ErrNoQuestion},
		{"ctx", nil, errDone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := testStore(t)
				s.Now = nil
				q := mustFile(t, s, free)
				ctx, cancel := context.WithCancelCause(context.Background())
				defer cancel(nil)
				type result struct {
					a   Answer
					err error
					at  time.Time
				}
				done := make(chan result, 1)
				go func() {
					a, err := s.Wait(ctx, q.ID)
					done <- result{a, err, time.Now()}
				}()
				time.Sleep(10 * time.Second)
				synctest.Wait()
				select {
				case r := <-done:
					t.Fatalf("Wait returned before its end: %v", r.err)
				default:
				}
				ended := time.Now()
				if tt.end != nil {
					tt.end(t, s, q)
				} else {
					cancel(errDone)
				}
				time.Sleep(pollInterval)
				synctest.Wait()
				var r result
				select {
				case r = <-done:
				default:
					t.Fatalf("Wait did not return within %v of its end", pollInterval)
				}
				if !errors.Is(r.err, tt.wantErr) || tt.wantErr == nil && r.err != nil {
					t.Fatalf("Wait = %v, want %v", r.err, tt.wantErr)
				}
				if d := r.at.Sub(ended); d > pollInterval {
					t.Errorf("Wait returned %v after its end, want at most %v", d, pollInterval)
				}
				if tt.wantErr == nil && (r.a.Text != "8080" || r.a.ID != q.ID) {
					t.Errorf("Wait = %+v, want the answer 8080", r.a)
				}
			})
		})
	}
}

// TestWaitNoQuestion checks that Wait ends at once for a question that is
// not filed.
func TestWaitNoQuestion(t *testing.T) {
	s := testStore(t)
	if _, err := s.Wait(t.Context(), "a1b2c3d4"); !errors.Is(err, ErrNoQuestion) {
		t.Errorf("Wait for no question = %v, want ErrNoQuestion", err)
	}
	mustFile(t, s, free)
	if _, err := s.Wait(t.Context(), "a1b2c3d4"); !errors.Is(err, ErrNoQuestion) {
		t.Errorf("Wait for no question = %v, want ErrNoQuestion", err)
	}
}
