package main

import (
	"errors"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wisp-agent/wisp/home"
	"github.com/wisp-agent/wisp/inquiry/terminal"
	"github.com/wisp-agent/wisp/internal/cmdline"
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
		return nil, nil, &cmdline.UsageError{Err: err}
	}
	ml := mlx.New(h.Dir())
	ml.Server = env.getenv("WISP_MLX_URL")
	hub, err := hf.NewClient(&hf.ClientOptions{Endpoint: env.getenv("HF_ENDPOINT"), Token: env.getenv("HF_TOKEN")})
	if err != nil {
		return nil, nil, &cmdline.UsageError{Err: err}
	}
	return []models.Backend{ol, ml}, &models.PullOptions{Hub: hub, Store: hf.Store{Home: h.Dir()}}, nil
}

// personActions builds the ModelActions of wisp models in the wisp home:
// the person's own, recorded in the audit log.
func personActions(env environ) (*models.Actions, error) {
	h, err := openHome(env)
	if err != nil {
		return nil, err
	}
	backends, pull, err := modelSetup(env, h)
	if err != nil {
		return nil, err
	}
	return models.New(&models.Options{Backends: backends, Settings: h.Settings(), Pull: pull,
		Events: h.Events(), Session: newID()}), nil
}

func newModelsCmd(env environ) *cobra.Command {
	var uses []string
	for _, m := range models.Commands() {
		uses = append(uses, m.Name+" "+m.Arg)
	}
	c := &cobra.Command{
		Use:   "models " + strings.Join(uses, " | "),
		Short: "The models wisp can run: list, show, pull, cancel a pull, enable, disable, check, trust a publisher",
		Long: `The models wisp can run: Ollama's (at OLLAMA_HOST, default 127.0.0.1:11434) and the MLX
models under $WISP_HOME/models/mlx. A name is ollama:NAME[:TAG] or mlx:NAME; any case,
a missing :latest, or the name without its runtime when only one has it will do, and an
MLX model can be named by its repository, ORGANISATION/NAME.

enable checks the model first and refuses one that cannot call tools; check verifies it
again (check alone, every enabled model) and disables it if it fails, saying why, and
exits with status 1. An enablement holds to the model's digest: another model pulled
under the name is not enabled until it is checked. Your own actions need no approval;
the model's do.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmdline.Usagef("models needs a subcommand: %s", models.CommandUsage())
		},
	}
	for _, m := range models.Commands() {
		if m.Name == "pull" {
			c.AddCommand(newPullCmd(m, env))
		} else {
			c.AddCommand(newModelsSubCmd(m, env))
		}
	}
	return c
}

// newModelsSubCmd is wisp models m: terminal.Models, the page of list
// given as it is there or as --page.
func newModelsSubCmd(m models.Command, env environ) *cobra.Command {
	var page int
	var asJSON bool
	sub := &cobra.Command{
		Use:   m.Name + " " + m.Arg,
		Short: m.Short,
		Args:  cmdline.ExactArgs(1, m.Name+" takes one "+m.Arg),
		RunE: func(cmd *cobra.Command, args []string) error {
			if m.Name == "list" && len(args) == 0 && (!asJSON || cmd.Flags().Changed("page")) {
				args = []string{strconv.Itoa(page)}
			}
			a, err := personActions(env)
			if err != nil {
				return err
			}
			err = terminal.Models(cmd.Context(), a, append([]string{m.Name}, args...), cmd.OutOrStdout(), &terminal.ModelsOptions{JSON: asJSON})
			if errors.Is(err, models.ErrCheckFailed) {
				// What the check found was said; the status says it failed.
				return &cmdline.ExitError{Code: cmdline.ExitFailure}
			}
			return modelsErr(err)
		},
	}
	if m.Name == "check" {
		sub.Args = cobra.ArbitraryArgs // RunCommand says what it takes
	}
	if m.Name == "list" {
		sub.Use = "list [PAGE | --page N] [--json]"
		sub.Args = cobra.ArbitraryArgs // RunCommand says what it takes
		sub.Flags().IntVar(&page, "page", 1, "the page, from 1")
		sub.Flags().BoolVar(&asJSON, "json", false, "write every model as one JSON object, for a program")
	}
	return sub
}

// modelsErr marks the person's mistakes in a models command as usage
// errors: a command that could not be read, a page that is not there, a
// name that is not a publisher's or a repository's.
func modelsErr(err error) error {
	var ce *models.CommandError
	if errors.As(err, &ce) || errors.Is(err, models.ErrNoPage) || errors.Is(err, hf.ErrBadRepo) {
		return &cmdline.UsageError{Err: err}
	}
	return configErr(err)
}
