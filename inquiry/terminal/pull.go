package terminal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/escape"
	"github.com/wisp-agent/wisp/models"
	"github.com/wisp-agent/wisp/models/hf"
)

// A Puller is what a pull in the foreground needs of the models:
// *models.Actions is one.
type Puller interface {
	// PlanPull plans a pull of repo and holds its lock, as
	// models.Actions.PlanPull does.
	PlanPull(ctx context.Context, repo string) (models.PullPlan, error)
	// Trust trusts a publisher on the person's word.
	Trust(ctx context.Context, publisher string, by wisp.Actor) error
	// RunPullWith runs a planned pull, reporting its progress.
	RunPullWith(ctx context.Context, pp models.PullPlan, replace bool, progress func(hf.Progress)) (string, error)
}

// PullOptions configure Pull. A nil *PullOptions or a zero field means
// the default given beside the field.
type PullOptions struct {
	// Yes pulls without asking, from a publisher the person has not
	// trusted (this once) or a model that cannot call tools; false: ask.
	Yes bool
	// DryRun shows the plan and fetches nothing more.
	DryRun bool
	// Replace lets the pull move aside a folder of the person's own at the
	// model's link.
	Replace bool
	// Progress is where the progress bar goes, drawn only when it is a
	// terminal; nil: nowhere.
	Progress io.Writer
	// Now is the clock that times the pull; nil: time.Now.
	Now func() time.Time
}

// ErrNotPulled is what Pull returns when the person answered no: nothing
// was pulled, and nothing more needs saying.
var ErrNotPulled = errors.New("not pulled")

// Pull pulls repo in the foreground, as the person's own wisp models pull:
// it shows the plan on out (the repository and commit, then what it
// downloads, what the model's files say it can do, its publisher and
// licence, each line escaped), asks through in about a publisher the
// person has not trusted or a model that cannot call tools (unless
// Yes), then pulls with a progress bar and says where the model is
// linked.
//
// The question takes y (once), t (trust the publisher, then pull) or
// anything else (no: ErrNotPulled); keys typed before it appeared are
// dropped at a terminal. The end of the input, or Ctrl-C (ctx ends),
// pulls nothing. A pull that ctx stops keeps what arrived, and its error
// says how to resume. An error of the plan is the plan's, so that the
// caller can tell a name that is no repository.
func Pull(ctx context.Context, p Puller, repo string, in *Input, out io.Writer, opts *PullOptions) error {
	var o PullOptions
	if opts != nil {
		o = *opts
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	pp, err := p.PlanPull(ctx, repo)
	if err != nil {
		return err
	}
	defer pp.Release() // unless the pull took it over
	writePullPlan(out, pp)
	if o.DryRun {
		return nil
	}
	if (!pp.Trusted || pp.Agentless()) && !o.Yes {
		if err := askPull(ctx, in, out, p, pp); err != nil {
			return err
		}
	}
	return runPull(ctx, p, pp, out, o)
}

// writePullPlan shows pp: the repository at its commit, then the plan's
// text indented, each line escaped.
func writePullPlan(out io.Writer, pp models.PullPlan) {
	fmt.Fprintf(out, "%s at %s\n", escape.Terminal(pp.Plan.Repo), pp.Plan.Commit[:min(12, len(pp.Plan.Commit))])
	for _, line := range strings.Split(pp.Text(), "\n") {
		fmt.Fprintf(out, "  %s\n", escape.Terminal(line))
	}
}

// askPull asks about a publisher the person has not trusted, or a model
// whose files say it cannot call tools: nil pulls.
func askPull(ctx context.Context, in *Input, out io.Writer, p Puller, pp models.PullPlan) error {
	in.DropTypeAhead()
	publisher := escape.Terminal(pp.Plan.Publisher)
	switch {
	case pp.Agentless() && pp.Trusted:
		fmt.Fprint(out, "wisp could not run it as an agent. Pull it anyway? [y]es [n]o › ")
	case pp.Agentless():
		fmt.Fprintf(out, "wisp could not run it as an agent, and %s is not a publisher you trust. Pull it anyway? [y]once [t]rust [n]o › ", publisher)
	default:
		fmt.Fprintf(out, "%s is not a publisher you trust. Pull it? [y]once [t]rust [n]o › ", publisher)
	}
	line, err := in.ReadLine(ctx)
	switch {
	case errors.Is(err, io.EOF):
		fmt.Fprintln(out)
		return fmt.Errorf("not pulled: no answer (pass --yes to pull it this once)")
	case errors.Is(err, ErrLineTooLong):
		line = ""
	case err != nil:
		fmt.Fprintln(out)
		return fmt.Errorf("stopped; nothing was pulled (wisp models pull %s asks again)", pp.Plan.Repo)
	}
	switch answer := strings.ToLower(strings.TrimSpace(line)); {
	case answer == "y" || answer == "once" || answer == "yes":
		return nil
	case (answer == "t" || answer == "trust") && !pp.Trusted:
		if err := p.Trust(ctx, pp.Plan.Publisher, wisp.ActorPerson); err != nil {
			return err
		}
		fmt.Fprintf(out, "%s is trusted\n", publisher)
		return nil
	}
	return ErrNotPulled
}

// runPull runs pp with a progress bar on o.Progress and says where the
// model is linked.
func runPull(ctx context.Context, p Puller, pp models.PullPlan, out io.Writer, o PullOptions) error {
	w := o.Progress
	if w == nil {
		w = io.Discard
	}
	bar := newPullBar(w, pp)
	started := o.Now()
	link, err := p.RunPullWith(ctx, pp, o.Replace, func(pr hf.Progress) {
		bar.Describe(fmt.Sprintf("%d of %d files", pr.FilesDone, pr.Files))
		_ = bar.Set64(pr.Done)
	})
	_ = bar.Finish()
	fmt.Fprintln(w)
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, wisp.ErrInterrupted):
		return fmt.Errorf("stopped: what arrived is kept; run wisp models pull %s again to resume", pp.Plan.Repo)
	case err != nil:
		return err
	}
	fmt.Fprintf(out, "%s is ready (%s fetched in %s, linked at %s); wisp models enable %s checks it and turns it on\n",
		pp.Name(), models.Size(pp.Bytes), o.Now().Sub(started).Round(time.Second), escape.Terminal(link), pp.Name())
	return nil
}

// newPullBar is the progress bar of pp's pull on w, drawn only when w is a
// terminal.
func newPullBar(w io.Writer, pp models.PullPlan) *progressbar.ProgressBar {
	return progressbar.NewOptions64(pp.Bytes,
		progressbar.OptionSetWriter(w),
		progressbar.OptionShowBytes(true),
		progressbar.OptionShowCount(),
		progressbar.OptionSetWidth(24),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionSetDescription(fmt.Sprintf("0 of %d files", len(pp.Missing))),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionShowElapsedTimeOnFinish(),
		progressbar.OptionUseANSICodes(isTerminal(w)),
		progressbar.OptionSetVisibility(isTerminal(w)),
	)
}
