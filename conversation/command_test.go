package conversation_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/audit"
	"github.com/wisp-agent/wisp/config"
	"github.com/wisp-agent/wisp/conversation"
)

// The person's /config set in a conversation goes through the rules of
// wisp config: a change to a security setting is recorded in the
// conversation's session before it is saved, and applies from the next
// conversation. /models runs the person's models commands.
func TestCommands(t *testing.T) {
	dir := t.TempDir()
	conv, err := conversation.New(context.Background(), &conversation.Options{Home: dir, Model: model(t, `{"content":"ok"}`)})
	if err != nil {
		t.Fatal(err)
	}
	defer conv.Close()
	got, err := conv.ConfigCommand(context.Background(), []string{"set", "tools.ask", "on"})
	if want := "tools.ask = true (applies from the next conversation)\n"; err != nil || got != want {
		t.Errorf("ConfigCommand(set tools.ask on) = %q, %v; want %q", got, err, want)
	}
	if got := conv.Tools().Names(); len(got) != 0 {
		t.Errorf("the running conversation's tools = %q, want none: a setting applies from the next conversation", got)
	}
	recs, err := audit.Read(filepath.Join(dir, "audit"), audit.Filter{KindPrefix: wisp.KindConfigChange})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].Session != conv.Session() || recs[0].Source != wisp.SourcePerson {
		t.Errorf("config.change records = %+v, want one in session %s, the person's", recs, conv.Session())
	}
	if _, err := conv.ConfigCommand(context.Background(), []string{"get"}); err == nil {
		t.Error("ConfigCommand(get) with no key = nil error")
	}
	cfg, err := config.Load(filepath.Join(dir, "config.json"))
	if err != nil || !cfg.Tools.Ask {
		t.Errorf("tools.ask after /config set = %v (%v), want true", cfg.Tools.Ask, err)
	}

	got, err = conv.ModelsCommand(context.Background(), []string{"list"})
	if err != nil || !strings.HasPrefix(got, "no models") {
		t.Errorf("ModelsCommand(list) = %q, %v; want no models", got, err)
	}
}

// Command runs the person's commands by name, for a face that takes them
// so (the command lines of chat --json).
func TestCommandByName(t *testing.T) {
	conv, err := conversation.New(context.Background(), &conversation.Options{Home: t.TempDir(), Model: model(t, `{"content":"ok"}`)})
	if err != nil {
		t.Fatal(err)
	}
	defer conv.Close()
	tests := []struct {
		name string
		args []string
		want string // the output, or the error's text
	}{
		{"config", []string{"get", "tools.ask"}, "false\n"},
		{"models", []string{"list"}, "no models\n"},
		{"models", nil, "models needs an action: "},
		{"frob", nil, `unknown command "frob"; the commands are models and config`},
	}
	for _, tc := range tests {
		got, err := conv.Command(context.Background(), tc.name, tc.args)
		if err != nil {
			got = err.Error()
		}
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("Command(%q, %q) = %q, want %q", tc.name, tc.args, got, tc.want)
		}
	}
}

// The person's commands, as a face lists them: each with the actions of
// the table it runs.
func TestCommandList(t *testing.T) {
	want := []conversation.Command{
		{Name: "models", Usage: "list|show|pull|cancel|enable|disable|check|trust"},
		{Name: "config", Usage: "get|set|list"},
	}
	if diff := cmp.Diff(want, conversation.Commands()); diff != "" {
		t.Errorf("Commands() (-want +got):\n%s", diff)
	}
}

// ToolNames names wisp's own tools, each one a conversation can be given
// by name; /config set tools.disabled takes those and the embedder's
// tools, and refuses any other name.
func TestToolNames(t *testing.T) {
	want := []string{"ask", "ask_user", "edit_file", "list_files", "memory", "models", "read_file", "request_approval", "run_command", "scan_secrets", "search"}
	if diff := cmp.Diff(want, conversation.ToolNames()); diff != "" {
		t.Errorf("ToolNames (-want +got):\n%s", diff)
	}
	for _, name := range conversation.ToolNames() {
		conv, err := conversation.New(context.Background(), &conversation.Options{Home: t.TempDir(), Workspace: t.TempDir(), Model: model(t, `{"content":"ok"}`), Named: []string{name}})
		if err != nil {
			t.Fatalf("New(Named: %s) = %v", name, err)
		}
		if got := conv.Tools().Names(); !cmp.Equal(got, []string{name}) {
			t.Errorf("New(Named: %s): tools %q", name, got)
		}
		conv.Close()
	}

	conv, err := conversation.New(context.Background(), &conversation.Options{Home: t.TempDir(), Model: model(t, `{"content":"ok"}`), Tools: []wisp.Tool{weather{}}})
	if err != nil {
		t.Fatal(err)
	}
	defer conv.Close()
	if got, err := conv.ConfigCommand(context.Background(), []string{"set", "tools.disabled", "weather,run_command"}); err != nil {
		t.Errorf("ConfigCommand(set tools.disabled weather,run_command) = %q, %v; want it set", got, err)
	}
	const refused = `tools.disabled names "wether", which is no tool; the tools are ask, ask_user, edit_file, list_files, memory, models, read_file, request_approval, run_command, scan_secrets, search, weather`
	if _, err := conv.ConfigCommand(context.Background(), []string{"set", "tools.disabled", "wether"}); err == nil || err.Error() != refused {
		t.Errorf("ConfigCommand(set tools.disabled wether) = %v, want %q", err, refused)
	}
}
