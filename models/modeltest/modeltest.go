// Package modeltest is the contract suite for wisp.ModelActions: any
// implementation runs Run in a test to check that it lists and pages, finds
// a model under another spelling, refuses a model that cannot call tools,
// asks the person before the model changes anything and changes nothing
// when the person says no, and keeps trust the person's alone.
package modeltest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp"
)

// A Harness is a ModelActions with two models in it, and a person at the
// approval gate whose answer the suite sets.
type Harness struct {
	Actions wisp.ModelActions
	// ToolModel is the full name of a model that can call tools; it
	// starts disabled.
	ToolModel string
	// PlainModel is the full name of a model that cannot call tools.
	PlainModel string
	// Approve sets what the person answers the model's next requests.
	Approve func(approve bool)
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
	t.Run("the model's request declined changes nothing", func(t *testing.T) {
		h := newActions(t)
		h.Approve(false)
		_, err := h.Actions.Enable(ctx, h.ToolModel, wisp.ActorModel)
		if !errors.Is(err, wisp.ErrNotApproved) {
			t.Errorf("Enable by the model, declined = %v; want wisp.ErrNotApproved", err)
		}
		if find(t, h.Actions, h.ToolModel).Enabled {
			t.Errorf("%s is enabled after the person declined", h.ToolModel)
		}
	})
	t.Run("enable and disable", func(t *testing.T) {
		h := newActions(t)
		h.Approve(true)
		if c, err := h.Actions.Enable(ctx, h.ToolModel, wisp.ActorModel); err != nil || len(c.Lines) == 0 {
			t.Fatalf("Enable by the model, approved = %+v, %v", c, err)
		}
		if !find(t, h.Actions, h.ToolModel).Enabled {
			t.Errorf("%s is not enabled after an approved enable", h.ToolModel)
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
	t.Run("trust is the person's alone", func(t *testing.T) {
		h := newActions(t)
		h.Approve(true)
		if err := h.Actions.Trust(ctx, "mlx-community", wisp.ActorModel); err == nil {
			t.Error("Trust by the model succeeded, even with the person approving everything")
		}
		if err := h.Actions.Trust(ctx, "mlx-community", wisp.ActorPerson); err != nil {
			t.Errorf("Trust by the person = %v", err)
		}
	})
}
