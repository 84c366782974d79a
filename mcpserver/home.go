package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"io/fs"

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
