package jsonl_test

import (
	"context"
	"os"
	"strings"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/jsonl"
)

// shout is a conversation of one thread whose replies repeat the person's
// message loudly; a program gives a conversation.Conversation.
type shout struct{}

func (shout) Thread() string { return "t-1" }

func (shout) Respond(ctx context.Context, input string) (wisp.Reply, error) {
	return wisp.Reply{Thread: "t-1", Turn: 1, Text: strings.ToUpper(input)}, nil
}

// A session over a conversation: hello, a turn for each message line, and
// bye when the input ends. A program builds its conversation with the
// session's Inquirer, Approver and Notifier, and the session as its event
// sink, so that the turn's choices, tool calls and deltas go out as lines
// too.
func ExampleSession() {
	s := jsonl.NewSession(os.Stdout, &jsonl.SessionOptions{Log: os.Stderr})
	in := strings.NewReader(`{"type":"message","text":"hello"}` + "\n")
	_ = s.Serve(context.Background(), in, shout{}, &jsonl.ServeOptions{
		Hello: jsonl.Hello{Wisp: "v1.0.0", Session: "s-1", Thread: "t-1", Model: "script:x"},
	})
	// Output:
	// {"type":"hello","protocol":"wisp-chat","version":1,"wisp":"v1.0.0","session":"s-1","thread":"t-1","model":"script:x","tools":[],"accepts":["message","choose","approve","deny","cancel"],"choices":["question","card","approval"],"maxLine":65536}
	// {"type":"end","thread":"t-1","turn":1,"reply":"HELLO"}
	// {"type":"bye"}
}
