package models

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/config"
	"github.com/wisp-agent/wisp/policy"
)

// PageSize is how many models one page of the listing holds.
const PageSize = 20

// MaxReply bounds every reply the models tool gives the model.
const MaxReply = 4096

// Settings is where the person's decisions about models live:
// config.json's models.enabled and models.trusted. config.Store is one.
type Settings interface {
	Load() (config.Config, error)
	Update(ctx context.Context, fn func(*config.Config) error) error
}

// Options configure Actions. A nil *Options or a zero field means the
// default given beside the field.
type Options struct {
	// Backends are the runtimes whose models are listed, in order.
	Backends []Backend
	// Settings hold models.enabled and models.trusted. Required.
	Settings Settings
	// Events receives config.change, model.verified and model.publisher;
	// nil drops them.
	Events wisp.EventSink
	// Session names the session in events.
	Session string
	// Current is this conversation's model, marked * in the listing.
	Current string
	// Pull configures pulls from Hugging Face; nil: Pull is not available.
	Pull *PullOptions
}

// Actions is the one place for model rules, for the person and, with the
// person's approval, for the model: names under any spelling, disabled
// models refused, the capability check on enable, trust the person's
// alone. It implements wisp.ModelActions. Safe for concurrent use.
//
// A change the model asks for (ActorModel) is made only under the
// approval its context carries for exactly that change (WithApproval):
// the models tool says what the change would do (Action), the agent's
// guard puts that to the person, and the tool makes the change with the
// approval the guard gave. Without one the change is refused and nothing
// changes. The person's own changes need none.
type Actions struct {
	opts Options
	mu   sync.Mutex // serialises changes

	jobsMu sync.Mutex
	jobs   map[string]*pullJob  // background pulls by lower-case repository
	held   map[string]*heldPull // pulls waiting for the person, by command
}

var _ wisp.ModelActions = (*Actions)(nil)

// Errors callers can branch on. Their texts are what the model and the
// person read.
var (
	// ErrPersonOnly refuses trust to anyone but the person.
	ErrPersonOnly = errors.New("trusting a publisher is the person's alone: ask the person to run wisp models trust PUBLISHER if they want it")
	// ErrNotApproved refuses a change the person did not approve.
	ErrNotApproved = wisp.ErrNotApproved
	// ErrBadName refuses a name that is not a model or a repository.
	ErrBadName = errors.New("a model is named ollama:NAME[:TAG] or mlx:NAME as models list shows it, or an MLX repository as ORGANISATION/NAME")
	// ErrDisabled refuses to run a disabled model.
	ErrDisabled = errors.New("disabled")
	// ErrSetup: a backend is not set up to run a model, such as an MLX
	// server address that is not one. The person mends the program's
	// settings, not the model's name; the error that wraps it says how.
	ErrSetup = errors.New("the backend is not set up to run the model")
	// ErrNoPage refuses a page of the listing that is not there; the
	// error that wraps it says which pages there are.
	ErrNoPage = errors.New("there is no page")
	// ErrPullUnavailable: no Hub was configured for pulls.
	ErrPullUnavailable = errors.New("pulling models is not set up here")
	// ErrNotSaved: the settings could not be written, so a change to
	// models.enabled or models.trusted was not made. It is a failed write,
	// not a refusal: the models tool ends the turn with it.
	ErrNotSaved = config.ErrNotSaved
)

// New returns Actions over opts.
func New(opts *Options) *Actions {
	a := &Actions{}
	if opts != nil {
		a.opts = *opts
	}
	return a
}

// listing asks every backend at once.
type listing struct {
	models      []wisp.ModelInfo
	unreachable []string
	errs        map[string]error // by runtime, for the backends that did not answer
}

func (a *Actions) listAll(ctx context.Context) (listing, error) {
	type result struct {
		models []wisp.ModelInfo
		err    error
	}
	results := make([]result, len(a.opts.Backends))
	var wg sync.WaitGroup
	for i, b := range a.opts.Backends {
		wg.Go(func() {
			ms, err := b.List(ctx)
			results[i] = result{ms, err}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return listing{}, context.Cause(ctx)
	}
	cfg, err := a.settings()
	if err != nil {
		return listing{}, err
	}
	var l listing
	for i, r := range results {
		b := a.opts.Backends[i]
		if r.err != nil {
			l.unreachable = append(l.unreachable, b.Runtime()+": "+oneLine(r.err.Error()))
			if l.errs == nil {
				l.errs = map[string]error{}
			}
			l.errs[b.Runtime()] = r.err
			continue
		}
		for _, m := range r.models {
			m.Runtime = b.Runtime()
			m.Name = b.Runtime() + ":" + m.Name
			m.Enabled = slices.Contains(cfg.Models.Enabled, m.Name)
			l.models = append(l.models, m)
		}
	}
	slices.SortFunc(l.models, func(x, y wisp.ModelInfo) int { return cmp.Compare(x.Name, y.Name) })
	return l, nil
}

func (a *Actions) settings() (config.Config, error) {
	if a.opts.Settings == nil {
		return config.Default(), nil
	}
	return a.opts.Settings.Load()
}

// List returns one page of the models every backend has, sorted by name:
// at most PageSize models, and no more than FormatListing writes in
// MaxReply bytes, footer and the lines for backends that did not answer
// included, so that every model is on exactly one page. A backend that did
// not answer is named in Listing.Unreachable; the others still list. A
// model that cannot call tools is not usable, and says so.
func (a *Actions) List(ctx context.Context, page int) (wisp.Listing, error) {
	l, err := a.listAll(ctx)
	if err != nil {
		return wisp.Listing{}, err
	}
	// Where the pages break depends on every model's line, so every
	// model's facts are filled in first.
	a.fillIn(ctx, l.models)
	for i := range l.models {
		judge(&l.models[i])
	}
	bounds := pageBounds(l.models, l.unreachable)
	pages := len(bounds)
	if page < 1 || page > pages {
		return wisp.Listing{}, fmt.Errorf("%w %d; pages run from 1 to %d", ErrNoPage, page, pages)
	}
	lo := 0
	if page > 1 {
		lo = bounds[page-2]
	}
	ms := slices.Clone(l.models[lo:bounds[page-1]])
	return wisp.Listing{Models: ms, Page: page, Pages: pages, Unreachable: l.unreachable}, nil
}

// LineCannotCallTools is why a model that cannot call tools is not usable.
const LineCannotCallTools = "cannot call tools"

// judge marks a model whose declared capabilities leave out tools as not
// usable: it cannot serve the agent. A model whose capabilities are
// undeclared is left as its backend found it.
func judge(m *wisp.ModelInfo) {
	if m.Usable && len(m.Capabilities) > 0 && !slices.Contains(m.Capabilities, "tools") {
		m.Usable, m.Why = false, LineCannotCallTools
	}
}

// fillInAtOnce bounds how many models' facts fillIn asks for at once.
const fillInAtOnce = 8

// fillIn completes the facts a backend's listing leaves out (Ollama lists
// no capabilities or context) from each model's own facts, a few at once.
func (a *Actions) fillIn(ctx context.Context, ms []wisp.ModelInfo) {
	var wg sync.WaitGroup
	slots := make(chan struct{}, fillInAtOnce)
	for i := range ms {
		m := &ms[i]
		if len(m.Capabilities) > 0 && m.Context > 0 {
			continue
		}
		b := a.backend(m.Runtime)
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			info, err := b.Show(ctx, strings.TrimPrefix(m.Name, m.Runtime+":"))
			if err != nil {
				return
			}
			if len(m.Capabilities) == 0 {
				m.Capabilities = info.Capabilities
			}
			if m.Context == 0 {
				m.Context = info.Context
			}
			if m.Licence == "" {
				m.Licence = info.Licence
			}
		})
	}
	wg.Wait()
}

// Resolve finds the model a name means, under any spelling a person would
// try: any case, a missing ":latest", the runtime prefix left off when only
// one backend has the model, an MLX repository as ORGANISATION/NAME. It
// returns the model's facts with its full name.
func (a *Actions) Resolve(ctx context.Context, name string) (wisp.ModelInfo, error) {
	raw := strings.TrimSpace(name)
	if raw == "" || strings.ContainsAny(raw, " \t\r\n") || len(raw) > 300 {
		return wisp.ModelInfo{}, fmt.Errorf("%q is not a model name: %w", raw, ErrBadName)
	}
	l, err := a.listAll(ctx)
	if err != nil {
		return wisp.ModelInfo{}, err
	}
	runtime, rest := "", raw
	if r, after, ok := strings.Cut(raw, ":"); ok {
		for _, b := range a.opts.Backends {
			if strings.EqualFold(r, b.Runtime()) {
				runtime, rest = b.Runtime(), after
			}
		}
	}
	var found []wisp.ModelInfo
	for _, m := range l.models {
		if runtime != "" && m.Runtime != runtime {
			continue
		}
		if sameName(m, rest) {
			found = append(found, m)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		if err := l.errs[runtime]; err != nil {
			return wisp.ModelInfo{}, err // the model's own runtime did not answer
		}
		why := ""
		if len(l.unreachable) > 0 {
			why = " (" + strings.Join(l.unreachable, "; ") + ")"
		}
		return wisp.ModelInfo{}, fmt.Errorf("no model is named %q%s; %w", raw, why, ErrBadName)
	default:
		names := make([]string, len(found))
		for i, m := range found {
			names[i] = m.Name
		}
		return wisp.ModelInfo{}, fmt.Errorf("%q could be %s; name it with its runtime", raw, strings.Join(names, " or "))
	}
}

// sameName reports whether a person's spelling rest names m.
func sameName(m wisp.ModelInfo, rest string) bool {
	local := strings.TrimPrefix(m.Name, m.Runtime+":")
	switch {
	case strings.EqualFold(local, rest):
		return true
	case m.Runtime == "ollama" && !strings.Contains(rest, ":") && strings.EqualFold(local, rest+":latest"):
		return true
	case m.Repo != "" && strings.EqualFold(m.Repo, rest):
		return true
	}
	return false
}

// Show returns one model's facts, the same the listing has: a model that
// cannot call tools is not usable, and says so.
func (a *Actions) Show(ctx context.Context, name string) (wisp.ModelInfo, error) {
	m, err := a.Resolve(ctx, name)
	if err != nil {
		return wisp.ModelInfo{}, err
	}
	b := a.backend(m.Runtime)
	info, err := b.Show(ctx, strings.TrimPrefix(m.Name, m.Runtime+":"))
	if err != nil {
		return wisp.ModelInfo{}, err
	}
	info.Name, info.Runtime, info.Enabled = m.Name, m.Runtime, m.Enabled
	if info.Size == 0 {
		info.Size = m.Size
	}
	judge(&info)
	return info, nil
}

// Runnable resolves name and refuses it, under every spelling, when it is
// disabled, cannot be used, or cannot call tools. It returns the model's
// full facts (its context length among them).
func (a *Actions) Runnable(ctx context.Context, name string) (wisp.ModelInfo, error) {
	m, err := a.Show(ctx, name)
	if err != nil {
		return wisp.ModelInfo{}, err
	}
	switch {
	case !m.Enabled:
		return wisp.ModelInfo{}, fmt.Errorf("%s is %w; wisp models enable %s checks it and turns it on", m.Name, ErrDisabled, m.Name)
	case !m.Usable && m.Why != "" && m.Why != LineCannotCallTools:
		return wisp.ModelInfo{}, fmt.Errorf("%s cannot be used: %s", m.Name, m.Why)
	case len(m.Capabilities) > 0 && !slices.Contains(m.Capabilities, "tools"):
		return wisp.ModelInfo{}, fmt.Errorf("%s cannot call tools, so it cannot serve the agent; pick a model that can (wisp models list)", m.Name)
	}
	return m, nil
}

// Open resolves name as Runnable does, refusing it under every spelling
// when it is disabled, cannot be used or cannot call tools, and opens it
// for chat through its backend, which must be a Runner. It returns the
// model and its facts. An error of the Runner's wraps ErrSetup.
func (a *Actions) Open(ctx context.Context, name string) (wisp.Model, wisp.ModelInfo, error) {
	info, err := a.Runnable(ctx, name)
	if err != nil {
		return nil, wisp.ModelInfo{}, err
	}
	r, ok := a.backend(info.Runtime).(Runner)
	if !ok {
		return nil, wisp.ModelInfo{}, fmt.Errorf("%w %q: wisp cannot run %s models here", wisp.ErrUnknownModel, name, info.Runtime)
	}
	m, err := r.Model(strings.TrimPrefix(info.Name, info.Runtime+":"), info)
	if err != nil {
		return nil, wisp.ModelInfo{}, setupError{err}
	}
	return m, info, nil
}

// setupError is a Runner's error, which keeps its text and wraps ErrSetup.
type setupError struct{ err error }

func (e setupError) Error() string   { return e.err.Error() }
func (e setupError) Unwrap() []error { return []error{ErrSetup, e.err} }

// Backend returns the backend of a runtime ("ollama", "mlx"), or nil.
func (a *Actions) Backend(runtime string) Backend { return a.backend(runtime) }

func (a *Actions) backend(runtime string) Backend {
	for _, b := range a.opts.Backends {
		if b.Runtime() == runtime {
			return b
		}
	}
	return nil
}

// Enable checks a model and, when it can call tools, adds it to
// models.enabled. Asked for by the model, it needs the person's approval
// (see Actions).
func (a *Actions) Enable(ctx context.Context, name string, by wisp.Actor) (wisp.Change, error) {
	m, err := a.Resolve(ctx, name)
	if err != nil {
		return wisp.Change{}, err
	}
	if m.Enabled {
		return wisp.Change{Name: m.Name, Lines: []string{m.Name + " is already enabled; nothing changed"}}, nil
	}
	approval, err := a.approved(ctx, by, "models enable "+m.Name)
	if err != nil {
		return wisp.Change{}, err
	}
	rep, err := a.check(ctx, m, by, approval)
	if err != nil {
		return wisp.Change{}, err
	}
	if why := unfit(rep); why != "" {
		return wisp.Change{}, fmt.Errorf("%s %s, so it cannot serve the agent; nothing changed", m.Name, why)
	}
	if err := a.setEnabled(ctx, m.Name, true, by, approval); err != nil {
		return wisp.Change{}, err
	}
	return wisp.Change{Name: m.Name, Lines: []string{
		m.Name + " is enabled: wisp may run it",
		"checked: " + strings.Join(rep.Findings, "; "),
	}}, nil
}

// Disable removes a model from models.enabled. Asked for by the model, it
// needs the person's approval (see Actions).
func (a *Actions) Disable(ctx context.Context, name string, by wisp.Actor) (wisp.Change, error) {
	m, err := a.Resolve(ctx, name)
	if err != nil {
		return wisp.Change{}, err
	}
	if !m.Enabled {
		return wisp.Change{Name: m.Name, Lines: []string{m.Name + " is already disabled; nothing changed"}}, nil
	}
	approval, err := a.approved(ctx, by, "models disable "+m.Name)
	if err != nil {
		return wisp.Change{}, err
	}
	if err := a.setEnabled(ctx, m.Name, false, by, approval); err != nil {
		return wisp.Change{}, err
	}
	return wisp.Change{Name: m.Name, Lines: []string{m.Name + " is disabled: wisp will not run it"}}, nil
}

// Check verifies a model; an enabled model that fails is disabled. Asked
// for by the model, it needs the person's approval (see Actions).
func (a *Actions) Check(ctx context.Context, name string, by wisp.Actor) (wisp.Change, error) {
	m, err := a.Resolve(ctx, name)
	if err != nil {
		return wisp.Change{}, err
	}
	approval, err := a.approved(ctx, by, "models check "+m.Name)
	if err != nil {
		return wisp.Change{}, err
	}
	rep, err := a.check(ctx, m, by, approval)
	if err != nil {
		return wisp.Change{}, err
	}
	c := wisp.Change{Name: m.Name}
	why := unfit(rep)
	if why == "" {
		c.Lines = append(c.Lines, m.Name+" passed its check")
	} else {
		c.Lines = append(c.Lines, m.Name+" failed its check: it "+why)
	}
	c.Lines = append(c.Lines, "checked: "+strings.Join(rep.Findings, "; "))
	if why != "" && m.Enabled {
		if err := a.setEnabled(ctx, m.Name, false, by, approval); err != nil {
			return wisp.Change{}, err
		}
		c.Lines = append(c.Lines, m.Name+" is now disabled: wisp will not run it")
	}
	return c, nil
}

// unfit says why a checked model cannot serve the agent, or "".
func unfit(rep CheckReport) string {
	switch {
	case !rep.OK:
		return "did not pass its check"
	case !slices.Contains(rep.Info.Capabilities, "tools"):
		return "cannot call tools"
	}
	return ""
}

// check runs the backend's check and records model.verified.
func (a *Actions) check(ctx context.Context, m wisp.ModelInfo, by wisp.Actor, approval string) (CheckReport, error) {
	rep, err := a.backend(m.Runtime).Check(ctx, strings.TrimPrefix(m.Name, m.Runtime+":"))
	if err != nil {
		return CheckReport{}, err
	}
	if err := a.record(ctx, by, approval, wisp.ModelVerifiedData{
		Name: m.Name, OK: rep.OK, Findings: rep.Findings, Capabilities: rep.Info.Capabilities,
	}); err != nil {
		return CheckReport{}, err
	}
	return rep, nil
}

// Trust records that the person trusts a publisher. Only the person may.
func (a *Actions) Trust(ctx context.Context, publisher string, by wisp.Actor) error {
	if by != wisp.ActorPerson {
		return ErrPersonOnly
	}
	p := strings.TrimSpace(publisher)
	a.mu.Lock()
	defer a.mu.Unlock()
	var before []string
	err := a.opts.Settings.Update(ctx, func(c *config.Config) error {
		before = slices.Clone(c.Models.Trusted)
		if slices.Contains(c.Models.Trusted, p) {
			return nil
		}
		return c.Set("models.trusted", strings.Join(append(slices.Clone(c.Models.Trusted), p), ","))
	})
	if err != nil {
		return err
	}
	if !slices.Contains(before, p) {
		if err := a.record(ctx, by, "", wisp.ConfigChangeData{Key: "models.trusted", Added: p}); err != nil {
			return err
		}
		return a.record(ctx, by, "", wisp.ModelPublisherData{Publisher: p, Trusted: true})
	}
	return nil
}

// approved returns the id of the approval under which the model's change
// goes ahead: the one ctx carries (WithApproval) for exactly command. The
// person's own changes need none. Without it the change is refused.
func (a *Actions) approved(ctx context.Context, by wisp.Actor, command string) (string, error) {
	if by == wisp.ActorPerson {
		return "", nil
	}
	ap := approvalFrom(ctx)
	switch {
	case ap.ID == "":
		return "", fmt.Errorf("%w: %s", ErrNotApproved, policy.ReasonNoPerson)
	case ap.Command != command:
		return "", fmt.Errorf("%w: approval %s was for %s, not %s; ask again", ErrNotApproved, ap.ID, ap.Command, command)
	}
	return ap.ID, nil
}

// setEnabled adds or removes name in models.enabled and records it.
func (a *Actions) setEnabled(ctx context.Context, name string, on bool, by wisp.Actor, approval string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	changed := false
	err := a.opts.Settings.Update(ctx, func(c *config.Config) error {
		list := slices.Clone(c.Models.Enabled)
		has := slices.Contains(list, name)
		switch {
		case on && !has:
			list = append(list, name)
		case !on && has:
			list = slices.DeleteFunc(list, func(s string) bool { return s == name })
		default:
			return nil
		}
		changed = true
		return c.Set("models.enabled", strings.Join(list, ","))
	})
	if err != nil {
		return err
	}
	if changed {
		change := wisp.ConfigChangeData{Key: "models.enabled", Removed: name}
		if on {
			change = wisp.ConfigChangeData{Key: "models.enabled", Added: name}
		}
		return a.record(ctx, by, approval, change)
	}
	return nil
}

// record hands an event to Options.Events. The audit log writes it even
// when ctx is done (it waits out other writers whatever ctx says); an
// event it could not record is an error wrapping wisp.ErrNotRecorded.
func (a *Actions) record(ctx context.Context, by wisp.Actor, approval string, data wisp.EventData) error {
	source := wisp.SourcePerson
	if by == wisp.ActorModel {
		source = wisp.SourceTool
	}
	where := callFrom(ctx)
	return wisp.Record(ctx, a.opts.Events, wisp.Event{
		Session: a.opts.Session, Thread: where.thread, Turn: where.turn,
		Source: source, Approval: approval, Data: data,
	})
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// call is where in a conversation an action was asked for.
type call struct {
	thread string
	turn   int
}

type callKey struct{}

// WithCall returns a context that places the actions taken under it in a
// thread and turn, for approvals and events. The models tool sets it.
func WithCall(ctx context.Context, thread string, turn int) context.Context {
	return context.WithValue(ctx, callKey{}, call{thread, turn})
}

func callFrom(ctx context.Context) call {
	c, _ := ctx.Value(callKey{}).(call)
	return c
}

type approvalKey struct{}

// WithApproval returns a context under which the model's changes go ahead
// with approval a, the agent's guard's word for a call of the models tool
// (wisp.Call.Approval); each change checks that a approved exactly it.
// The models tool sets it.
func WithApproval(ctx context.Context, a wisp.Approval) context.Context {
	return context.WithValue(ctx, approvalKey{}, a)
}

func approvalFrom(ctx context.Context) wisp.Approval {
	a, _ := ctx.Value(approvalKey{}).(wisp.Approval)
	return a
}
