package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"path/filepath"
	"time"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/audit"
	"github.com/wisp-agent/wisp/conversation"
	"github.com/wisp-agent/wisp/home"
)

// HomeOptions returns the Options of a server over the wisp home h, as
// wisp mcp runs it: the settings read now (inquiry.elicitation,
// approval.outOfBand), the pending and approvals folders with log as
// their Witness (an answer in the client's dialog is recorded before it
// is filed, and an answer on file is taken only when log vouches for
// it), log as the server's own record, the home's threads, and each
// thread's audit records for its audit resource. The caller adds
// Conversations, whose agents keep their threads in the same home, and
// Token for HTTP.
func HomeOptions(h *home.Home, log *audit.Log) (*Options, error) {
	cfg, err := h.Settings().Load()
	if err != nil {
		return nil, err
	}
	witness := audit.Witness{Log: log}
	return &Options{
		Pending:     h.Questions(witness),
		Approvals:   h.Approvals(witness),
		Elicitation: cfg.Inquiry.Elicitation,
		OutOfBand:   cfg.Approval.OutOfBand,
		Events:      log,
		Threads:     h.Threads(nil),
		Home:        h.Dir(),
		Audit: func(thread string) ([]byte, error) {
			var b bytes.Buffer
			err := audit.List(&b, h.AuditDir(), &audit.ListOptions{Filter: audit.Filter{Thread: thread}, JSON: true})
			return b.Bytes(), err
		},
	}, nil
}

// Sweep clears out of the pending and approvals folders (Options.Pending,
// Options.Approvals) what crashes leave there (see pending.Store.Sweep and
// outofband.Store.Sweep): run it before the server starts. Folders not
// made yet are nothing to sweep.
func (s *Server) Sweep(ctx context.Context) error {
	if s.opts.Pending.Dir != "" {
		if err := s.opts.Pending.Sweep(ctx); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	if s.opts.Approvals.Dir != "" {
		if err := s.opts.Approvals.Sweep(ctx); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// NewInHome returns a server over the wisp home h as wisp mcp runs it
// (HomeOptions, with log, and token for HTTP), its folders swept (Sweep),
// whose respond calls run on a pool of conversations, one per tool list,
// each built from conv (the home, the model and its backends) with the
// server's faces as its Face, Approver and Notifier. Close the pool once
// the server has closed.
func NewInHome(ctx context.Context, h *home.Home, log *audit.Log, token string, conv *conversation.Options) (*Server, *conversation.Pool, error) {
	o, err := HomeOptions(h, log)
	if err != nil {
		return nil, nil, err
	}
	var pool *conversation.Pool // set once the server's faces are
	o.Token = token
	o.Conversations = ConversationsFunc(func(ctx context.Context, named []string) (wisp.Agent, error) {
		a, err := pool.Agent(ctx, named)
		if err != nil {
			return nil, err
		}
		return a, nil
	})
	s := New(o)
	if err := s.Sweep(ctx); err != nil {
		return nil, nil, err
	}
	c := *conv
	c.Face, c.Approver, c.Notifier = s.Face(), s.Approver(), s.Notifier()
	pool = conversation.NewPool(&c)
	return s, pool, nil
}

// ErrTokenWithoutHTTP refuses a token file for a server over stdio, which
// only the program that started it can reach.
var ErrTokenWithoutHTTP = errors.New("a token file is for HTTP: over stdio only the program that started the server can reach it")

// DefaultCloseWait is how long ServeHome waits by default, once its
// client is gone, for the turns still running to park their questions
// and save their threads.
const DefaultCloseWait = 30 * time.Second

// HomeServeOptions configure ServeHome. A nil *HomeServeOptions or a
// zero field means the default given beside the field.
type HomeServeOptions struct {
	// Addr, when not "", serves streamable HTTP at EndpointPath on this
	// address, a loopback host and port (CheckAddr); "": stdio.
	Addr string
	// TokenFile is the file of the bearer token every HTTP request must
	// carry (TokenFile), made when it is missing; "": mcp-token in the
	// home. It goes with Addr only (ErrTokenWithoutHTTP).
	TokenFile string
	// Stdin and Stdout carry the messages over stdio.
	Stdin  io.Reader
	Stdout io.Writer
	// Listening, if set, is told the address HTTP is served on and the
	// token file, once the server listens.
	Listening func(addr net.Addr, tokenFile string)
	// CloseWait bounds how long the server waits at the end for the turns
	// still running; 0: DefaultCloseWait.
	CloseWait time.Duration
}

// ServeHome serves wisp over MCP from the wisp home h, as wisp mcp does,
// until the client goes or ctx ends: a server over an audit log of its
// own (NewInHome), whose conversations are built from conv; a model that
// will not run refused before any client connects, with conv's error;
// then stdio, or HTTP on opts.Addr with its token. At the end the turns
// still running park their questions and save their threads, for up to
// CloseWait, and the conversations close. An address not on loopback
// (ErrNotLoopback) and a token file without one (ErrTokenWithoutHTTP)
// are refused before anything is opened.
func ServeHome(ctx context.Context, h *home.Home, conv *conversation.Options, opts *HomeServeOptions) error {
	var o HomeServeOptions
	if opts != nil {
		o = *opts
	}
	if o.CloseWait <= 0 {
		o.CloseWait = DefaultCloseWait
	}
	token, err := homeToken(h, &o)
	if err != nil {
		return err
	}
	log, err := h.OpenAudit(nil)
	if err != nil {
		return err
	}
	defer log.Close()
	srv, pool, err := NewInHome(ctx, h, log, token, conv)
	if err != nil {
		return err
	}
	defer pool.Close()
	defer func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), o.CloseWait)
		defer cancel()
		_ = srv.Close(ctx)
	}()
	if _, err := pool.Agent(ctx, nil); err != nil {
		return err
	}
	if o.Addr == "" {
		return srv.ServeStdio(ctx, o.Stdin, o.Stdout)
	}
	ln, err := ListenHTTP(o.Addr)
	if err != nil {
		return err
	}
	if o.Listening != nil {
		o.Listening(ln.Addr(), o.TokenFile)
	}
	return srv.ServeHTTP(ctx, ln)
}

// homeToken returns the bearer token of a server on o.Addr, from
// o.TokenFile or the home's mcp-token (which o.TokenFile is set to), and
// none over stdio.
func homeToken(h *home.Home, o *HomeServeOptions) (string, error) {
	if o.Addr == "" {
		if o.TokenFile != "" {
			return "", ErrTokenWithoutHTTP
		}
		return "", nil
	}
	if err := CheckAddr(o.Addr); err != nil {
		return "", err
	}
	if o.TokenFile == "" {
		o.TokenFile = filepath.Join(h.Dir(), "mcp-token")
	}
	return TokenFile(o.TokenFile)
}
