package pending

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry"
)

// The inbox of a thread's next turn: an answer that came after its turn
// (settled through the desk, with its fact), a withdrawn question (only
// settled), one past its deadline (withdrawn, and told as timed out), a
// damaged file (told it will not be answered); questions that still wait
// and other threads' are left. Once delivered, what was taken is settled.
func TestInbox(t *testing.T) {
	s := testStore(t, "0000000a", "0000000b", "0000000c", "0000000d", "0000000e")
	at := func(q wisp.Question, deadline time.Time) wisp.Question {
		q.Thread, q.Deadline = "t1", deadline
		return q
	}
	answered := mustFile(t, s, at(choice, time.Time{}))
	withdrawn := mustFile(t, s, at(free, time.Time{}))
	late := mustFile(t, s, at(free, t0.Add(-time.Minute)))
	waiting := mustFile(t, s, at(free, t0.Add(time.Hour)))
	other := mustFile(t, s, choice)
	other.Thread = "t-other"
	if err := s.Answer(t.Context(), Answer{ID: answered.ID, Digest: answered.Digest, Outcome: wisp.OutcomeChose, Text: "./wisp.json", From: FromTerminal}); err != nil {
		t.Fatal(err)
	}
	if err := s.Withdraw(t.Context(), withdrawn.ID, "the thread ended"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.Dir, "0badf00d.question.json"), []byte(`{"version":1,"id":"0badf00d","thread":"t1","tu`), 0o600); err != nil {
		t.Fatal(err)
	}

	desk := inquiry.NewDesk(wisp.InquirerFunc(nil), &inquiry.Options{Session: "s1", Timeout: 10 * time.Minute, Now: func() time.Time { return t0 }})
	box := Inbox(s, desk)
	mail, err := box.Take(t.Context(), "t1", 4)
	if err != nil {
		t.Fatal(err)
	}
	want := []wisp.Mail{
		{Text: inquiry.LineDamaged("0badf00d"), Key: "0badf00d"},
		{Text: inquiry.LineLate(choice.Text, answered.ID, "chose: ./wisp.json"), Key: answered.ID,
			Facts: []wisp.Fact{{Subject: "answer", Name: choice.Text, Value: "./wisp.json", Source: wisp.SourcePerson, Turn: 4}}},
		{Key: withdrawn.ID},
		{Text: inquiry.LineLate(free.Text, late.ID, inquiry.LineTimedOut(10*time.Minute)), Key: late.ID},
	}
	if diff := cmp.Diff(want, mail); diff != "" {
		t.Errorf("Take (-want +got):\n%s", diff)
	}
	box.Delivered(t.Context(), "t1", mail)
	recs, err := s.Filed("")
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, r := range recs {
		left = append(left, r.Question.ID)
	}
	if diff := cmp.Diff([]string{waiting.ID, other.ID}, left); diff != "" {
		t.Errorf("left in the folder (-want +got):\n%s", diff)
	}
	if ds, err := s.Damaged(); err != nil || len(ds) != 0 {
		t.Errorf("Damaged after delivery = %+v, %v; want the damaged file settled", ds, err)
	}
}
