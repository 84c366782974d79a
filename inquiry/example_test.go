package inquiry_test

import (
	"context"
	"fmt"

	"github.com/wisp-agent/wisp/inquiry"
	"github.com/wisp-agent/wisp/wisptest"
)

// The desk applies every rule of the question contract, whatever the face:
// here a credential in the answer is replaced by its marker before the model
// sees it, and a question that asks for a secret never reaches the person.
func ExampleDesk_Ask() {
	person := wisptest.NewPerson(wisptest.Says("deploy with AKIAFAKEKEYEXAMPLE77"))
	desk := inquiry.NewDesk(person, nil)
	ctx := context.Background()

	s, _ := desk.Ask(ctx, inquiry.Request{Thread: "t1", Turn: 1, Text: "Which account should I use?"})
	fmt.Println(s.Line)

	s, _ = desk.Ask(ctx, inquiry.Request{Thread: "t1", Turn: 1, Text: "What is your API key?"})
	fmt.Println(s.Line)
	fmt.Println("questions the person saw:", len(person.Questions()))
	// Output:
	// answer: deploy with [REDACTED:aws-access-key#1] (from the person)
	// error: ask does not ask for secrets; tell the person what is needed and where to set it
	// questions the person saw: 1
}
