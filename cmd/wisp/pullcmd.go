package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/wisp-agent/wisp/inquiry/terminal"
	"github.com/wisp-agent/wisp/internal/cmdline"
	"github.com/wisp-agent/wisp/models"
)

// newPullCmd is wisp models pull, m: a pull in the foreground, which
// shows its plan and its progress, and asks about a publisher not trusted.
func newPullCmd(m models.Command, env environ) *cobra.Command {
	var yes, dryRun, replace bool
	c := &cobra.Command{
		Use:   m.Name + " " + m.Arg + " [--dry-run] [--yes] [--replace]",
		Short: m.Short,
		Long: `Pull an MLX model from Hugging Face (HF_ENDPOINT, with HF_TOKEN when set) into
$WISP_HOME/hub, pinned to the repository's current commit, and link it as mlx:NAME.
Only the files an MLX model needs are fetched; each is checked against its digest as
it streams. Ctrl-C keeps what arrived: pull again to resume.

The plan first fetches the few small files that say what the model can do
(config.json, tokenizer_config.json, chat_template.jinja, generation_config.json)
and says whether it can call tools and think, before any weights move. A publisher
you have not trusted is asked about first: [y]once [t]rust [n]o; so is a model
that cannot call tools, which wisp could not run as an agent. --yes pulls without
asking; --dry-run prints the plan and fetches nothing more; --replace lets wisp
move aside a folder of your own at the model's link.`,
		Args: cmdline.ExactArgs(1, "pull takes one repository, as ORGANISATION/NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := personActions(env)
			if err != nil {
				return err
			}
			err = terminal.Pull(cmd.Context(), a, args[0], terminal.NewInput(cmd.InOrStdin()), cmd.OutOrStdout(),
				&terminal.PullOptions{Yes: yes, DryRun: dryRun, Replace: replace, Progress: cmd.ErrOrStderr()})
			if errors.Is(err, terminal.ErrNotPulled) {
				return &cmdline.ExitError{Code: 1}
			}
			return modelsErr(err)
		},
	}
	c.Flags().BoolVar(&yes, "yes", false, "pull without asking, from a publisher you have not trusted (this once) or a model that cannot call tools")
	c.Flags().BoolVar(&dryRun, "dry-run", false, "print the plan (what would be fetched) and fetch nothing")
	c.Flags().BoolVar(&replace, "replace", false, "move aside a folder of your own at the model's link and link the model there")
	return c
}
