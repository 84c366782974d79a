package config_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/config"
	"github.com/wisp-agent/wisp/wisptest"
)

func newStore(t *testing.T) config.Store {
	t.Helper()
	dir := t.TempDir()
	return config.Store{Path: filepath.Join(dir, "config.json"), LockPath: filepath.Join(dir, "config.lock")}
}

// A change to a security setting is recorded, the person's, before it
// is saved: a list's key once for each name added or removed, any other
// key with its value from and to. Other settings, and a value set again,
// are not recorded.
func TestSetRecordsSecurityChanges(t *testing.T) {
	s := newStore(t)
	rec := &wisptest.Recorder{}
	opts := &config.SetOptions{Events: rec, Session: "s1"}
	ctx := context.Background()
	for _, kv := range [][2]string{
		{"approval.threshold", "dangerous"},
		{"inquiry.elicitation", "on"},
		{"tools.disabled", "ask,models"},
		{"tools.disabled", "models"},
		{"inquiry.timeoutSeconds", "30"},
		{"approval.threshold", "dangerous"},
	} {
		if _, err := s.Set(ctx, kv[0], kv[1], opts); err != nil {
			t.Fatalf("Set(%q, %q) = %v", kv[0], kv[1], err)
		}
	}
	var got []wisp.ConfigChangeData
	for _, e := range rec.Events("") {
		if e.Session != "s1" || e.Source != wisp.SourcePerson {
			t.Errorf("%s recorded in session %q from %q, want s1 from the person", e.Kind(), e.Session, e.Source)
		}
		got = append(got, e.Data.(wisp.ConfigChangeData))
	}
	want := []wisp.ConfigChangeData{
		{Key: "approval.threshold", From: "moderate", To: "dangerous"},
		{Key: "inquiry.elicitation", From: "false", To: "true"},
		{Key: "tools.disabled", Added: "ask"},
		{Key: "tools.disabled", Added: "models"},
		{Key: "tools.disabled", Removed: "ask"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
}

// A change to a security setting that cannot be recorded is not made,
// and says so as every record that fails does: wisp.ErrNotRecorded. With
// no sink at all, none can be recorded; a setting that is not a security
// setting needs none.
func TestSetUnrecordedIsNotMade(t *testing.T) {
	failing := wisp.EventSinkFunc(func(context.Context, wisp.Event) error { return errors.New("disk full") })
	tests := []struct {
		name string
		opts *config.SetOptions
		why  string
	}{
		{"a sink that fails", &config.SetOptions{Events: failing}, "disk full"},
		{"no sink", nil, "no audit log was given to record it"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			_, err := s.Set(context.Background(), "tools.ask", "on", tc.opts)
			want := "the audit log could not record the change (" + tc.why + "); nothing was changed"
			if !errors.Is(err, wisp.ErrNotRecorded) || err == nil || err.Error() != want {
				t.Errorf("Set(tools.ask, on) = %v, want %q, a wisp.ErrNotRecorded", err, want)
			}
			if c, err := s.Load(); err != nil || c.Tools.Ask {
				t.Errorf("after the refused change, tools.ask = %v (%v), want false", c.Tools.Ask, err)
			}
			v, err := s.Set(context.Background(), "inquiry.timeoutSeconds", "30", tc.opts)
			if err != nil || v != "30" {
				t.Errorf("Set(inquiry.timeoutSeconds, 30) = %q, %v; want 30 saved with nothing to record", v, err)
			}
		})
	}
}

// A sink that wraps wisp.ErrNotRecorded already (through wisp.Record) is
// said once.
func TestSetUnrecordedSaysItOnce(t *testing.T) {
	sink := wisp.EventSinkFunc(func(ctx context.Context, e wisp.Event) error {
		return wisp.Record(ctx, wisp.EventSinkFunc(func(context.Context, wisp.Event) error { return errors.New("disk full") }), e)
	})
	_, err := newStore(t).Set(context.Background(), "tools.ask", "on", &config.SetOptions{Events: sink})
	if want := "the audit log could not record the change (disk full); nothing was changed"; err == nil || err.Error() != want {
		t.Errorf("Set = %v, want %q", err, want)
	}
}

// RunCommand runs the person's config commands, as wisp config and a
// chat's /config take them; what it cannot read is a *CommandError.
func TestRunCommand(t *testing.T) {
	s := newStore(t)
	rec := &wisptest.Recorder{}
	opts := &config.SetOptions{Events: rec}
	tests := []struct {
		args    []string
		want    string // the output, or the error's text
		command bool   // the error is a *CommandError
	}{
		{[]string{"set", "tools.ask", "on"}, "tools.ask = true (applies from the next conversation)\n", false},
		{[]string{"get", "tools.ask"}, "true\n", false},
		{nil, "config needs an action: get KEY, set KEY VALUE or list", true},
		{[]string{"frob"}, `unknown action "frob"; config takes get KEY, set KEY VALUE or list`, true},
		{[]string{"get"}, "get takes one KEY (got no arguments)", true},
		{[]string{"set", "tools.ask"}, "set takes a KEY and a VALUE (got 1 argument)", true},
		{[]string{"list", "x"}, "list takes no arguments (got 1 argument)", true},
		{[]string{"set", "tools.ask", "maybe"}, `tools.ask takes true, false, on or off; got "maybe"`, false},
		{[]string{"get", "nope"}, `unknown key "nope"; valid keys: `, false},
	}
	for _, tc := range tests {
		got, err := config.RunCommand(context.Background(), s, tc.args, opts)
		if err != nil {
			var ce *config.CommandError
			got = err.Error()
			if errors.As(err, &ce) != tc.command {
				t.Errorf("RunCommand(%q) = %v: a *CommandError is %t, want %t", tc.args, err, !tc.command, tc.command)
			}
		}
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("RunCommand(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
	if n := len(rec.Events("config.change")); n != 1 {
		t.Errorf("config.change recorded %d times, want once", n)
	}
	got, err := config.RunCommand(context.Background(), s, []string{"list"}, nil)
	if err != nil || !strings.Contains(got, "\ntools.ask = true\t# ") || strings.Count(got, "\n") != len(config.Keys()) {
		t.Errorf("RunCommand(list) = %q, %v; want a line for each key", got, err)
	}
}

// With the tools there are given, tools.disabled takes only their names:
// a name that is no tool is refused, and nothing is saved or recorded.
func TestSetDisabledKnownTools(t *testing.T) {
	tools := []string{"ask", "ask_user", "models"}
	tests := []struct {
		value string
		tools []string
		err   string
	}{
		{"ask,models", tools, ""},
		{"", tools, ""},
		{"ask,nope", tools, `tools.disabled names "nope", which is no tool; the tools are ask, ask_user, models`},
		{"asks", tools, `tools.disabled names "asks", which is no tool; the tools are ask, ask_user, models`},
		{"nope", nil, ""}, // no tools given: any name of a tool's form
	}
	for _, tc := range tests {
		s := newStore(t)
		rec := &wisptest.Recorder{}
		_, err := s.Set(context.Background(), "tools.disabled", tc.value, &config.SetOptions{Events: rec, Session: "s1", Tools: tc.tools})
		if tc.err == "" {
			if err != nil {
				t.Errorf("Set(tools.disabled, %q) = %v, want nil", tc.value, err)
			}
			continue
		}
		if err == nil || err.Error() != tc.err || !errors.Is(err, config.ErrBadValue) {
			t.Errorf("Set(tools.disabled, %q) = %v, want %q, a config.ErrBadValue", tc.value, err, tc.err)
		}
		if c, _ := s.Load(); len(c.Tools.Disabled) != 0 || len(rec.Events("")) != 0 {
			t.Errorf("a refused Set(tools.disabled, %q) saved %q and recorded %d events", tc.value, c.Tools.Disabled, len(rec.Events("")))
		}
	}
}
