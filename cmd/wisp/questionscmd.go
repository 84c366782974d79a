package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/wisp-agent/wisp/inquiry/pending"
	"github.com/wisp-agent/wisp/inquiry/terminal"
	"github.com/wisp-agent/wisp/internal/cmdline"
)

func newQuestionsCmd(env environ) *cobra.Command {
	c := &cobra.Command{
		Use:   "questions [list [--json]] | answer ID | decline ID",
		Short: "List the questions wisp mcp parked for you; answer or decline one at a terminal",
		Long: `When wisp's model asks a question under wisp mcp and nobody answers within 60 s, the
question is parked in $WISP_HOME/pending until you answer it. list (the default)
shows the questions still waiting, a row each: its id, thread and age, what it
takes (options or free text) and the question as the model wrote it (escaped, cut
to the terminal's width); list --json writes them whole, as JSON for a program.

answer ID shows the question under "? the model asks" and reads your answer: a
number chooses an option, other text is your answer, Enter alone declines, Ctrl-C
leaves without filing anything. decline ID shows the question and declines it. The
first answer wins; an answer to a question that was answered, withdrawn, or filed
again since you were shown it is refused. Your answer is not private from the agent
that called wisp: it can read the thread through wisp://threads/{thread_id}.

answer and decline run only when standard input and output are both a terminal, so
that nothing but a person may answer a question; anywhere else they refuse with exit
status 2, as for any other usage error. The answer is recorded in the audit log
(inquiry.answered, with this terminal's name) before it is filed; the thread takes
only an answer so recorded. A question whose file is damaged is listed as such.`,
		RunE: func(cmd *cobra.Command, _ []string) error { return listQuestionsCmd(cmd, env, false) },
	}
	var asJSON bool
	list := &cobra.Command{
		Use:   "list [--json]",
		Short: "Show the questions waiting for you",
		Args:  cmdline.ExactArgs(0, "questions list takes no arguments"),
		RunE:  func(cmd *cobra.Command, _ []string) error { return listQuestionsCmd(cmd, env, asJSON) },
	}
	list.Flags().BoolVar(&asJSON, "json", false, "write the questions whole, as one JSON object for a program")
	answer := &cobra.Command{
		Use:   "answer ID",
		Short: "Answer a waiting question (at a terminal only)",
		Args:  cmdline.ExactArgs(1, "questions answer takes one question ID, as wisp questions list shows it"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return answerQuestionCmd(cmd, env, args[0], false)
		},
	}
	decline := &cobra.Command{
		Use:   "decline ID",
		Short: "Decline a waiting question (at a terminal only)",
		Args:  cmdline.ExactArgs(1, "questions decline takes one question ID, as wisp questions list shows it"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return answerQuestionCmd(cmd, env, args[0], true)
		},
	}
	c.AddCommand(list, answer, decline)
	return c
}

func listQuestionsCmd(cmd *cobra.Command, env environ, asJSON bool) error {
	h, err := openHome(env)
	if err != nil {
		return err
	}
	opts := &terminal.QuestionsOptions{Listing: terminal.Table}
	if asJSON {
		opts.Listing = terminal.JSON
	}
	return terminal.NewQuestions(h.Questions(nil), terminal.NewInput(cmd.InOrStdin()), cmd.OutOrStdout(), opts).List()
}

func answerQuestionCmd(cmd *cobra.Command, env environ, id string, decline bool) error {
	h, err := openHome(env)
	if err != nil {
		return err
	}
	// The answer is recorded in a session of its own before it is filed.
	// Ctrl-C ends it, and every prompt of it.
	q := terminal.NewQuestions(h.Questions(h.Witness(newID())), terminal.NewInput(cmd.InOrStdin()), cmd.OutOrStdout(), nil)
	err = q.Answer(cmd.Context(), id, decline)
	if errors.Is(err, pending.ErrBadID) {
		return &cmdline.UsageError{Err: err}
	}
	return answerErr(err)
}
