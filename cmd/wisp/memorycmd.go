package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/wisp-agent/wisp/internal/cmdline"
	"github.com/wisp-agent/wisp/tools/memory"
)

func newMemoryCmd(env environ) *cobra.Command {
	c := &cobra.Command{
		Use:   "memory list | forget ID",
		Short: "List and forget the facts the model keeps across conversations ($WISP_HOME/memory.json)",
		Long: `The memory tool (tools.memory, off by default) lets the model keep short facts across
conversations, each with your approval; a conversation with the tool is offered the
newest of them in its system prompt. list prints each fact with its id, when and where
it was kept; forget ID removes one (docs/memory.md).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmdline.Usagef("memory needs list, or forget ID") },
	}
	for _, mc := range memory.Commands() {
		c.AddCommand(&cobra.Command{Use: mc.Name + " " + mc.Args, Short: mc.Short, Args: cobra.ArbitraryArgs,
			RunE: func(cmd *cobra.Command, args []string) error {
				h, err := openHome(env)
				if err != nil {
					return err
				}
				text, err := memory.RunCommand(cmd.Context(), h.Memory(nil), append([]string{mc.Name}, args...))
				var ce *memory.CommandError
				if errors.As(err, &ce) {
					return &cmdline.UsageError{Err: err}
				}
				fmt.Fprint(cmd.OutOrStdout(), text)
				return err
			}})
	}
	return c
}
