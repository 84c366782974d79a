package main

import (
	"errors"
	"fmt"
	"net"

	"github.com/spf13/cobra"

	"github.com/wisp-agent/wisp/conversation"
	"github.com/wisp-agent/wisp/internal/cmdline"
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
	h, err := openHome(env)
	if err != nil {
		return err
	}
	conv := &conversation.Options{ModelName: f.model}
	if err := inHome(env, conv); err != nil {
		return err
	}
	err = mcpserver.ServeHome(cmd.Context(), h, conv, &mcpserver.HomeServeOptions{
		Addr: f.addr, TokenFile: f.tokenFile, Stdin: cmd.InOrStdin(), Stdout: cmd.OutOrStdout(),
		Listening: func(addr net.Addr, tokenFile string) {
			fmt.Fprintf(cmd.ErrOrStderr(), "wisp mcp: serving http://%s%s to requests with Authorization: Bearer and the token in %s\n",
				addr, mcpserver.EndpointPath, tokenFile)
		},
	})
	switch {
	case errors.Is(err, mcpserver.ErrTokenWithoutHTTP):
		return cmdline.Usagef("--token-file is for --http: over stdio only the host that started wisp mcp can reach it")
	case errors.Is(err, mcpserver.ErrNotLoopback):
		return cmdline.Usagef("--http %w", err)
	}
	return usageOf(err)
}
