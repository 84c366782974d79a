package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/wisp-agent/wisp/config"
)

func newConfigCmd(env environ) *cobra.Command {
	c := &cobra.Command{
		Use:   "config get KEY | set KEY VALUE | list",
		Short: "Read and change wisp's settings ($WISP_HOME/config.json)",
		Long: `Read and change wisp's settings in $WISP_HOME/config.json (default ~/.wisp).
A change applies from the next conversation, never to one already running.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usagef("config needs a subcommand: get KEY, set KEY VALUE or list")
		},
	}
	get := &cobra.Command{
		Use:   "get KEY",
		Short: "Print one setting",
		Args:  exactArgs(1, "get takes one KEY"),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadConfig(env)
			if err != nil {
				return err
			}
			v, err := cfg.Get(args[0])
			if err != nil {
				return configErr(err)
			}
			fmt.Fprintln(cmd.OutOrStdout(), v)
			return nil
		},
	}
	set := &cobra.Command{
		Use:   "set KEY VALUE",
		Short: "Change one setting (from the next conversation on)",
		Args:  exactArgs(2, "set takes a KEY and a VALUE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			h, err := openHome(env)
			if err != nil {
				return err
			}
			var v string
			err = config.Update(cmd.Context(), h.config(), h.configLock(), func(c *config.Config) error {
				if err := c.Set(args[0], args[1]); err != nil {
					return err
				}
				v, _ = c.Get(args[0])
				return nil
			})
			if err != nil {
				return configErr(err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s = %s (applies from the next conversation)\n", args[0], v)
			return nil
		},
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "Print every setting with its value",
		Args:  exactArgs(0, "list takes no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(env)
			if err != nil {
				return err
			}
			for _, k := range config.Keys() {
				v, err := cfg.Get(k.Name)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s = %s\t# %s (default %s)\n", k.Name, v, k.Doc, k.Default)
			}
			return nil
		},
	}
	c.AddCommand(get, set, list)
	return c
}

// configErr marks a bad key or value as a usage error.
func configErr(err error) error {
	if errors.Is(err, config.ErrUnknownKey) || errors.Is(err, config.ErrBadValue) {
		return usageError{err}
	}
	return err
}

func exactArgs(n int, msg string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("%s (got %d arguments; see %s --help)", msg, len(args), cmd.CommandPath())
		}
		return nil
	}
}

// loadConfig reads the settings of the wisp home.
func loadConfig(env environ) (config.Config, error) {
	h, err := openHome(env)
	if err != nil {
		return config.Config{}, err
	}
	return config.Load(h.config())
}
