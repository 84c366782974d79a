package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/wisp-agent/wisp/conversation"
	"github.com/wisp-agent/wisp/home"
	"github.com/wisp-agent/wisp/mcpserver"
)

func newMCPCmd(env environ) *cobra.Command {
	f := &mcpFlags{}
	c := &cobra.Command{
		Use:   "mcp [--model M] [--workspace DIR] [--http ADDR [--token-file PATH]]",
		Short: "Serve wisp to another agent over MCP (stdio, or streamable HTTP on loopback)",
		Long: `Serve wisp over the Model Context Protocol: the tool respond runs a turn of wisp's agent
on a thread (kept under $WISP_HOME/threads, so a restarted server goes on with it), and
the resources wisp://threads/{thread_id} and wisp://threads/{thread_id}/audit show a
thread's messages, facts and audit records.

Nothing in the MCP conversation answers a question wisp's model asks: it is filed under
$WISP_HOME/pending and announced to the client ("wisp: the model asks: … — wisp questions
answer ID"); you answer it with wisp questions answer ID at a terminal, or in a plain
wisp chat, or (with inquiry.elicitation on) in the client's own dialog. The call holds
for a minute; then the turn parks the question and its answer reaches the thread's next
turn. Requests for your approval wait the same minute for wisp approvals (with
approval.outOfBand on, the default); silence refuses.

Over stdio by default; --http 127.0.0.1:8765 serves streamable HTTP at /mcp on a
loopback address only. Every HTTP request must carry the header
Authorization: Bearer TOKEN, with the token kept in $WISP_HOME/mcp-token (or the
file --token-file names), which wisp mcp creates, mode 0600, when it is missing.
A message may have at most 2 MiB, and 16 HTTP requests are served at once.` + environment,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runMCP(cmd, env, f) },
	}
	c.Flags().StringVar(&f.model, "model", "", "the model, as for chat (default: models.default)")
	c.Flags().StringVar(&f.addr, "http", "", "serve streamable HTTP on this loopback address instead of stdio")
	c.Flags().StringVar(&f.tokenFile, "token-file", "", "with --http, the file of the bearer token requests must carry (default $WISP_HOME/mcp-token)")
	workspaceFlag(c, env)
	return c
}

// mcpFlags are wisp mcp's flags.
type mcpFlags struct {
	model, addr, tokenFile string
}

// runMCP serves wisp over MCP until the client goes or ctx ends.
func runMCP(cmd *cobra.Command, env environ, f *mcpFlags) error {
	if f.addr == "" && f.tokenFile != "" {
		return usagef("--token-file is for --http: over stdio only the host that started wisp mcp can reach it")
	}
	h, err := openHome(env)
	if err != nil {
		return err
	}
	token, err := mcpToken(h, f)
	if err != nil {
		return err
	}
	// The server's own records: answers given in the client's dialog,
	// recorded before they are filed, and answers on file that no record
	// vouches for, refused.
	serverLog, err := h.OpenAudit(nil)
	if err != nil {
		return err
	}
	defer serverLog.Close()
	opts := &conversation.Options{ModelName: f.model}
	if err := inHome(env, opts); err != nil {
		return err
	}
	srv, convs, err := mcpserver.NewInHome(cmd.Context(), h, serverLog, token, opts)
	if err != nil {
		return err
	}
	defer convs.Close()
	defer func() {
		// The turns still running park their questions and end.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(cmd.Context()), closeWait)
		defer cancel()
		_ = srv.Close(ctx)
	}()
	// Fail early, before a client connects, on a model that will not run.
	if _, err := convs.Agent(cmd.Context(), nil); err != nil {
		return usageOf(err)
	}
	if f.addr == "" {
		return srv.ServeStdio(cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout())
	}
	ln, err := mcpserver.ListenHTTP(f.addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "wisp mcp: serving http://%s%s to requests with Authorization: Bearer and the token in %s\n",
		ln.Addr(), mcpserver.EndpointPath, f.tokenFile)
	return srv.ServeHTTP(cmd.Context(), ln)
}

// mcpToken returns the bearer token wisp mcp --http requires, from the
// file --token-file names or $WISP_HOME/mcp-token, made when it is
// missing; none over stdio. It refuses an address not on loopback.
func mcpToken(h *home.Home, f *mcpFlags) (string, error) {
	if f.addr == "" {
		return "", nil
	}
	if err := mcpserver.CheckAddr(f.addr); err != nil {
		return "", usagef("--http %w", err)
	}
	if f.tokenFile == "" {
		f.tokenFile = filepath.Join(h.Dir(), "mcp-token")
	}
	return mcpserver.TokenFile(f.tokenFile)
}

// closeWait bounds how long wisp mcp waits, once its client is gone, for
// the turns still running to park their questions and save their threads.
const closeWait = 30 * time.Second
