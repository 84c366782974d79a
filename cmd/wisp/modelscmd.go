package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/home"
	"github.com/wisp-agent/wisp/inquiry/escape"
	"github.com/wisp-agent/wisp/models"
	"github.com/wisp-agent/wisp/models/hf"
	"github.com/wisp-agent/wisp/models/mlx"
	"github.com/wisp-agent/wisp/models/ollama"
)

// modelSetup returns the backends the environment names (the Ollama
// server at OLLAMA_HOST, and the MLX models under the wisp home, run by
// the server at WISP_MLX_URL) and where pulls come from (the Hub at
// HF_ENDPOINT, with HF_TOKEN) and go to (the home).
func modelSetup(env environ, h *home.Home) ([]models.Backend, *models.PullOptions, error) {
	ol, err := ollama.New(env.getenv("OLLAMA_HOST"), nil)
	if err != nil {
		return nil, nil, usageError{err}
	}
	ml := mlx.New(h.Dir())
	ml.Server = env.getenv("WISP_MLX_URL")
	hub, err := hf.NewClient(&hf.ClientOptions{Endpoint: env.getenv("HF_ENDPOINT"), Token: env.getenv("HF_TOKEN")})
	if err != nil {
		return nil, nil, usageError{err}
	}
	return []models.Backend{ol, ml}, &models.PullOptions{Hub: hub, Store: hf.Store{Home: h.Dir()}}, nil
}

// newActions builds the ModelActions of wisp models: the person's own,
// recorded in the audit log.
func newActions(env environ, h *home.Home) (*models.Actions, error) {
	backends, pull, err := modelSetup(env, h)
	if err != nil {
		return nil, err
	}
	return models.New(&models.Options{Backends: backends, Settings: h.Settings(), Pull: pull,
		Events: h.Events(), Session: newID()}), nil
}

func newModelsCmd(env environ) *cobra.Command {
	c := &cobra.Command{
		Use:   "models list [--page N] | show NAME | pull ORGANISATION/NAME | cancel ORGANISATION/NAME | enable NAME | disable NAME | check NAME | trust PUBLISHER",
		Short: "The models wisp can run: list them, read one's facts, enable, disable, check, trust a publisher",
		Long: `The models wisp can run: Ollama's (at OLLAMA_HOST, default 127.0.0.1:11434) and the MLX
models under $WISP_HOME/models/mlx. A name is ollama:NAME[:TAG] or mlx:NAME; any case,
a missing :latest, or the name without its runtime when only one has it will do, and an
MLX model can be named by its repository, ORGANISATION/NAME.

enable checks the model first and refuses one that cannot call tools; check verifies it
again and disables it if it fails. Your own actions need no approval; the model's do.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usagef("models needs a subcommand: list, show, enable, disable, check or trust")
		},
	}
	run := func(cmd *cobra.Command, f func(ctx context.Context, a *models.Actions, out io.Writer) error) error {
		h, err := openHome(env)
		if err != nil {
			return err
		}
		a, err := newActions(env, h)
		if err != nil {
			return err
		}
		return f(cmd.Context(), a, cmd.OutOrStdout())
	}
	var page int
	list := &cobra.Command{
		Use:   "list [--page N]",
		Short: "List the models, 20 a page",
		Args:  exactArgs(0, "list takes no arguments (use --page N)"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return run(cmd, func(ctx context.Context, a *models.Actions, out io.Writer) error {
				l, err := a.List(ctx, page)
				if err != nil {
					return usageError{err}
				}
				fmt.Fprint(out, showText(strings.TrimSuffix(models.FormatListing(l, ""), "\n"))+"\n")
				return nil
			})
		},
	}
	list.Flags().IntVar(&page, "page", 1, "the page, from 1")
	show := &cobra.Command{
		Use:   "show NAME",
		Short: "Every fact of one model, and whether it is usable",
		Args:  exactArgs(1, "show takes one NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return run(cmd, func(ctx context.Context, a *models.Actions, out io.Writer) error {
				m, err := a.Show(ctx, args[0])
				if err != nil {
					return err
				}
				fmt.Fprint(out, showText(strings.TrimSuffix(models.FormatInfo(m), "\n"))+"\n")
				return nil
			})
		},
	}
	change := func(use, short string, do func(a *models.Actions) func(context.Context, string, wisp.Actor) (wisp.Change, error)) *cobra.Command {
		return &cobra.Command{
			Use:   use + " NAME",
			Short: short,
			Args:  exactArgs(1, use+" takes one NAME"),
			RunE: func(cmd *cobra.Command, args []string) error {
				return run(cmd, func(ctx context.Context, a *models.Actions, out io.Writer) error {
					ch, err := do(a)(ctx, args[0], wisp.ActorPerson)
					if err != nil {
						return err
					}
					fmt.Fprint(out, showText(strings.TrimSuffix(models.FormatChange(ch), "\n"))+"\n")
					return nil
				})
			},
		}
	}
	trust := &cobra.Command{
		Use:   "trust PUBLISHER",
		Short: "Trust a publisher to pull models from (yours alone to decide)",
		Args:  exactArgs(1, "trust takes one PUBLISHER"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return run(cmd, func(ctx context.Context, a *models.Actions, out io.Writer) error {
				if err := a.Trust(ctx, args[0], wisp.ActorPerson); err != nil {
					return configErr(err)
				}
				fmt.Fprintf(out, "%s is trusted: pulls from it are not flagged\n", escape.Terminal(args[0]))
				return nil
			})
		},
	}
	c.AddCommand(newPullCmd(env, run), newCancelCmd(env, run))
	c.AddCommand(list, show,
		change("enable", "Check a model and let wisp run it", func(a *models.Actions) func(context.Context, string, wisp.Actor) (wisp.Change, error) {
			return a.Enable
		}),
		change("disable", "Stop wisp from running a model", func(a *models.Actions) func(context.Context, string, wisp.Actor) (wisp.Change, error) {
			return a.Disable
		}),
		change("check", "Verify a model again; an enabled model that fails is disabled", func(a *models.Actions) func(context.Context, string, wisp.Actor) (wisp.Change, error) {
			return a.Check
		}),
		trust)
	return c
}
