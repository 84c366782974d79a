package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/wisp-agent/wisp/internal/cmdline"
	"github.com/wisp-agent/wisp/policy/secrets/scan"
)

func newScanCmd() *cobra.Command {
	var asJSON, all bool
	c := &cobra.Command{
		Use:   "scan [PATH...]",
		Short: "Scan files for credentials: each by rule, file, line and a marker, never its value",
		Long: `scan reads the text files under each PATH (default the current folder) with wisp's
credential rules and prints a row for each credential found: its file, line, column,
rule and a marker such as [REDACTED:github-pat#1], the same for the same value, never
the value. It leaves out .git, what .gitignore files ignore (--all scans that too),
binary files, symbolic links under a PATH, and files over 32 MiB, which it names.

Exit status: 0 when nothing is found, 1 when anything is, 2 when the command line is
wrong or a PATH cannot be read (docs/scan.md).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := scan.Paths(cmd.Context(), args, &scan.Options{All: all})
			if pe := (*scan.PathError)(nil); errors.As(err, &pe) {
				return &cmdline.UsageError{Err: err}
			}
			if err != nil {
				return err
			}
			out := []byte(r.Table())
			if asJSON {
				if out, err = r.JSON(); err != nil {
					return err
				}
			}
			if _, err := cmd.OutOrStdout().Write(out); err != nil {
				return err
			}
			if len(r.Findings) > 0 {
				return &cmdline.ExitError{Code: 1}
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "write one line of JSON for a program (keys in docs/scan.md)")
	c.Flags().BoolVar(&all, "all", false, "scan what .gitignore files ignore as well")
	return c
}
