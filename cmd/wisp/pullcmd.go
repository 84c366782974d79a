package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/escape"
	"github.com/wisp-agent/wisp/inquiry/terminal"
	"github.com/wisp-agent/wisp/models"
	"github.com/wisp-agent/wisp/models/hf"
)

type modelsRun func(cmd *cobra.Command, f func(ctx context.Context, a *models.Actions, out io.Writer) error) error

// newPullCmd is wisp models pull, m: a pull in the foreground, which
// shows its plan and its progress, and asks about a publisher not trusted.
func newPullCmd(m models.Command, run modelsRun) *cobra.Command {
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
		Args: exactArgs(1, "pull takes one repository, as ORGANISATION/NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return run(cmd, func(ctx context.Context, a *models.Actions, out io.Writer) error {
				pp, err := a.PlanPull(ctx, args[0])
				if err != nil {
					return modelsErr(err)
				}
				defer pp.Release() // unless the pull took it over
				fmt.Fprintf(out, "%s at %s\n", escape.Terminal(pp.Plan.Repo), pp.Plan.Commit[:min(12, len(pp.Plan.Commit))])
				for _, line := range strings.Split(pp.Text(), "\n") {
					fmt.Fprintf(out, "  %s\n", escape.Terminal(line))
				}
				if dryRun {
					return nil
				}
				if (!pp.Trusted || pp.Agentless()) && !yes {
					ok, err := askPublisher(ctx, cmd.InOrStdin(), out, a, pp)
					if err != nil || !ok {
						return err
					}
				}
				bar := newBar(cmd.ErrOrStderr(), pp)
				started := time.Now()
				link, err := pullWithProgress(ctx, a, pp, replace, bar)
				_ = bar.Finish()
				fmt.Fprintln(cmd.ErrOrStderr())
				switch {
				case errors.Is(err, context.Canceled), errors.Is(err, wisp.ErrInterrupted):
					return fmt.Errorf("stopped: what arrived is kept; run wisp models pull %s again to resume", pp.Plan.Repo)
				case err != nil:
					return err
				}
				fmt.Fprintf(out, "%s is ready (%s fetched in %s, linked at %s); wisp models enable %s checks it and turns it on\n",
					pp.Name(), models.Size(pp.Bytes), time.Since(started).Round(time.Second), escape.Terminal(link), pp.Name())
				return nil
			})
		},
	}
	c.Flags().BoolVar(&yes, "yes", false, "pull without asking, from a publisher you have not trusted (this once) or a model that cannot call tools")
	c.Flags().BoolVar(&dryRun, "dry-run", false, "print the plan (what would be fetched) and fetch nothing")
	c.Flags().BoolVar(&replace, "replace", false, "move aside a folder of your own at the model's link and link the model there")
	return c
}

// askPublisher asks about a publisher the person has not trusted, or a
// model whose files say it cannot call tools, and reports whether to
// pull. At a terminal, keys typed before the question
// appeared are dropped first. Ctrl-C ends the question (ctx's cause is
// wisp.ErrInterrupted) and nothing is pulled; so does the end of the
// input.
func askPublisher(ctx context.Context, in io.Reader, out io.Writer, a *models.Actions, pp models.PullPlan) (bool, error) {
	input := terminal.NewInput(in)
	input.DropTypeAhead()
	switch {
	case pp.Agentless() && pp.Trusted:
		fmt.Fprint(out, "wisp could not run it as an agent. Pull it anyway? [y]es [n]o › ")
	case pp.Agentless():
		fmt.Fprintf(out, "wisp could not run it as an agent, and %s is not a publisher you trust. Pull it anyway? [y]once [t]rust [n]o › ", escape.Terminal(pp.Plan.Publisher))
	default:
		fmt.Fprintf(out, "%s is not a publisher you trust. Pull it? [y]once [t]rust [n]o › ", escape.Terminal(pp.Plan.Publisher))
	}
	line, err := input.ReadLine(ctx)
	switch {
	case errors.Is(err, io.EOF):
		fmt.Fprintln(out)
		return false, fmt.Errorf("not pulled: no answer (pass --yes to pull it this once)")
	case errors.Is(err, terminal.ErrLineTooLong):
		line = ""
	case err != nil:
		fmt.Fprintln(out)
		return false, fmt.Errorf("stopped; nothing was pulled (wisp models pull %s asks again)", pp.Plan.Repo)
	}
	switch answer := strings.ToLower(strings.TrimSpace(line)); {
	case answer == "y" || answer == "once" || answer == "yes":
		return true, nil
	case (answer == "t" || answer == "trust") && !pp.Trusted:
		if err := a.Trust(ctx, pp.Plan.Publisher, wisp.ActorPerson); err != nil {
			return false, err
		}
		fmt.Fprintf(out, "%s is trusted\n", escape.Terminal(pp.Plan.Publisher))
		return true, nil
	default:
		return false, exitError{code: 1}
	}
}

func newBar(w io.Writer, pp models.PullPlan) *progressbar.ProgressBar {
	return progressbar.NewOptions64(pp.Bytes,
		progressbar.OptionSetWriter(w),
		progressbar.OptionShowBytes(true),
		progressbar.OptionShowCount(),
		progressbar.OptionSetWidth(24),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionSetDescription(fmt.Sprintf("0 of %d files", len(pp.Missing))),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionShowElapsedTimeOnFinish(),
		progressbar.OptionUseANSICodes(isTerminal(w)),
		progressbar.OptionSetVisibility(isTerminal(w)),
	)
}

func pullWithProgress(ctx context.Context, a *models.Actions, pp models.PullPlan, replace bool, bar *progressbar.ProgressBar) (string, error) {
	return a.RunPullWith(ctx, pp, replace, func(p hf.Progress) {
		bar.Describe(fmt.Sprintf("%d of %d files", p.FilesDone, p.Files))
		_ = bar.Set64(p.Done)
	})
}
