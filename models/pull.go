package models

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
	return "publisher " + p.Plan.Publisher + ": not trusted: approving pulls it this once, and only the person can trust it, with /models trust"
}

// Licence names the model's licence.
func (p PullPlan) Licence() string {
	if p.Plan.Licence == "" {
		return "licence: none stated"
	}
	return "licence: " + p.Plan.Licence
}

// Text is the whole approval text: download, publisher, licence.
func (p PullPlan) Text() string {
	return strings.Join([]string{p.Download(), p.Publisher(), p.Licence()}, "\n")
}

// PlanPull asks the Hub for a repository's plan and says what is missing
// here, without fetching anything.
func (a *Actions) PlanPull(ctx context.Context, repo string) (PullPlan, error) {
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
	pp, err := a.PlanPull(ctx, repo)
	if err != nil {
		return PullPlan{}, nil, err
	}
	unlock, err := a.opts.Pull.Store.Lock(pp.Plan.Repo)
	if err != nil {
		if errors.Is(err, hf.ErrBusy) {
			return PullPlan{}, nil, fmt.Errorf("a pull of %s is %w; its end arrives as a note to the conversation that asked for it, so do not ask for it again", pp.Plan.Repo, ErrPullRunning)
		}
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
// `wisp models pull`: lock, fetch, verify, link. replace lets wisp move
// aside a folder of the person's own at the model's link.
func (a *Actions) RunPull(ctx context.Context, pp PullPlan, replace bool) (string, error) {
	return a.RunPullWith(ctx, pp, replace, nil)
}

// RunPullWith is RunPull with a progress function of its own.
func (a *Actions) RunPullWith(ctx context.Context, pp PullPlan, replace bool, progress func(hf.Progress)) (string, error) {
	unlock, err := a.opts.Pull.Store.Lock(pp.Plan.Repo)
	if err != nil {
		if errors.Is(err, hf.ErrBusy) {
			return "", fmt.Errorf("a pull of %s is %w", pp.Plan.Repo, ErrPullRunning)
		}
		return "", err
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
	// file beside the pull's lock; an old one is stale.
	stop := a.cancelPath(pp.Plan.Repo)
	_ = os.Remove(stop)
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
		return fmt.Sprintf("[wisp: %s finished: fetched %s; it is %s. Its capabilities are undeclared until it is checked: models enable %s asks to turn it on and check it]",
			head, Size(pp.Bytes), pp.Name(), pp.Name())
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
