// Package modeltest is the contract suite for wisp.ModelActions: any
// implementation runs Run in a test to check that it lists and pages (every
// model on exactly one page, every page within the 4 KiB a reply may take,
// footer included), finds a model under another spelling, says that a
// model that cannot call tools is not usable and refuses it, makes a
// change the model asks for only under the person's approval of exactly
// that change (models.WithApproval) and changes nothing without it, keeps
// trust the person's alone, and refuses a second pull of a repository
// without asking the person again.
package modeltest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/models"
)

// A Harness is a ModelActions with two models in it.
type Harness struct {
	Actions wisp.ModelActions
	// ToolModel is the full name of a model that can call tools; it
	// starts disabled.
	ToolModel string
	// PlainModel is the full name of a model that cannot call tools.
	PlainModel string

	// The checks below run only when their fields are set.

	// Crowded, if set, returns a ModelActions with many models, their
	// names long enough that 20 of their lines would not fit in 4 KiB,
	// and how many there are.
	Crowded func(t *testing.T) (wisp.ModelActions, int)
	// Repo, if set, is a repository Actions can pull, as the Hub spells
	// it, slowly enough that a second pull is asked for while the first
	// still runs.
	Repo string
}

// describer is a ModelActions that says what the model's change would do
// (models.Actions.Action), for the models tool's guard.
type describer interface {
	Action(ctx context.Context, verb, name string) (wisp.Action, error)
}

// approved is ctx with the person's approval of command.
func approved(ctx context.Context, command string) context.Context {
	return models.WithApproval(ctx, wisp.Approval{ID: "ap1", Command: command})
}

// Run checks the implementation newActions returns; it is called once per
// check, and each call must start from the same state.
func Run(t *testing.T, newActions func(t *testing.T) Harness) {
	t.Helper()
	ctx := context.Background()
	find := func(t *testing.T, a wisp.ModelActions, name string) wisp.ModelInfo {
		t.Helper()
		for page, pages := 1, 1; page <= pages; page++ {
			l, err := a.List(ctx, page)
			if err != nil {
				t.Fatalf("List(%d) = %v", page, err)
			}
			pages = l.Pages
			for _, m := range l.Models {
				if m.Name == name {
					return m
				}
			}
		}
		t.Fatalf("the listing has no %s", name)
		return wisp.ModelInfo{}
	}

	t.Run("list and pages", func(t *testing.T) {
		h := newActions(t)
		l, err := h.Actions.List(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if l.Page != 1 || l.Pages < 1 || len(l.Models) == 0 || len(l.Models) > 20 {
			t.Errorf("List(1) = page %d of %d with %d models; want page 1 of at least 1, 1 to 20 models", l.Page, l.Pages, len(l.Models))
		}
		for _, p := range []int{0, -1, l.Pages + 1} {
			if _, err := h.Actions.List(ctx, p); err == nil {
				t.Errorf("List(%d) succeeded; want an error naming the pages", p)
			}
		}
		if m := find(t, h.Actions, h.ToolModel); m.Enabled {
			t.Errorf("%s starts enabled", m.Name)
		}
		find(t, h.Actions, h.PlainModel)
	})
	t.Run("every model on exactly one page, within 4 KiB", func(t *testing.T) {
		h := newActions(t)
		pages(t, h.Actions, 0)
		if h.Crowded != nil {
			a, n := h.Crowded(t)
			if got := pages(t, a, n); got < 2 {
				t.Errorf("the crowded listing has %d pages; want several", got)
			}
		}
	})
	t.Run("a model that cannot call tools is not usable", func(t *testing.T) {
		h := newActions(t)
		m, err := h.Actions.Show(ctx, h.PlainModel)
		if err != nil {
			t.Fatalf("Show(%s) = %v", h.PlainModel, err)
		}
		if m.Usable || !strings.Contains(m.Why, "cannot call tools") {
			t.Errorf("Show(%s) = usable %v, why %q; want not usable: cannot call tools", h.PlainModel, m.Usable, m.Why)
		}
		if m := find(t, h.Actions, h.PlainModel); m.Usable || !strings.Contains(m.Why, "cannot call tools") {
			t.Errorf("listed, %s is usable %v, why %q; want not usable: cannot call tools", h.PlainModel, m.Usable, m.Why)
		}
		if m := find(t, h.Actions, h.ToolModel); !m.Usable {
			t.Errorf("listed, %s is not usable (%s); want usable", h.ToolModel, m.Why)
		}
	})
	t.Run("show under another spelling", func(t *testing.T) {
		h := newActions(t)
		for _, spelling := range []string{h.ToolModel, strings.ToUpper(h.ToolModel), " " + h.ToolModel + " "} {
			m, err := h.Actions.Show(ctx, spelling)
			if err != nil || m.Name != h.ToolModel {
				t.Errorf("Show(%q) = %q, %v; want %s", spelling, m.Name, err, h.ToolModel)
			}
		}
		if _, err := h.Actions.Show(ctx, "no-such-model-anywhere"); err == nil {
			t.Error("Show of a model that does not exist succeeded")
		}
	})
	t.Run("a model that cannot call tools is refused", func(t *testing.T) {
		h := newActions(t)
		if _, err := h.Actions.Enable(ctx, h.PlainModel, wisp.ActorPerson); err == nil {
			t.Errorf("Enable(%s) succeeded; a model that cannot call tools cannot serve the agent", h.PlainModel)
		}
		if find(t, h.Actions, h.PlainModel).Enabled {
			t.Errorf("%s is enabled after a refused enable", h.PlainModel)
		}
	})
	t.Run("the model's request without an approval changes nothing", func(t *testing.T) {
		h := newActions(t)
		for _, c := range []context.Context{ctx, approved(ctx, "models enable "+h.PlainModel), approved(ctx, "models disable "+h.ToolModel)} {
			_, err := h.Actions.Enable(c, h.ToolModel, wisp.ActorModel)
			if !errors.Is(err, wisp.ErrNotApproved) {
				t.Errorf("Enable by the model without an approval of it = %v; want wisp.ErrNotApproved", err)
			}
		}
		if find(t, h.Actions, h.ToolModel).Enabled {
			t.Errorf("%s is enabled without the person's approval", h.ToolModel)
		}
	})
	t.Run("enable and disable", func(t *testing.T) {
		h := newActions(t)
		if d, ok := h.Actions.(describer); ok {
			act, err := d.Action(ctx, "enable", strings.ToUpper(h.ToolModel))
			if err != nil || act.NoApproval || act.Command != "models enable "+h.ToolModel || !act.AlwaysAsk {
				t.Errorf("Action(enable %s) = %+v, %v; want the person asked about models enable %s", strings.ToUpper(h.ToolModel), act, err, h.ToolModel)
			}
		}
		if c, err := h.Actions.Enable(approved(ctx, "models enable "+h.ToolModel), h.ToolModel, wisp.ActorModel); err != nil || len(c.Lines) == 0 {
			t.Fatalf("Enable by the model, approved = %+v, %v", c, err)
		}
		if !find(t, h.Actions, h.ToolModel).Enabled {
			t.Errorf("%s is not enabled after an approved enable", h.ToolModel)
		}
		if d, ok := h.Actions.(describer); ok {
			if act, err := d.Action(ctx, "enable", h.ToolModel); err != nil || !act.NoApproval {
				t.Errorf("Action(enable %s) of an enabled model = %+v, %v; want no approval needed", h.ToolModel, act, err)
			}
		}
		if c, err := h.Actions.Check(ctx, h.ToolModel, wisp.ActorPerson); err != nil || len(c.Lines) == 0 {
			t.Errorf("Check = %+v, %v", c, err)
		}
		if c, err := h.Actions.Disable(ctx, h.ToolModel, wisp.ActorPerson); err != nil || len(c.Lines) == 0 {
			t.Fatalf("Disable = %+v, %v", c, err)
		}
		if find(t, h.Actions, h.ToolModel).Enabled {
			t.Errorf("%s is enabled after disable", h.ToolModel)
		}
	})
	t.Run("a second pull is refused without asking the person", func(t *testing.T) {
		h := newActions(t)
		if h.Repo == "" {
			t.Skip("the harness names no repository to pull")
		}
		want := "already running"
		second := func(when string) {
			t.Helper()
			if d, ok := h.Actions.(describer); ok {
				if act, err := d.Action(ctx, "pull", strings.ToUpper(h.Repo)); err != nil || !act.NoApproval {
					t.Errorf("%s: Action(pull %s) = %+v, %v; want it refused without asking", when, strings.ToUpper(h.Repo), act, err)
				}
			}
			for _, by := range []wisp.Actor{wisp.ActorModel, wisp.ActorPerson} {
				_, err := h.Actions.Pull(ctx, strings.ToUpper(h.Repo), by)
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("%s: a second Pull(%s) by the %s = %v; want it refused as %s", when, strings.ToUpper(h.Repo), by, err, want)
				}
			}
		}
		command := "models pull " + h.Repo
		if d, ok := h.Actions.(describer); ok {
			act, err := d.Action(ctx, "pull", h.Repo)
			if err != nil || act.NoApproval || act.Command != command || act.Release == nil {
				t.Fatalf("Action(pull %s) = %+v, %v; want the person asked about %s, and the lock held", h.Repo, act, err, command)
			}
			defer act.Release()
			second("while the first waits for the person")
		}
		if _, err := h.Actions.Pull(approved(ctx, command), h.Repo, wisp.ActorModel); err != nil {
			t.Fatalf("Pull(%s) by the model, approved = %v", h.Repo, err)
		}
		second("while the first runs")
	})
	t.Run("trust is the person's alone", func(t *testing.T) {
		h := newActions(t)
		if err := h.Actions.Trust(approved(ctx, "models trust mlx-community"), "mlx-community", wisp.ActorModel); err == nil {
			t.Error("Trust by the model succeeded, even with an approval for it")
		}
		if err := h.Actions.Trust(ctx, "mlx-community", wisp.ActorPerson); err != nil {
			t.Errorf("Trust by the person = %v", err)
		}
	})
}

// pages walks every page of a's listing and checks that each model is on
// exactly one, that the pages agree on their count, and that each,
// written as the model reads it, fits the 4 KiB of a reply with its
// footer. want is how many models there are; 0 takes the count as found.
// It returns the number of pages.
func pages(t *testing.T, a wisp.ModelActions, want int) int {
	t.Helper()
	ctx := context.Background()
	seen := map[string]int{}
	first, err := a.List(ctx, 1)
	if err != nil {
		t.Fatalf("List(1) = %v", err)
	}
	for page := 1; page <= first.Pages; page++ {
		l, err := a.List(ctx, page)
		if err != nil {
			t.Fatalf("List(%d) = %v", page, err)
		}
		if l.Page != page || l.Pages != first.Pages {
			t.Errorf("List(%d) = page %d of %d; want page %d of %d", page, l.Page, l.Pages, page, first.Pages)
		}
		if len(l.Models) == 0 || len(l.Models) > models.PageSize {
			t.Errorf("List(%d) has %d models; want 1 to %d", page, len(l.Models), models.PageSize)
		}
		out := models.FormatListing(l, "")
		if len(out) > models.MaxReply {
			t.Errorf("page %d is %d bytes; a reply is at most %d", page, len(out), models.MaxReply)
		}
		footer := fmt.Sprintf("page %d of %d; list with page %d for more\n", page, l.Pages, page+1)
		if page == l.Pages {
			footer = fmt.Sprintf("page %d of %d\n", page, l.Pages)
		}
		if l.Pages > 1 && !strings.HasSuffix(out, footer) {
			t.Errorf("page %d does not end with its footer %q", page, footer)
		}
		for _, m := range l.Models {
			seen[m.Name]++
		}
	}
	for name, n := range seen {
		if n != 1 {
			t.Errorf("%s is on %d pages; want 1", name, n)
		}
	}
	if want > 0 && len(seen) != want {
		t.Errorf("the pages show %d models; want %d", len(seen), want)
	}
	return first.Pages
}
