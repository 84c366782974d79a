package models

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/models/hf"
)

// Hub is where pulls come from: a plan from the Hub's API, and the bytes.
// *hf.Client is one.
type Hub interface {
	Plan(ctx context.Context, repo string) (hf.Plan, error)
	hf.Source
}

// PullOptions configure pulls. Actions pulls only when Options.Pull is set.
type PullOptions struct {
	// Hub is Hugging Face (or a server that speaks its API).
	Hub Hub
	// Store is the wisp home's cache of pulled models.
	Store hf.Store
	// Fetch tunes the download; nil: defaults.
	Fetch *hf.FetchOptions
	// Notify posts a note to the conversation that asked for a pull when
	// the pull ends: finished, failed or cancelled. nil: no note.
	Notify func(thread, note string)
	// Progress, if set, receives the progress of background pulls.
	Progress func(repo string, p hf.Progress)
}

// ErrPullRunning refuses a second pull of the same repository.
var ErrPullRunning = errors.New("already running")

// A PullPlan is what a pull would do, for the person to approve.
type PullPlan struct {
	Plan hf.Plan
	// Missing are the files not yet here, and their bytes.
	Missing []hf.File
	Bytes   int64
	// Trusted reports whether the person trusts the publisher.
	Trusted bool
	// Verdict is what the model's small files, fetched by the plan before
	// the rest, say it can do; nil when no backend could tell (no
	// Inspector) or a pull of the repository was running.
	Verdict *Verdict

	lock *heldLock // the repository's lock, from PlanPull to RunPull
}

// heldLock is a repository's lock a plan holds for the pull that runs it.
type heldLock struct {
	mu     sync.Mutex
	unlock func() // nil once taken or let go
}

// take hands over the lock, or nil when it was taken or let go.
func (l *heldLock) take() func() {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	u := l.unlock
	l.unlock = nil
	return u
}

// Release lets go of the repository's lock the plan holds, when it is not
// to be pulled (a dry run, a question declined). RunPull takes it over
// instead. Releasing twice, or after RunPull, does nothing.
func (p PullPlan) Release() {
	if u := p.lock.take(); u != nil {
		u()
	}
}

// A Verdict is what a model's small files say it can do, by the rules a
// check of the pulled model applies, before its weights are fetched.
type Verdict struct {
	// Capabilities are "completion", "tools", "thinking", "vision".
	Capabilities []string
	// Findings say why, a line each, as a check's do: "chat template
	// supports tool calls (json_tools parser, inferred from the chat
	// template)".
	Findings []string
}

// An Inspector is a Backend that can say what a model can do from the
// small files of its folder dir, as its check of the model will: for MLX
// (*mlx.Backend), its configuration and chat template. A pull's plan asks
// the "mlx" backend, when it is one.
type Inspector interface {
	Inspect(dir string) Verdict
}

// earlyFiles are the files of a repository that say what a model can do,
// fetched by a pull's plan before it asks to fetch the rest; the chat
// templates under additional_chat_templates/ too. Each is a few
// kilobytes; one over maxEarly is left for the pull.
var earlyFiles = []string{"config.json", "tokenizer_config.json", "chat_template.jinja", "generation_config.json"}

const maxEarly = 8 << 20

// early returns the paths of p's files that a plan fetches first.
func early(p hf.Plan) []string {
	var paths []string
	for _, f := range p.Files {
		extra := strings.HasPrefix(f.Path, "additional_chat_templates/") && strings.HasSuffix(f.Path, ".jinja")
		if (slices.Contains(earlyFiles, f.Path) || extra) && f.Size <= maxEarly {
			paths = append(paths, f.Path)
		}
	}
	return paths
}

// Abilities says what the model's files say it can do, in the words of the
// approval request: "its files say it can call tools and think: chat
// template supports tool calls (…)", or that it cannot call tools, so
// wisp cannot run it as an agent. It is "" when there is no Verdict.
func (p PullPlan) Abilities() string {
	if p.Verdict == nil {
		return ""
	}
	why := ""
	for _, f := range p.Verdict.Findings {
		if strings.Contains(f, "tool calls") || strings.HasPrefix(f, "no chat template") || why == "" {
			why = f
		}
	}
	if why != "" {
		why = ": " + why
	}
	return "its files say it " + p.says() + why
}

// says is what the Verdict says the model can do, as "can call tools and
// think".
func (p PullPlan) says() string {
	caps := p.Verdict.Capabilities
	switch tools, thinks := slices.Contains(caps, "tools"), slices.Contains(caps, "thinking"); {
	case tools && thinks:
		return "can call tools and think"
	case tools:
		return "can call tools and does not think"
	}
	return "cannot call tools, so wisp cannot run it as an agent"
}

// Agentless reports whether the model's files say it cannot call tools:
// pulled, it could not serve the agent.
func (p PullPlan) Agentless() bool {
	return p.Verdict != nil && !slices.Contains(p.Verdict.Capabilities, "tools")
}

// Name is the model's full name, mlx:<name>.
func (p PullPlan) Name() string { return "mlx:" + p.Plan.Name() }

// Download says what the pull downloads, in the words of the approval
// request: "downloads 2.3 GB in 4 of 7 files from Hugging Face, as
// mlx:<name>", or that nothing needs fetching.
func (p PullPlan) Download() string {
	if len(p.Missing) == 0 {
		return fmt.Sprintf("nothing needs fetching: all %d files are here already, as %s", len(p.Plan.Files), p.Name())
	}
	return fmt.Sprintf("downloads %s in %d of %d files from Hugging Face, as %s", Size(p.Bytes), len(p.Missing), len(p.Plan.Files), p.Name())
}

// Publisher says who publishes the model and whether the person trusts
// them.
func (p PullPlan) Publisher() string {
	if p.Trusted {
		return "publisher " + p.Plan.Publisher + ": trusted"
	}
	return "publisher " + p.Plan.Publisher + ": not trusted: approving pulls it this once, and only the person can trust it (wisp models trust " + p.Plan.Publisher + ", or /models trust in a chat)"
}

// Licence names the model's licence.
func (p PullPlan) Licence() string {
	if p.Plan.Licence == "" {
		return "licence: none stated"
	}
	return "licence: " + p.Plan.Licence
}

// Text is the whole approval text: download, what the model's files say
// it can do, publisher, licence.
func (p PullPlan) Text() string {
	lines := []string{p.Download()}
	if s := p.Abilities(); s != "" {
		lines = append(lines, s)
	}
	return strings.Join(append(lines, p.Publisher(), p.Licence()), "\n")
}

// PlanPull asks the Hub for a repository's plan, fetches the few small
// files that say what the model can do (config.json,
// tokenizer_config.json, chat_template.jinja, generation_config.json; a
// few kilobytes, verified as every pulled file is) and reads them
// (Verdict), and says what is still missing here. It fetches no weights.
//
// The plan holds the repository's lock, as a pull does from the moment it
// is planned (a cancel from then on stops it), until RunPull runs it or
// Release lets it go. While another pull of the repository runs, the plan
// holds no lock and has no Verdict, and RunPull of it is refused.
func (a *Actions) PlanPull(ctx context.Context, repo string) (PullPlan, error) {
	pp, err := a.plan(ctx, repo)
	if err != nil {
		return PullPlan{}, err
	}
	unlock, err := a.lockPull(pp.Plan.Repo)
	switch {
	case errors.Is(err, hf.ErrBusy):
		return pp, nil
	case err != nil:
		return PullPlan{}, err
	}
	if pp, err = a.inspect(ctx, pp); err != nil {
		unlock()
		return PullPlan{}, err
	}
	pp.lock = &heldLock{unlock: unlock}
	return pp, nil
}

// plan asks the Hub for a repository's plan and says what is missing here.
func (a *Actions) plan(ctx context.Context, repo string) (PullPlan, error) {
	po := a.opts.Pull
	if po == nil || po.Hub == nil {
		return PullPlan{}, ErrPullUnavailable
	}
	plan, err := po.Hub.Plan(ctx, strings.TrimSpace(repo))
	if err != nil {
		return PullPlan{}, err
	}
	missing, bytes := po.Store.Missing(plan)
	cfg, err := a.settings()
	if err != nil {
		return PullPlan{}, err
	}
	return PullPlan{Plan: plan, Missing: missing, Bytes: bytes, Trusted: slices.Contains(cfg.Models.Trusted, plan.Publisher)}, nil
}

// inspect fetches the small files of pp's model that say what it can do,
// and has the "mlx" backend, when it is an Inspector, read them: the
// plan's Verdict. What is missing is counted again. The caller holds the
// repository's lock.
func (a *Actions) inspect(ctx context.Context, pp PullPlan) (PullPlan, error) {
	in, ok := a.backend("mlx").(Inspector)
	paths := early(pp.Plan)
	if !ok || len(paths) == 0 {
		return pp, nil
	}
	po := a.opts.Pull
	var fo hf.FetchOptions
	if po.Fetch != nil {
		fo = *po.Fetch
	}
	fo.Progress = nil
	dir, _, err := po.Store.Prefetch(ctx, po.Hub, pp.Plan, paths, &fo)
	if err != nil {
		return PullPlan{}, fmt.Errorf("cannot read what %s can do: %w", pp.Plan.Repo, err)
	}
	v := in.Inspect(dir)
	pp.Verdict = &v
	pp.Missing, pp.Bytes = po.Store.Missing(pp.Plan)
	return pp, nil
}

// pullJob is one pull running in the background.
type pullJob struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// Pull plans a pull and, once approved (the model's pulls need the
// person's approval, see Actions; the person's own need none), runs it in
// the background: at most one per repository, across processes. A second
// pull of a repository already pulling, or waiting for the person's
// approval (its lock taken by Action), is refused. Pull returns at once;
// the end arrives as a note to the conversation that asked. A pull of a
// publisher the person has not trusted that goes ahead records
// model.publisher.
func (a *Actions) Pull(ctx context.Context, repo string, by wisp.Actor) (wisp.PullStarted, error) {
	pp, unlock, err := a.planAndLock(ctx, repo, by)
	if err != nil {
		return wisp.PullStarted{}, err
	}
	started := false
	defer func() {
		if !started {
			unlock()
		}
	}()
	approval, err := a.approved(ctx, by, "models pull "+pp.Plan.Repo)
	if err != nil {
		return wisp.PullStarted{}, err
	}
	if err := a.goesAhead(ctx, pp, by, approval); err != nil {
		return wisp.PullStarted{}, err
	}
	where := callFrom(ctx)
	jobCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	job := &pullJob{cancel: cancel, done: make(chan struct{})}
	a.jobsMu.Lock()
	if a.jobs == nil {
		a.jobs = make(map[string]*pullJob)
	}
	a.jobs[strings.ToLower(pp.Plan.Repo)] = job
	a.jobsMu.Unlock()
	started = true
	go func() {
		defer close(job.done)
		defer unlock()
		defer func() {
			a.jobsMu.Lock()
			delete(a.jobs, strings.ToLower(pp.Plan.Repo))
			a.jobsMu.Unlock()
		}()
		note := a.runPull(jobCtx, pp, by, approval)
		if a.opts.Pull.Notify != nil && note != "" {
			a.opts.Pull.Notify(where.thread, note)
		}
	}()
	return wisp.PullStarted{Repo: pp.Plan.Repo, Approval: approval, Bytes: pp.Bytes, Files: len(pp.Missing), Total: len(pp.Plan.Files)}, nil
}

// planAndLock plans a pull and takes its repository's lock; for the
// model's approved request, those Action took when it was asked about.
func (a *Actions) planAndLock(ctx context.Context, repo string, by wisp.Actor) (PullPlan, func(), error) {
	if by == wisp.ActorModel {
		if h, ok := a.take(approvalFrom(ctx).Command); ok {
			return h.pp, h.unlock, nil
		}
	}
	return a.lockedPlan(ctx, repo)
}

// lockedPlan plans a pull and takes its repository's lock; a pull of it
// running (or waiting for the person) is ErrPullRunning.
func (a *Actions) lockedPlan(ctx context.Context, repo string) (PullPlan, func(), error) {
	pp, err := a.plan(ctx, repo)
	if err != nil {
		return PullPlan{}, nil, err
	}
	unlock, err := a.lockPull(pp.Plan.Repo)
	if err != nil {
		if errors.Is(err, hf.ErrBusy) {
			return PullPlan{}, nil, fmt.Errorf("a pull of %s is %w; its end arrives as a note to the conversation that asked for it, so do not ask for it again", pp.Plan.Repo, ErrPullRunning)
		}
		return PullPlan{}, nil, err
	}
	if pp, err = a.inspect(ctx, pp); err != nil {
		unlock()
		return PullPlan{}, nil, err
	}
	return pp, unlock, nil
}

// goesAhead records model.publisher when a pull of a publisher the person
// has not trusted goes ahead: this once, on the approval that allowed it
// (the model's request), or on the person's own word. The publisher stays
// untrusted. A publisher trusted since the plan was made (the person
// answered "trust") is not recorded again. A pull whose record could not
// be written does not go ahead: the error wraps wisp.ErrNotRecorded.
func (a *Actions) goesAhead(ctx context.Context, pp PullPlan, by wisp.Actor, approval string) error {
	if cfg, err := a.settings(); err == nil {
		pp.Trusted = slices.Contains(cfg.Models.Trusted, pp.Plan.Publisher)
	}
	if pp.Trusted {
		return nil
	}
	return a.record(ctx, by, approval, wisp.ModelPublisherData{Publisher: pp.Plan.Publisher, Trusted: false, Repo: pp.Plan.Repo})
}

// RunPull runs a planned pull in the foreground, for the person's own
// `wisp models pull`: lock (taking over the lock the plan holds), fetch,
// verify, link. replace lets wisp move
// aside a folder of the person's own at the model's link.
func (a *Actions) RunPull(ctx context.Context, pp PullPlan, replace bool) (string, error) {
	return a.RunPullWith(ctx, pp, replace, nil)
}

// RunPullWith is RunPull with a progress function of its own.
func (a *Actions) RunPullWith(ctx context.Context, pp PullPlan, replace bool, progress func(hf.Progress)) (string, error) {
	unlock := pp.lock.take()
	if unlock == nil {
		var err error
		if unlock, err = a.lockPull(pp.Plan.Repo); err != nil {
			if errors.Is(err, hf.ErrBusy) {
				return "", fmt.Errorf("a pull of %s is %w", pp.Plan.Repo, ErrPullRunning)
			}
			return "", err
		}
	}
	defer unlock()
	if err := a.goesAhead(ctx, pp, wisp.ActorPerson, ""); err != nil {
		return "", err
	}
	return a.fetchAndLink(ctx, pp, wisp.ActorPerson, "", replace, progress)
}

func (a *Actions) fetchAndLink(ctx context.Context, pp PullPlan, by wisp.Actor, approval string, replace bool, progress func(hf.Progress)) (string, error) {
	po := a.opts.Pull
	// A cancel asked for from another process (wisp models cancel) is a
	// file beside the pull's lock (see lockPull).
	stop := a.cancelPath(pp.Plan.Repo)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if _, err := os.Lstat(stop); err == nil {
					_ = os.Remove(stop)
					cancel()
					return
				}
			}
		}
	}()
	fo := hf.FetchOptions{}
	if po.Fetch != nil {
		fo = *po.Fetch
	}
	if progress != nil {
		fo.Progress = progress
	} else if po.Progress != nil && fo.Progress == nil {
		fo.Progress = func(p hf.Progress) { po.Progress(pp.Plan.Repo, p) }
	}
	err := po.Store.Fetch(ctx, po.Hub, pp.Plan, &fo)
	var link string
	if err == nil {
		link, err = po.Store.Link(pp.Plan, replace)
	}
	outcome := "finished"
	switch {
	case errors.Is(err, context.Canceled):
		outcome = "cancelled"
	case err != nil:
		outcome = "failed"
	}
	data := wisp.ModelPullData{Repo: pp.Plan.Repo, Commit: pp.Plan.Commit, Name: pp.Name(),
		Files: len(pp.Missing), Of: len(pp.Plan.Files), Bytes: pp.Bytes, Outcome: outcome}
	if err != nil {
		data.Error = oneLine(err.Error())
	}
	if rerr := a.record(context.WithoutCancel(ctx), by, approval, data); rerr != nil && err == nil {
		err = rerr
	}
	if err != nil {
		return "", err
	}
	return link, nil
}

// runPull runs a background pull and returns the note for its end.
func (a *Actions) runPull(ctx context.Context, pp PullPlan, by wisp.Actor, approval string) string {
	_, err := a.fetchAndLink(ctx, pp, by, approval, false, nil)
	head := fmt.Sprintf("the pull of %s you asked for (approval %s)", pp.Plan.Repo, approval)
	if approval == "" {
		head = fmt.Sprintf("the pull of %s", pp.Plan.Repo)
	}
	switch {
	case err == nil:
		said := "Its capabilities are undeclared until it is checked"
		if pp.Verdict != nil {
			said = "Its files say it " + pp.says()
		}
		return fmt.Sprintf("[wisp: %s finished: fetched %s; it is %s. %s: models enable %s asks to turn it on and check it]",
			head, Size(pp.Bytes), pp.Name(), said, pp.Name())
	case errors.Is(err, context.Canceled):
		return fmt.Sprintf("[wisp: %s was cancelled; what arrived is kept, and pulling it again resumes]", head)
	default:
		return fmt.Sprintf("[wisp: %s failed: %s; what arrived is kept, and pulling it again resumes]", head, oneLine(err.Error()))
	}
}

// Cancel stops a background pull of repo in this process, keeping what
// arrived. It reports whether one was running.
func (a *Actions) Cancel(repo string) bool {
	a.jobsMu.Lock()
	job := a.jobs[strings.ToLower(strings.TrimSpace(repo))]
	a.jobsMu.Unlock()
	if job == nil {
		return false
	}
	job.cancel()
	<-job.done
	return true
}

// lockPull takes the lock of a pull of repo and clears a cancel request
// left by an earlier pull. A cancel asked for once the lock is held (while
// the person is asked, or the publisher recorded) is this pull's, and
// stops it as soon as it fetches.
func (a *Actions) lockPull(repo string) (unlock func(), err error) {
	unlock, err = a.opts.Pull.Store.Lock(repo)
	if err != nil {
		return nil, err
	}
	_ = os.Remove(a.cancelPath(repo))
	return unlock, nil
}

// cancelPath is the file that asks a running pull of repo, in any
// process, to stop.
func (a *Actions) cancelPath(repo string) string {
	return filepath.Join(a.opts.Pull.Store.Home, "locks", "pull-"+strings.ReplaceAll(strings.ToLower(repo), "/", "--")+".cancel")
}

// RequestCancel asks a pull of repo running in another process to stop,
// keeping what arrived. It reports whether a pull was running.
func (a *Actions) RequestCancel(repo string) (bool, error) {
	if a.opts.Pull == nil {
		return false, ErrPullUnavailable
	}
	repo = strings.TrimSpace(repo)
	if a.Cancel(repo) {
		return true, nil
	}
	unlock, err := a.opts.Pull.Store.Lock(repo)
	if err == nil {
		unlock()
		return false, nil // nothing holds the lock: no pull runs
	}
	if !errors.Is(err, hf.ErrBusy) {
		return false, err
	}
	return true, os.WriteFile(a.cancelPath(repo), nil, 0o600)
}

// Close cancels every background pull (the session is ending) and waits
// for each to record how it ended.
func (a *Actions) Close() {
	a.jobsMu.Lock()
	jobs := make([]*pullJob, 0, len(a.jobs))
	for _, j := range a.jobs {
		jobs = append(jobs, j)
	}
	a.jobsMu.Unlock()
	for _, j := range jobs {
		j.cancel()
		<-j.done
	}
}

// LinePullStarted is what the model gets when its pull starts.
func LinePullStarted(p wisp.PullStarted) string {
	return fmt.Sprintf("pulling %s in the background (approval %s): about %s in %d of %d files. Its end will arrive as a note in this conversation; do not call models to check on it.",
		p.Repo, p.Approval, Size(p.Bytes), p.Files, p.Total)
}
