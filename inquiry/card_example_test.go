package inquiry_test

import (
	"context"
	"fmt"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry"
	"github.com/wisp-agent/wisp/inquiry/unattended"
)

// picker is a face that shows cards: its person picks the last option of
// every choice and types a token for a secret.
type picker struct{ unattended.Face }

func (picker) AskCard(ctx context.Context, c wisp.Card) ([]wisp.CardAnswer, error) {
	answers := make([]wisp.CardAnswer, len(c.Questions))
	for i, q := range c.Questions {
		switch {
		case q.Secret != "":
			answers[i] = wisp.CardAnswer{Outcome: wisp.OutcomeAnswered, Text: "ghp_FAKE0test1EXAMPLE2not3real4Token5w6x", Provenance: wisp.FromPerson}
		case len(q.Options) > 0:
			answers[i] = wisp.CardAnswer{Outcome: wisp.OutcomeChose, Chosen: []string{q.Options[len(q.Options)-1].Label}, Provenance: wisp.FromPerson}
		}
	}
	return answers, nil
}

// A card's result says, for each question, what was chosen and who chose
// it. A face that cannot show a card, such as the unattended one, gets the
// defaults at once, marked as fallbacks; free text has no default.
func ExampleDesk_AskCard() {
	questions := []wisp.CardQuestion{
		{Text: "Which environment should the migration run against?", Header: "Env", Options: []wisp.Option{
			{Label: "staging", Description: "safe to break; data is a week old", Recommended: true},
			{Label: "production", Description: "real data; needs a maintenance window"},
		}},
		{Text: "Anything I should know before I start?"},
	}
	ctx := context.Background()

	desk := inquiry.NewDesk(unattended.Face{}, nil)
	s, _ := desk.AskCard(ctx, inquiry.CardRequest{Thread: "t1", Turn: 1, Questions: questions})
	fmt.Println(s.Line)

	desk = inquiry.NewDesk(picker{}, nil)
	s, _ = desk.AskCard(ctx, inquiry.CardRequest{Thread: "t1", Turn: 1, Questions: questions[:1]})
	fmt.Println(s.Line)
	// Output:
	// 1 (Env): fallback: staging (the recommended option; no person can answer here, so the person did not choose it)
	// 2: no person can answer here; this question has no default. Do not guess what the person would say
	// 1 (Env): chose: production (from the person)
}

// A secret question stands alone; its value goes to the session's vault,
// and the model gets the reference.
func ExampleDesk_AskCard_secret() {
	vault := inquiry.VaultFunc(func(name, value string) (string, error) {
		// A real vault (policy/secrets) seals the value and registers it
		// with the session's Redactor.
		return "session:" + name, nil
	})
	desk := inquiry.NewDesk(picker{}, &inquiry.Options{Vault: vault})
	s, _ := desk.AskCard(context.Background(), inquiry.CardRequest{Thread: "t1", Turn: 1,
		Questions: []wisp.CardQuestion{{Text: "Paste a GitHub token with repo scope.", Secret: "GH_TOKEN"}}})
	fmt.Println(s.Line)
	fact := s.Facts[0]
	fact.ID = "c1" // the thread numbers its facts
	fmt.Println(fact)
	// Output:
	// 1: stored: session:GH_TOKEN (from the person). You never see the value; give the reference to the tools that need it
	// c1 secret "GH_TOKEN" = session:GH_TOKEN
}
