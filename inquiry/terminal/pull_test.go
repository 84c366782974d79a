package terminal_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/terminal"
	"github.com/wisp-agent/wisp/models"
	"github.com/wisp-agent/wisp/models/hf"
)

// fakePuller plans one pull, records what the person's answer did, and
// pulls by saying so.
type fakePuller struct {
	plan    models.PullPlan
	planErr error
	pullErr error
	trusted []string
	pulled  bool
}

func (f *fakePuller) PlanPull(ctx context.Context, repo string) (models.PullPlan, error) {
	return f.plan, f.planErr
}

func (f *fakePuller) Trust(ctx context.Context, publisher string, by wisp.Actor) error {
	if by != wisp.ActorPerson {
		return fmt.Errorf("Trust(%q) by %v, want the person", publisher, by)
	}
	f.trusted = append(f.trusted, publisher)
	return nil
}

func (f *fakePuller) RunPullWith(ctx context.Context, pp models.PullPlan, replace bool, progress func(hf.Progress)) (string, error) {
	if f.pullErr != nil {
		return "", f.pullErr
	}
	progress(hf.Progress{Done: pp.Bytes, Total: pp.Bytes, FilesDone: 1, Files: 1})
	f.pulled = true
	return "/home/models/mlx/" + pp.Plan.Name(), nil
}

// pullPlan is a plan of publisher's model: trusted or not, whose files say
// it can call tools or not.
func pullPlan(publisher string, trusted, tools bool) models.PullPlan {
	caps := []string{"completion"}
	if tools {
		caps = append(caps, "tools")
	}
	return models.PullPlan{
		Plan:    hf.Plan{Repo: publisher + "/Qwen3-4B-4bit", Commit: "0123456789abcdef0123", Publisher: publisher, Licence: "apache-2.0", Files: []hf.File{{Path: "model.safetensors", Size: 2000}}},
		Missing: []hf.File{{Path: "model.safetensors", Size: 2000}},
		Bytes:   2000,
		Trusted: trusted,
		Verdict: &models.Verdict{Capabilities: caps},
	}
}

// A pull in the foreground asks about a publisher the person has not
// trusted and a model that cannot call tools, and the answer decides.
func TestPull(t *testing.T) {
	const untrusted = "mlx-community is not a publisher you trust. Pull it? [y]once [t]rust [n]o › "
	const ready = "mlx:Qwen3-4B-4bit is ready (2.0 kB fetched in 0s, linked at /home/models/mlx/Qwen3-4B-4bit); wisp models enable mlx:Qwen3-4B-4bit checks it and turns it on\n"
	tests := []struct {
		name             string
		trusted, tools   bool
		opts             terminal.PullOptions
		input            string
		wantAsked        string // "": not asked
		wantErr          error
		wantErrText      string
		wantPulled       bool
		wantTrusted      []string
		wantOutAfterPlan string
	}{
		{name: "trusted, tools: not asked", trusted: true, tools: true, wantPulled: true, wantOutAfterPlan: ready},
		{name: "once", tools: true, input: "y\n", wantAsked: untrusted, wantPulled: true, wantOutAfterPlan: ready},
		{name: "yes in capitals", tools: true, input: " YES \n", wantAsked: untrusted, wantPulled: true, wantOutAfterPlan: ready},
		{name: "trust", tools: true, input: "t\n", wantAsked: untrusted, wantPulled: true, wantTrusted: []string{"mlx-community"},
			wantOutAfterPlan: "mlx-community is trusted\n" + ready},
		{name: "no", tools: true, input: "n\n", wantAsked: untrusted, wantErr: terminal.ErrNotPulled},
		{name: "Enter alone is no", tools: true, input: "\n", wantAsked: untrusted, wantErr: terminal.ErrNotPulled},
		{name: "no answer", tools: true, input: "", wantAsked: untrusted, wantErrText: "not pulled: no answer (pass --yes to pull it this once)", wantOutAfterPlan: "\n"},
		{name: "--yes asks nothing", tools: true, opts: terminal.PullOptions{Yes: true}, wantPulled: true, wantOutAfterPlan: ready},
		{name: "--dry-run fetches nothing", tools: true, opts: terminal.PullOptions{DryRun: true}},
		{name: "cannot call tools, trusted", trusted: true, input: "y\n",
			wantAsked: "wisp could not run it as an agent. Pull it anyway? [y]es [n]o › ", wantPulled: true, wantOutAfterPlan: ready},
		{name: "cannot call tools, trusted: t is no", trusted: true, input: "t\n",
			wantAsked: "wisp could not run it as an agent. Pull it anyway? [y]es [n]o › ", wantErr: terminal.ErrNotPulled},
		{name: "cannot call tools, not trusted", input: "n\n",
			wantAsked: "wisp could not run it as an agent, and mlx-community is not a publisher you trust. Pull it anyway? [y]once [t]rust [n]o › ", wantErr: terminal.ErrNotPulled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &fakePuller{plan: pullPlan("mlx-community", tc.trusted, tc.tools)}
			var out bytes.Buffer
			opts := tc.opts
			opts.Now = func() time.Time { return time.Unix(0, 0) }
			err := terminal.Pull(context.Background(), p, "mlx-community/Qwen3-4B-4bit", terminal.NewInput(strings.NewReader(tc.input)), &out, &opts)
			switch {
			case tc.wantErrText != "":
				if err == nil || err.Error() != tc.wantErrText {
					t.Fatalf("Pull() = %v, want %q", err, tc.wantErrText)
				}
			case !errors.Is(err, tc.wantErr):
				t.Fatalf("Pull() = %v, want %v", err, tc.wantErr)
			}
			plan, rest, ok := strings.Cut(out.String(), "  licence: apache-2.0\n")
			if !ok {
				t.Fatalf("Pull() showed no plan:\n%s", out.String())
			}
			if !strings.HasPrefix(plan, "mlx-community/Qwen3-4B-4bit at 0123456789ab\n  downloads 2.0 kB in 1 of 1 files from Hugging Face, as mlx:Qwen3-4B-4bit\n") {
				t.Errorf("Pull() plan =\n%s", plan)
			}
			asked, after := "", rest
			if tc.wantAsked != "" {
				asked, after = rest[:min(len(tc.wantAsked), len(rest))], rest[min(len(tc.wantAsked), len(rest)):]
			}
			if asked != tc.wantAsked {
				t.Errorf("Pull() asked %q, want %q", asked, tc.wantAsked)
			}
			if after != tc.wantOutAfterPlan {
				t.Errorf("Pull() then said %q, want %q", after, tc.wantOutAfterPlan)
			}
			if p.pulled != tc.wantPulled {
				t.Errorf("Pull() pulled = %v, want %v", p.pulled, tc.wantPulled)
			}
			if diff := cmp.Diff(tc.wantTrusted, p.trusted); diff != "" {
				t.Errorf("Pull() trusted (-want +got):\n%s", diff)
			}
		})
	}
}

// What the Hub says of a model is escaped before it reaches the terminal,
// and a plan that failed, a pull stopped and Ctrl-C at the question each
// say so.
func TestPullRefusals(t *testing.T) {
	t.Run("escaped", func(t *testing.T) {
		p := &fakePuller{plan: pullPlan("evil\x1b[2J", false, true)}
		var out bytes.Buffer
		err := terminal.Pull(context.Background(), p, "x", terminal.NewInput(strings.NewReader("n\n")), &out, nil)
		if !errors.Is(err, terminal.ErrNotPulled) {
			t.Fatalf("Pull() = %v, want ErrNotPulled", err)
		}
		if strings.Contains(out.String(), "\x1b") {
			t.Errorf("Pull() wrote an escape sequence:\n%q", out.String())
		}
	})
	t.Run("plan failed", func(t *testing.T) {
		bad := fmt.Errorf("plan: %w", hf.ErrBadRepo)
		p := &fakePuller{planErr: bad}
		var out bytes.Buffer
		if err := terminal.Pull(context.Background(), p, "x", terminal.NewInput(strings.NewReader("")), &out, nil); !errors.Is(err, hf.ErrBadRepo) {
			t.Fatalf("Pull() = %v, want hf.ErrBadRepo", err)
		}
		if out.Len() != 0 {
			t.Errorf("Pull() wrote %q after a plan that failed", out.String())
		}
	})
	t.Run("stopped while pulling", func(t *testing.T) {
		p := &fakePuller{plan: pullPlan("mlx-community", true, true), pullErr: fmt.Errorf("fetch: %w", context.Canceled)}
		err := terminal.Pull(context.Background(), p, "x", terminal.NewInput(strings.NewReader("")), new(bytes.Buffer), nil)
		const want = "stopped: what arrived is kept; run wisp models pull mlx-community/Qwen3-4B-4bit again to resume"
		if err == nil || err.Error() != want {
			t.Fatalf("Pull() = %v, want %q", err, want)
		}
	})
	t.Run("Ctrl-C at the question", func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(wisp.ErrInterrupted)
		p := &fakePuller{plan: pullPlan("mlx-community", false, true)}
		err := terminal.Pull(ctx, p, "x", terminal.NewInput(newFakeTTY()), new(bytes.Buffer), nil)
		const want = "stopped; nothing was pulled (wisp models pull mlx-community/Qwen3-4B-4bit asks again)"
		if err == nil || err.Error() != want || p.pulled {
			t.Fatalf("Pull() = %v (pulled %v), want %q and nothing pulled", err, p.pulled, want)
		}
	})
}
