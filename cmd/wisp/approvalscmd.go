package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/audit"
	"github.com/wisp-agent/wisp/inquiry/escape"
	"github.com/wisp-agent/wisp/inquiry/terminal"
	"github.com/wisp-agent/wisp/policy/outofband"
)

// noApprovalsWaiting is what approvals list says when no request waits.
const noApprovalsWaiting = "no approval requests are waiting"

func newApprovalsCmd(env environ) *cobra.Command {
	c := &cobra.Command{
		Use:   "approvals [list] | approve ID [--scope once|session] | deny ID",
		Short: "List the approval requests wisp mcp is waiting on; approve or deny one at a terminal",
		Long: `Under wisp mcp nothing in the MCP conversation may approve what wisp's model asks to
do (such as models enable NAME). With approval.outOfBand on (the default) the request is
filed in $WISP_HOME/approvals and waits up to 60 s for your answer; silence refuses.
list (the default) shows the requests still waiting: each one's id, thread and age, the
command and what it does (escaped: parts of it come from the model), and the answers it
offers.

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
takes only an answer so recorded.`,
		Args: exactArgs(0, "approvals takes list, approve ID or deny ID"),
		RunE: func(cmd *cobra.Command, _ []string) error { return listApprovalsCmd(cmd, env) },
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "Show the approval requests waiting for you",
		Args:  exactArgs(0, "approvals list takes no arguments"),
		RunE:  func(cmd *cobra.Command, _ []string) error { return listApprovalsCmd(cmd, env) },
	}
	var scope string
	approve := &cobra.Command{
		Use:   "approve ID [--scope once|session]",
		Short: "Approve a waiting request, once you confirm it (at a terminal only)",
		Args:  exactArgs(1, "approvals approve takes one approval ID, as wisp approvals list shows it"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := parseAnswerScope(scope)
			if err != nil {
				return err
			}
			return answerApprovalCmd(cmd, env, args[0], s)
		},
	}
	approve.Flags().StringVar(&scope, "scope", "once", "how far the approval reaches: once, or session (the same pattern for the rest of the session)")
	deny := &cobra.Command{
		Use:   "deny ID",
		Short: "Refuse a waiting request (at a terminal only)",
		Args:  exactArgs(1, "approvals deny takes one approval ID, as wisp approvals list shows it"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return answerApprovalCmd(cmd, env, args[0], wisp.ScopeNone)
		},
	}
	c.AddCommand(list, approve, deny)
	return c
}

// parseAnswerScope reads --scope.
func parseAnswerScope(s string) (wisp.Scope, error) {
	switch s {
	case "once":
		return wisp.ScopeOnce, nil
	case "session":
		return wisp.ScopeSession, nil
	}
	return wisp.ScopeNone, usagef("--scope must be once or session, not %q (see wisp approvals approve --help)", s)
}

func listApprovalsCmd(cmd *cobra.Command, env environ) error {
	h, err := openHome(env)
	if err != nil {
		return err
	}
	store := h.Approvals(nil)
	rs, err := store.List()
	if err != nil {
		return err
	}
	ds, err := store.Damaged()
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if len(rs) > 0 || len(ds) == 0 {
		writeApprovals(out, rs, time.Now())
	}
	for i, d := range ds {
		if i > 0 || len(rs) > 0 {
			fmt.Fprintln(out)
		}
		fmt.Fprintf(out, "approval %s · damaged\n", d.ID)
		fmt.Fprintf(out, "! %s\n", escape.Terminal(oneLine(d.Err.Error())))
		fmt.Fprintln(out, "nothing approves it: the request that waits on it is refused")
	}
	return nil
}

// answerApprovalCmd shows request id and files the person's answer:
// scope, or a denial when scope is ScopeNone, as outofband.Answerer does
// it at this terminal.
func answerApprovalCmd(cmd *cobra.Command, env environ, id string, scope wisp.Scope) error {
	h, err := openHome(env)
	if err != nil {
		return err
	}
	stdin, stdout := cmd.InOrStdin(), cmd.OutOrStdout()
	a := &outofband.Answerer{
		Store: h.Approvals(nil), From: outofband.FromTerminal, Commands: "wisp approvals",
		Refuse: func(verb, _ string) error { return terminalRefusal(verb, "an approval request", stdin, stdout) },
		Show: func(r outofband.Request) {
			now := time.Now()
			fmt.Fprintln(stdout, approvalHeading(r, now))
			writeApproval(stdout, r, now)
		},
		Say: func(_ outofband.Request, line string) { fmt.Fprintln(stdout, line) },
	}
	if isTerminal(stdin) && isTerminal(stdout) {
		// The answer is recorded in a session of its own, with this
		// terminal's name, before it is filed.
		log, err := openAnswerLog(h)
		if err != nil {
			return err
		}
		defer log.Close()
		a.Store.Witness = audit.Witness{Log: log, Session: newID()}
		tty := stdin.(*os.File) // a terminal, as isTerminal saw
		a.Terminal = ttyName(tty)
		a.Confirm = confirmApproval(tty, stdout)
	}
	// Ctrl-C ends it, and every prompt of it.
	err = a.Answer(cmd.Context(), id, scope)
	if errors.Is(err, outofband.ErrBadID) || errors.Is(err, outofband.ErrNotOffered) {
		return usageError{err}
	}
	return err
}

// confirmApproval asks the person at tty to confirm approving a request
// by typing y, and reports whether they did. Keys typed before the prompt
// appeared are dropped first. The read ends with ctx and at the end of
// the input.
func confirmApproval(tty *os.File, out io.Writer) func(context.Context, outofband.Request, wisp.Scope) (bool, error) {
	return func(ctx context.Context, _ outofband.Request, scope wisp.Scope) (bool, error) {
		// Drop what was typed before the prompt appears, then show it and
		// only then start reading, so that no reader can hold a line typed
		// too early and a key typed after the prompt is never dropped.
		flushInput(tty)
		fmt.Fprintf(out, "approve %s? type y to approve; anything else files nothing › ", scope)
		line, err := terminal.NewInput(tty).ReadLine(ctx)
		if err != nil {
			fmt.Fprintln(out)
			return false, err
		}
		t := strings.ToLower(strings.TrimSpace(line))
		return t == "y" || t == "yes", nil
	}
}

// approvalHeading is the line that names a request: its id, its thread
// and how long ago it was asked.
func approvalHeading(r outofband.Request, now time.Time) string {
	return askedHeading("approval", r.ID, r.Thread, now.Sub(r.Asked))
}

// writeApproval writes r as the terminal face shows a request, escaped
// and indented under wisp's label, then what it offers and when it ends.
func writeApproval(w io.Writer, r outofband.Request, now time.Time) {
	width := terminal.Width(w)
	var b strings.Builder
	b.WriteString(terminal.ApprovalLabel + "\n")
	b.WriteString(terminal.Quote("", r.Command, width))
	if r.Text != "" {
		for l := range strings.SplitSeq(strings.TrimSuffix(r.Text, "\n"), "\n") {
			b.WriteString(terminal.Quote("", strings.TrimSuffix(l, "\r"), width))
		}
	}
	b.WriteString(terminal.Diff(r.Diff, width, false))
	b.WriteString("offers " + r.Offered())
	if !r.Deadline.IsZero() {
		b.WriteString(" · refused unanswered " + fromNow(r.Deadline.Sub(now)))
	}
	b.WriteString("\n")
	io.WriteString(w, b.String())
}

// writeApprovals lists rs, one block each, with the commands that answer
// them.
func writeApprovals(w io.Writer, rs []outofband.Request, now time.Time) {
	writeBlocks(w, rs, noApprovalsWaiting, func(r outofband.Request) {
		fmt.Fprintln(w, approvalHeading(r, now))
		writeApproval(w, r, now)
		wider := ""
		if r.Offers(wisp.ScopeSession) {
			wider = " [--scope session]"
		}
		fmt.Fprintf(w, "approve: wisp approvals approve %s%s · deny: wisp approvals deny %s\n", r.ID, wider, r.ID)
	})
}
