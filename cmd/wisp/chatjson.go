package main

import (
	"context"
	"errors"
	"io"

	"github.com/wisp-agent/wisp/conversation"
	"github.com/wisp-agent/wisp/inquiry/jsonl"
	"github.com/wisp-agent/wisp/internal/cmdline"
)

// runChatJSON is wisp chat --json: a jsonl.Session on stdin and stdout
// (docs/jsonl.md), diagnostics on stderr. With yes nobody is asked
// anything, as in wisp chat --yes. Parked questions are answered only
// with a controlling terminal, the person's (wisp-tui runs wisp in it);
// command lines run the person's /models and /config, as in a plain chat.
func runChatJSON(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, env environ, model string, named []string, yes bool) error {
	s := jsonl.NewSession(stdout, &jsonl.SessionOptions{Unattended: yes, Terminal: env.controllingTerminal(), Log: stderr, TakeInterrupts: env.ctrlC.Take})
	conv, err := newConversation(ctx, env, conversation.Options{
		ModelName: model, Named: named, Face: s.Inquirer(), Approver: s.Approver(), Notifier: s.Notifier(),
		Events: s, OnDelta: s.Delta, OnOutput: s.ToolOutput, Interactive: !yes,
	})
	if err != nil {
		// No session: the one line says why, and so does stderr.
		return s.Fail(err)
	}
	defer conv.Close()
	// Answers to parked questions are recorded in the chat's session and
	// taken only when recorded.
	err = s.Serve(ctx, stdin, conv, &jsonl.ServeOptions{
		Parked: s.Questions(conv.Questions()), Commands: conv, Dropped: conv.Tools().Dropped(),
		Hello: jsonl.Hello{Session: conv.Session(), Thread: conv.Thread(), Model: conv.ModelName(), Tools: conv.Tools().Names()},
	})
	if errors.Is(err, jsonl.ErrTurnFailed) {
		return &cmdline.ExitError{Code: 1}
	}
	return err
}
