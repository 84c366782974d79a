// Package runcommand is the run_command tool: the model runs one shell
// command line in the workspace and reads how it ended, its exit status,
// how long it took and its output.
//
// Every guard stands between the model and the command. The tool is a
// wisp.Guarded: before a call runs it says what the call would do, as the
// command "run_command LINE" ("run_command -C DIR -e NAME -- LINE" with a
// folder or secrets; Invocation.Command), which the classifier rates and
// the approval gate puts to the person unless the rating is below
// approval.threshold or an earlier answer covers it; the person reads the
// folder, the sandbox it will run in, its rating and the reason, and the
// secrets it is given. The tool makes no pattern of the raw line: a
// Describer from the classifier that parses it says what an answer may
// cover, and without one only once is offered. A Runner that confines
// nothing (see Confiner) has every command asked.
//
// Only once approved does the command run, through the Runner the program
// gives (the sandbox): in a folder inside the workspace, links resolved;
// within a timeout; with an environment scrubbed to a documented
// allowlist (DefaultEnv, FixedEnv, and the names the person allows) plus
// the secrets the call names by reference (env: {"GH_TOKEN":
// "session:GH_TOKEN"}), whose values come from the session's vault into
// the command's environment and never pass through the model.
//
// What the command prints passes the session's redactor (the vault's
// values and every credential rule) before anyone sees it: the face, as
// it comes (wisp.Call.Output), and the model, the thread and the audit
// log, in the result. Its start and end are recorded, command.started and
// command.ended, with the approval's id.
package runcommand

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/policy"
	"github.com/wisp-agent/wisp/policy/secrets"
	"github.com/wisp-agent/wisp/tools"
)

// Name is the tool's name.
const Name = "run_command"

// Kind is the kind of its approval requests (wisp.ApprovalRequest.Kind).
const Kind = "command"

// CommandPrefix starts the command the classifier judges for a call:
// "run_command " and the line, as the model sent it.
const CommandPrefix = Name + " "

// Limits of a call.
const (
	// DefaultTimeout is how long a command runs when the call does not
	// say; MaxTimeout is the longest it may ask for.
	DefaultTimeout = 120 * time.Second
	MaxTimeout     = 600 * time.Second
	// MaxCommandBytes bounds the line, so that the command the person is
	// asked about ("run_command LINE") fits every face's request, the
	// approval requests filed for wisp approvals among them (1 KiB): the
	// person reads every byte they approve.
	MaxCommandBytes = 1<<10 - len(CommandPrefix)
	// MaxEnv bounds the secrets one call sets.
	MaxEnv = 16
)

//go:embed description.md
var description string

// A Vault resolves a secret's reference ("session:GH_TOKEN") to its
// value: *secrets.Vault, the session's, is one.
type Vault interface {
	Resolve(ref string) (string, error)
}

// A Judge rates a command as the gate's classifier does, for the words
// the person reads beside it: *policy.Classifier is one.
type Judge interface {
	Classify(command string) policy.Verdict
}

// An Invocation is one call as the approval gate is asked about it.
type Invocation struct {
	// Line is the command line.
	Line string
	// Dir is the folder it runs in, relative to the workspace, every link
	// resolved; "" for the workspace itself.
	Dir string
	// Env names the variables set from the session's secrets, sorted.
	Env []string
}

// A Describer says what the approval gate is asked about an invocation:
// the command the classifier judges and the person reads, the pattern an
// answer wider than once covers (empty: none, so only once is offered),
// and the scopes an answer may have (nil: every scope, for the gate to
// narrow to what the rating allows). A classifier that reads shell lines
// gives one, so that the pattern is one over the parsed line; the
// default is Command with no pattern.
type Describer interface {
	Describe(inv Invocation) (command, pattern string, scopes []wisp.Scope)
}

// Command returns inv as the classifier judges it by default and the
// person reads it: "run_command LINE", or, with a folder or secrets,
// "run_command -C DIR -e NAME -- LINE", DIR and NAME bare when they are
// plain and in Go's double quotes otherwise; a line that starts with "-"
// always follows "--".
func (inv Invocation) Command() string {
	if inv.Dir == "" && len(inv.Env) == 0 && !strings.HasPrefix(inv.Line, "-") {
		return CommandPrefix + inv.Line
	}
	var b strings.Builder
	b.WriteString(CommandPrefix)
	if inv.Dir != "" {
		b.WriteString("-C " + token(inv.Dir) + " ")
	}
	for _, name := range inv.Env {
		b.WriteString("-e " + token(name) + " ")
	}
	b.WriteString("-- " + inv.Line)
	return b.String()
}

// token writes s bare when it is plain, and Go-quoted otherwise.
func token(s string) string {
	plain := s != "" && s[0] != '-' && strings.IndexFunc(s, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("._/+,:@%=-", r))
	}) < 0
	if plain {
		return s
	}
	return strconv.Quote(s)
}

// Options configure the tool. Workspace and Runner are required; every
// other field may be left zero, and its comment says what zero means.
type Options struct {
	// Workspace is the folder commands run in, or below: the folder wisp
	// was started in, or --workspace DIR. Links in it are resolved once,
	// by New.
	Workspace string
	// Runner runs each approved command, in its sandbox. A Runner that is
	// not a Confiner confines nothing, and every command is asked.
	Runner Runner
	// Vault resolves the secrets a call names in env: the session's.
	// nil: a call that names one is refused.
	Vault Vault
	// Redact is applied to everything the command prints before the
	// face, the model, the thread or the audit log sees it: the session
	// redactor's Replace, which knows the vault's values. nil: a
	// secrets.Redactor of the tool's own, which knows every credential
	// rule but no vault's values.
	Redact func(string) string
	// Environ is wisp's own environment ("NAME=value", as os.Environ
	// gives it), from which a command gets the variables of DefaultEnv
	// and Allow; nil: none, so a command's environment is FixedEnv and
	// its secrets alone.
	Environ []string
	// Allow names more variables of Environ that commands get
	// (commands.env), such as a token the person wants every command to
	// have. A WISP_* variable never reaches a command, whatever Allow
	// says.
	Allow []string
	// Judge rates each command for the text of its approval request;
	// give the gate's classifier. nil: the request says no rating.
	Judge Judge
	// Describer says what the gate is asked about each call: the command,
	// the pattern and the scopes. nil: Invocation.Command, no pattern,
	// every scope.
	Describer Describer
	// Events receives command.started and command.ended; nil drops them.
	Events wisp.EventSink
	// Session names the session in events.
	Session string
	// Now makes time injectable; nil: the clock.
	Now func() time.Time
}

// New returns the tool. It refuses, with one line, options it cannot run
// with: no workspace, or one that is not a folder; no Runner.
func New(opts *Options) (wisp.Tool, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	ws, err := Workspace(o.Workspace)
	if err != nil {
		return nil, err
	}
	if o.Runner == nil {
		return nil, errors.New("run_command needs a Runner to run commands with (the sandbox)")
	}
	if o.Redact == nil {
		o.Redact = secrets.NewRedactor().Replace
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	o.Workspace = ws
	o.Environ, o.Allow = slices.Clone(o.Environ), slices.Clone(o.Allow)
	t := &tool{opts: o}
	return tools.New(Name, description, t.call, &tools.Options{Schema: limits, Action: t.action, Summary: summary}), nil
}

// args are the call's arguments; the schema the model reads is theirs.
type args struct {
	Command        string            `json:"command" jsonschema:"The shell command line to run, as /bin/sh -c runs it"`
	Cwd            string            `json:"cwd,omitempty" jsonschema:"The folder to run it in, inside the workspace and relative to it; default: the workspace"`
	TimeoutSeconds int               `json:"timeoutSeconds,omitempty" jsonschema:"Seconds before the command is ended, 1 to 600; default 120"`
	Env            map[string]string `json:"env,omitempty" jsonschema:"Variables set from the session's secrets, each to a reference the person's answer gave: {\"GH_TOKEN\": \"session:GH_TOKEN\"}"`
}

// limits gives the schema the limits of the arguments.
func limits(s *jsonschema.Schema) {
	c, d, to, env := s.Properties["command"], s.Properties["cwd"], s.Properties["timeoutSeconds"], s.Properties["env"]
	c.MinLength, c.MaxLength = jsonschema.Ptr(1), jsonschema.Ptr(MaxCommandBytes)
	d.MaxLength = jsonschema.Ptr(4096)
	to.Minimum, to.Maximum = jsonschema.Ptr(1.0), jsonschema.Ptr(float64(MaxTimeout/time.Second))
	env.MaxProperties = jsonschema.Ptr(MaxEnv)
}

// summary is what a face shows of a call in its trace: the line, cut.
func summary(raw json.RawMessage) string {
	var a args
	if json.Unmarshal(raw, &a) != nil {
		return ""
	}
	const most = 200
	line := strings.Join(strings.Fields(a.Command), " ")
	if len(line) > most {
		cut := most
		for cut > 0 && line[cut]&0xC0 == 0x80 {
			cut--
		}
		line = line[:cut] + "…"
	}
	return line
}

type tool struct{ opts Options }

// plan is a call made ready to run: its folder resolved, its timeout, and
// its secrets by name and reference.
type plan struct {
	command string
	dir     string // absolute
	rel     string // relative to the workspace
	timeout time.Duration
	names   []string // the secrets' variables, sorted
	refs    map[string]string
}

// prepare checks a call's arguments and makes them ready to run, or says
// what is wrong, for the model.
func (t *tool) prepare(a args) (plan, string) {
	p := plan{command: a.Command, timeout: DefaultTimeout, refs: a.Env}
	if i := strings.IndexFunc(a.Command, control); i >= 0 {
		return p, fmt.Sprintf("the command holds the control character %s at byte %d; send the line without it (tabs and line breaks are fine)", strconv.QuoteRune([]rune(a.Command[i:])[0]), i)
	}
	if a.TimeoutSeconds != 0 {
		p.timeout = time.Duration(a.TimeoutSeconds) * time.Second
	}
	var problem string
	if p.dir, p.rel, problem = resolveCwd(t.opts.Workspace, a.Cwd); problem != "" {
		return p, problem
	}
	p.names = slices.Sorted(maps.Keys(a.Env))
	for _, name := range p.names {
		ref := a.Env[name]
		if err := secrets.CheckName(name); err != nil {
			return p, fmt.Sprintf("env: %v", err)
		}
		if !strings.HasPrefix(ref, secrets.RefPrefix) {
			return p, fmt.Sprintf("env %s is not set to a secret's reference: env takes only references the person's answers gave (%sNAME), never a value; to pass anything else, write it in the command", name, secrets.RefPrefix)
		}
		if t.opts.Vault == nil {
			return p, fmt.Sprintf("env %s: this conversation holds no secrets; a secret is stored only when the person answers a secret question", name)
		}
		if _, err := t.opts.Vault.Resolve(ref); err != nil {
			return p, fmt.Sprintf("env %s: %v", name, err)
		}
	}
	return p, ""
}

// control reports a character a command line never needs and a shell may
// read otherwise than a person does: the C0 controls but tab and line
// feed (a lone CR among them), and DEL.
func control(r rune) bool { return r < 0x20 && r != '\t' && r != '\n' || r == 0x7f }

// sandbox returns how the runner confines commands.
func (t *tool) sandbox() Sandbox {
	if c, ok := t.opts.Runner.(Confiner); ok {
		if s := c.Sandbox(); s.Confined() {
			return s
		}
	}
	return Sandbox{Mode: ModeOff}
}

// action says what a call would do, for the agent's guard: the command
// the classifier judges, and what the person reads. A call the tool will
// refuse needs no approval; its Call says what was wrong.
func (t *tool) action(ctx context.Context, c wisp.Call) (wisp.Action, error) {
	var a args
	if err := json.Unmarshal(c.Arguments, &a); err != nil {
		return wisp.Action{NoApproval: true}, nil
	}
	p, problem := t.prepare(a)
	if problem != "" {
		return wisp.Action{NoApproval: true}, nil
	}
	sb := t.sandbox()
	command, pattern, scopes := t.describe(p)
	var text []string
	if p.rel == "." {
		text = append(text, "runs in the workspace")
	} else {
		text = append(text, "runs in "+strconv.Quote(p.rel)+" of the workspace")
	}
	text = append(text, "sandbox: "+sandboxText(sb))
	if t.opts.Judge != nil {
		v := t.opts.Judge.Classify(command)
		text = append(text, "rated "+v.Rating.String()+": "+flat(v.Reason))
	}
	if len(p.names) > 0 {
		var s []string
		for _, n := range p.names {
			s = append(s, n+" from "+p.refs[n])
		}
		text = append(text, "secrets in its environment: "+strings.Join(s, ", "))
	}
	text = append(text, fmt.Sprintf("stopped if still running after %d s", int(p.timeout/time.Second)))
	return wisp.Action{
		Kind: Kind, Command: command, Pattern: pattern, Text: strings.Join(text, "\n"), Scopes: scopes,
		AlwaysAsk: !sb.Confined(),
	}, nil
}

// describe returns what the gate is asked about a call: its command, the
// pattern and the scopes, as the Describer says (see Options.Describer).
func (t *tool) describe(p plan) (command, pattern string, scopes []wisp.Scope) {
	inv := Invocation{Line: p.command, Env: p.names}
	if p.rel != "." {
		inv.Dir = p.rel
	}
	if t.opts.Describer != nil {
		command, pattern, scopes = t.opts.Describer.Describe(inv)
	} else {
		command = inv.Command()
	}
	if scopes == nil {
		// The widest the tool allows; the gate narrows it to what the
		// command's rating allows.
		scopes = []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession, wisp.ScopeProject, wisp.ScopeAlways}
	}
	return command, pattern, scopes
}

// sandboxText says what the sandbox lets a command do, for the person.
func sandboxText(s Sandbox) string {
	net := "network off"
	if s.Network {
		net = "network on"
	}
	switch s.Mode {
	case ModeReadOnly:
		return ModeReadOnly + " (writes only in a private temp folder; " + net + ")"
	case ModeWorkspaceWrite:
		return ModeWorkspaceWrite + " (writes only in the workspace and a private temp folder; " + net + ")"
	}
	return "none: the command runs with all your rights, so every command is asked"
}

// flat puts text on one line: every control character becomes a space.
func flat(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '\u2028' || r == '\u2029' || 0x80 <= r && r < 0xa0 {
			return ' '
		}
		return r
	}, s)
}

// call runs one approved command line and tells the model how it ended.
//
// A call whose arguments are wrong, or that runs under no approval of
// exactly its command, is refused with a line the model can act on. A
// command that could not be run (the sandbox failed) or timed out is an
// error result; one that ran, whatever its exit status, is a result. The
// call returns an error only when the turn cannot go on: its start could
// not be recorded (wisp.ErrNotRecorded: nothing unrecorded runs), or ctx
// ended, which ends the command.
func (t *tool) call(ctx context.Context, c wisp.Call, a args) (wisp.Result, error) {
	p, problem := t.prepare(a)
	if problem != "" {
		return wisp.ErrorResult(problem), nil
	}
	if command, _, _ := t.describe(p); c.Approval.ID == "" || c.Approval.Command != command {
		return wisp.ErrorResult(policy.LineNotApproved + "run_command runs a command only under the person's approval of exactly that command"), nil
	}
	var env []string
	for _, name := range p.names {
		v, err := t.opts.Vault.Resolve(p.refs[name])
		if err != nil {
			return wisp.ErrorResult(fmt.Sprintf("env %s: %v", name, err)), nil
		}
		env = append(env, name+"="+v)
	}
	sb := t.sandbox()
	started := wisp.CommandStartedData{
		ApprovalID: c.Approval.ID, Command: t.opts.Redact(a.Command), Cwd: t.opts.Redact(p.rel), ID: c.ID, Mode: sb.Mode,
		Network: sb.Network && sb.Confined(), TimeoutSeconds: int(p.timeout / time.Second),
	}
	for _, n := range p.names {
		started.Env = append(started.Env, n+"="+p.refs[n])
	}
	if err := t.record(ctx, c, started); err != nil {
		return wisp.Result{}, err
	}

	spec := Spec{Command: a.Command, Dir: p.dir, Env: environ(t.opts.Environ, t.opts.Allow, env), Timeout: p.timeout}
	var view *live
	if c.Output != nil {
		view = newLive(c.Output, wisp.ToolOutput{Thread: c.Thread, CallID: c.ID, Tool: Name}, t.opts.Redact)
		spec.Output = view.write
	}
	res, runErr := t.opts.Runner.Run(ctx, spec)
	if view != nil {
		view.close()
	}
	clear(env)
	clear(spec.Env)

	ended := wisp.CommandEndedData{
		ApprovalID: c.Approval.ID, Bytes: res.Stdout.Bytes + res.Stderr.Bytes, ID: c.ID, Mode: res.Mode,
		DurationMS: res.Duration.Milliseconds(), ExitCode: res.ExitCode, Signal: res.Signal, Outcome: "exited",
	}
	if ended.Mode == "" {
		ended.Mode = sb.Mode
	}
	for _, d := range res.Denied {
		ended.Denied = append(ended.Denied, t.opts.Redact(d))
	}
	text, cut := report(res, p.timeout, t.opts.Redact)
	ended.Cut = cut || res.Stdout.Cut() || res.Stderr.Cut()
	result := wisp.Result{Content: text}
	var stop error
	switch {
	case ctx.Err() != nil:
		stop = context.Cause(ctx)
		ended.Outcome, ended.Error, ended.ExitCode = "cancelled", stop.Error(), -1
	case runErr != nil:
		ended.Outcome, ended.Error, ended.ExitCode = "failed", t.opts.Redact(oneLine(runErr.Error())), -1
		result = wisp.ErrorResult("the command could not be run: " + ended.Error)
	case res.TimedOut:
		ended.Outcome, ended.Error = "timed-out", fmt.Sprintf("no end within %d s", int(p.timeout/time.Second))
		result = wisp.ErrorResult(text)
	case res.Signal != "":
		ended.Outcome, ended.ExitCode = "signalled", -1
	}
	if res.TimedOut || res.Signal != "" {
		ended.ExitCode = -1
	}
	if err := t.record(context.WithoutCancel(ctx), c, ended); err != nil && stop == nil {
		return wisp.Result{}, err
	}
	if stop != nil {
		return wisp.Result{}, stop
	}
	return result, nil
}

// record writes one event of the call, under its approval.
func (t *tool) record(ctx context.Context, c wisp.Call, data wisp.EventData) error {
	return wisp.Record(ctx, t.opts.Events, wisp.Event{
		Time: t.opts.Now(), Session: t.opts.Session, Thread: c.Thread, Turn: c.Turn,
		Source: wisp.SourceTool, Approval: c.Approval.ID, Data: data,
	})
}

// oneLine puts an error on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
