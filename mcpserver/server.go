// Package mcpserver serves wisp over the Model Context Protocol: a
// respond tool that runs one turn of wisp's agent on a thread, and each
// thread (and its audit records) as a resource. The CLI's wisp mcp builds
// a Server and binds it to stdio or to a loopback HTTP address.
//
// Questions the model asks go to the person through wisp's own faces,
// never to the MCP caller: Server.Face is an mcpface.Face, which files
// them for wisp questions at a terminal, announces them, puts them to the
// client's dialog when the person allowed it, holds the call for a
// minute, then parks the turn; the Server gives each turn the
// mcpface.Session it speaks to the client through, in both protocol eras.
// A parked question's answer reaches the thread's next turn through
// pending.Inbox, in whichever face runs it.
package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/agent/threadfile"
	"github.com/wisp-agent/wisp/inquiry/mcpface"
	"github.com/wisp-agent/wisp/inquiry/pending"
	"github.com/wisp-agent/wisp/internal/fsx"
	"github.com/wisp-agent/wisp/internal/version"
	"github.com/wisp-agent/wisp/policy/outofband"
)

// Conversations builds the agent for one respond call. The CLI supplies
// it (it owns the settings, the models and the audit log); tests supply a
// scripted one. Agent is called once per respond call, from many
// goroutines at once, so implementations must be safe for concurrent use.
type Conversations interface {
	// Agent returns the agent for a conversation whose tool list is
	// named; nil means every tool the settings allow, an empty non-nil
	// list means none. A name no tool has is an error wrapping the
	// *tools.UnknownToolError that tools.Registry.Select returns, which
	// respond turns into a line about its tools argument. The agent must keep
	// its threads in the Server's Options.Threads (its Store), so the
	// thread resources see them. An agent that is also a Holder, as
	// *agent.Agent is, has its thread held under the respond call.
	Agent(ctx context.Context, named []string) (wisp.Agent, error)
}

// ConversationsFunc adapts a function to Conversations.
type ConversationsFunc func(ctx context.Context, named []string) (wisp.Agent, error)

// Agent calls f.
func (f ConversationsFunc) Agent(ctx context.Context, named []string) (wisp.Agent, error) {
	return f(ctx, named)
}

// A Holder is an agent that can take a thread for one turn ahead of
// Respond, as *agent.Agent does (see agent.Agent.Hold): from its other
// turns and, through its store, from every other process. Respond on the
// held context runs on the held thread; release gives the thread up once
// that Respond has returned.
//
// A respond call holds its thread under the call's context, so that a
// client that cancels the call stops the wait, and the turn then runs
// apart from the call. The turns of an agent that is no Holder wait
// their turn within this server only, and take the thread in Respond.
type Holder interface {
	Hold(ctx context.Context, thread string) (held context.Context, release func(), err error)
}

var _ Holder = (*agent.Agent)(nil)

// Options configure a Server. A zero field means the default given
// beside it; Conversations is required.
type Options struct {
	// Conversations builds the agent for each respond call.
	Conversations Conversations
	// Threads is where threads live: the resources read them from here,
	// and new thread ids are chosen not to clash with them.
	Threads threadfile.Dir
	// Home is the wisp home. An error result or a notification that
	// names it (a thread file that cannot be read, a lock) reaches the
	// client with the home written $WISP_HOME: the calling agent's model
	// never reads where this machine keeps wisp's files. Empty: texts are
	// left as they are.
	Home string
	// Audit returns a thread's audit records as JSON lines, for the
	// wisp://threads/{thread_id}/audit resource; nil leaves that resource
	// out.
	Audit func(thread string) ([]byte, error)
	// Name and Version are the server's implementation info: "wisp" and
	// wisp's version as the build recorded it, the line wisp --version
	// prints, unless set.
	Name, Version string
	// NewID makes new thread ids ("t-" and 8 hex digits).
	NewID func() string
	// OnCall, when set, is applied to the context of each respond call
	// before its turn runs, so a face can find the MCP session and the
	// thread from the context the tools receive.
	OnCall func(ctx context.Context, thread string) context.Context
	// Logger receives the MCP library's own diagnostics; nil discards
	// them. The server never writes to stdout or stderr.
	Logger *slog.Logger

	// Pending, Elicitation, Hold, After, Events, Approvals and OutOfBand
	// configure the Face (see mcpface.Options).
	//
	// Pending is where the Face files the model's questions
	// ($WISP_HOME/pending). A zero Dir: questions get "no person can
	// answer here". Give it a Witness (wisp mcp gives the audit log): an
	// answer in the client's dialog is then recorded as inquiry.answered
	// through it before it is filed, and an answer on file is taken only
	// when the Witness vouches for it.
	Pending pending.Store
	// Elicitation is inquiry.elicitation: also put questions, ask_user
	// cards and approval requests to the client's own dialog when it
	// declared it can show a form.
	Elicitation bool
	// Hold is how long a respond call holds for the person before the
	// turn parks the question, falls the card back or refuses the
	// request (DefaultHold).
	Hold time.Duration
	// After is the clock the hold runs on; nil means time.After. Tests
	// pass a channel they close. A hold begins before its question or
	// approval request is filed, so once one can be seen in its folder,
	// its hold runs.
	After func(time.Duration) <-chan time.Time

	// Events receives what the server itself records (the turn's own
	// events go to its agent's sink): inquiry.answered and
	// approval.answered when the person answers in the client's dialog,
	// once the answer is filed, for a Pending or Approvals store without
	// a Witness (with one, the Witness records them). nil drops them.
	Events wisp.EventSink

	// Approvals is where the Face files the model's requests for the
	// person's approval ($WISP_HOME/approvals). Give it a Witness, as
	// Pending.
	Approvals outofband.Store
	// OutOfBand is approval.outOfBand: let such a request wait for wisp
	// approvals (and the client's dialog, with Elicitation). Off, or
	// with a zero Approvals.Dir, every request is refused.
	OutOfBand bool

	// Token is the bearer token HTTPHandler requires on every request
	// (Authorization: Bearer <Token>); empty, it lets no request in.
	// TokenFile keeps one in a file. Stdio needs none: only the host
	// that started the server can reach it.
	Token string
	// MaxRequestBytes bounds one message from the client: a longer HTTP
	// body is refused with 413, a longer stdio line is skipped with an
	// error response (DefaultMaxRequestBytes).
	MaxRequestBytes int64
	// MaxRequests bounds the HTTP requests served at once, open event
	// streams included; one more is refused with 503 and Retry-After
	// (DefaultMaxRequests).
	MaxRequests int
}

// A Server serves wisp over MCP. It is safe for concurrent use: respond
// calls on different threads run at once; calls on the same thread run
// one after the other, in the order they arrive at the thread's lock.
type Server struct {
	opts Options
	mcp  *server.MCPServer
	face *mcpface.Face

	httpOnce sync.Once
	http     http.Handler

	mu      sync.Mutex
	threads map[string]*threadLock
	runs    map[string]*run               // the latest turn on each thread, while it may be attached to
	dialogs map[string]context.CancelFunc // 2025-era elicitations in flight
	turns   sync.WaitGroup                // turns running

	retryKeep time.Duration // how long an ended turn waits for a retry that is owed
}

// DefaultHold is how long a respond call holds for the person.
const DefaultHold = mcpface.DefaultHold

// Defaults for Options.
const (
	DefaultName = "wisp"
	// EndpointPath is where HTTPHandler serves MCP.
	EndpointPath = "/mcp"
	// DefaultMaxRequestBytes (2 MiB) holds the largest respond call: a
	// prompt of MaxPrompt characters takes at most 1.2 MB of JSON even
	// when every character is written as the longest escape, \uXXXX\uXXXX
	// (a character beyond U+FFFF, from an encoder that writes ASCII only).
	DefaultMaxRequestBytes = 2 << 20
	// DefaultMaxRequests is how many HTTP requests are served at once.
	DefaultMaxRequests = 16
)

// New returns a server with the respond tool and the thread resources.
func New(opts *Options) *Server {
	s := &Server{threads: make(map[string]*threadLock), runs: make(map[string]*run), dialogs: make(map[string]context.CancelFunc),
		retryKeep: 10 * time.Minute}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.Name == "" {
		s.opts.Name = DefaultName
	}
	if s.opts.Version == "" {
		s.opts.Version = version.String()
	}
	if s.opts.NewID == nil {
		s.opts.NewID = newThreadID
	}
	if s.opts.Logger == nil {
		s.opts.Logger = slog.New(slog.DiscardHandler)
	}
	if s.opts.Hold <= 0 {
		s.opts.Hold = DefaultHold
	}
	if s.opts.After == nil {
		s.opts.After = time.After
	}
	if s.opts.MaxRequestBytes <= 0 {
		s.opts.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if s.opts.MaxRequests <= 0 {
		s.opts.MaxRequests = DefaultMaxRequests
	}
	s.face = mcpface.New(&mcpface.Options{
		Pending:     s.opts.Pending,
		Approvals:   s.opts.Approvals,
		OutOfBand:   s.opts.OutOfBand,
		Elicitation: s.opts.Elicitation,
		Hold:        s.opts.Hold,
		After:       s.opts.After,
		Events:      s.opts.Events,
		Logger:      s.opts.Logger,
	})
	s.mcp = server.NewMCPServer(s.opts.Name, s.opts.Version,
		server.WithToolCapabilities(false),
		server.WithResourceCapabilities(false, false),
		server.WithLogging(),
		server.WithRecovery(),
		server.WithResourceRecovery(),
	)
	s.mcp.AddTool(respondTool(), s.respond)
	s.addResources()
	return s
}

// Face returns the face the model's questions, cards and requests for
// approval reach the person through while the server runs their turns:
// build each conversation's desk and gate with it (see mcpface.Face).
func (s *Server) Face() *mcpface.Face { return s.face }

// Approver returns the Face, as the approver of each conversation's gate.
func (s *Server) Approver() wisp.Approver { return s.face }

// MCP returns the mcp-go server, for transports and tests.
func (s *Server) MCP() *server.MCPServer { return s.mcp }

// ServeStdio serves one client over in and out, JSON-RPC messages one a
// line, until ctx is done or in ends. A line longer than
// Options.MaxRequestBytes is read past, never held whole, and answered
// with an error response. mcp-go keeps one stdio session a process, so
// run one ServeStdio at a time.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	ss := server.NewStdioServer(s.mcp)
	ss.SetErrorLogger(slog.NewLogLogger(s.opts.Logger.Handler(), slog.LevelError))
	w := &wholeWriter{w: out}
	lines := newBoundedLines(in, s.opts.MaxRequestBytes, func(id json.RawMessage) {
		if err := w.writeMessage(rpcError(id, mcp.INVALID_REQUEST, s.tooLarge())); err != nil {
			s.opts.Logger.Error("refusing a request that is too large", "error", err)
		}
	})
	err := ss.Listen(ctx, lines, w)
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// HTTPHandler returns the streamable HTTP transport, serving at
// EndpointPath. Bind it to a loopback address only. In this order, it
// refuses
//
//   - with 403, a request whose Host or Origin header is not a loopback
//     name or address (a defence against DNS rebinding);
//   - with 401 and WWW-Authenticate, one without Options.Token as its
//     bearer token;
//   - with 503 and Retry-After, one beyond Options.MaxRequests served at
//     once;
//   - with 413, a body longer than Options.MaxRequestBytes, of which it
//     reads no more than one byte past the bound.
//
// The 401, 503 and 413 bodies are JSON-RPC error responses, which
// clients show as the call's error. Every call returns the same handler.
func (s *Server) HTTPHandler() http.Handler {
	s.httpOnce.Do(func() {
		h := server.NewStreamableHTTPServer(s.mcp,
			server.WithEndpointPath(EndpointPath),
			server.WithStreamableHTTPLogger(s.opts.Logger),
		)
		s.http = loopbackOnly(requireToken(s.opts.Token,
			limitRequests(s.opts.MaxRequests,
				limitBody(s.opts.MaxRequestBytes, s.tooLarge(), h))))
	})
	return s.http
}

// Notify sends message to the client whose request ctx belongs to, as a
// logging notification (notifications/message, level notice, logger
// "wisp"). The client gets it when it asked for notice or finer: with
// logging/setLevel on a 2025 connection, or the request's log level on a
// 2026-07-28 one; otherwise it is dropped, as the protocol requires, and
// Notify returns nil. Notify fails when ctx carries no initialised
// session or the session's queue is full.
func (s *Server) Notify(ctx context.Context, message string) error {
	return s.mcp.SendLogMessageToClient(ctx,
		mcp.NewLoggingMessageNotification(mcp.LoggingLevelNotice, "wisp", fsx.HideHome(message, s.opts.Home)))
}

// Close makes every turn still running park the question it waits on and
// waits, until ctx is done, for the turns to end and their threads to be
// saved; it withdraws the dialogs still open in clients. Run it after
// the transport stops.
func (s *Server) Close(ctx context.Context) error {
	s.mu.Lock()
	for _, r := range s.runs {
		r.parkNow()
	}
	for _, cancel := range s.dialogs {
		cancel()
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() {
		s.turns.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// newThreadID returns "t-" and 8 random hex digits.
func newThreadID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "t-" + hex.EncodeToString(b[:])
}
