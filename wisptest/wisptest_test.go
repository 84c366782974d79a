package wisptest_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/facetest"
	"github.com/wisp-agent/wisp/wisptest"
)

// The scripted person keeps the face contract, so tests built on it see
// what a real face would give them.
func TestPersonKeepsTheFaceContract(t *testing.T) {
	facetest.Run(t, func(t *testing.T, p facetest.Person) facetest.Harness {
		var rs []wisptest.Reply
		for _, a := range p.Acts() {
			switch a.Act {
			case facetest.Choose:
				rs = append(rs, wisptest.ChoosesNth(a.Option+1))
			case facetest.ChooseNone:
				rs = append(rs, wisptest.ChoosesNone())
			case facetest.Type:
				rs = append(rs, wisptest.Says(a.Text))
			case facetest.Decline:
				rs = append(rs, wisptest.Declines())
			case facetest.Silent:
				rs = append(rs, wisptest.StaysSilent())
			case facetest.Interrupt:
				rs = append(rs, wisptest.Interrupts())
			}
		}
		return facetest.Harness{Face: wisptest.NewPerson(rs...)}
	}, nil)
}

// The scripted person keeps the card contract too.
func TestPersonKeepsTheCardContract(t *testing.T) {
	facetest.RunCards(t, func(t *testing.T, acts []facetest.Person) facetest.CardHarness {
		var rs []wisptest.Reply
		var all []facetest.Person
		for _, p := range acts {
			all = append(all, p.Acts()...)
		}
		for _, p := range all {
			switch p.Act {
			case facetest.Choose:
				rs = append(rs, wisptest.ChoosesNth(p.Option+1))
			case facetest.ChooseSeveral:
				var ns []int
				for _, o := range p.Options {
					ns = append(ns, o+1)
				}
				rs = append(rs, wisptest.ChoosesNths(ns...))
			case facetest.Type:
				rs = append(rs, wisptest.Says(p.Text))
			case facetest.Decline:
				rs = append(rs, wisptest.Declines())
			case facetest.Silent:
				rs = append(rs, wisptest.StaysSilent())
			case facetest.Interrupt:
				rs = append(rs, wisptest.Interrupts())
			}
		}
		return facetest.CardHarness{Face: wisptest.NewPerson(rs...)}
	}, nil)
}

func TestPersonAnswersCards(t *testing.T) {
	env := wisp.CardQuestion{Text: "Which environment?", Options: []wisp.Option{{Label: "staging"}, {Label: "production"}}}
	checks := wisp.CardQuestion{Text: "Which checks?", Multi: true, Options: []wisp.Option{{Label: "unit"}, {Label: "lint"}, {Label: "e2e"}}}
	notes := wisp.CardQuestion{Text: "Anything else?"}
	secret := wisp.CardQuestion{Text: "Which token?", Secret: "GH_TOKEN"}
	tests := []struct {
		name    string
		replies []wisptest.Reply
		c       wisp.Card
		want    []wisp.CardAnswer
		wantErr error
	}{
		{"a label", []wisptest.Reply{wisptest.Chooses("production")}, wisp.Card{Questions: []wisp.CardQuestion{env}},
			[]wisp.CardAnswer{{Outcome: wisp.OutcomeChose, Chosen: []string{"production"}, Provenance: wisp.FromPerson}}, nil},
		{"several labels", []wisptest.Reply{wisptest.ChoosesSeveral("unit", "e2e")}, wisp.Card{Questions: []wisp.CardQuestion{checks}},
			[]wisp.CardAnswer{{Outcome: wisp.OutcomeChose, Chosen: []string{"unit", "e2e"}, Provenance: wisp.FromPerson}}, nil},
		{"a label not offered is passed on", []wisptest.Reply{wisptest.Chooses("prod")}, wisp.Card{Questions: []wisp.CardQuestion{env}},
			[]wisp.CardAnswer{{Outcome: wisp.OutcomeChose, Chosen: []string{"prod"}, Provenance: wisp.FromPerson}}, nil},
		{"by position", []wisptest.Reply{wisptest.ChoosesNth(2), wisptest.ChoosesNths(1, 3)}, wisp.Card{Questions: []wisp.CardQuestion{env, checks}},
			[]wisp.CardAnswer{{Outcome: wisp.OutcomeChose, Chosen: []string{"production"}, Provenance: wisp.FromPerson}, {Outcome: wisp.OutcomeChose, Chosen: []string{"unit", "e2e"}, Provenance: wisp.FromPerson}}, nil},
		{"text and a secret", []wisptest.Reply{wisptest.Says("ghp_x")}, wisp.Card{Questions: []wisp.CardQuestion{secret}},
			[]wisp.CardAnswer{{Outcome: wisp.OutcomeAnswered, Text: "ghp_x", Provenance: wisp.FromPerson}}, nil},
		{"the list runs out: declines", []wisptest.Reply{wisptest.Chooses("staging")}, wisp.Card{Questions: []wisp.CardQuestion{env, notes}},
			[]wisp.CardAnswer{{Outcome: wisp.OutcomeChose, Chosen: []string{"staging"}, Provenance: wisp.FromPerson}, {Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson}}, nil},
		{"interrupts after one", []wisptest.Reply{wisptest.Chooses("staging"), wisptest.Interrupts()}, wisp.Card{Questions: []wisp.CardQuestion{env, checks, notes}},
			[]wisp.CardAnswer{{Outcome: wisp.OutcomeChose, Chosen: []string{"staging"}, Provenance: wisp.FromPerson}}, wisp.ErrInterrupted},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := wisptest.NewPerson(tc.replies...)
			got, err := p.AskCard(context.Background(), tc.c)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("AskCard error = %v, want %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("AskCard answers (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]wisp.Card{tc.c}, p.Cards()); diff != "" {
				t.Errorf("Cards() (-want +got):\n%s", diff)
			}
		})
	}
}

// A silent person keeps what it answered before it fell silent, and a card
// takes a reply for each of its questions.
func TestPersonSilentOnACard(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := wisptest.NewPerson(wisptest.Says("one"), wisptest.StaysSilent(), wisptest.Says("lost"), wisptest.Says("next card"))
		c := wisp.Card{Questions: []wisp.CardQuestion{{Text: "a?"}, {Text: "b?"}, {Text: "c?"}}}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		got, err := p.AskCard(ctx, c)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("AskCard error = %v, want DeadlineExceeded", err)
		}
		if diff := cmp.Diff([]wisp.CardAnswer{{Outcome: wisp.OutcomeAnswered, Text: "one", Provenance: wisp.FromPerson}}, got); diff != "" {
			t.Errorf("AskCard answers (-want +got):\n%s", diff)
		}
		a, err := p.Ask(context.Background(), wisp.Question{Text: "next?"})
		if err != nil || a.Text != "next card" {
			t.Errorf("Ask after the card = (%+v, %v), want the fourth reply", a, err)
		}
	})
}

// Like every face, the scripted person asks again when a reply does not
// fit the question: the reply after it answers.
func TestPersonAsksAgain(t *testing.T) {
	choice := wisp.Question{Text: "Which?", Options: []string{"a", "b"}}
	p := wisptest.NewPerson(wisptest.Says("foo"), wisptest.Says("\x1b[B"), wisptest.Chooses("b"), wisptest.Says("main\x1b[A"))
	a, err := p.Ask(context.Background(), choice)
	if want := (wisp.Answer{Outcome: wisp.OutcomeChose, Text: "b", Provenance: wisp.FromPerson}); err != nil || a != want {
		t.Errorf("Ask = (%+v, %v), want %+v", a, err, want)
	}
	a, err = p.Ask(context.Background(), wisp.Question{Text: "Branch?"})
	if want := (wisp.Answer{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson}); err != nil || a != want {
		t.Errorf("Ask after text with control characters and no reply left = (%+v, %v), want %+v", a, err, want)
	}
}
