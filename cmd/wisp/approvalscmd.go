package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/terminal"
	"github.com/wisp-agent/wisp/internal/cmdline"
	"github.com/wisp-agent/wisp/policy/outofband"
	"github.com/wisp-agent/wisp/policy/standing"
)

func newApprovalsCmd(env environ) *cobra.Command {
	c := &cobra.Command{
		Use:   "approvals [list [--json]] | approve ID [--scope once|session] | deny ID | rules [list] | rules revoke ID",
		Short: "List the approval requests wisp mcp is waiting on; approve or deny one at a terminal",
		Long: `Under wisp mcp nothing in the MCP conversation may approve what wisp's model asks to
do (such as models enable NAME). With approval.outOfBand on (the default) the request is
filed in $WISP_HOME/approvals and waits up to 60 s for your answer; silence refuses.
list (the default) shows the requests still waiting, a row each: its id, thread and age,
when silence refuses it, the answers it offers and the command (escaped: parts of it
come from the model); list --json writes them whole, with what each does and its diff,
as JSON for a program.

approve ID shows the request under "! wisp asks your approval" and files your approval
once you confirm it by typing y; anything else files nothing. --scope session approves
the same pattern for the rest of that session, where the request offers it; a scope the
request does not offer is narrowed to once, and you are told. deny ID shows the request
and refuses it. The first answer wins (this one, or the MCP client's dialog); an answer
to a request that was answered, withdrawn, or filed again since you were shown it is
refused.

approve and deny run only when standard input and output are both a terminal, so that
nothing but a person may answer: not a script, not the agent that called wisp, and not
wisp's own model, whose policy refuses every approvals command. Anywhere else they
refuse with exit status 2, as for any other usage error. The answer is recorded in the
audit log (approval.answered, with this terminal's name) before it is filed; wisp mcp
takes only an answer so recorded.

rules lists the approvals kept beyond a session: the answers of project (this workspace)
and always you gave, each with its id, where it holds, the pattern it covers and the
command it was first given for. rules revoke ID revokes one, recorded in the audit log
(approval.revoked) before it is removed; what it covered is asked again.`,
		RunE: func(cmd *cobra.Command, _ []string) error { return listApprovalsCmd(cmd, env, false) },
	}
	var asJSON bool
	list := &cobra.Command{
		Use:   "list [--json]",
		Short: "Show the approval requests waiting for you",
		Args:  cmdline.ExactArgs(0, "approvals list takes no arguments"),
		RunE:  func(cmd *cobra.Command, _ []string) error { return listApprovalsCmd(cmd, env, asJSON) },
	}
	list.Flags().BoolVar(&asJSON, "json", false, "write the requests whole, as one JSON object for a program")
	deny := &cobra.Command{
		Use:   "deny ID",
		Short: "Refuse a waiting request (at a terminal only)",
		Args:  cmdline.ExactArgs(1, "approvals deny takes one approval ID, as wisp approvals list shows it"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return answerApprovalCmd(cmd, env, args[0], wisp.ScopeNone)
		},
	}
	c.AddCommand(list, newApproveCmd(env), deny, newApprovalRulesCmd(env))
	return c
}

// newApproveCmd is wisp approvals approve: the person's approval, once
// or for the session, filed at this terminal.
func newApproveCmd(env environ) *cobra.Command {
	var scope string
	c := &cobra.Command{
		Use:   "approve ID [--scope once|session]",
		Short: "Approve a waiting request, once you confirm it (at a terminal only)",
		Args:  cmdline.ExactArgs(1, "approvals approve takes one approval ID, as wisp approvals list shows it"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := parseAnswerScope(scope)
			if err != nil {
				return err
			}
			return answerApprovalCmd(cmd, env, args[0], s)
		},
	}
	c.Flags().StringVar(&scope, "scope", "once", "how far the approval reaches: once, or session (the same pattern for the rest of the session)")
	return c
}

// newApprovalRulesCmd is wisp approvals rules: the kept approvals listed,
// or one revoked, recorded in a session of its own first.
func newApprovalRulesCmd(env environ) *cobra.Command {
	return &cobra.Command{
		Use:   "rules [list] | rules revoke ID",
		Short: "List the approvals kept for a project or always; revoke one",
		Args:  cobra.ArbitraryArgs, // RunCommand says what it takes
		RunE: func(cmd *cobra.Command, args []string) error {
			h, err := openHome(env)
			if err != nil {
				return err
			}
			text, err := standing.RunCommand(cmd.Context(), h.ApprovalRules(), args, &standing.RevokeOptions{Events: h.Events(), Session: newID()})
			var ce *standing.CommandError
			if errors.As(err, &ce) || errors.Is(err, standing.ErrUnknownID) {
				return &cmdline.UsageError{Err: err}
			}
			fmt.Fprint(cmd.OutOrStdout(), text)
			return err
		},
	}
}

// parseAnswerScope reads --scope.
func parseAnswerScope(s string) (wisp.Scope, error) {
	switch s {
	case "once":
		return wisp.ScopeOnce, nil
	case "session":
		return wisp.ScopeSession, nil
	}
	return wisp.ScopeNone, cmdline.Usagef("--scope must be once or session, not %q (see wisp approvals approve --help)", s)
}

func listApprovalsCmd(cmd *cobra.Command, env environ, asJSON bool) error {
	h, err := openHome(env)
	if err != nil {
		return err
	}
	opts := &terminal.ApprovalsOptions{Listing: terminal.Table}
	if asJSON {
		opts.Listing = terminal.JSON
	}
	return terminal.NewApprovals(h.Approvals(nil), terminal.NewInput(cmd.InOrStdin()), cmd.OutOrStdout(), opts).List()
}

// answerApprovalCmd shows request id and files the person's answer:
// scope, or a denial when scope is ScopeNone, at this terminal.
func answerApprovalCmd(cmd *cobra.Command, env environ, id string, scope wisp.Scope) error {
	h, err := openHome(env)
	if err != nil {
		return err
	}
	// The answer is recorded in a session of its own before it is filed.
	// Ctrl-C ends it, and every prompt of it.
	a := terminal.NewApprovals(h.Approvals(h.Witness(newID())), terminal.NewInput(cmd.InOrStdin()), cmd.OutOrStdout(), nil)
	err = a.Answer(cmd.Context(), id, scope)
	if errors.Is(err, outofband.ErrBadID) || errors.Is(err, outofband.ErrNotOffered) {
		return &cmdline.UsageError{Err: err}
	}
	return answerErr(err)
}
