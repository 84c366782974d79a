package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/spf13/cobra"

	"github.com/wisp-agent/wisp/audit"
	"github.com/wisp-agent/wisp/inquiry/escape"
)

func newAuditCmd(env environ) *cobra.Command {
	var f audit.Filter
	var asJSON, verify bool
	c := &cobra.Command{
		Use:   "audit [--thread ID] [--kind PREFIX] [--json] [--verify]",
		Short: "Print the audit log, or check its hash chain",
		Long: `Print the audit log ($WISP_HOME/audit/audit.jsonl): every tool call, question and
answer, in order, with credentials already replaced by markers. --verify checks the
hash chain that links each line to the one before and names the first line that
breaks it; a torn last line (a crash while writing) is reported as such.`,
		Args: exactArgs(0, "audit takes no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			h, err := openHome(env)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if verify {
				r, err := audit.Verify(h.audit())
				if errors.Is(err, fs.ErrNotExist) {
					fmt.Fprintln(out, "audit: no records yet")
					return nil
				}
				if err != nil {
					return err
				}
				fmt.Fprintln(out, r.String())
				if r.Break != nil {
					return exitError{code: 1}
				}
				return nil
			}
			records, err := audit.Read(h.audit(), f)
			if errors.Is(err, fs.ErrNotExist) {
				return nil // nothing recorded yet
			}
			if err != nil {
				return err
			}
			for _, r := range records {
				if asJSON {
					enc := json.NewEncoder(out)
					enc.SetEscapeHTML(false)
					if err := enc.Encode(r); err != nil {
						return err
					}
					continue
				}
				fmt.Fprintf(out, "%d %s %s thread=%s turn=%d source=%s %s\n", r.Seq,
					r.Time.Local().Format(time.DateTime), escape.Terminal(r.Kind), escape.Terminal(r.Thread),
					r.Turn, escape.Terminal(r.Source), escape.Terminal(string(r.Data)))
			}
			return nil
		},
	}
	c.Flags().StringVar(&f.Thread, "thread", "", "only this thread's records")
	c.Flags().StringVar(&f.KindPrefix, "kind", "", "only records whose kind starts with PREFIX (inquiry., tool.call)")
	c.Flags().BoolVar(&asJSON, "json", false, "print the records as JSON lines")
	c.Flags().BoolVar(&verify, "verify", false, "check the hash chain")
	return c
}
