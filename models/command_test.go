package models_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/models"
)

// RunCommand runs the person's models commands through Actions, as the
// person's own, and says what each did; what it cannot read is a
// *CommandError naming what to type instead.
func TestRunCommand(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	tests := []struct {
		args []string
		want string // a line of the output
	}{
		{[]string{"list"}, "  ollama:qwen3:4b  ollama  4.0B  2.5 GB  context 40,960 max  disabled  completion, tools, thinking\n"},
		{[]string{"list", "1"}, "  ollama:granite4.1:8b  ollama"},
		{[]string{"show", "QWEN3:4B"}, "name: ollama:qwen3:4b\n"},
		{[]string{"enable", "qwen3:4b"}, "ollama:qwen3:4b is enabled: wisp may run it\n"},
		{[]string{"check", "ollama:qwen3:4b"}, "ollama:qwen3:4b passed its check\n"},
		{[]string{"disable", "qwen3:4b"}, "ollama:qwen3:4b is disabled: wisp will not run it\n"},
		{[]string{"trust", "mlx-community"}, "mlx-community is trusted: pulls from it are not flagged\n"},
	}
	for _, tc := range tests {
		got, err := models.RunCommand(ctx, f.actions, tc.args, nil)
		if err != nil {
			t.Errorf("RunCommand(%q) = %v", tc.args, err)
			continue
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("RunCommand(%q) = %q, want a line %q", tc.args, got, tc.want)
		}
	}
	cfg, err := f.store.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Models.Enabled) != 0 || len(cfg.Models.Trusted) != 1 || cfg.Models.Trusted[0] != "mlx-community" {
		t.Errorf("settings after the commands: enabled %q, trusted %q; want none enabled and mlx-community trusted", cfg.Models.Enabled, cfg.Models.Trusted)
	}
	for _, e := range f.events.Events("") {
		if e.Source != wisp.SourcePerson {
			t.Errorf("%s recorded with source %q, want the person's", e.Kind(), e.Source)
		}
	}
	if len(f.approvals.requests) != 0 {
		t.Errorf("the person's own commands asked for approval %d times", len(f.approvals.requests))
	}

	// The conversation's model is marked in the listing.
	got, err := models.RunCommand(ctx, f.actions, []string{"list"}, &models.CommandOptions{Current: "ollama:qwen3:4b"})
	if err != nil || !strings.Contains(got, "* ollama:qwen3:4b  ollama") {
		t.Errorf("RunCommand(list) with the current model = %q, %v; want it marked *", got, err)
	}
}

func TestRunCommandRefusals(t *testing.T) {
	f := newFixture(t)
	usage := "list [PAGE], show NAME, pull ORGANISATION/NAME, cancel ORGANISATION/NAME, enable NAME, disable NAME, check [NAME] or trust PUBLISHER"
	tests := []struct {
		args    []string
		want    string
		command bool // a *CommandError
	}{
		{nil, "models needs an action: " + usage, true},
		{[]string{"switch", "x"}, `unknown action "switch"; models takes ` + usage, true},
		{[]string{"show"}, "show takes one NAME (got no arguments)", true},
		{[]string{"enable", "a", "b"}, "enable takes one NAME (got 2 arguments)", true},
		{[]string{"trust"}, "trust takes one PUBLISHER (got no arguments)", true},
		{[]string{"list", "two"}, `list takes a page number; got "two"`, true},
		{[]string{"list", "1", "2"}, "list takes at most one PAGE (got 2 arguments)", true},
		{[]string{"list", "9"}, "there is no page 9; pages run from 1 to 1", false},
		{[]string{"show", "nope"}, `no model is named "nope"`, false},
		{[]string{"pull", "org/x"}, "pulling models is not set up here", false},
		{[]string{"cancel", "org/x"}, "pulling models is not set up here", false},
	}
	for _, tc := range tests {
		_, err := models.RunCommand(context.Background(), f.actions, tc.args, nil)
		var ce *models.CommandError
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || errors.As(err, &ce) != tc.command {
			t.Errorf("RunCommand(%q) = %v (a *CommandError: %t), want %q (%t)", tc.args, err, errors.As(err, &ce), tc.want, tc.command)
		}
	}
	if _, err := models.RunCommand(context.Background(), f.actions, []string{"list", "9"}, nil); !errors.Is(err, models.ErrNoPage) {
		t.Errorf("RunCommand(list 9) = %v, want models.ErrNoPage", err)
	}
}

// A pull the person asks for runs in the background; cancel asks it to
// stop, and a cancel with no pull running says so.
func TestRunCommandPull(t *testing.T) {
	f := newPullFixture(t)
	ctx := context.Background()
	if _, err := models.RunCommand(ctx, f.actions, []string{"cancel", "mlx-community/Qwen3-4B-4bit"}, nil); err == nil || err.Error() != "no pull of mlx-community/Qwen3-4B-4bit is running" {
		t.Errorf("RunCommand(cancel) with no pull = %v", err)
	}
	f.hub.Throttle(2_000)
	got, err := models.RunCommand(ctx, f.actions, []string{"pull", "mlx-community/Qwen3-4B-4bit"}, nil)
	if err != nil || !strings.HasPrefix(got, "pulling mlx-community/Qwen3-4B-4bit in the background: about ") || !strings.HasSuffix(got, "; its end will arrive here\n") {
		t.Fatalf("RunCommand(pull) = %q, %v", got, err)
	}
	got, err = models.RunCommand(ctx, f.actions, []string{"cancel", "mlx-community/Qwen3-4B-4bit"}, nil)
	if err != nil || got != "asked the pull of mlx-community/Qwen3-4B-4bit to stop; what arrived is kept\n" {
		t.Errorf("RunCommand(cancel) = %q, %v", got, err)
	}
	if note := f.waitNote(t, ""); !strings.Contains(note, "cancelled") {
		t.Errorf("the pull's note = %q, want it cancelled", note)
	}
}
