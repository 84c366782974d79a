package pending

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/internal/fsx"
	"github.com/wisp-agent/wisp/internal/spool"
	"github.com/wisp-agent/wisp/wisptest"
)

// witnessFunc is a Witness that hands each event to record and vouches
// through vouched.
type witnessFunc struct {
	record  func(wisp.Event) error
	vouched func(kind, id, sum string) (bool, error)
}

func (w witnessFunc) Record(_ context.Context, e wisp.Event) error { return w.record(e) }
func (w witnessFunc) Vouched(_ context.Context, kind, id, sum string) (bool, error) {
	return w.vouched(kind, id, sum)
}

// With a Witness, Answer records who answers before the answer's file
// appears, binding the record to the file's bytes.
func TestAnswerIsWitnessedFirst(t *testing.T) {
	s := testStore(t, "a1b2c3d4")
	q := mustFile(t, s, choice)
	rec := &wisptest.Recorder{}
	s.Witness = witnessFunc{
		record: func(e wisp.Event) error {
			if there, _ := ledger.Present(s.path(q.ID, kindAnswer)); there {
				t.Errorf("%s recorded after the answer's file appeared", e.Kind())
			}
			return rec.Record(t.Context(), e)
		},
		vouched: func(kind, id, sum string) (bool, error) { return rec.Vouched(t.Context(), kind, id, sum) },
	}
	a := Answer{ID: q.ID, Digest: q.Digest, Outcome: wisp.OutcomeChose, Text: "./wisp.json", From: FromTerminal, Terminal: "/dev/pts/3"}
	if err := s.Answer(t.Context(), a); err != nil {
		t.Fatalf("Answer = %v", err)
	}
	data, err := os.ReadFile(s.path(q.ID, kindAnswer))
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := fsx.CurrentUID()
	want := []wisp.Event{{
		Time: t0, Session: "s1", Thread: "t1", Turn: 3, Source: wisp.SourcePerson,
		Data: wisp.InquiryAnsweredData{
			ID: q.ID, Question: q.Text, Outcome: "chose", Answer: "./wisp.json", From: FromTerminal,
			Terminal: "/dev/pts/3", UID: &uid, PID: os.Getpid(), FileSHA256: spool.Sum(data),
		},
	}}
	if diff := cmp.Diff(want, rec.Events("")); diff != "" {
		t.Errorf("recorded (-want +got):\n%s", diff)
	}
	got, ok, err := s.Answered(q.ID)
	if err != nil || !ok || got.FileSHA256 != spool.Sum(data) || got.Text != "./wisp.json" {
		t.Errorf("Answered = %+v, %v, %v; want the answer, vouched for", got, ok, err)
	}
	if got, err := s.Wait(t.Context(), q.ID); err != nil || got.Text != "./wisp.json" {
		t.Errorf("Wait = %+v, %v; want the answer", got, err)
	}
}

// An answer whose record cannot be written is not filed.
func TestAnswerUnrecordedIsNotFiled(t *testing.T) {
	s := testStore(t, "a1b2c3d4")
	q := mustFile(t, s, free)
	s.Witness = witnessFunc{
		record:  func(wisp.Event) error { return errors.New("disk full") },
		vouched: func(string, string, string) (bool, error) { return false, nil },
	}
	err := s.Answer(t.Context(), Answer{ID: q.ID, Digest: q.Digest, Outcome: wisp.OutcomeAnswered, Text: "8080", From: FromTerminal})
	want := "cannot file the answer to question a1b2c3d4: the record of who answers could not be written (disk full)"
	if !errors.Is(err, ErrUnrecorded) || !errors.Is(err, wisp.ErrNotRecorded) || err.Error() != want {
		t.Errorf("Answer = %v, want %q, ErrUnrecorded and wisp.ErrNotRecorded", err, want)
	}
	if there, err := ledger.Present(s.path(q.ID, kindAnswer)); there || err != nil {
		t.Errorf("an answer is on file (%v) though it was not recorded", err)
	}
	if qs, err := s.List(); err != nil || len(qs) != 1 {
		t.Errorf("List = %v, %v; want the question still waiting", qs, err)
	}
}

// An answer written into the folder by anything that did not record it
// (here a Store without a Witness, as a hand-written file would be) is
// refused wherever it would be taken: recorded as inquiry.refused,
// removed, and the question waits for the person's answer.
func TestPlantedAnswerIsRefused(t *testing.T) {
	for _, taker := range []string{"Answered", "Filed", "Wait"} {
		t.Run(taker, func(t *testing.T) {
			planter := testStore(t, "a1b2c3d4")
			q := mustFile(t, planter, choice)
			if err := planter.Answer(t.Context(), Answer{ID: q.ID, Digest: q.Digest, Outcome: wisp.OutcomeChose, Text: "./wisp.json", From: FromTerminal}); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(planter.path(q.ID, kindAnswer))
			if err != nil {
				t.Fatal(err)
			}
			rec := &wisptest.Recorder{}
			s := planter
			s.Witness = rec
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			switch taker {
			case "Answered":
				if a, ok, err := s.Answered(q.ID); ok || err != nil {
					t.Errorf("Answered = %+v, %v, %v; want no answer", a, ok, err)
				}
			case "Filed":
				recs, err := s.Filed("t1")
				if err != nil || len(recs) != 1 || recs[0].Answered {
					t.Errorf("Filed = %+v, %v; want the question, unanswered", recs, err)
				}
			case "Wait":
				// Wait goes on waiting, and takes the person's answer.
				done := make(chan Answer)
				go func() {
					a, err := s.Wait(ctx, q.ID)
					if err != nil {
						t.Errorf("Wait = %v", err)
					}
					done <- a
				}()
				for len(rec.Events(wisp.KindInquiryRefused)) == 0 {
					select {
					case a := <-done:
						t.Fatalf("Wait = %+v before refusing the planted answer", a)
					default:
						waitABit()
					}
				}
				a := Answer{ID: q.ID, Digest: q.Digest, Outcome: wisp.OutcomeChose, Text: "~/.wisp/config.json", From: FromTerminal}
				for {
					err := s.Answer(t.Context(), a)
					if err == nil {
						break
					}
					if !errors.Is(err, ErrAnswered) {
						t.Fatalf("Answer = %v", err)
					}
					waitABit() // the refused file is being removed
				}
				if got := <-done; got.Text != a.Text {
					t.Errorf("Wait = %+v, want the person's answer", got)
				}
			}
			refused := rec.Events(wisp.KindInquiryRefused)
			want := wisp.Event{
				Time: t0, Session: "s1", Thread: "t1", Turn: 3, Source: wisp.SourceWisp,
				Data: wisp.InquiryRefusedData{
					ID: q.ID, Question: q.Text, Outcome: "chose", Answer: "./wisp.json", From: FromTerminal,
					FileSHA256: spool.Sum(data), Reason: ReasonUnvouched,
				},
			}
			if len(refused) != 1 {
				t.Fatalf("refused %+v, want one inquiry.refused", refused)
			}
			if diff := cmp.Diff(want, refused[0]); diff != "" {
				t.Errorf("inquiry.refused (-want +got):\n%s", diff)
			}
			if taker == "Wait" {
				return
			}
			if there, err := ledger.Present(s.path(q.ID, kindAnswer)); there || err != nil {
				t.Errorf("the refused answer is still on file (%v)", err)
			}
			if qs, err := s.List(); err != nil || len(qs) != 1 {
				t.Errorf("List = %v, %v; want the question waiting again", qs, err)
			}
		})
	}
}

// waitABit lets another goroutine run before a condition is looked at
// again.
func waitABit() { time.Sleep(time.Millisecond) }
