package terminal_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/terminal"
)

// conversation is a scripted conversation: each turn calls respond.
type conversation struct {
	respond func(ctx context.Context, input string) (wisp.Reply, error)
	inputs  []string
}

func (c *conversation) Respond(ctx context.Context, input string) (wisp.Reply, error) {
	c.inputs = append(c.inputs, input)
	return c.respond(ctx, input)
}

// Redact stands for the conversation's redactor: it knows one credential.
func (c *conversation) Redact(s string) string {
	return strings.ReplaceAll(s, "ghp_secret", "[REDACTED:github-pat#1]")
}

func (c *conversation) ModelName() string { return "script:s\x1b[2J.jsonl" }
func (c *conversation) Thread() string    { return "t-1" }

// echo replies with what the person wrote, after "you said: ".
func echo(ctx context.Context, input string) (wisp.Reply, error) {
	return wisp.Reply{Turn: 1, Text: "you said: " + input}, nil
}

// A piped chat is a transcript: each line it reads after "› ", its
// credentials as the conversation's markers, then what came of it; a
// line that starts with / is a command, which never reaches the model.
func TestChatPiped(t *testing.T) {
	var out, errs screen
	conv := &conversation{respond: echo}
	chat := terminal.NewChat(strings.NewReader("hello\n\n  \n/models list\n/models\n/nope x\nmy token is ghp_secret\n"), &out, &terminal.ChatOptions{Errors: &errs})
	models := terminal.Command{Name: "/models", Usage: "list|show", Run: func(ctx context.Context, args []string) (string, error) {
		if len(args) == 0 {
			return "", errors.New("models needs an action: list or show NAME")
		}
		return "  ollama:qwen3:4b\tenabled\n  mlx:\x1b]0;pwned\x07\tdisabled\n", nil
	}}
	questions := terminal.Command{Name: "/questions", Usage: "[list]", Run: func(context.Context, []string) (string, error) { return "", nil }}
	err := chat.Run(context.Background(), conv, &terminal.RunOptions{
		Dropped: []string{"ask"}, Commands: []terminal.Command{models, questions},
		BeforePrompt: func() { t.Error("BeforePrompt was called in a piped chat") },
	})
	if err != nil {
		t.Fatalf("Run = %v", err)
	}
	want := "! wisp: ask is disabled by tools.disabled and was left out\n" +
		"› hello\n" +
		"you said: hello\n" +
		"› /models list\n" +
		"  ollama:qwen3:4b\tenabled\n" +
		"  mlx:\\e]0;pwned\\u{7}\tdisabled\n" +
		"› /models\n" +
		"! wisp: models needs an action: list or show NAME\n" +
		"› /nope x\n" +
		"! wisp: unknown command /nope; chat knows /models list|show and /questions [list]\n" +
		"› my token is [REDACTED:github-pat#1]\n" +
		"you said: my token is ghp_secret\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("the transcript (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"hello", "my token is ghp_secret"}, conv.inputs); diff != "" {
		t.Errorf("the model's inputs (-want +got):\n%s", diff)
	}
	if errs.String() != "" {
		t.Errorf("errors = %q, want none", errs.String())
	}
}

// A turn that fails is said on Errors, one line with the credential as
// its marker; the chat goes on, and Run returns ErrTurnFailed at its end.
// A turn the person stopped is no failure.
func TestChatFailedTurn(t *testing.T) {
	var out, errs screen
	conv := &conversation{respond: func(ctx context.Context, input string) (wisp.Reply, error) {
		switch input {
		case "fail":
			return wisp.Reply{}, errors.New("the model server said:\nno such token ghp_secret")
		case "stop":
			return wisp.Reply{}, wisp.ErrInterrupted
		}
		return echo(ctx, input)
	}}
	chat := terminal.NewChat(strings.NewReader("fail\nstop\nagain\n"), &out, &terminal.ChatOptions{Errors: &errs})
	if err := chat.Run(context.Background(), conv, nil); !errors.Is(err, terminal.ErrTurnFailed) {
		t.Errorf("Run = %v, want ErrTurnFailed", err)
	}
	if want := "wisp: the model server said: no such token [REDACTED:github-pat#1]\n"; errs.String() != want {
		t.Errorf("errors = %q, want %q", errs.String(), want)
	}
	if want := "› fail\n› stop\n" + terminal.LineTurnStopped + "\n› again\nyou said: again\n"; out.String() != want {
		t.Errorf("transcript = %q, want %q", out.String(), want)
	}
}

// A turn's reply streams as it comes, its thinking apart, escaped line by
// line, and is not shown again at the end; tool calls and what they gave
// the model show as they happen.
func TestChatShowsTheTurn(t *testing.T) {
	var out screen
	var chat *terminal.Chat
	conv := &conversation{respond: func(ctx context.Context, input string) (wisp.Reply, error) {
		summary := "a question"
		chat.Delta("t-1", wisp.ChatDelta{Thinking: "hmm"})
		chat.Delta("t-1", wisp.ChatDelta{Content: "Let me ask."})
		_ = chat.Record(ctx, wisp.Event{Data: wisp.ModelMessageData{Content: "Let me ask.", ToolCalls: []string{"ask"}}})
		_ = chat.Record(ctx, wisp.Event{Data: wisp.ToolCallData{Name: "ask", Summary: &summary}})
		_ = chat.Record(ctx, wisp.Event{Data: wisp.ToolResultData{Name: "ask", Content: "answer: main\n(from the person)\x1b[2J"}})
		chat.Delta("t-1", wisp.ChatDelta{Content: "Done\x1b[2J\nbye."})
		_ = chat.Record(ctx, wisp.Event{Data: wisp.ModelMessageData{Content: "Done\x1b[2J\nbye."}})
		return wisp.Reply{Turn: 1, Text: "Done\x1b[2J\nbye."}, nil
	}}
	chat = terminal.NewChat(strings.NewReader("go\n"), &out, nil)
	if err := chat.Run(context.Background(), conv, nil); err != nil {
		t.Fatalf("Run = %v", err)
	}
	want := "› go\n" +
		"(thinking) hmm\n" +
		"Let me ask.\n" +
		"⚙ ask a question\n" +
		"↳ answer: main\n" +
		"  (from the person)\\e[2J\n" +
		"Done\\e[2J\n" +
		"bye.\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("the turn as shown (-want +got):\n%s", diff)
	}
}

// What a command prints shows as it comes, each line escaped after
// "  │ "; its result then shows its first line alone, the rest having been
// seen. A call that printed nothing as it ran shows its whole result. So
// does a respond's diagnostics. Tabs in what a tool gave are blanks, not
// \t.
func TestChatShowsToolOutput(t *testing.T) {
	var out screen
	var chat *terminal.Chat
	conv := &conversation{respond: func(ctx context.Context, input string) (wisp.Reply, error) {
		summary := "ls && ls missing"
		_ = chat.Record(ctx, wisp.Event{Data: wisp.ToolCallData{ID: "c1", Name: "run_command", Summary: &summary}})
		chat.ToolOutput(wisp.ToolOutput{CallID: "c1", Tool: "run_command", Stream: "stdout", Text: "a.txt\tc.txt\nb\x1b[2J.txt\n"})
		chat.ToolOutput(wisp.ToolOutput{CallID: "c1", Tool: "run_command", Stream: "stderr", Text: "ls: missing: No such file"})
		_ = chat.Record(ctx, wisp.Event{Data: wisp.ToolResultData{ID: "c1", Name: "run_command", Content: "exit status 2 after 3ms\nstdout:\na.txt\nb.txt\nstderr:\nls: missing: No such file"}})
		_ = chat.Record(ctx, wisp.Event{Data: wisp.ToolCallData{ID: "c2", Name: "run_command", Summary: &summary}})
		_ = chat.Record(ctx, wisp.Event{Data: wisp.ToolResultData{ID: "c2", Name: "run_command", Content: "exit status 0 after 1ms\nstdout: (none)"}})
		read := "reads main.go"
		_ = chat.Record(ctx, wisp.Event{Data: wisp.ToolCallData{ID: "c3", Name: "read_file", Summary: &read}})
		_ = chat.Record(ctx, wisp.Event{Data: wisp.ToolResultData{ID: "c3", Name: "read_file", Content: "1\tfunc main() {\n2\t\tx := \"\x1b[2J\"\n(end of main.go, 2 lines)"}})
		return wisp.Reply{Turn: 1, Text: "Listed."}, nil
	}}
	chat = terminal.NewChat(strings.NewReader("go\n"), &out, nil)
	if err := chat.Run(context.Background(), conv, nil); err != nil {
		t.Fatalf("Run = %v", err)
	}
	want := "› go\n" +
		"⚙ run_command ls && ls missing\n" +
		"  │ a.txt    c.txt\n" +
		"  │ b\\e[2J.txt\n" +
		"  │ ls: missing: No such file\n" +
		"↳ exit status 2 after 3ms\n" +
		"⚙ run_command ls && ls missing\n" +
		"↳ exit status 0 after 1ms\n" +
		"  stdout: (none)\n" +
		"⚙ read_file reads main.go\n" +
		"↳ 1    func main() {\n" +
		"  2        x := \"\\e[2J\"\n" +
		"  (end of main.go, 2 lines)\n" +
		"Listed.\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("the turn as shown (-want +got):\n%s", diff)
	}

	var reply, diag bytes.Buffer
	r := terminal.NewResponder(&reply, &diag)
	r.ToolOutput(wisp.ToolOutput{CallID: "c1", Tool: "run_command", Stream: "stdout", Text: "hi\n"})
	_ = r.Notify(context.Background(), wisp.Notice{Kind: wisp.NoticeSandbox, Text: "no sandbox\x1b[2J"})
	if want := "  │ hi\nwisp: no sandbox\\e[2J\n"; diag.String() != want {
		t.Errorf("respond's diagnostics = %q, want %q", diag.String(), want)
	}
}

// At a terminal the chat shows a banner and a prompt, and asks what
// waits before each prompt; it does not echo what the person typed, and
// refuses a line over MaxLine without sending it.
func TestChatAtATerminal(t *testing.T) {
	var out screen
	conv := &conversation{respond: echo}
	yes := true
	chat := terminal.NewChat(strings.NewReader(strings.Repeat("y", terminal.MaxLine+1)+"\nhi\n"), &out, &terminal.ChatOptions{Terminal: &yes})
	prompts := 0
	err := chat.Run(context.Background(), conv, &terminal.RunOptions{Tools: []string{"ask", "models"}, BeforePrompt: func() {
		prompts++
		io.WriteString(chat.Output(), "? a question waits for you\n")
	}})
	if err != nil {
		t.Fatalf("Run = %v", err)
	}
	want := "wisp chat · model script:s\\e[2J.jsonl · tools: ask, models\n" +
		"Type a message and press Enter. Ctrl-C stops a turn; Ctrl-D leaves.\n" +
		"? a question waits for you\n› " + terminal.LineTooLong + "\n" +
		"? a question waits for you\n› you said: hi\n" +
		"? a question waits for you\n› \n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("the screen (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"hi"}, conv.inputs); diff != "" {
		t.Errorf("the model's inputs (-want +got):\n%s", diff)
	}
}

// Ctrl-C stops the running turn, and the chat goes on; at the prompt it
// ends the chat, which says it was interrupted. A Ctrl-C with neither is not kept for later.
func TestChatInterrupt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out screen
		conv := &conversation{respond: func(ctx context.Context, input string) (wisp.Reply, error) {
			<-ctx.Done()
			return wisp.Reply{}, context.Cause(ctx)
		}}
		r, w := io.Pipe()
		defer w.Close()
		chat := terminal.NewChat(r, &out, nil)
		chat.Interrupt() // nothing runs yet: nothing happens
		done := make(chan error, 1)
		go func() { done <- chat.Run(context.Background(), conv, nil) }()
		io.WriteString(w, "wait\n")
		synctest.Wait() // the turn runs
		chat.Interrupt()
		synctest.Wait() // the turn ended, and the chat reads again
		if want := "› wait\n" + terminal.LineTurnStopped + "\n"; out.String() != want {
			t.Errorf("transcript after Ctrl-C in a turn = %q, want %q", out.String(), want)
		}
		select {
		case err := <-done:
			t.Fatalf("Run ended at Ctrl-C in a turn: %v", err)
		default:
		}
		chat.Interrupt()
		if err := <-done; !errors.Is(err, wisp.ErrInterrupted) {
			t.Errorf("Run after Ctrl-C at the prompt = %v, want wisp.ErrInterrupted", err)
		}
	})
}

// A Responder writes the reply alone on its output, and the rest on its
// diagnostics.
func TestResponder(t *testing.T) {
	var out, diag screen
	var r *terminal.Responder
	conv := &conversation{respond: func(ctx context.Context, input string) (wisp.Reply, error) {
		_ = r.Notify(ctx, wisp.Notice{Kind: wisp.NoticeWaiting, Text: "thread t-1 is busy"})
		_ = r.Notify(ctx, wisp.Notice{Kind: wisp.NoticeRedacted, Text: "not for respond"})
		_ = r.Record(ctx, wisp.Event{Data: wisp.ToolCallData{Name: "ask", Arguments: []byte(`{"question":"x"}`)}})
		return wisp.Reply{Turn: 1, Text: "ok\x1b[2J", Flags: []string{"claims a choice never made"}}, nil
	}}
	r = terminal.NewResponder(&out, &diag)
	if err := r.Respond(context.Background(), conv, "go", &terminal.RunOptions{Dropped: []string{"models"}}); err != nil {
		t.Fatalf("Respond = %v", err)
	}
	if want := "ok\\e[2J\n"; out.String() != want {
		t.Errorf("output = %q, want %q", out.String(), want)
	}
	want := "! wisp: models is disabled by tools.disabled and was left out\n" +
		"thread t-1\n" +
		"wisp: thread t-1 is busy (Ctrl-C stops it)\n" +
		"⚙ ask {\"question\":\"x\"}\n" +
		"! wisp: claims a choice never made\n"
	if diff := cmp.Diff(want, diag.String()); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}

	conv.respond = func(context.Context, string) (wisp.Reply, error) { return wisp.Reply{}, wisp.ErrInterrupted }
	out = screen{}
	if err := r.Respond(context.Background(), conv, "go", nil); !errors.Is(err, wisp.ErrInterrupted) || out.String() != "" {
		t.Errorf("Respond of a stopped turn = %v, output %q; want wisp.ErrInterrupted and nothing", err, out.String())
	}
}

// DropTypeAhead leaves a pipe alone: what it holds is the person's
// script, read as it comes.
func TestDropTypeAheadKeepsAPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := w.WriteString("first\nsecond\n"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	in := terminal.NewInput(r)
	if got, err := in.ReadLine(context.Background()); err != nil || got != "first" {
		t.Fatalf("ReadLine = %q, %v", got, err)
	}
	in.DropTypeAhead()
	if got, err := in.ReadLine(context.Background()); err != nil || got != "second" {
		t.Errorf("ReadLine after DropTypeAhead on a pipe = %q, %v; want second", got, err)
	}
}
