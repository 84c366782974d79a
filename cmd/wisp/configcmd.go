package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/audit"
	"github.com/wisp-agent/wisp/config"
	"github.com/wisp-agent/wisp/home"
)

func newConfigCmd(env environ) *cobra.Command {
	c := &cobra.Command{
		Use:   "config get KEY | set KEY VALUE | list",
		Short: "Read and change wisp's settings ($WISP_HOME/config.json)",
		Long: `Read and change wisp's settings in $WISP_HOME/config.json (default ~/.wisp).
A change applies from the next conversation, never to one already running. A change
to a security setting (tools.*, models.enabled, models.trusted, approval.*,
inquiry.elicitation) is recorded in the audit log as config.change before it is saved;
when it cannot be recorded, nothing is changed.`,
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
			err = h.Settings().Update(cmd.Context(), func(c *config.Config) error {
				before := *c
				if err := c.Set(args[0], args[1]); err != nil {
					return err
				}
				v, _ = c.Get(args[0])
				// Recorded before it is saved: a change the log could
				// not record is not made.
				return recordChanges(cmd.Context(), h, config.Diff(before, *c))
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

// recordChanges records the person's changes to security settings in the
// audit log of h, as config.change: a list's key with each name added or
// removed, any other key with its value from and to.
func recordChanges(ctx context.Context, h *home.Home, changes []config.Change) error {
	var entries []audit.Entry
	session := newID()
	add := func(data wisp.ConfigChangeData) {
		entries = append(entries, audit.Entry{Kind: data.EventKind(), Session: session, Source: wisp.SourcePerson, Data: data})
	}
	for _, ch := range changes {
		switch {
		case !ch.Key.Security:
		case ch.Key.Kind == "list":
			for _, n := range ch.Added {
				add(wisp.ConfigChangeData{Key: ch.Key.Name, Added: n})
			}
			for _, n := range ch.Removed {
				add(wisp.ConfigChangeData{Key: ch.Key.Name, Removed: n})
			}
		default:
			add(wisp.ConfigChangeData{Key: ch.Key.Name, From: ch.From, To: ch.To})
		}
	}
	if len(entries) == 0 {
		return nil
	}
	log, err := openAnswerLog(h)
	if err != nil {
		return unrecordedChange(err)
	}
	defer log.Close()
	for _, e := range entries {
		if _, err := log.Append(context.WithoutCancel(ctx), e); err != nil {
			return unrecordedChange(err)
		}
	}
	return nil
}

// unrecordedChange is the error of a change to a security setting that
// the audit log could not record, and so was not made: like every record
// that could not be written, a wisp.ErrNotRecorded.
func unrecordedChange(err error) error {
	return notRecorded{fmt.Sprintf("the audit log could not record the change (%v); nothing was changed", err)}
}

// notRecorded is a line that says what was not recorded, and is
// wisp.ErrNotRecorded.
type notRecorded struct{ line string }

func (e notRecorded) Error() string { return e.line }
func (notRecorded) Unwrap() error   { return wisp.ErrNotRecorded }

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
	return h.Settings().Load()
}
