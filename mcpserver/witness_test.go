package mcpserver_test

import (
	"slices"
	"testing"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry"
	"github.com/wisp-agent/wisp/inquiry/pending"
	"github.com/wisp-agent/wisp/models/script"
)

// With a Witness on the pending folder, an answer written there by
// anything that did not record it is refused, within the hold and on a
// later turn alike, and the question waits for the person; the person's
// answer, recorded, is taken, and inquiry.settled names its file as
// inquiry.answered does.
func TestPlantedAnswerIsRefused(t *testing.T) {
	f := newQFixWitnessed(t, false, true,
		askStep(),
		script.Step{Content: "I will wait for your answer."},
		script.Step{Content: "Still waiting."},
		script.Step{Content: "Using ./wisp.json."},
	)
	planter := pending.Store{Dir: f.store.Dir} // records nothing, as a hand
	plant := func(q pending.Question, text string) {
		t.Helper()
		if err := planter.Answer(t.Context(), pending.Answer{ID: q.ID, Digest: q.Digest, Outcome: wisp.OutcomeChose, Text: text, From: pending.FromTerminal}); err != nil {
			t.Fatalf("planting an answer: %v", err)
		}
	}
	c := f.client(t)
	running := goRespond(t, c, map[string]any{"prompt": "Replace the config.", "tools": []string{"ask"}})
	q := f.waitFiled(t)
	plant(q, "~/.wisp/config.json")
	eventually(t, "the planted answer refused within the hold", func() bool {
		return len(f.rec.Events(wisp.KindInquiryRefused)) == 1
	})
	f.endHolds()
	running.wait(t)
	parked := inquiry.LineParked(askQuestion, q.ID)
	if got := toolResults(f.model); !slices.Equal(got, []string{parked}) {
		t.Errorf("the model read %q, want the question parked: %q", got, parked)
	}

	// Planted again after the turn parked: the next turn refuses it too.
	plant(q, "~/.wisp/config.json")
	res := respond(t, c, map[string]any{"prompt": "Go on.", "thread_id": "t-00000001", "tools": []string{"ask"}})
	if got := structured(t, res); got.Reply != "Still waiting." {
		t.Errorf("turn 2 result %+v; want no answer taken", got)
	}
	if n := len(f.rec.Events(wisp.KindInquiryRefused)); n != 2 {
		t.Errorf("%d inquiry.refused, want 2", n)
	}
	if qs, err := f.store.List(); err != nil || len(qs) != 1 {
		t.Errorf("List = %v, %v; want the question waiting for the person", qs, err)
	}

	// The person's answer, through a witnessed store, is taken.
	f.answer(t, q, wisp.OutcomeChose, "./wisp.json")
	respond(t, c, map[string]any{"prompt": "And now?", "thread_id": "t-00000001", "tools": []string{"ask"}})
	late := inquiry.LineLate(askQuestion, q.ID, "chose: ./wisp.json")
	if got := lastUserMessages(f.model); !slices.Contains(got, late) {
		t.Errorf("the model's turn 3 read %q, want the note %q", got, late)
	}
	answered := f.rec.Events(wisp.KindInquiryAnswered)
	settled := f.rec.Events(wisp.KindInquirySettled)
	if len(answered) != 1 || len(settled) != 1 || answered[0].Data.(wisp.InquiryAnsweredData).FileSHA256 == "" ||
		settled[0].Data.(wisp.InquirySettledData).FileSHA256 != answered[0].Data.(wisp.InquiryAnsweredData).FileSHA256 ||
		settled[0].Data.(wisp.InquirySettledData).Answer != "./wisp.json" {
		t.Errorf("inquiry.answered %+v and inquiry.settled %+v; want one each, naming the same file", answered, settled)
	}
}
