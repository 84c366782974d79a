package inquiry_test

import (
	"context"
	"errors"
	"testing"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry"
	"github.com/wisp-agent/wisp/wisptest"
)

// failingSink fails every record of one kind, as a full disk fails the
// audit log, and keeps the others.
type failingSink struct {
	kind string
	rec  wisptest.Recorder
}

func (s *failingSink) Record(ctx context.Context, e wisp.Event) error {
	if e.Kind() == s.kind {
		return errors.New("write audit.jsonl: no space left on device")
	}
	return s.rec.Record(ctx, e)
}

// A question or card the audit log cannot record ends the turn with
// wisp.ErrNotRecorded: one that is not on record is never put to the
// person, and an answer that is not on record never reaches the model.
func TestUnrecordedEndsTheTurn(t *testing.T) {
	for _, kind := range []string{wisp.KindInquiryRequested, wisp.KindInquirySettled} {
		t.Run("ask/"+kind, func(t *testing.T) {
			p := wisptest.NewPerson(wisptest.Says("release/2.4"))
			d := inquiry.NewDesk(p, &inquiry.Options{Session: "s1", Events: &failingSink{kind: kind}})
			s, err := d.Ask(context.Background(), inquiry.Request{Thread: "t1", Turn: 1, Text: "Which branch?"})
			if !errors.Is(err, wisp.ErrNotRecorded) || s.Line != "" {
				t.Fatalf("Ask with %s unrecorded = %+v, %v; want no line and an error wrapping wisp.ErrNotRecorded", kind, s, err)
			}
			if asked := len(p.Questions()); asked != map[string]int{wisp.KindInquiryRequested: 0, wisp.KindInquirySettled: 1}[kind] {
				t.Errorf("the person was asked %d times", asked)
			}
		})
		t.Run("misfit/"+kind, func(t *testing.T) {
			// A face that passes on what the question does not take: the
			// question stops, and a stop that is not on record is
			// wisp.ErrNotRecorded like any other record.
			face := wisp.InquirerFunc(func(context.Context, wisp.Question) (wisp.Answer, error) {
				return wisp.Answer{Outcome: wisp.OutcomeChose, Text: "/etc/wisp.json", Provenance: wisp.FromPerson}, nil
			})
			d := inquiry.NewDesk(face, &inquiry.Options{Session: "s1", Events: &failingSink{kind: kind}})
			_, err := d.Ask(context.Background(), inquiry.Request{Thread: "t1", Turn: 1, Text: "Which config?", Options: []string{"a", "b"}})
			if !errors.Is(err, wisp.ErrNotRecorded) {
				t.Errorf("Ask with an answer that does not fit and %s unrecorded = %v; want wisp.ErrNotRecorded", kind, err)
			}
		})
		t.Run("card/"+kind, func(t *testing.T) {
			p := wisptest.NewPerson(wisptest.Chooses("staging"))
			d := inquiry.NewDesk(p, &inquiry.Options{Session: "s1", Events: &failingSink{kind: kind}})
			q := wisp.CardQuestion{Text: "Which environment?", Header: "Env",
				Options: []wisp.Option{{Label: "staging"}, {Label: "production"}}}
			s, err := d.AskCard(context.Background(), inquiry.CardRequest{Thread: "t1", Turn: 1, Questions: []wisp.CardQuestion{q}})
			if !errors.Is(err, wisp.ErrNotRecorded) || s.Line != "" {
				t.Fatalf("AskCard with %s unrecorded = %+v, %v; want no line and an error wrapping wisp.ErrNotRecorded", kind, s, err)
			}
			if put := len(p.Cards()); put != map[string]int{wisp.KindInquiryRequested: 0, wisp.KindInquirySettled: 1}[kind] {
				t.Errorf("the card was put %d times", put)
			}
		})
	}
}
