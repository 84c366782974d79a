package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/agent/threadfile"
	"github.com/wisp-agent/wisp/audit"
	"github.com/wisp-agent/wisp/config"
	"github.com/wisp-agent/wisp/inquiry"
	"github.com/wisp-agent/wisp/internal/fsx"
	"github.com/wisp-agent/wisp/mcpserver"
	"github.com/wisp-agent/wisp/models"
	"github.com/wisp-agent/wisp/models/ollama"
	"github.com/wisp-agent/wisp/models/openai"
	"github.com/wisp-agent/wisp/models/script"
	"github.com/wisp-agent/wisp/policy"
	"github.com/wisp-agent/wisp/policy/secrets"
	"github.com/wisp-agent/wisp/tools"
	"github.com/wisp-agent/wisp/tools/ask"
	"github.com/wisp-agent/wisp/tools/askuser"
	"github.com/wisp-agent/wisp/tools/modelstool"
	"github.com/wisp-agent/wisp/tools/requestapproval"
)

// home is the wisp home folder and the paths in it.
type home struct{ dir string }

func (h home) config() string     { return filepath.Join(h.dir, "config.json") }
func (h home) configLock() string { return filepath.Join(h.dir, "locks", "config.lock") }
func (h home) audit() string      { return filepath.Join(h.dir, "audit") }

// openHome resolves WISP_HOME (default ~/.wisp) and makes sure it exists,
// is the person's own and is closed to others.
func openHome(env environ) (home, error) {
	dir, err := fsx.Home(env.getenv("WISP_HOME"), env.userHome)
	if err != nil {
		return home{}, err
	}
	for _, d := range []string{dir, filepath.Join(dir, "locks"), filepath.Join(dir, "audit")} {
		if err := fsx.EnsureDir(d); err != nil {
			return home{}, err
		}
	}
	return home{dir: dir}, nil
}

// lineAuditBusy is what a turn says when it waits for the audit log,
// which another process keeps locked.
const lineAuditBusy = "the audit log is locked by another process (a wisp audit --verify that was stopped, perhaps); this turn waits for it…"

// conversation is everything one conversation runs on, wired together.
type conversation struct {
	session string
	thread  string
	agent   *agent.Agent
	tools   *tools.Set
	model   string
	log     *audit.Log
	actions *models.Actions
	// redact replaces credentials with the session's markers, for what
	// the conversation shows of the person's own words.
	redact func(string) string
}

// Close ends the conversation: its background pulls are cancelled (what
// arrived is kept) and the audit log closed.
func (c *conversation) Close() error {
	c.actions.Close()
	return c.log.Close()
}

// convOptions are what a command asks of a conversation.
type convOptions struct {
	model   string
	named   []string // --tool; nil for every tool
	face    wisp.Inquirer
	approve wisp.Approver  // nil: no person can approve
	display wisp.EventSink // nil: none
	notify  wisp.Notifier  // nil: none
	onDelta func(thread string, d wisp.ChatDelta)
	thread  string // continue this thread; "" starts a new one
}

// newConversation reads the configuration once (a setting applies from the
// next conversation), opens the audit log and wires model, tools, desk and
// agent.
func newConversation(env environ, o convOptions) (*conversation, error) {
	h, err := openHome(env)
	if err != nil {
		return nil, err
	}
	cfg, err := config.Load(h.config())
	if err != nil {
		return nil, err
	}
	ref := o.model
	if ref == "" {
		ref = cfg.Models.Default
	}
	if ref == "" {
		return nil, usagef("no model given; pass --model (ollama:NAME, mlx:NAME, or script:PATH such as script:examples/scripts/ask.jsonl), or set models.default")
	}
	session := newID()
	redactor := secrets.NewRedactor()
	log, err := audit.Open(h.audit(), &audit.Options{Redact: func(s string) string {
		out, _ := redactor.Redact(s)
		return out
	}, Sync: syncNow, Waiting: func(ctx context.Context) {
		if o.notify != nil {
			_ = o.notify.Notify(ctx, wisp.Notice{Kind: agent.NoticeWaiting, Text: lineAuditBusy})
		}
	}})
	if err != nil {
		return nil, err
	}
	sink := multiSink{auditSink{log}}
	if o.display != nil {
		sink = append(sink, o.display)
	}
	// Secrets the person gives an ask_user secret question live here,
	// sealed, for this conversation only; the redactor knows their values.
	vault := secrets.NewVault(redactor)
	desk := inquiry.NewDesk(o.face, &inquiry.Options{
		Session:  session,
		Timeout:  cfg.Timeout(),
		Events:   sink,
		Redactor: redactor,
		Vault:    vault,
	})
	threshold, err := policy.ParseRating(cfg.Approval.Threshold)
	if err != nil {
		log.Close()
		return nil, err
	}
	gate := policy.NewGate(&policy.GateOptions{
		Approver:  o.approve,
		Events:    sink,
		Session:   session,
		Threshold: threshold,
		Timeout:   cfg.Timeout(),
	})
	var a *agent.Agent // set below; a pull ends long after it starts
	notify := func(thread, note string) {
		a.Note(thread, note)
		if o.notify != nil {
			_ = o.notify.Notify(context.Background(), wisp.Notice{Kind: "pull", Thread: thread, Text: note})
		}
	}
	actions, err := newActions(env, h, &models.Options{Approvals: gate, Events: sink, Session: session, Current: ref,
		Pull: &models.PullOptions{Notify: notify}})
	if err != nil {
		log.Close()
		return nil, err
	}
	model, info, err := openModel(context.Background(), env, h, actions, ref)
	if err != nil {
		log.Close()
		return nil, err
	}
	reg := tools.NewRegistry()
	for _, t := range []wisp.Tool{ask.New(desk), askuser.New(desk), requestapproval.New(gate), modelstool.New(actions, info.Name)} {
		if err := reg.AddOptIn(t); err != nil {
			log.Close()
			return nil, err
		}
	}
	set, err := reg.Select(tools.Selection{
		Named: o.named,
		Enabled: map[string]bool{ask.Name: cfg.Tools.Ask, modelstool.Name: cfg.Tools.Models,
			askuser.Name: cfg.Tools.AskUser, requestapproval.Name: cfg.Tools.RequestApproval},
		Disabled: cfg.Tools.Disabled,
	})
	if err != nil {
		log.Close()
		return nil, usageError{fmt.Errorf("%w (use --tool with one of the known tools)", err)}
	}
	a = agent.New(model, &agent.Options{
		Redact: func(s string) string {
			out, _ := redactor.Redact(s)
			return out
		},
		Inbox:         mcpserver.Inbox(parkedQuestions(h, auditWitness{log: log, dir: h.audit(), session: session}), desk),
		Tools:         set,
		Events:        sink,
		Notifier:      o.notify,
		OnDelta:       o.onDelta,
		Session:       session,
		Home:          h.dir,
		ContextTokens: info.Context,
		Store: threadfile.Dir{Path: filepath.Join(h.dir, "threads"), Locks: filepath.Join(h.dir, "locks"), Redact: func(s string) string {
			out, _ := redactor.Redact(s)
			return out
		}},
	})
	thread := o.thread
	if thread == "" {
		thread = "t-" + newID()
	} else if !threadfile.ValidID(thread) {
		log.Close()
		return nil, usagef("thread %q: %v", thread, threadfile.ErrBadID)
	}
	return &conversation{session: session, thread: thread, agent: a, tools: set, model: info.Name, log: log, actions: actions,
		redact: func(s string) string { out, _ := redactor.Redact(s); return out }}, nil
}

// openModel resolves a model reference: script:PATH plays a script;
// anything else is a model ModelActions knows, refused under every
// spelling when it is disabled or cannot call tools.
func openModel(ctx context.Context, env environ, h home, actions *models.Actions, ref string) (wisp.Model, wisp.ModelInfo, error) {
	if rest, ok := strings.CutPrefix(ref, "script:"); ok {
		if rest == "" {
			return nil, wisp.ModelInfo{}, usagef("model %q: give the script's path, as script:PATH", ref)
		}
		m, err := script.Load(rest)
		if err != nil {
			return nil, wisp.ModelInfo{}, usageError{err}
		}
		return m, wisp.ModelInfo{Name: ref}, nil
	}
	info, err := actions.Runnable(ctx, ref)
	if err != nil {
		if errors.Is(err, models.ErrBadName) || errors.Is(err, models.ErrDisabled) {
			return nil, wisp.ModelInfo{}, usageError{err}
		}
		return nil, wisp.ModelInfo{}, err
	}
	local := strings.TrimPrefix(info.Name, info.Runtime+":")
	switch info.Runtime {
	case "ollama":
		b, _ := actions.Backend("ollama").(*ollama.Backend)
		return b.ChatModel(local, &ollama.ChatOptions{ContextTokens: info.Context}), info, nil
	case "mlx":
		c, err := openai.New(env.getenv("WISP_MLX_URL"), nil)
		if err != nil {
			return nil, wisp.ModelInfo{}, usageError{err}
		}
		// mlx_lm.server loads a model from a path: the model's link.
		return c.ChatModel(filepath.Join(h.dir, "models", "mlx", local)), info, nil
	}
	return nil, wisp.ModelInfo{}, fmt.Errorf("%w %q", wisp.ErrUnknownModel, ref)
}

// syncNow says which records wait for the disk: every decision, answer,
// change and end of a turn. The rest (tool calls and results, model
// messages) are written at once and reach the disk with the next of those,
// so a crash of the process loses none of them; see docs/audit.md.
func syncNow(kind string) bool {
	switch kind {
	case wisp.KindToolCall, wisp.KindToolResult, wisp.KindModelMessage, wisp.KindTurnStarted,
		wisp.KindInquiryRequested, wisp.KindClassifierVerdict, wisp.KindApprovalRequested, wisp.KindNotice, wisp.KindCondensed:
		return false
	}
	return true
}

// auditSink writes events to the audit log.
type auditSink struct{ log *audit.Log }

func (s auditSink) Record(ctx context.Context, e wisp.Event) error {
	var data any = e.Data
	if e.Payload != nil {
		e.Kind, data = e.Payload.EventKind(), e.Payload
	}
	_, err := s.log.Append(ctx, audit.Entry{
		Kind: e.Kind, Session: e.Session, Thread: e.Thread, Turn: e.Turn,
		Source: e.Source, Approval: e.Approval, Data: data,
	})
	return err
}

// multiSink hands every event to each sink in turn and returns the first
// error after all have had it.
type multiSink []wisp.EventSink

func (m multiSink) Record(ctx context.Context, e wisp.Event) error {
	var errs []error
	for _, s := range m {
		errs = append(errs, s.Record(ctx, e))
	}
	return errors.Join(errs...)
}

func newID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

var _ io.Closer = (*conversation)(nil)

// lazyAudit appends each event to the audit log, opening it for the
// write, for commands that record a few events and exit.
type lazyAudit struct{ dir string }

func (l lazyAudit) Record(ctx context.Context, e wisp.Event) error {
	redactor := secrets.NewRedactor()
	log, err := audit.Open(l.dir, &audit.Options{Redact: func(s string) string {
		out, _ := redactor.Redact(s)
		return out
	}})
	if err != nil {
		return err
	}
	defer log.Close()
	return auditSink{log}.Record(ctx, e)
}
