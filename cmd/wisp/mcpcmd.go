package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent/threadfile"
	"github.com/wisp-agent/wisp/audit"
	"github.com/wisp-agent/wisp/config"
	"github.com/wisp-agent/wisp/mcpserver"
	"github.com/wisp-agent/wisp/policy/secrets"
)

func newMCPCmd(env environ) *cobra.Command {
	var model, addr, tokenFile string
	c := &cobra.Command{
		Use:   "mcp [--model M] [--http ADDR [--token-file PATH]]",
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
A message may have at most 2 MiB, and 16 HTTP requests are served at once.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if addr == "" && tokenFile != "" {
				return usagef("--token-file is for --http: over stdio only the host that started wisp mcp can reach it")
			}
			h, err := openHome(env)
			if err != nil {
				return err
			}
			var token string
			if addr != "" {
				if err := checkLoopback(addr); err != nil {
					return err
				}
				if tokenFile == "" {
					tokenFile = filepath.Join(h.dir, "mcp-token")
				}
				if token, err = mcpserver.TokenFile(tokenFile); err != nil {
					return err
				}
			}
			cfg, err := config.Load(h.config())
			if err != nil {
				return err
			}
			// The server's own records: answers given in the client's
			// dialog, recorded before they are filed, and answers on file
			// that no record vouches for, refused.
			redactor := secrets.NewRedactor()
			serverLog, err := audit.Open(h.audit(), &audit.Options{Redact: func(s string) string {
				out, _ := redactor.Redact(s)
				return out
			}})
			if err != nil {
				return err
			}
			defer serverLog.Close()
			witness := auditWitness{log: serverLog, dir: h.audit()}
			questions := parkedQuestions(h, witness)
			if err := questions.Sweep(cmd.Context()); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			approvals := approvalsStore(h, witness)
			if err := approvals.Sweep(cmd.Context()); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			convs := &mcpConversations{env: env, model: model}
			defer convs.Close()
			srv := mcpserver.New(&mcpserver.Options{
				Token:         token,
				Pending:       questions,
				Elicitation:   cfg.Inquiry.Elicitation,
				Approvals:     approvals,
				Events:        auditSink{serverLog},
				OutOfBand:     cfg.Approval.OutOfBand,
				Conversations: convs,
				Threads:       threadfile.Dir{Path: filepath.Join(h.dir, "threads")},
				Home:          h.dir,
				Audit: func(thread string) ([]byte, error) {
					recs, err := audit.Read(h.audit(), audit.Filter{Thread: thread})
					if errors.Is(err, fs.ErrNotExist) {
						return nil, nil
					}
					if err != nil {
						return nil, err
					}
					var b bytes.Buffer
					enc := json.NewEncoder(&b)
					enc.SetEscapeHTML(false)
					for _, r := range recs {
						if err := enc.Encode(r); err != nil {
							return nil, err
						}
					}
					return b.Bytes(), nil
				},
			})
			convs.face, convs.approve, convs.notify = srv.Face(), srv.Approver(), srv.Notifier()
			defer func() {
				// The turns still running park their questions and end.
				ctx, cancel := context.WithTimeout(context.WithoutCancel(cmd.Context()), closeWait)
				defer cancel()
				_ = srv.Close(ctx)
			}()
			// Fail early, before a client connects, on a model that will not run.
			if _, err := convs.Agent(cmd.Context(), nil); err != nil {
				return err
			}
			if addr == "" {
				return srv.ServeStdio(cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout())
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wisp mcp: serving http://%s%s to requests with Authorization: Bearer and the token in %s\n",
				ln.Addr(), mcpserver.EndpointPath, tokenFile)
			hs := &http.Server{Handler: srv.HTTPHandler(), ReadHeaderTimeout: readHeaderTimeout}
			go func() {
				<-cmd.Context().Done()
				hs.Close()
			}()
			if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		},
	}
	c.Flags().StringVar(&model, "model", "", "the model, as for chat (default: models.default)")
	c.Flags().StringVar(&addr, "http", "", "serve streamable HTTP on this loopback address instead of stdio")
	c.Flags().StringVar(&tokenFile, "token-file", "", "with --http, the file of the bearer token requests must carry (default $WISP_HOME/mcp-token)")
	return c
}

// checkLoopback refuses an --http address that is not a loopback host
// and a port.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return usagef("--http %q: give a loopback address and port, such as 127.0.0.1:8765", addr)
	}
	if ip := net.ParseIP(host); !(host == "localhost" || (ip != nil && ip.IsLoopback())) {
		return usagef("--http %q: wisp serves MCP on a loopback address only, such as 127.0.0.1:8765", addr)
	}
	return nil
}

// readHeaderTimeout bounds how long wisp mcp --http waits for a request's
// headers, so a connection that sends none does not hold on.
const readHeaderTimeout = 10 * time.Second

// closeWait bounds how long wisp mcp waits, once its client is gone, for
// the turns still running to park their questions and save their threads.
const closeWait = 30 * time.Second

// mcpConversations keeps one conversation per tool list for the server's
// life: the audit log, the model and the tools are wired once.
type mcpConversations struct {
	env     environ
	model   string
	face    wisp.Inquirer
	approve wisp.Approver
	notify  wisp.Notifier

	mu    sync.Mutex
	convs map[string]*conversation
}

func (m *mcpConversations) Agent(ctx context.Context, named []string) (wisp.Agent, error) {
	key := "*"
	if named != nil {
		sorted := slices.Clone(named)
		slices.Sort(sorted)
		key = "=" + strings.Join(sorted, ",")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if c := m.convs[key]; c != nil {
		return c.agent, nil
	}
	c, err := newConversation(m.env, convOptions{model: m.model, named: named, face: m.face, approve: m.approve, notify: m.notify})
	if err != nil {
		return nil, err
	}
	if m.convs == nil {
		m.convs = map[string]*conversation{}
	}
	m.convs[key] = c
	return c.agent, nil
}

func (m *mcpConversations) Close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range m.convs {
		c.Close()
	}
}
