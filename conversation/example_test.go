package conversation_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/conversation"
	"github.com/wisp-agent/wisp/models/script"
)

// A program with a face of its own gets a conversation with every
// guarantee wisp chat keeps from one call: the credential in the person's
// message reaches the model as a marker, and the audit log in the home
// records the turn.
func Example() {
	dir, err := os.MkdirTemp("", "wisp-home-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	model := script.New("example", []script.Step{
		{ToolCalls: []script.ToolCall{{Name: "ask", Arguments: []byte(`{"question":"Which token?","options":["the old one","the new one"]}`)}}},
		{Content: "I will use the new one."},
	})
	// The face: it shows the question and answers as the person would.
	face := wisp.InquirerFunc(func(ctx context.Context, q wisp.Question) (wisp.Answer, error) {
		fmt.Printf("? %s %q\n", q.Text, q.Options)
		return q.Typed("2")
	})
	conv, err := conversation.New(context.Background(), &conversation.Options{
		Home: dir, Model: model, Named: []string{"ask"}, Face: face,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer conv.Close()
	reply, err := conv.Respond(context.Background(), "Rotate my token ghp_k3Jd9Xq2Lm7Vb4Nc8Zr1Tw6Yh5Gf0Pe2Sa9Du")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(reply.Text)
	sent := model.Requests()[0].Messages // wisp's system prompt, then the person's message
	fmt.Println("the model read:", sent[len(sent)-1].Content)
	// Output:
	// ? Which token? ["the old one" "the new one"]
	// I will use the new one.
	// the model read: Rotate my token [REDACTED:github-pat#1]
}
