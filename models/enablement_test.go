package models_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/config"
	"github.com/wisp-agent/wisp/models"
	"github.com/wisp-agent/wisp/models/ollama/ollamatest"
)

// setEnabled writes models.enabled as a person editing config.json would.
func (f *fixture) setEnabled(t *testing.T, list string) {
	t.Helper()
	if err := f.store.Update(context.Background(), func(c *config.Config) error {
		return c.Set("models.enabled", list)
	}); err != nil {
		t.Fatal(err)
	}
}

// find returns the listing's entry for name.
func (f *fixture) find(t *testing.T, name string) (wisp.ModelInfo, bool) {
	t.Helper()
	l, err := f.actions.List(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range l.Models {
		if m.Name == name {
			return m, true
		}
	}
	return wisp.ModelInfo{}, false
}

// A check a model fails says why in the server's own words, and is an
// error (a *CheckError) the CLI turns into exit status 1; so is an
// enable of that model. A model Ollama cannot load says Ollama's 500.
func TestCheckFailsWithTheServersReason(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	broken := ollamaModels[0]
	broken.Name, broken.LoadError = "broken:latest", ollamatest.LineMissingTensor
	f.ollama.Put(broken)
	reason := "500 Internal Server Error: llama runner process has terminated: error loading model: missing tensor 'blk.0.ffn_up.weight'"

	for _, tc := range []struct {
		name string
		do   func() (wisp.Change, error)
	}{
		{"check", func() (wisp.Change, error) { return f.actions.Check(ctx, "broken", wisp.ActorPerson) }},
		{"enable", func() (wisp.Change, error) { return f.actions.Enable(ctx, "broken", wisp.ActorPerson) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.do()
			var ce *models.CheckError
			if !errors.As(err, &ce) || !errors.Is(err, models.ErrCheckFailed) {
				t.Fatalf("%s(broken) = %v, want a *CheckError", tc.name, err)
			}
			first := ce.Change.Lines[0]
			if !strings.HasPrefix(first, "ollama:broken:latest failed its check: ") || !strings.Contains(first, reason) {
				t.Errorf("%s(broken) first line = %q, want the failure with %q", tc.name, first, reason)
			}
		})
	}
	if got := f.enabled(t); len(got) != 0 {
		t.Errorf("models.enabled = %q after the broken model failed", got)
	}
}

// check with no name checks every enabled model, and fails when one does.
func TestCheckEnabled(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	none, err := f.actions.CheckEnabled(ctx, wisp.ActorPerson)
	if err != nil || len(none.Lines) != 1 || !strings.HasPrefix(none.Lines[0], "no model is enabled") {
		t.Errorf("CheckEnabled with none enabled = %q, %v", none.Lines, err)
	}
	for _, name := range []string{"qwen3:4b", "granite4.1:8b"} {
		if _, err := f.actions.Enable(ctx, name, wisp.ActorPerson); err != nil {
			t.Fatal(err)
		}
	}
	all, err := f.actions.CheckEnabled(ctx, wisp.ActorPerson)
	if err != nil {
		t.Fatalf("CheckEnabled = %v", err)
	}
	var passed []string
	for _, l := range all.Lines {
		if strings.HasSuffix(l, " passed its check") {
			passed = append(passed, l)
		}
	}
	if diff := cmp.Diff([]string{"ollama:granite4.1:8b passed its check", "ollama:qwen3:4b passed its check"}, passed); diff != "" {
		t.Errorf("CheckEnabled (-want +got):\n%s", diff)
	}

	broken := ollamaModels[2]
	broken.LoadError = ollamatest.LineMissingTensor
	f.ollama.Put(broken)
	_, err = f.actions.CheckEnabled(ctx, wisp.ActorPerson)
	var ce *models.CheckError
	if !errors.As(err, &ce) {
		t.Fatalf("CheckEnabled with a broken model = %v, want a *CheckError", err)
	}
	lines := ce.Change.Lines
	if !strings.Contains(strings.Join(lines, "\n"), "ollama:granite4.1:8b failed its check: the model does not answer") ||
		lines[len(lines)-1] != "1 of 2 enabled models failed" {
		t.Errorf("CheckEnabled lines = %q", lines)
	}
	if diff := cmp.Diff([]string{"ollama:qwen3:4b@" + digest("qwen3:4b")}, f.enabled(t)); diff != "" {
		t.Errorf("models.enabled after the check (-want +got):\n%s", diff)
	}

	// The person's command: check alone is every enabled model.
	if _, err := models.RunCommand(ctx, f.actions, []string{"check"}, nil); err != nil {
		t.Errorf("RunCommand(check) = %v", err)
	}
}

// A model Ollama no longer has stays listed while models.enabled names
// it, as such, and disable forgets it under any spelling, also while
// Ollama does not answer.
func TestGoneModel(t *testing.T) {
	ctx := context.Background()
	for _, down := range []bool{false, true} {
		f := newFixture(t)
		if _, err := f.actions.Enable(ctx, "qwen3:4b", wisp.ActorPerson); err != nil {
			t.Fatal(err)
		}
		f.ollama.Remove("qwen3:4b")
		m, ok := f.find(t, "ollama:qwen3:4b")
		why := "ollama no longer has it; wisp models disable ollama:qwen3:4b forgets it"
		if !ok || !m.Enabled || m.Usable || m.Why != why {
			t.Fatalf("listing of a removed model = %+v (listed %v), want it enabled and not usable: %s", m, ok, why)
		}
		if _, err := f.actions.Runnable(ctx, "qwen3:4b"); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("Runnable of a removed model = %v, want %q", err, why)
		}
		if _, err := f.actions.Check(ctx, "qwen3:4b", wisp.ActorPerson); !errors.Is(err, models.ErrCheckFailed) {
			t.Errorf("Check of a removed model = %v, want it failed", err)
		}
		f.setEnabled(t, "ollama:qwen3:4b")
		f.ollama.SetDown(down)
		ch, err := f.actions.Disable(ctx, "QWEN3:4b", wisp.ActorPerson)
		if err != nil || ch.Lines[0] != "ollama:qwen3:4b is disabled: wisp will not run it" {
			t.Errorf("Disable of a removed model (ollama down %v) = %q, %v", down, ch.Lines, err)
		}
		if got := f.enabled(t); len(got) != 0 {
			t.Errorf("models.enabled = %q after disable", got)
		}
		f.ollama.SetDown(false)
		if _, ok := f.find(t, "ollama:qwen3:4b"); ok {
			t.Error("the removed model is still listed after disable")
		}
	}
}

// An enablement holds to the digest the model had when it passed: another
// model pulled under the name is not enabled until it is checked, and an
// entry written before enablements held to a digest still enables.
func TestEnablementHoldsToTheDigest(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	if _, err := f.actions.Enable(ctx, "qwen3:4b", wisp.ActorPerson); err != nil {
		t.Fatal(err)
	}
	other := ollamaModels[0]
	other.Digest = strings.Repeat("ab", 32)
	f.ollama.Put(other)

	m, _ := f.find(t, "ollama:qwen3:4b")
	why := "it is not the model that was enabled: another was pulled under its name since; wisp models check ollama:qwen3:4b checks it and enables it again"
	if m.Enabled || m.Usable || m.Why != why {
		t.Errorf("listing after another model took the name = %+v, want disabled: %s", m, why)
	}
	if _, err := f.actions.Runnable(ctx, "qwen3:4b"); !errors.Is(err, models.ErrDisabled) || !strings.Contains(err.Error(), why) {
		t.Errorf("Runnable = %v, want ErrDisabled saying %q", err, why)
	}
	act, err := f.actions.Action(ctx, models.VerbCheck, "qwen3:4b")
	if err != nil || act.NoApproval || !strings.Contains(act.Text, "another model than the one enabled") {
		t.Errorf("Action(check) = %+v, %v", act, err)
	}

	ch, err := f.actions.Check(ctx, "qwen3:4b", wisp.ActorPerson)
	if err != nil || ch.Lines[len(ch.Lines)-1] != "ollama:qwen3:4b is enabled again: the model now under its name passed" {
		t.Fatalf("Check = %q, %v", ch.Lines, err)
	}
	if diff := cmp.Diff([]string{"ollama:qwen3:4b@" + other.Digest}, f.enabled(t)); diff != "" {
		t.Errorf("models.enabled after the check (-want +got):\n%s", diff)
	}
	if m, _ := f.find(t, "ollama:qwen3:4b"); !m.Enabled || !m.Usable {
		t.Errorf("after the check = %+v, want enabled", m)
	}

	// An entry without a digest enables whatever the model's digest; a
	// check binds it. So does a digest's first 12 digits, typed by hand.
	for _, entry := range []string{"ollama:qwen3:4b", "ollama:qwen3:4b@" + other.Digest[:12]} {
		f.setEnabled(t, entry)
		if m, _ := f.find(t, "ollama:qwen3:4b"); !m.Enabled {
			t.Errorf("models.enabled = %s: the model is not enabled", entry)
		}
	}
	f.setEnabled(t, "ollama:qwen3:4b")
	if _, err := f.actions.Check(ctx, "qwen3:4b", wisp.ActorPerson); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"ollama:qwen3:4b@" + other.Digest}, f.enabled(t)); diff != "" {
		t.Errorf("models.enabled after checking an entry without a digest (-want +got):\n%s", diff)
	}

	// An enable of a model whose entry holds another digest asks again.
	f.ollama.Put(ollamaModels[0])
	if _, err := f.actions.Enable(ctx, "qwen3:4b", wisp.ActorPerson); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"ollama:qwen3:4b@" + digest("qwen3:4b")}, f.enabled(t)); diff != "" {
		t.Errorf("models.enabled after enable (-want +got):\n%s", diff)
	}
}

// An MLX model's enablement holds to the commit it was pulled at.
func TestMLXEnablementHoldsToTheCommit(t *testing.T) {
	f := newFixture(t)
	if _, err := f.actions.Enable(context.Background(), "mlx:Qwen3-4B-4bit", wisp.ActorPerson); err != nil {
		t.Fatal(err)
	}
	got := f.enabled(t)
	if len(got) != 1 || !strings.HasPrefix(got[0], "mlx:Qwen3-4B-4bit@") || len(got[0]) != len("mlx:Qwen3-4B-4bit@")+40 {
		t.Errorf("models.enabled = %q, want mlx:Qwen3-4B-4bit@ and the commit", got)
	}
}
