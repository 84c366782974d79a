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
	// ErrCheckFailed: a model failed its check, when it was checked
	// (Check) or before it was turned on (Enable). The *CheckError that
	// wraps it says why, in the runtime's own words where it gave any.
	ErrCheckFailed = errors.New("failed its check")
)

// A CheckError is a check a model failed. Change holds the lines the
// person and the model read: why it failed (with the runtime's own
// words, such as Ollama's "500 Internal Server Error: … missing tensor
// …"), what the check found, and what changed. Its text is those lines,
// joined on one line. It wraps ErrCheckFailed.
type CheckError struct {
	Change wisp.Change
}

func (e *CheckError) Error() string { return strings.Join(e.Change.Lines, "; ") }

// Unwrap returns ErrCheckFailed.
func (e *CheckError) Unwrap() error { return ErrCheckFailed }

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
	models []wisp.ModelInfo
	// gone are the models models.enabled names that their backends,
	// which answered, no longer have.
	gone        []wisp.ModelInfo
	unreachable []string
	errs        map[string]error // by runtime, for the backends that did not answer
	entries     []enablement     // models.enabled
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
	l := listing{entries: enablements(cfg)}
	answered := map[string]bool{}
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
		answered[b.Runtime()] = true
		for _, m := range r.models {
			m.Runtime = b.Runtime()
			m.Name = b.Runtime() + ":" + m.Name
			l.models = append(l.models, m)
		}
	}
	for i := range l.models {
		a.state(cfg, l.entries, &l.models[i])
	}
	for _, e := range l.entries {
		runtime, _, _ := strings.Cut(e.name, ":")
		has := func(m wisp.ModelInfo) bool { return m.Name == e.name }
		if answered[runtime] && !slices.ContainsFunc(l.models, has) && !slices.ContainsFunc(l.gone, has) {
			l.gone = append(l.gone, goneModel(e.name, runtime))
		}
	}
	slices.SortFunc(l.models, byName)
	return l, nil
}

func byName(x, y wisp.ModelInfo) int { return cmp.Compare(x.Name, y.Name) }

// all returns the models the backends have and those models.enabled
// names that are gone, sorted by name.
func (l listing) all() []wisp.ModelInfo {
	ms := append(slices.Clone(l.models), l.gone...)
	slices.SortFunc(ms, byName)
	return ms
}

// goneModel is a model models.enabled names that its backend, which
// answered, no longer has: listed, enabled and not usable, until the
// person disables it.
func goneModel(name, runtime string) wisp.ModelInfo {
	return wisp.ModelInfo{Name: name, Runtime: runtime, Enabled: true,
		Why: fmt.Sprintf("%s no longer has it; wisp models disable %s forgets it", runtime, name)}
}

// isGone reports whether m is a model models.enabled names that its
// backend no longer has (goneModel).
func isGone(m wisp.ModelInfo) bool {
	return m.Enabled && !m.Usable && m.Why == goneModel(m.Name, m.Runtime).Why
}

// state sets whether m is enabled, as models.enabled (entries) says, and
// the context it runs with, as cfg sets it. A model whose entry holds
// another digest is another model pulled under the name since it was
// checked: it is not enabled, and cannot be used until it is checked.
func (a *Actions) state(cfg config.Config, entries []enablement, m *wisp.ModelInfo) {
	if n := cfg.Models.ContextLength; n > 0 {
		m.RunContext = n
		if m.Context > 0 {
			m.RunContext = min(n, m.Context) // as Ollama caps num_ctx
		}
	}
	e, ok := findEnablement(entries, m.Name)
	switch {
	case !ok:
	case e.holds(m.Digest):
		m.Enabled = true
	default:
		m.Enabled, m.Usable = false, false
		m.Why = fmt.Sprintf(lineChanged, m.Name)
	}
}

// lineChanged is why a model whose enablement holds another digest cannot
// be used.
const lineChanged = "it is not the model that was enabled: another was pulled under its name since; wisp models check %s checks it and enables it again"

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
	// Where the pages break depends on every model's line, so every
	// model's facts are filled in first.
	all, unreachable, err := a.every(ctx)
	if err != nil {
		return wisp.Listing{}, err
	}
	bounds := pageBounds(all, unreachable)
	pages := len(bounds)
	if page < 1 || page > pages {
		return wisp.Listing{}, fmt.Errorf("%w %d; pages run from 1 to %d", ErrNoPage, page, pages)
	}
	lo := 0
	if page > 1 {
		lo = bounds[page-2]
	}
	ms := slices.Clone(all[lo:bounds[page-1]])
	return wisp.Listing{Models: ms, Page: page, Pages: pages, Unreachable: unreachable}, nil
}

// every returns every model of the listing, sorted by name, with its
// facts filled in and judged, and the backends that did not answer.
func (a *Actions) every(ctx context.Context) ([]wisp.ModelInfo, []string, error) {
	l, err := a.listAll(ctx)
	if err != nil {
		return nil, nil, err
	}
	a.fillIn(ctx, l.models)
	cfg, err := a.settings()
	if err != nil {
		return nil, nil, err
	}
	for i := range l.models {
		a.state(cfg, l.entries, &l.models[i]) // again, with the facts filled in
		judge(&l.models[i])
	}
	return l.all(), l.unreachable, nil
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
			if m.RunContext == 0 {
				m.RunContext = info.RunContext
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
	for _, m := range l.all() {
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
		if len(l.unreachable) == 0 {
			return wisp.ModelInfo{}, fmt.Errorf("no model is named %q; %w", raw, ErrBadName)
		}
		// A backend did not answer. A prefix that names no runtime is
		// said first: whoever wrote nope:x meant a runtime, and is not
		// helped by hearing first that a server is down.
		why := l.unreachable
		if prefix, _, ok := strings.Cut(raw, ":"); ok && runtime == "" {
			why = append([]string{fmt.Sprintf("%q is not a runtime", prefix)}, why...)
		}
		return wisp.ModelInfo{}, fmt.Errorf("no model is named %q (%s); %w", raw, strings.Join(why, "; "), ErrBadName)
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
	if err != nil || isGone(m) {
		return m, err
	}
	b := a.backend(m.Runtime)
	info, err := b.Show(ctx, strings.TrimPrefix(m.Name, m.Runtime+":"))
	if err != nil {
		return wisp.ModelInfo{}, err
	}
	info.Name, info.Runtime = m.Name, m.Runtime
	if info.Size == 0 {
		info.Size = m.Size
	}
	if info.Digest == "" {
		info.Digest = m.Digest
	}
	cfg, err := a.settings()
	if err != nil {
		return wisp.ModelInfo{}, err
	}
	a.state(cfg, enablements(cfg), &info)
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
	case !m.Enabled && m.Why == fmt.Sprintf(lineChanged, m.Name):
		return wisp.ModelInfo{}, fmt.Errorf("%s is %w: %s", m.Name, ErrDisabled, m.Why)
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
	run, err := a.runOptions()
	if err != nil {
		return nil, wisp.ModelInfo{}, err
	}
	m, err := r.Model(strings.TrimPrefix(info.Name, info.Runtime+":"), info, run)
	if err != nil {
		return nil, wisp.ModelInfo{}, setupError{err}
	}
	return m, info, nil
}

// runOptions are how every request to a model runs, as config.json says.
func (a *Actions) runOptions() (*RunOptions, error) {
	cfg, err := a.settings()
	if err != nil {
		return nil, err
	}
	return &RunOptions{ContextTokens: cfg.Models.ContextLength}, nil
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
// models.enabled, bound to the digest it has now: another model pulled
// under its name later is not enabled until it is checked. A model that
// fails its check is refused with a *CheckError saying why, and nothing
// changes. Asked for by the model, it needs the person's approval (see
// Actions).
func (a *Actions) Enable(ctx context.Context, name string, by wisp.Actor) (wisp.Change, error) {
	m, err := a.Resolve(ctx, name)
	if err != nil {
		return wisp.Change{}, err
	}
	if isGone(m) {
		return wisp.Change{}, fmt.Errorf("%s cannot be enabled: %s", m.Name, m.Why)
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
		return wisp.Change{}, &CheckError{wisp.Change{Name: m.Name, Lines: []string{
			m.Name + " failed its check: " + why,
			"nothing changed: a model that fails its check cannot serve the agent",
			"checked: " + strings.Join(rep.Findings, "; "),
		}}}
	}
	if err := a.setEnabled(ctx, m.Name, digestOf(checked(m, rep)), true, by, approval); err != nil {
		return wisp.Change{}, err
	}
	return wisp.Change{Name: m.Name, Lines: []string{
		m.Name + " is enabled: wisp may run it",
		"checked: " + strings.Join(rep.Findings, "; "),
	}}, nil
}

// Disable removes a model from models.enabled: any model the file names,
// under any spelling Resolve takes, whether or not its backend still has
// it or answers. Asked for by the model, it needs the person's approval
// (see Actions).
func (a *Actions) Disable(ctx context.Context, name string, by wisp.Actor) (wisp.Change, error) {
	m, held, err := a.forDisable(ctx, name)
	if err != nil {
		return wisp.Change{}, err
	}
	if !held {
		return wisp.Change{Name: m.Name, Lines: []string{m.Name + " is already disabled; nothing changed"}}, nil
	}
	approval, err := a.approved(ctx, by, "models disable "+m.Name)
	if err != nil {
		return wisp.Change{}, err
	}
	if err := a.setEnabled(ctx, m.Name, "", false, by, approval); err != nil {
		return wisp.Change{}, err
	}
	return wisp.Change{Name: m.Name, Lines: []string{m.Name + " is disabled: wisp will not run it"}}, nil
}

// forDisable finds the model a disable of name means: the one Resolve
// finds or, when it finds none (the backend no longer has it, or does not
// answer), the entry of models.enabled the name means under the same
// spellings. held reports whether models.enabled names it.
func (a *Actions) forDisable(ctx context.Context, name string) (m wisp.ModelInfo, held bool, err error) {
	m, err = a.Resolve(ctx, name)
	cfg, cerr := a.settings()
	if cerr != nil {
		return wisp.ModelInfo{}, false, cerr
	}
	entries := enablements(cfg)
	if err == nil {
		_, held = findEnablement(entries, m.Name)
		return m, held, nil
	}
	if ctx.Err() != nil {
		return wisp.ModelInfo{}, false, err
	}
	raw := strings.TrimSpace(name)
	var found []enablement
	for _, e := range entries {
		runtime, _, _ := strings.Cut(e.name, ":")
		rest := raw
		if r, after, ok := strings.Cut(raw, ":"); ok && strings.EqualFold(r, runtime) {
			rest = after
		}
		if sameName(wisp.ModelInfo{Name: e.name, Runtime: runtime}, rest) {
			found = append(found, e)
		}
	}
	if len(found) != 1 {
		return wisp.ModelInfo{}, false, err
	}
	runtime, _, _ := strings.Cut(found[0].name, ":")
	return wisp.ModelInfo{Name: found[0].name, Runtime: runtime, Enabled: true}, true, nil
}

// Check verifies a model. One that fails is refused with a *CheckError
// saying why, in the runtime's own words where it gave any (its lines are
// what a passed check returns); if it was enabled, it is disabled. A
// model that passes is enabled again if another model was under its name
// when it was enabled: its entry now holds this model's digest. Asked for
// by the model, it needs the person's approval (see Actions).
func (a *Actions) Check(ctx context.Context, name string, by wisp.Actor) (wisp.Change, error) {
	m, err := a.Resolve(ctx, name)
	if err != nil {
		return wisp.Change{}, err
	}
	approval, err := a.approved(ctx, by, "models check "+m.Name)
	if err != nil {
		return wisp.Change{}, err
	}
	var rep CheckReport
	if isGone(m) {
		rep = CheckReport{Why: m.Why, Findings: []string{m.Why}, Info: m}
	} else if rep, err = a.check(ctx, m, by, approval); err != nil {
		return wisp.Change{}, err
	}
	cfg, err := a.settings()
	if err != nil {
		return wisp.Change{}, err
	}
	entry, held := findEnablement(enablements(cfg), m.Name)
	c := wisp.Change{Name: m.Name}
	why := unfit(rep)
	if why == "" {
		c.Lines = append(c.Lines, m.Name+" passed its check")
	} else {
		c.Lines = append(c.Lines, m.Name+" failed its check: "+why)
	}
	c.Lines = append(c.Lines, "checked: "+strings.Join(rep.Findings, "; "))
	switch {
	case why != "" && held:
		if err := a.setEnabled(ctx, m.Name, "", false, by, approval); err != nil {
			return wisp.Change{}, err
		}
		c.Lines = append(c.Lines, m.Name+" is now disabled: wisp will not run it")
	case why == "" && held && entry.digest != digestOf(checked(m, rep)):
		// The entry holds the model that passed: another model was under
		// the name, or the entry held no digest yet.
		if err := a.setEnabled(ctx, m.Name, digestOf(checked(m, rep)), true, by, approval); err != nil {
			return wisp.Change{}, err
		}
		if !m.Enabled {
			c.Lines = append(c.Lines, m.Name+" is enabled again: the model now under its name passed")
		}
	}
	if why != "" {
		return wisp.Change{}, &CheckError{c}
	}
	return c, nil
}

// CheckEnabled checks every model models.enabled names, in its order,
// one after another, as Check does, and returns their lines together. When
// any failed its check or could not be checked, it returns a *CheckError
// holding every line and, last, how many failed.
func (a *Actions) CheckEnabled(ctx context.Context, by wisp.Actor) (wisp.Change, error) {
	cfg, err := a.settings()
	if err != nil {
		return wisp.Change{}, err
	}
	entries := enablements(cfg)
	if len(entries) == 0 {
		return wisp.Change{Lines: []string{"no model is enabled; wisp models enable NAME checks one and turns it on"}}, nil
	}
	var all wisp.Change
	failed := 0
	for _, e := range entries {
		c, err := a.Check(ctx, e.name, by)
		var ce *CheckError
		switch {
		case ctx.Err() != nil:
			return wisp.Change{}, context.Cause(ctx)
		case errors.As(err, &ce):
			c = ce.Change
			failed++
		case errors.Is(err, wisp.ErrNotRecorded), errors.Is(err, ErrNotSaved), errors.Is(err, wisp.ErrNotApproved):
			return wisp.Change{}, err
		case err != nil:
			c = wisp.Change{Lines: []string{e.name + " could not be checked: " + oneLine(err.Error())}}
			failed++
		}
		all.Lines = append(all.Lines, c.Lines...)
	}
	if failed > 0 {
		all.Lines = append(all.Lines, fmt.Sprintf("%d of %d enabled models failed", failed, len(entries)))
		return wisp.Change{}, &CheckError{all}
	}
	return all, nil
}

// unfit says why a checked model cannot serve the agent, or "".
func unfit(rep CheckReport) string {
	switch {
	case !rep.OK:
		return or(rep.Why, "one of its findings failed")
	case !slices.Contains(rep.Info.Capabilities, "tools"):
		return LineCannotCallTools
	}
	return ""
}

// checked is m with the digest its check saw, when the check saw one.
func checked(m wisp.ModelInfo, rep CheckReport) wisp.ModelInfo {
	if rep.Info.Digest != "" {
		m.Digest = rep.Info.Digest
	}
	return m
}

// check runs the backend's check, as config.json says every request runs,
// and records model.verified.
func (a *Actions) check(ctx context.Context, m wisp.ModelInfo, by wisp.Actor, approval string) (CheckReport, error) {
	run, err := a.runOptions()
	if err != nil {
		return CheckReport{}, err
	}
	rep, err := a.backend(m.Runtime).Check(ctx, strings.TrimPrefix(m.Name, m.Runtime+":"), run)
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

// setEnabled writes name's entry in models.enabled and records it: on,
// the entry holds digest (replacing one that held another); off, it goes.
func (a *Actions) setEnabled(ctx context.Context, name, digest string, on bool, by wisp.Actor, approval string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	var change wisp.ConfigChangeData
	err := a.opts.Settings.Update(ctx, func(c *config.Config) error {
		change = wisp.ConfigChangeData{Key: "models.enabled"}
		var list []string
		for _, s := range c.Models.Enabled {
			if parseEnablement(s).name == name {
				change.Removed = s
				continue
			}
			list = append(list, s)
		}
		if on {
			change.Added = enablement{name, digest}.String()
			list = append(list, change.Added)
		}
		if change.Added == change.Removed {
			change = wisp.ConfigChangeData{}
			return nil
		}
		return c.Set("models.enabled", strings.Join(list, ","))
	})
	if err != nil || change.Key == "" {
		return err
	}
	return a.record(ctx, by, approval, change)
}

// An enablement is one entry of models.enabled: a model's full name and,
// after "@", the digest the model had when it passed its check. An entry
// without a digest, as files written before enablements held to one have,
// enables the model whatever its digest.
type enablement struct{ name, digest string }

func parseEnablement(s string) enablement {
	name, digest, _ := strings.Cut(s, "@")
	return enablement{name, digest}
}

func (e enablement) String() string {
	if e.digest == "" {
		return e.name
	}
	return e.name + "@" + e.digest
}

// holds reports whether the entry enables a model of this digest: one
// that begins with the entry's digest (at least 12 digits, which the
// config holds it to), or any, for an entry without one.
func (e enablement) holds(digest string) bool {
	return e.digest == "" || strings.HasPrefix(digestText(digest), e.digest)
}

// enablements returns the entries of models.enabled in cfg, in order.
func enablements(cfg config.Config) []enablement {
	es := make([]enablement, 0, len(cfg.Models.Enabled))
	for _, s := range cfg.Models.Enabled {
		es = append(es, parseEnablement(s))
	}
	return es
}

// findEnablement returns the entry for the model named name.
func findEnablement(es []enablement, name string) (enablement, bool) {
	for _, e := range es {
		if e.name == name {
			return e, true
		}
	}
	return enablement{}, false
}

// digestOf is the digest an enablement of m holds: its digest as
// lower-case hex without a "sha256:" prefix, or "" when it has none that
// reads so.
func digestOf(m wisp.ModelInfo) string {
	d := digestText(m.Digest)
	if len(d) < 12 || len(d) > 64 || strings.Trim(d, "0123456789abcdef") != "" {
		return ""
	}
	return d
}

// digestText is a digest as an enablement writes it: lower-case, without
// a "sha256:" or "sha256-" prefix.
func digestText(d string) string {
	d = strings.ToLower(strings.TrimSpace(d))
	if rest, ok := strings.CutPrefix(d, "sha256"); ok && rest != "" && (rest[0] == ':' || rest[0] == '-') {
		d = rest[1:]
	}
	return d
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
