package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/conversation"
	"github.com/wisp-agent/wisp/inquiry/terminal"
	"github.com/wisp-agent/wisp/inquiry/unattended"
	"github.com/wisp-agent/wisp/internal/cmdline"
)

func newChatCmd(env environ) *cobra.Command {
	var model string
	var named []string
	var yes, jsonLines, showPrompt bool
	c := &cobra.Command{
		Use:   "chat [--model M] [--tool T]... [--workspace DIR] [--yes] [--json] [--show-prompt]",
		Short: "Talk with the model; it may ask you questions as it works",
		Long: `Talk with the model, one message a line. When the model asks you something, the
question appears under "? the model asks": type a number or your answer, or press
Enter to decline. Ctrl-C stops the turn; Ctrl-D (the end of the input) leaves, and
so does Ctrl-C at the prompt, with exit status 130.

A line that starts with / is your own command, never sent to the model: /models
(list, show, pull, cancel, enable, disable, check, trust) and /config (get, set,
list) do what wisp models and wisp config do, and /questions answers the questions
wisp mcp parked for you.

When the input is not a terminal, each line is your next message, and while a
question waits, the next line answers it, so a whole conversation can be scripted:

  printf 'Replace the config\n2\n' | wisp chat --model script:examples/scripts/ask.jsonl --tool ask

With --yes no person is asked anything: every question ends with "no person can
answer here".

With --json, wisp speaks JSON lines for a front end such as wisp-tui: one object a
line each way, nothing else on standard output (docs/jsonl.md).

Without --tool (or --yes) the model gets ask_user, request_approval and the tools that
only read the workspace, and whatever the settings turn on. --show-prompt prints the
system prompt the model would be sent (docs/prompt.md) and leaves.` + environment,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if showPrompt {
				o := conversation.Options{ModelName: model, Named: named, Interactive: !yes}
				if err := inHome(env, &o); err != nil {
					return err
				}
				text, err := conversation.SystemPrompt(cmd.Context(), &o)
				fmt.Fprint(cmd.OutOrStdout(), text)
				return usageOf(err)
			}
			if jsonLines {
				return runChatJSON(cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr(), env, model, named, yes)
			}
			return runChat(cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr(), env, model, named, yes)
		},
	}
	c.Flags().StringVar(&model, "model", "", "the model, as SCHEME:NAME (script:PATH plays a JSON-lines script)")
	cmdline.ListVar(c.Flags(), &named, "tool", "give the conversation only this tool (repeat for more); without it, every tool the settings allow")
	c.Flags().BoolVar(&yes, "yes", false, "run with no person: questions are not asked")
	c.Flags().BoolVar(&jsonLines, "json", false, "speak JSON lines on stdin and stdout, for a front end (docs/jsonl.md)")
	c.Flags().BoolVar(&showPrompt, "show-prompt", false, "print the system prompt the model would be sent, and leave")
	workspaceFlag(c, env)
	return c
}

func newRespondCmd(env environ) *cobra.Command {
	var model, thread string
	var named []string
	c := &cobra.Command{
		Use:   "respond [--model M] [--tool T]... [--workspace DIR] [--thread ID] PROMPT|-",
		Short: "Run one turn with no person and print the reply",
		Long: `Run one turn on PROMPT (or on standard input, with -) with no person to answer:
a question the model asks ends at once with "no person can answer here". The reply
goes to standard output; what the model called, and the thread's id, go to standard
error. --thread ID goes on with a thread kept under $WISP_HOME/threads.` + environment,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return cmdline.Usagef("respond takes one PROMPT, or - to read it from standard input (got %s)", cmdline.Count(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			prompt, err := terminal.ReadPrompt(args[0], cmd.InOrStdin())
			var bad *terminal.PromptError
			if errors.As(err, &bad) {
				return &cmdline.UsageError{Err: err}
			} else if err != nil {
				return err
			}
			return runRespond(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), env, model, named, thread, prompt)
		},
	}
	c.Flags().StringVar(&model, "model", "", "the model, as SCHEME:NAME (script:PATH plays a JSON-lines script)")
	cmdline.ListVar(c.Flags(), &named, "tool", "give the conversation only this tool (repeat for more)")
	c.Flags().StringVar(&thread, "thread", "", "go on with this thread (its id, as an earlier respond printed it)")
	workspaceFlag(c, env)
	return c
}

func runRespond(ctx context.Context, stdout, stderr io.Writer, env environ, model string, named []string, thread, prompt string) error {
	r := terminal.NewResponder(stdout, stderr)
	conv, err := newConversation(ctx, env, conversation.Options{
		ModelName: model, Named: named, Face: unattended.Face{}, Thread: thread, Events: r, Notifier: r, OnOutput: r.ToolOutput,
	})
	if err != nil {
		return err
	}
	defer conv.Close()
	return r.Respond(ctx, conv, prompt, &terminal.RunOptions{Dropped: conv.Tools().Dropped()})
}

func runChat(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, env environ, model string, named []string, yes bool) error {
	chat := terminal.NewChat(stdin, stdout, &terminal.ChatOptions{Errors: stderr, NoColor: env.getenv("NO_COLOR") != ""})
	var asker wisp.Inquirer = chat.Face()
	var approver wisp.Approver = chat.Face()
	if yes {
		asker, approver = unattended.Face{}, nil
	}
	conv, err := newConversation(ctx, env, conversation.Options{
		ModelName: model, Named: named, Face: asker, Approver: approver, Notifier: chat.Face(),
		Events: chat, OnDelta: chat.Delta, OnOutput: chat.ToolOutput, Interactive: !yes,
	})
	if err != nil {
		return err
	}
	defer conv.Close()
	// Answers to parked questions are recorded in the chat's session and
	// taken only when recorded.
	questions := chat.Questions(conv.Questions(), &terminal.QuestionsOptions{Unattended: yes})
	release := env.ctrlC.Take(chat.Interrupt)
	defer release()
	var commands []terminal.Command
	for _, c := range conversation.Commands() {
		commands = append(commands, terminal.Command{Name: "/" + c.Name, Usage: c.Usage, Run: func(ctx context.Context, args []string) (string, error) {
			return conv.Command(ctx, c.Name, args)
		}})
	}
	err = chat.Run(ctx, conv, &terminal.RunOptions{
		Tools: conv.Tools().Names(), Dropped: conv.Tools().Dropped(), BeforePrompt: questions.NoteWaiting,
		Commands: append(commands, questions.Command()),
	})
	switch {
	case errors.Is(err, terminal.ErrTurnFailed):
		return &cmdline.ExitError{Code: 1}
	case errors.Is(err, wisp.ErrInterrupted):
		// Ctrl-C at the prompt: the person left, as a shell expects.
		return &cmdline.ExitError{Code: cmdline.ExitInterrupted}
	}
	return err
}
