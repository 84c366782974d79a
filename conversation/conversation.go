package conversation

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/agent/threadfile"
	"github.com/wisp-agent/wisp/audit"
	"github.com/wisp-agent/wisp/config"
	"github.com/wisp-agent/wisp/home"
	"github.com/wisp-agent/wisp/inquiry"
	"github.com/wisp-agent/wisp/inquiry/pending"
	"github.com/wisp-agent/wisp/inquiry/unattended"
	"github.com/wisp-agent/wisp/models"
	"github.com/wisp-agent/wisp/models/script"
	"github.com/wisp-agent/wisp/policy"
	"github.com/wisp-agent/wisp/policy/secrets"
	"github.com/wisp-agent/wisp/prompt"
	"github.com/wisp-agent/wisp/tools"
	"github.com/wisp-agent/wisp/tools/ask"
	"github.com/wisp-agent/wisp/tools/askuser"
	"github.com/wisp-agent/wisp/tools/files"
	"github.com/wisp-agent/wisp/tools/memory"
	"github.com/wisp-agent/wisp/tools/modelstool"
	"github.com/wisp-agent/wisp/tools/requestapproval"
	"github.com/wisp-agent/wisp/tools/runcommand"
)

// Options configure a conversation. Home and a model are required; every
// other field may be left zero, and the package comment says what each
// zero value means. New copies Options; changing them afterwards changes
// nothing.
type Options struct {
	// Home is the wisp home folder (home.Find finds the person's): the
	// settings are read from it, every event is appended to its audit
	// log, threads are kept in it and parked questions answered from it.
	// Required.
	Home string

	// Model is the model the conversation talks to. nil: the model
	// ModelName names.
	Model wisp.Model
	// ModelName names the model. With Model nil it is opened:
	// "script:PATH" plays the script at PATH (models/script); any other
	// name is one the Backends know, refused under every spelling when
	// it is disabled or cannot call tools. "": models.default from the
	// settings. With Model set it is only the name listings show.
	ModelName string
	// Backends are the runtimes whose models the conversation can open,
	// and list and manage through the models tool. nil: none.
	Backends []models.Backend
	// Pull sets where pulls from Hugging Face come from and go to (its
	// Hub and Store); nil: the models tool cannot pull. Its Notify is
	// the conversation's own: the end of a pull is posted to the thread
	// and told to the Notifier.
	Pull *models.PullOptions

	// Tools are tools of the embedder's own, offered beside wisp's (ask,
	// ask_user, request_approval, models, memory) to every conversation
	// given every tool, unless tools.disabled removes them.
	Tools []wisp.Tool
	// Rules are the classifier's rows for the commands the embedder's
	// tools say their calls would run (wisp.Action.Command), beside the
	// rows of wisp's own tools (models.Rules). nil: none, so each such
	// command is unknown, dangerous and asked.
	Rules []policy.Rule
	// Named is the conversation's tool list: exactly these tools, less
	// those tools.disabled removes (Conversation.Tools().Dropped() names
	// them). nil: every tool the settings allow (with Interactive, the
	// interactive preset too); empty: none.
	Named []string
	// Interactive says a person is there as the conversation runs, to
	// answer its questions and approve what it asks to do, as in wisp
	// chat, chat --json and wisp-tui: a conversation given every tool
	// then also gets the interactive preset (tools.Interactive: ask_user
	// and request_approval together, and the tools that only read the
	// workspace), whatever the settings say, unless tools.disabled
	// removes them. false, as in respond and wisp mcp: only the tools
	// the settings turn on.
	Interactive bool

	// Workspace is the folder the conversation works in: the folder wisp
	// was started in, or the one the person named (--workspace). The file
	// tools (tools/files: read_file, list_files, search, edit_file) are
	// confined to it, run_command's commands run in it or below, the
	// person's answers of "project" hold in it, and the system prompt
	// names it and carries the project's AGENTS.md files from the
	// repository root down to it (package prompt). "": none: no file
	// tools, no run_command, no answer of project, and no AGENTS.md is
	// read.
	Workspace string
	// SystemPrompt, when set, replaces the system prompt wisp builds:
	// the model is sent exactly this, and none of wisp's rules, tools,
	// workspace, remembered facts or AGENTS.md but what it says itself
	// (prompt.Rule is the rule of ask_user and request_approval, to
	// state in a prompt of one's own). "": wisp's prompt
	// (Conversation.SystemPrompt shows it).
	SystemPrompt string
	// Instructions are the embedder's own, added to the system prompt
	// wisp builds under a heading of their own, after wisp's rules and
	// the tools. "": none.
	Instructions string

	// NewRunner, when set, makes the Runner that runs run_command's
	// commands in place of wisp's sandbox, from the workspace (links
	// resolved) and the sandbox settings the conversation read
	// (sandbox.mode, sandbox.network). It is called once, by New, when
	// the conversation gets run_command. nil: wisp's sandbox
	// (tools/runcommand/sandboxed), which the program must make able to
	// run by calling sandbox.Main first thing in main.
	NewRunner func(workspace string, sandbox config.Sandbox) (runcommand.Runner, error)
	// Environ is the program's own environment ("NAME=value", as
	// os.Environ gives it), from which run_command's commands get the
	// variables runcommand.DefaultEnv names and commands.env allows; nil:
	// none of it.
	Environ []string

	// Face puts the model's questions to the person. nil: nobody can
	// answer (inquiry/unattended).
	Face wisp.Inquirer
	// Approver asks the person to approve what the model asks to do.
	// nil: no person can approve, and whatever must be asked is refused.
	Approver wisp.Approver
	// Notifier tells the person what the conversation has to say beside
	// a reply: that a turn waits for its thread or for the audit log,
	// that input was cut, that a pull ended, what the verification pass
	// found. nil: nobody is told.
	Notifier wisp.Notifier
	// Events receives every event after the audit log has it, such as a
	// face's display of tool calls. An error it returns fails the turn,
	// as the log's does. nil: none.
	Events wisp.EventSink
	// OnDelta receives pieces of the model's replies as they stream; nil
	// streams nothing.
	OnDelta func(thread string, d wisp.ChatDelta)
	// OnOutput receives what tool calls print as they run, redacted,
	// such as a command's output (wisp.Call.Output); nil shows nothing
	// until each call's result.
	OnOutput func(wisp.ToolOutput)

	// Thread is the thread to go on with, as an earlier conversation's
	// Thread returned it. "": a new thread.
	Thread string
	// NewID makes the session's id, and a new thread's ("t-" and the
	// id). nil: 32 random bits in hex.
	NewID func() string
	// Now is the clock: the date the system prompt says, the time a
	// remembered fact is kept. nil: time.Now.
	Now func() time.Time
}

// ErrNoModel: no model was given, and the settings name no default.
var ErrNoModel = errors.New("no model given: set Options.Model or Options.ModelName, or models.default in the settings")

// An OptionError is an option New cannot start a conversation with: no
// home or model, a model that cannot run here (unknown, disabled, unable
// to call tools, a backend not set up for it), a script that cannot be
// read, a tool name no tool has, a thread id that cannot name a thread.
// Its text is Err's, which says what is wrong and how to mend it; a
// command-line program reports it as a mistake in how it was called.
type OptionError struct {
	// Option is the field at fault: "Home", "Model", "Named", "NewRunner",
	// "Rules", "Thread", "Tools", "Workspace".
	Option string
	// Err says why; it wraps the sentinel callers branch on
	// (ErrNoModel, models.ErrDisabled, tools.ErrUnknownTool,
	// threadfile.ErrBadID …).
	Err error
}

// Error returns Err's text.
func (e *OptionError) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *OptionError) Unwrap() error { return e.Err }

// LineAuditBusy is the notice (agent.NoticeWaiting) a turn gives the
// Notifier when it waits for the audit log, which another process keeps
// locked.
const LineAuditBusy = "the audit log is locked by another process (a wisp audit --verify that was stopped, perhaps); this turn waits for it…"

// A Conversation is a model, its tools, a face and the wisp home wired
// together on one thread, in one session. It is safe for concurrent use
// as its Agent is; Close it when done.
type Conversation struct {
	home     *home.Home
	session  string
	thread   string
	model    string
	system   string
	agent    *agent.Agent
	tools    *tools.Set
	known    []string // the tools there are: wisp's own and Options.Tools
	log      *audit.Log
	actions  *models.Actions
	files    *files.Workspace
	redactor *secrets.Redactor
}

// New reads the settings of the home once (a setting changed later
// applies from the next conversation), opens its audit log and wires the
// model, the tools, the desk, the gate and the agent. ctx bounds the
// opening of the model (a backend is asked for its facts); the
// conversation does not keep it.
//
// An error in the options is an *OptionError; any other error is the
// home's, the settings' or a backend's.
func New(ctx context.Context, opts *Options) (conv *Conversation, err error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Home == "" {
		return nil, &OptionError{Option: "Home", Err: errors.New("no wisp home given: set Options.Home to a folder of the person's own (home.Find finds theirs)")}
	}
	if o.NewID == nil {
		o.NewID = randomID
	}
	if o.Face == nil {
		o.Face = unattended.Face{}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	thread := o.Thread
	if thread == "" {
		thread = "t-" + o.NewID()
	} else if !threadfile.ValidID(thread) {
		return nil, &OptionError{Option: "Thread", Err: fmt.Errorf("thread %q: %w", thread, threadfile.ErrBadID)}
	}
	h, err := home.Open(o.Home)
	if err != nil {
		return nil, err
	}
	cfg, err := h.Settings().Load()
	if err != nil {
		return nil, err
	}
	ref := o.ModelName
	if ref == "" && o.Model == nil {
		ref = cfg.Models.Default
	}
	if ref == "" && o.Model == nil {
		return nil, &OptionError{Option: "Model", Err: ErrNoModel}
	}
	threshold, err := policy.ParseRating(cfg.Approval.Threshold)
	if err != nil {
		return nil, err
	}
	var workspace string
	if o.Workspace != "" {
		if workspace, err = runcommand.Workspace(o.Workspace); err != nil {
			return nil, &OptionError{Option: "Workspace", Err: err}
		}
	}
	cmds, err := newCommands(ctx, o, cfg, h, workspace)
	if err != nil {
		return nil, err
	}
	classifier, err := policy.NewClassifier(slices.Concat(models.Rules(), memory.Rules(), files.Rules(), cmds.rules(), o.Rules)...)
	if err != nil {
		return nil, &OptionError{Option: "Rules", Err: err}
	}

	c := &Conversation{home: h, session: o.NewID(), thread: thread, model: ref, redactor: secrets.NewRedactor()}
	c.log, err = h.OpenAudit(&audit.Options{Redact: c.redactor.Replace, Sync: audit.SyncDecisions, Waiting: func(ctx context.Context) {
		if o.Notifier != nil {
			_ = o.Notifier.Notify(ctx, wisp.Notice{Kind: agent.NoticeWaiting, Text: LineAuditBusy})
		}
	}})
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			c.Close()
		}
	}()
	sink := multiSink{c.log}
	if o.Events != nil {
		sink = append(sink, o.Events)
	}
	// Secrets the person gives an ask_user secret question live here,
	// sealed, for this conversation only; the redactor knows their values,
	// and run_command resolves them into a command's environment.
	vault := secrets.NewVault(c.redactor)
	desk := inquiry.NewDesk(o.Face, &inquiry.Options{
		Session:  c.session,
		Timeout:  cfg.Timeout(),
		Events:   sink,
		Redactor: c.redactor,
		Vault:    vault,
	})
	if workspace != "" {
		c.files, err = files.Open(&files.Options{Workspace: workspace, Home: h.Dir(), Redact: c.redactor.Replace})
		if err != nil {
			return nil, &OptionError{Option: "Workspace", Err: err}
		}
	}
	gate := policy.NewGate(&policy.GateOptions{
		Approver:   o.Approver,
		Events:     sink,
		Session:    c.session,
		Threshold:  threshold,
		Timeout:    cfg.Timeout(),
		Classifier: classifier,
		// Answers of project and always are kept in the home, where
		// commands cannot reach them; project answers hold in the
		// workspace.
		Keeper:  h.ApprovalRules(),
		Project: workspace,
	})
	var a *agent.Agent // set below; a pull ends long after it starts
	mo := &models.Options{Backends: o.Backends, Settings: h.Settings(), Events: sink, Session: c.session, Current: ref}
	if o.Pull != nil {
		pull := *o.Pull
		pull.Notify = func(thread, note string) {
			a.Note(thread, note)
			if o.Notifier != nil {
				_ = o.Notifier.Notify(context.Background(), wisp.Notice{Kind: wisp.NoticePull, Thread: thread, Text: note})
			}
		}
		mo.Pull = &pull
	}
	c.actions = models.New(mo)
	model, info, err := c.openModel(ctx, o.Model, ref)
	if err != nil {
		return nil, err
	}
	c.model = info.Name
	run, err := cmds.tool(&runcommand.Options{
		Workspace: workspace, Vault: vault, Redact: c.redactor.Replace, Environ: o.Environ, Allow: cfg.Commands.Env,
		Judge: classifier, Events: sink, Session: c.session,
	}, classifier)
	if err != nil {
		return nil, err
	}
	if note := cmds.notice(cfg); note != "" && o.Notifier != nil {
		_ = o.Notifier.Notify(ctx, wisp.Notice{Kind: wisp.NoticeSandbox, Thread: thread, Text: note})
	}
	mem := h.Memory(c.redactor.Replace)
	mem.Now = o.Now
	c.tools, err = selectTools(o, cfg, desk, gate, c.actions, info.Name, mem, c.files, run)
	if err != nil {
		return nil, err
	}
	c.system, err = c.buildPrompt(o, workspace, mem)
	if err != nil {
		return nil, err
	}
	c.known = ToolNames()
	for _, t := range o.Tools {
		c.known = append(c.known, t.Name())
	}
	slices.Sort(c.known)
	a = agent.New(model, &agent.Options{
		System:        c.system,
		Redact:        c.redactor.Replace,
		Inbox:         pending.Inbox(c.Questions(), desk),
		Tools:         c.tools,
		Guard:         gate,
		Events:        sink,
		Notifier:      o.Notifier,
		OnDelta:       o.OnDelta,
		OnOutput:      o.OnOutput,
		Session:       c.session,
		Home:          h.Dir(),
		ContextTokens: info.Context,
		Store:         h.Threads(c.redactor.Replace),
	})
	c.agent = a
	return c, nil
}

// openModel returns model when it is set, named ref; otherwise it opens
// ref: script:PATH plays a script, and any other name is a model the
// backends know that may run.
func (c *Conversation) openModel(ctx context.Context, model wisp.Model, ref string) (wisp.Model, wisp.ModelInfo, error) {
	if model != nil {
		return model, wisp.ModelInfo{Name: ref}, nil
	}
	if path, ok := strings.CutPrefix(ref, "script:"); ok {
		if path == "" {
			return nil, wisp.ModelInfo{}, &OptionError{Option: "Model", Err: fmt.Errorf("model %q: give the script's path, as script:PATH", ref)}
		}
		m, err := script.Load(path)
		if err != nil {
			return nil, wisp.ModelInfo{}, &OptionError{Option: "Model", Err: err}
		}
		return m, wisp.ModelInfo{Name: ref}, nil
	}
	m, info, err := c.actions.Open(ctx, ref)
	switch {
	case errors.Is(err, models.ErrBadName), errors.Is(err, models.ErrDisabled), errors.Is(err, models.ErrSetup):
		return nil, wisp.ModelInfo{}, &OptionError{Option: "Model", Err: err}
	case err != nil:
		return nil, wisp.ModelInfo{}, err
	}
	return m, info, nil
}

// selectTools registers wisp's tools and the embedder's and selects the
// conversation's: wisp's only when the settings turn them on, the
// interactive preset does (Options.Interactive), or Named names them;
// the file tools only with a workspace (ws), run_command only when run
// is not nil.
func selectTools(o Options, cfg config.Config, desk *inquiry.Desk, gate *policy.Gate, actions *models.Actions, model string, mem memory.Store, ws *files.Workspace, run wisp.Tool) (*tools.Set, error) {
	reg := tools.NewRegistry()
	own := []wisp.Tool{ask.New(desk), askuser.New(desk), requestapproval.New(gate), modelstool.New(actions, model), memory.New(mem)}
	if ws != nil {
		own = append(own, append(ws.Tools(), ws.ScanSecrets())...)
	}
	if run != nil {
		own = append(own, run)
	}
	for _, t := range own {
		if err := reg.AddOptIn(t); err != nil {
			return nil, err
		}
	}
	for _, t := range o.Tools {
		if err := reg.Add(t); err != nil {
			return nil, &OptionError{Option: "Tools", Err: err}
		}
	}
	set, err := reg.Select(tools.Selection{Named: o.Named, Enabled: enabled(cfg, o.Interactive), Disabled: cfg.Tools.Disabled})
	if err != nil {
		return nil, &OptionError{Option: "Named", Err: err}
	}
	return set, nil
}

// optIn says, for each of wisp's own opt-in tools, whether the settings
// turn it on.
func optIn(cfg config.Config) map[string]bool {
	return map[string]bool{
		ask.Name: cfg.Tools.Ask, askuser.Name: cfg.Tools.AskUser, requestapproval.Name: cfg.Tools.RequestApproval,
		modelstool.Name: cfg.Tools.Models, memory.Name: cfg.Tools.Memory,
		files.NameReadFile: cfg.Tools.ReadFile, files.NameListFiles: cfg.Tools.ListFiles,
		files.NameSearch: cfg.Tools.Search, files.NameEditFile: cfg.Tools.EditFile, files.NameScanSecrets: cfg.Tools.ScanSecrets,
		runcommand.Name: cfg.Tools.RunCommand,
	}
}

// enabled returns the opt-in tools a conversation given every tool gets:
// those the settings turn on and, with a person there, the interactive
// preset (tools.Interactive).
func enabled(cfg config.Config, interactive bool) map[string]bool {
	on := map[string]bool{}
	if interactive {
		on = tools.Interactive()
	}
	for name, set := range optIn(cfg) {
		on[name] = on[name] || set
	}
	return on
}

// ToolNames returns the names of wisp's own tools, sorted: those a
// conversation has besides Options.Tools, and so the names
// tools.disabled may hold (config.SetOptions.Tools).
func ToolNames() []string { return slices.Sorted(maps.Keys(optIn(config.Config{}))) }

// buildPrompt returns the system prompt: o.SystemPrompt when set,
// otherwise the one package prompt builds of the conversation's tools,
// o.Instructions, the workspace (its links resolved) and its AGENTS.md
// files, the date and,
// when the conversation has the memory tool, the facts it offers.
func (c *Conversation) buildPrompt(o Options, workspace string, mem memory.Store) (string, error) {
	if o.SystemPrompt != "" {
		return o.SystemPrompt, nil
	}
	po := &prompt.Options{
		Tools:        c.tools.Specs(),
		Instructions: o.Instructions,
		Platform:     runtime.GOOS + "/" + runtime.GOARCH,
		Date:         o.Now(),
	}
	if workspace != "" {
		project, err := prompt.ReadProject(workspace, &prompt.ProjectOptions{Redact: c.redactor.Replace})
		if err != nil {
			return "", &OptionError{Option: "Workspace", Err: err}
		}
		po.Workspace, po.Project = workspace, project
	}
	if c.tools.Has(memory.Name) {
		facts, err := mem.List()
		if err != nil {
			return "", err
		}
		for _, f := range memory.Offered(facts) {
			po.Memory = append(po.Memory, prompt.Memory{ID: f.ID, Text: f.Text, Time: f.Time})
		}
	}
	return prompt.Build(po), nil
}

// SystemPrompt returns the system prompt the model is sent at the start
// of every request: Options.SystemPrompt, or the one wisp built when the
// conversation started.
func (c *Conversation) SystemPrompt() string { return c.system }

// SystemPrompt returns the system prompt a conversation of opts would
// send, without opening its model (a chat's --show-prompt): the model is
// not asked anything, so it need not run here. Its errors are New's.
func SystemPrompt(ctx context.Context, opts *Options) (string, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Model == nil {
		o.Model = wisp.ModelFunc(func(context.Context, wisp.ChatRequest, func(wisp.ChatDelta)) (wisp.ChatResponse, error) {
			return wisp.ChatResponse{}, errors.New("the model is not opened to show the system prompt")
		})
	}
	c, err := New(ctx, &o)
	if err != nil {
		return "", err
	}
	defer c.Close()
	return c.system, nil
}

// Respond runs one turn of the conversation's thread on the person's
// input and returns the reply, as agent.Agent.Respond does.
func (c *Conversation) Respond(ctx context.Context, input string) (wisp.Reply, error) {
	return c.agent.Respond(ctx, c.thread, input)
}

// Agent returns the agent, to run turns on other threads (wisp mcp) or
// to read a thread's facts.
func (c *Conversation) Agent() *agent.Agent { return c.agent }

// Tools returns the conversation's tools.
func (c *Conversation) Tools() *tools.Set { return c.tools }

// Session returns the session's id, as events and questions carry it.
func (c *Conversation) Session() string { return c.session }

// Thread returns the thread Respond runs on.
func (c *Conversation) Thread() string { return c.thread }

// ModelName returns the model's name: its full name when a backend
// opened it, otherwise Options.ModelName.
func (c *Conversation) ModelName() string { return c.model }

// Models returns the model actions the person may take in the
// conversation (/models in chat), through the same rules as the models
// tool; the person's own need no approval.
func (c *Conversation) Models() *models.Actions { return c.actions }

// Home returns the wisp home the conversation runs in.
func (c *Conversation) Home() *home.Home { return c.home }

// Redact returns s with every credential replaced by the marker the
// conversation's sinks give it, for what a face shows of the person's
// own words.
func (c *Conversation) Redact(s string) string { return c.redactor.Replace(s) }

// Questions returns the questions wisp mcp parked in the home. An answer
// filed through it is recorded in the conversation's session first, and
// only an answer so recorded is taken.
func (c *Conversation) Questions() pending.Store {
	return c.home.Questions(audit.Witness{Log: c.log, Session: c.session})
}

// Close ends the conversation: its background pulls are cancelled (what
// arrived is kept) and the audit log is closed.
func (c *Conversation) Close() error {
	if c.actions != nil {
		c.actions.Close()
	}
	if c.files != nil {
		c.files.Close()
	}
	return c.log.Close()
}

// multiSink hands every event to each sink in turn and returns the
// errors of all that failed, joined.
type multiSink []wisp.EventSink

func (m multiSink) Record(ctx context.Context, e wisp.Event) error {
	var errs []error
	for _, s := range m {
		errs = append(errs, s.Record(ctx, e))
	}
	return errors.Join(errs...)
}

func randomID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
