package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/spf13/cobra"

	"github.com/wisp-agent/wisp/audit"
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
		Args: exactArgs(0, "audit takes no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if expect != "" && !verify {
				return usagef("--expect-head goes with --verify: wisp audit --verify --expect-head HASH")
			}
			anchor := ""
			if expect != "" {
				var err error
				if anchor, err = audit.ParseHead(expect); err != nil {
					return usagef("--expect-head %q is not a head: give the 64 hex digits that wisp audit --verify prints after head", expect)
				}
			}
			if f.After < 0 {
				return usagef("--after %d is not a seq: give the seq of a record (1 or more), as --verify names its line", f.After)
			}
			if verify && (f.After != 0 || f.Thread != "" || f.KindPrefix != "" || asJSON) {
				return usagef("--verify checks the whole log and takes no filter or --json: wisp audit --verify [--expect-head HASH]")
			}
			h, err := openHome(env)
			if err != nil {
				return err
			}
			if verify {
				return verifyAudit(cmd.OutOrStdout(), h.AuditDir(), anchor)
			}
			return audit.List(cmd.OutOrStdout(), h.AuditDir(), &audit.ListOptions{Filter: f, JSON: asJSON})
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

// verifyAudit checks the hash chain of the audit log in dir, and that
// its head is still anchor when anchor is not "", and says what it found.
func verifyAudit(out io.Writer, dir, anchor string) error {
	r, err := audit.VerifyWith(dir, &audit.VerifyOptions{Anchor: anchor})
	if errors.Is(err, fs.ErrNotExist) {
		if anchor != "" {
			fmt.Fprintf(out, "audit: no records yet, so no line has the expected head %s\n", anchor)
			return exitError{code: 1}
		}
		fmt.Fprintln(out, "audit: no records yet")
		return nil
	}
	if err != nil {
		return err
	}
	line := r.String()
	if r.Following() > 0 {
		line += fmt.Sprintf("; wisp audit --after %d lists them", r.AnchorLine)
	}
	fmt.Fprintln(out, line)
	if r.Failed() {
		return exitError{code: 1}
	}
	return nil
}
