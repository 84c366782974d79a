package terminal_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/terminal"
)

// echoConversation stands for a conversation.Conversation: its model
// repeats what the person wrote.
type echoConversation struct{}

func (echoConversation) Respond(ctx context.Context, input string) (wisp.Reply, error) {
	return wisp.Reply{Turn: 1, Text: "you said: " + input}, nil
}
func (echoConversation) Redact(s string) string { return s }
func (echoConversation) ModelName() string      { return "script:echo.jsonl" }
func (echoConversation) Thread() string         { return "t-1" }

// A chat over a pipe reads a message a line and writes a transcript. A
// program wires a conversation with the chat's parts (Face, the chat as
// its event sink, Delta) and gives it the person's commands, here one of
// its own; conversation.Conversation's ModelsCommand and ConfigCommand
// are /models and /config.
func ExampleChat() {
	in := strings.NewReader("hello\n/time\n/nope\n")
	chat := terminal.NewChat(in, os.Stdout, nil)
	// conv, err := conversation.New(ctx, &conversation.Options{..., Face: chat.Face(),
	//	Approver: chat.Face(), Notifier: chat.Face(), Events: chat, OnDelta: chat.Delta})
	conv := echoConversation{}
	err := chat.Run(context.Background(), conv, &terminal.RunOptions{Commands: []terminal.Command{{
		Name: "/time", Usage: "(no arguments)",
		Run: func(ctx context.Context, args []string) (string, error) { return "it is time\n", nil },
	}}})
	fmt.Println("err:", err)
	// Output:
	// › hello
	// you said: hello
	// › /time
	// it is time
	// › /nope
	// ! wisp: unknown command /nope; chat knows /time (no arguments)
	// err: <nil>
}
