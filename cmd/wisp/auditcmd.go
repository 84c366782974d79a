package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/wisp-agent/wisp/audit"
	"github.com/wisp-agent/wisp/internal/cmdline"
)

func newAuditCmd(env environ) *cobra.Command {
	var f audit.Filter
	var asJSON, verify bool
	var expect string
	c := &cobra.Command{
		Use:   "audit [--thread ID] [--kind PREFIX] [--after SEQ] [--json] | --verify [--expect-head HASH]",
		Short: "Print the audit log, or check its hash chain",
		Long: `Print the audit log ($WISP_HOME/audit/audit.jsonl): every tool call, question and
answer, in order, with credentials already replaced by markers. --verify checks the
hash chain that links each line to the one before and names the first line that
breaks it; a torn last line (a crash while writing) is reported as such. It also
names a record that takes an answer given from another process (a parked question,
an approval under wisp mcp) when no record of that answer being given comes before it.
It prints the head, the hash of the last line, in full: keep it somewhere else, and
--expect-head HASH later fails unless the head is still HASH. It says whether the
line with that hash is gone (a line up to it edited or removed, or the log rewritten)
or how many records follow it: list those with --after SEQ, and if each is yours,
keep the new head.`,
		Args: cmdline.ExactArgs(0, "audit takes no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if expect != "" && !verify {
				return cmdline.Usagef("--expect-head goes with --verify: wisp audit --verify --expect-head HASH")
			}
			if verify && (f != audit.Filter{} || asJSON) {
				return cmdline.Usagef("--verify checks the whole log and takes no filter or --json: wisp audit --verify [--expect-head HASH]")
			}
			h, err := openHome(env)
			if err != nil {
				return err
			}
			if verify {
				err = audit.Check(cmd.OutOrStdout(), h.AuditDir(), &audit.VerifyOptions{Anchor: expect})
			} else {
				err = audit.List(cmd.OutOrStdout(), h.AuditDir(), &audit.ListOptions{Filter: f, JSON: asJSON})
			}
			switch {
			case errors.Is(err, audit.ErrNotHead):
				return cmdline.Usagef("--expect-head %q is not a head: give the 64 hex digits that wisp audit --verify prints after head", expect)
			case errors.Is(err, audit.ErrBadFilter):
				return cmdline.Usagef("--after %d is not a seq: give the seq of a record (1 or more), as --verify names its line", f.After)
			case errors.Is(err, audit.ErrCheckFailed):
				return &cmdline.ExitError{Code: 1}
			}
			return err
		},
	}
	c.Flags().StringVar(&f.Thread, "thread", "", "only this thread's records")
	c.Flags().StringVar(&f.KindPrefix, "kind", "", "only records whose kind starts with PREFIX (inquiry., tool.call)")
	c.Flags().Int64Var(&f.After, "after", 0, "only records whose seq is greater than SEQ (those after an anchored head's line)")
	c.Flags().BoolVar(&asJSON, "json", false, "print the records as JSON lines")
	c.Flags().BoolVar(&verify, "verify", false, "check the hash chain")
	c.Flags().StringVar(&expect, "expect-head", "", "with --verify: fail unless the head is still HASH, all 64 hex digits as --verify printed it")
	return c
}
