package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wisp-agent/wisp/config"
	"github.com/wisp-agent/wisp/conversation"
	"github.com/wisp-agent/wisp/internal/cmdline"
)

func newConfigCmd(env environ) *cobra.Command {
	var uses []string
	for _, cc := range config.Commands() {
		uses = append(uses, strings.TrimSpace(cc.Name+" "+cc.Args))
	}
	c := &cobra.Command{
		Use:   "config " + strings.Join(uses, " | "),
		Short: "Read and change wisp's settings ($WISP_HOME/config.json)",
		Long: `Read and change wisp's settings in $WISP_HOME/config.json (default ~/.wisp).
A change applies from the next conversation, never to one already running. A change
to a security setting (tools.*, models.enabled, models.trusted, approval.*,
inquiry.elicitation) is recorded in the audit log as config.change before it is saved;
when it cannot be recorded, nothing is changed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmdline.Usagef("config needs a subcommand: %s", config.CommandUsage())
		},
	}
	for _, cc := range config.Commands() {
		c.AddCommand(&cobra.Command{
			Use:   strings.TrimSpace(cc.Name + " " + cc.Args),
			Short: cc.Short,
			Args:  cobra.ArbitraryArgs, // RunCommand says what it takes
			RunE: func(cmd *cobra.Command, args []string) error {
				h, err := openHome(env)
				if err != nil {
					return err
				}
				// A change to a security setting is recorded in a
				// session of its own before it is saved.
				text, err := config.RunCommand(cmd.Context(), h.Settings(), append([]string{cc.Name}, args...),
					&config.SetOptions{Events: h.Events(), Session: newID(), Tools: conversation.ToolNames()})
				if err != nil {
					return configErr(err)
				}
				fmt.Fprint(cmd.OutOrStdout(), text)
				return nil
			},
		})
	}
	return c
}

// configErr marks a bad key or value, or a config command that could not
// be read, as a usage error.
func configErr(err error) error {
	var ce *config.CommandError
	if errors.Is(err, config.ErrUnknownKey) || errors.Is(err, config.ErrBadValue) || errors.As(err, &ce) {
		return &cmdline.UsageError{Err: err}
	}
	return err
}
