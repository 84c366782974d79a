package config_test

import (
	"encoding/json"
	"errors"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp/config"
)

const validKeys = "approval.outOfBand, approval.threshold, commands.env, inquiry.elicitation, inquiry.timeoutSeconds, models.contextLength, models.default, models.enabled, models.trusted, sandbox.mode, sandbox.network, tools.ask, tools.ask_user, tools.disabled, tools.edit_file, tools.list_files, tools.memory, tools.models, tools.read_file, tools.request_approval, tools.run_command, tools.scan_secrets, tools.search"

// setCases are good and bad values for every key, typed as on the command
// line. want is what Get prints afterwards; wantErr the exact error text.
var setCases = []struct {
	key, value string
	want       string
	wantErr    string
	is         error
}{
	{key: "tools.ask", value: "true", want: "true"},
	{key: "tools.ask", value: "false", want: "false"},
	{key: "tools.ask", value: "on", want: "true"},
	{key: "tools.ask", value: "off", want: "false"},
	{key: "tools.ask", value: "TRUE", want: "true"},
	{key: "tools.ask", value: "On", want: "true"},
	{key: "tools.ask", value: "oFF", want: "false"},
	{key: "tools.ask", value: "maybe", wantErr: `tools.ask takes true, false, on or off; got "maybe"`, is: config.ErrBadValue},
	{key: "tools.ask", value: "", wantErr: `tools.ask takes true, false, on or off; got ""`, is: config.ErrBadValue},
	{key: "tools.ask", value: "1", wantErr: `tools.ask takes true, false, on or off; got "1"`, is: config.ErrBadValue},
	{key: "tools.ask", value: "yes", wantErr: `tools.ask takes true, false, on or off; got "yes"`, is: config.ErrBadValue},
	{key: "tools.ask", value: " true", wantErr: `tools.ask takes true, false, on or off; got " true"`, is: config.ErrBadValue},
	{key: "tools.ask", value: "falſe", wantErr: `tools.ask takes true, false, on or off; got "falſe"`, is: config.ErrBadValue},
	{key: "tools.ask", value: "on\n", wantErr: `tools.ask takes true, false, on or off; got "on\n"`, is: config.ErrBadValue},

	{key: "tools.disabled", value: "", want: ""},
	{key: "tools.disabled", value: "shell", want: "shell"},
	{key: "tools.disabled", value: "shell,ask", want: "ask,shell"},
	{key: "tools.disabled", value: "b,a,b,a", want: "a,b"},
	{key: "tools.disabled", value: " ask , read_file2 ", want: "ask,read_file2"},
	{key: "tools.disabled", value: "   ", want: ""},
	{key: "tools.disabled", value: "a" + strings.Repeat("_", 63), want: "a" + strings.Repeat("_", 63)},
	{key: "tools.disabled", value: "Ask!", wantErr: `tools.disabled takes tool names separated by commas (lower-case letters, digits, _); got "Ask!"`, is: config.ErrBadValue},
	{key: "tools.disabled", value: "ask,Ask!", wantErr: `tools.disabled takes tool names separated by commas (lower-case letters, digits, _); got "Ask!"`, is: config.ErrBadValue},
	{key: "tools.disabled", value: "ask,,shell", wantErr: `tools.disabled takes tool names separated by commas (lower-case letters, digits, _); got ""`, is: config.ErrBadValue},
	{key: "tools.disabled", value: "ask,", wantErr: `tools.disabled takes tool names separated by commas (lower-case letters, digits, _); got ""`, is: config.ErrBadValue},
	{key: "tools.disabled", value: "ask shell", wantErr: `tools.disabled takes tool names separated by commas (lower-case letters, digits, _); got "ask shell"`, is: config.ErrBadValue},
	{key: "tools.disabled", value: "1ask", wantErr: `tools.disabled takes tool names separated by commas (lower-case letters, digits, _); got "1ask"`, is: config.ErrBadValue},
	{key: "tools.disabled", value: "_ask", wantErr: `tools.disabled takes tool names separated by commas (lower-case letters, digits, _); got "_ask"`, is: config.ErrBadValue},
	{key: "tools.disabled", value: "run-command", wantErr: `tools.disabled takes tool names separated by commas (lower-case letters, digits, _); got "run-command"`, is: config.ErrBadValue},
	{key: "tools.disabled", value: "ásk", wantErr: `tools.disabled takes tool names separated by commas (lower-case letters, digits, _); got "ásk"`, is: config.ErrBadValue},
	{key: "tools.disabled", value: "a" + strings.Repeat("b", 64), wantErr: `tools.disabled takes tool names separated by commas (lower-case letters, digits, _); got "a` + strings.Repeat("b", 63) + `…"`, is: config.ErrBadValue},

	{key: "models.contextLength", value: "0", want: "0"},
	{key: "models.contextLength", value: "8192", want: "8192"},
	{key: "models.contextLength", value: "256", want: "256"},
	{key: "models.contextLength", value: "16777216", want: "16777216"},
	{key: "models.contextLength", value: "255", wantErr: `models.contextLength must be 0 (the server's own) or 256 to 16,777,216; got 255`, is: config.ErrBadValue},
	{key: "models.contextLength", value: "-1", wantErr: `models.contextLength must be 0 (the server's own) or 256 to 16,777,216; got -1`, is: config.ErrBadValue},
	{key: "models.contextLength", value: "8k", wantErr: `models.contextLength must be 0 (the server's own) or 256 to 16,777,216; got "8k"`, is: config.ErrBadValue},
	{key: "inquiry.timeoutSeconds", value: "0", want: "0"},
	{key: "inquiry.timeoutSeconds", value: "10", want: "10"},
	{key: "inquiry.timeoutSeconds", value: "300", want: "300"},
	{key: "inquiry.timeoutSeconds", value: "86400", want: "86400"},
	{key: "inquiry.timeoutSeconds", value: "010", want: "10"},
	{key: "inquiry.timeoutSeconds", value: "-0", want: "0"},
	{key: "inquiry.timeoutSeconds", value: "5", wantErr: `inquiry.timeoutSeconds must be 0 (wait for ever) or 10 to 86,400; got 5`, is: config.ErrBadValue},
	{key: "inquiry.timeoutSeconds", value: "9", wantErr: `inquiry.timeoutSeconds must be 0 (wait for ever) or 10 to 86,400; got 9`, is: config.ErrBadValue},
	{key: "inquiry.timeoutSeconds", value: "86401", wantErr: `inquiry.timeoutSeconds must be 0 (wait for ever) or 10 to 86,400; got 86401`, is: config.ErrBadValue},
	{key: "inquiry.timeoutSeconds", value: "-1", wantErr: `inquiry.timeoutSeconds must be 0 (wait for ever) or 10 to 86,400; got -1`, is: config.ErrBadValue},
	{key: "inquiry.timeoutSeconds", value: "99999999999999999999", wantErr: `inquiry.timeoutSeconds must be 0 (wait for ever) or 10 to 86,400; got 99999999999999999999`, is: config.ErrBadValue},
	{key: "inquiry.timeoutSeconds", value: "abc", wantErr: `inquiry.timeoutSeconds must be 0 (wait for ever) or 10 to 86,400; got "abc"`, is: config.ErrBadValue},
	{key: "inquiry.timeoutSeconds", value: "", wantErr: `inquiry.timeoutSeconds must be 0 (wait for ever) or 10 to 86,400; got ""`, is: config.ErrBadValue},
	{key: "inquiry.timeoutSeconds", value: "1.5", wantErr: `inquiry.timeoutSeconds must be 0 (wait for ever) or 10 to 86,400; got "1.5"`, is: config.ErrBadValue},
	{key: "inquiry.timeoutSeconds", value: "+30", wantErr: `inquiry.timeoutSeconds must be 0 (wait for ever) or 10 to 86,400; got "+30"`, is: config.ErrBadValue},
	{key: "inquiry.timeoutSeconds", value: " 30", wantErr: `inquiry.timeoutSeconds must be 0 (wait for ever) or 10 to 86,400; got " 30"`, is: config.ErrBadValue},
	{key: "inquiry.timeoutSeconds", value: "1e3", wantErr: `inquiry.timeoutSeconds must be 0 (wait for ever) or 10 to 86,400; got "1e3"`, is: config.ErrBadValue},
	{key: "inquiry.timeoutSeconds", value: "86,400", wantErr: `inquiry.timeoutSeconds must be 0 (wait for ever) or 10 to 86,400; got "86,400"`, is: config.ErrBadValue},
	{key: "inquiry.timeoutSeconds", value: "0x10", wantErr: `inquiry.timeoutSeconds must be 0 (wait for ever) or 10 to 86,400; got "0x10"`, is: config.ErrBadValue},

	{key: "tools.ask_user", value: "on", want: "true"},
	{key: "tools.ask_user", value: "FALSE", want: "false"},
	{key: "tools.ask_user", value: "1", wantErr: `tools.ask_user takes true, false, on or off; got "1"`, is: config.ErrBadValue},
	{key: "tools.request_approval", value: "true", want: "true"},
	{key: "tools.request_approval", value: "off", want: "false"},
	{key: "tools.request_approval", value: "yes", wantErr: `tools.request_approval takes true, false, on or off; got "yes"`, is: config.ErrBadValue},
	{key: "tools.memory", value: "ON", want: "true"},
	{key: "tools.read_file", value: "on", want: "true"},
	{key: "tools.read_file", value: "2", wantErr: `tools.read_file takes true, false, on or off; got "2"`, is: config.ErrBadValue},
	{key: "tools.list_files", value: "true", want: "true"},
	{key: "tools.list_files", value: "", wantErr: `tools.list_files takes true, false, on or off; got ""`, is: config.ErrBadValue},
	{key: "tools.search", value: "off", want: "false"},
	{key: "tools.search", value: "no", wantErr: `tools.search takes true, false, on or off; got "no"`, is: config.ErrBadValue},
	{key: "tools.edit_file", value: "on", want: "true"},
	{key: "tools.edit_file", value: "yes", wantErr: `tools.edit_file takes true, false, on or off; got "yes"`, is: config.ErrBadValue},
	{key: "tools.scan_secrets", value: "on", want: "true"},
	{key: "tools.scan_secrets", value: "2", wantErr: `tools.scan_secrets takes true, false, on or off; got "2"`, is: config.ErrBadValue},
	{key: "tools.memory", value: "yes", wantErr: `tools.memory takes true, false, on or off; got "yes"`, is: config.ErrBadValue},
	{key: "tools.models", value: "on", want: "true"},
	{key: "tools.models", value: "off", want: "false"},
	{key: "tools.models", value: "1", wantErr: `tools.models takes true, false, on or off; got "1"`, is: config.ErrBadValue},

	{key: "models.enabled", value: "ollama:qwen3:4b,mlx:Qwen3-4B-4bit", want: "mlx:Qwen3-4B-4bit,ollama:qwen3:4b"},
	{key: "models.enabled", value: "ollama:hf.co/org/repo:Q4_K_M", want: "ollama:hf.co/org/repo:Q4_K_M"},
	{key: "models.enabled", value: "", want: ""},
	{key: "models.enabled", value: "ollama:qwen3:4b@0123456789ab,mlx:Qwen3-4B-4bit@" + strings.Repeat("c", 40), want: "mlx:Qwen3-4B-4bit@" + strings.Repeat("c", 40) + ",ollama:qwen3:4b@0123456789ab"},
	{key: "models.enabled", value: "ollama:qwen3:4b@" + strings.Repeat("f", 64), want: "ollama:qwen3:4b@" + strings.Repeat("f", 64)},
	{key: "models.enabled", value: "ollama:qwen3:4b@0123456789a", wantErr: `models.enabled takes model names separated by commas (ollama:NAME[:TAG] or mlx:NAME, each maybe with @DIGEST, 12 to 64 lower-case hex digits); got "ollama:qwen3:4b@0123456789a"`, is: config.ErrBadValue},
	{key: "models.enabled", value: "ollama:qwen3:4b@0123456789AB", wantErr: `models.enabled takes model names separated by commas (ollama:NAME[:TAG] or mlx:NAME, each maybe with @DIGEST, 12 to 64 lower-case hex digits); got "ollama:qwen3:4b@0123456789AB"`, is: config.ErrBadValue},
	{key: "models.enabled", value: "qwen3:4b@0123456789ab", wantErr: `models.enabled takes model names separated by commas (ollama:NAME[:TAG] or mlx:NAME, each maybe with @DIGEST, 12 to 64 lower-case hex digits); got "qwen3:4b@0123456789ab"`, is: config.ErrBadValue},
	{key: "models.enabled", value: "qwen3:4b", wantErr: `models.enabled takes model names separated by commas (ollama:NAME[:TAG] or mlx:NAME, each maybe with @DIGEST, 12 to 64 lower-case hex digits); got "qwen3:4b"`, is: config.ErrBadValue},
	{key: "models.enabled", value: "mlx:", wantErr: `models.enabled takes model names separated by commas (ollama:NAME[:TAG] or mlx:NAME, each maybe with @DIGEST, 12 to 64 lower-case hex digits); got "mlx:"`, is: config.ErrBadValue},
	{key: "models.enabled", value: "mlx:a b", wantErr: `models.enabled takes model names separated by commas (ollama:NAME[:TAG] or mlx:NAME, each maybe with @DIGEST, 12 to 64 lower-case hex digits); got "mlx:a b"`, is: config.ErrBadValue},
	{key: "models.enabled", value: "mlx:../x", wantErr: `models.enabled takes model names separated by commas (ollama:NAME[:TAG] or mlx:NAME, each maybe with @DIGEST, 12 to 64 lower-case hex digits); got "mlx:../x"`, is: config.ErrBadValue},

	{key: "models.default", value: "ollama:qwen3:4b", want: "ollama:qwen3:4b"},
	{key: "models.default", value: "", want: ""},
	{key: "models.default", value: "qwen3", wantErr: `models.default takes a model name (ollama:NAME[:TAG] or mlx:NAME), or nothing to have none; got "qwen3"`, is: config.ErrBadValue},

	{key: "models.trusted", value: "mlx-community,Qwen", want: "Qwen,mlx-community"},
	{key: "models.trusted", value: "-bad", wantErr: `models.trusted takes publishers separated by commas (Hugging Face organisations or users, like mlx-community); got "-bad"`, is: config.ErrBadValue},
	{key: "models.trusted", value: "a/b", wantErr: `models.trusted takes publishers separated by commas (Hugging Face organisations or users, like mlx-community); got "a/b"`, is: config.ErrBadValue},

	{key: "approval.threshold", value: "safe", want: "safe"},
	{key: "approval.outOfBand", value: "off", want: "false"},
	{key: "approval.outOfBand", value: "sometimes", wantErr: `approval.outOfBand takes true, false, on or off; got "sometimes"`, is: config.ErrBadValue},
	{key: "inquiry.elicitation", value: "on", want: "true"},
	{key: "inquiry.elicitation", value: "1", wantErr: `inquiry.elicitation takes true, false, on or off; got "1"`, is: config.ErrBadValue},
	{key: "approval.threshold", value: "Dangerous", want: "dangerous"},
	{key: "tools.run_command", value: "on", want: "true"},
	{key: "tools.run_command", value: "1", wantErr: `tools.run_command takes true, false, on or off; got "1"`, is: config.ErrBadValue},
	{key: "sandbox.mode", value: "read-only", want: "read-only"},
	{key: "sandbox.mode", value: "OFF", want: "off"},
	{key: "sandbox.mode", value: "full", wantErr: `sandbox.mode takes read-only, workspace-write or off; got "full"`, is: config.ErrBadValue},
	{key: "sandbox.network", value: "on", want: "true"},
	{key: "sandbox.network", value: "open", wantErr: `sandbox.network takes true, false, on or off; got "open"`, is: config.ErrBadValue},
	{key: "commands.env", value: "NPM_TOKEN, GOFLAGS,_X", want: "GOFLAGS,NPM_TOKEN,_X"},
	{key: "commands.env", value: "", want: ""},
	{key: "commands.env", value: "WISP_HOME", wantErr: `commands.env takes environment variable names separated by commas (letters, digits, _; never WISP_*); got "WISP_HOME"`, is: config.ErrBadValue},
	{key: "commands.env", value: "wisp_x", wantErr: `commands.env takes environment variable names separated by commas (letters, digits, _; never WISP_*); got "wisp_x"`, is: config.ErrBadValue},
	{key: "commands.env", value: "A-B", wantErr: `commands.env takes environment variable names separated by commas (letters, digits, _; never WISP_*); got "A-B"`, is: config.ErrBadValue},
	{key: "commands.env", value: "1A", wantErr: `commands.env takes environment variable names separated by commas (letters, digits, _; never WISP_*); got "1A"`, is: config.ErrBadValue},
	{key: "approval.threshold", value: "never", wantErr: `approval.threshold takes safe, moderate or dangerous; got "never"`, is: config.ErrBadValue},

	{key: "tools.foo", value: "true", wantErr: `unknown key "tools.foo"; valid keys: ` + validKeys, is: config.ErrUnknownKey},
	{key: "Tools.Ask", value: "true", wantErr: `unknown key "Tools.Ask"; valid keys: ` + validKeys, is: config.ErrUnknownKey},
	{key: "tools", value: "true", wantErr: `unknown key "tools"; valid keys: ` + validKeys, is: config.ErrUnknownKey},
	{key: "", value: "true", wantErr: `unknown key ""; valid keys: ` + validKeys, is: config.ErrUnknownKey},
}

func TestSetGet(t *testing.T) {
	for _, tt := range setCases {
		t.Run(tt.key+"="+tt.value, func(t *testing.T) {
			c := config.Default()
			err := c.Set(tt.key, tt.value)
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("Set(%q, %q) = nil, want %q", tt.key, tt.value, tt.wantErr)
				}
				if diff := cmp.Diff(tt.wantErr, err.Error()); diff != "" {
					t.Errorf("Set(%q, %q) error (-want +got):\n%s", tt.key, tt.value, diff)
				}
				if !errors.Is(err, tt.is) {
					t.Errorf("Set(%q, %q) = %v, want it to match %v", tt.key, tt.value, err, tt.is)
				}
				if diff := cmp.Diff(config.Default(), c); diff != "" {
					t.Errorf("Set(%q, %q) failed but changed the config (-want +got):\n%s", tt.key, tt.value, diff)
				}
				return
			}
			if err != nil {
				t.Fatalf("Set(%q, %q) = %v, want nil", tt.key, tt.value, err)
			}
			got, err := c.Get(tt.key)
			if err != nil {
				t.Fatalf("Get(%q) = %v", tt.key, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Get(%q) after Set(%q) (-want +got):\n%s", tt.key, tt.value, diff)
			}
		})
	}
}

// TestSetCasesCoverEveryKey fails when a key is added without good and
// bad values in setCases.
func TestSetCasesCoverEveryKey(t *testing.T) {
	good, bad := map[string]bool{}, map[string]bool{}
	for _, tt := range setCases {
		if tt.wantErr == "" {
			good[tt.key] = true
		} else {
			bad[tt.key] = true
		}
	}
	for _, k := range config.Keys() {
		if !good[k.Name] || !bad[k.Name] {
			t.Errorf("setCases has no good or no bad value for %s", k.Name)
		}
	}
}

func TestGetUnknownKey(t *testing.T) {
	_, err := config.Default().Get("tools.foo")
	want := `unknown key "tools.foo"; valid keys: ` + validKeys
	if err == nil || err.Error() != want || !errors.Is(err, config.ErrUnknownKey) {
		t.Errorf("Get(%q) = %v, want %q matching ErrUnknownKey", "tools.foo", err, want)
	}
}

func TestKeys(t *testing.T) {
	want := []config.Key{
		{Name: "approval.outOfBand", Kind: "bool", Default: "true", Doc: "under wisp mcp, let you answer an approval with wisp approvals (and the client's dialog, with inquiry.elicitation)", Security: true},
		{Name: "approval.threshold", Kind: "enum", Default: "moderate", Doc: "the lowest rating of a command that asks your approval: safe, moderate or dangerous", Security: true},
		{Name: "commands.env", Kind: "list", Default: "", Doc: "variables of your environment that run_command's commands get beyond the defaults, as comma-separated names (never WISP_*)", Security: true},
		{Name: "inquiry.elicitation", Kind: "bool", Default: "false", Doc: "under wisp mcp, also put questions and approvals to the MCP client's dialog when it can show one", Security: true},
		{Name: "inquiry.timeoutSeconds", Kind: "int", Default: "0", Doc: "seconds a question waits for your answer; 0 waits for ever, otherwise 10 to 86,400"},
		{Name: "models.contextLength", Kind: "int", Default: "0", Doc: "tokens of context every request to a model asks for (Ollama's num_ctx); 0 leaves it to the server (OLLAMA_CONTEXT_LENGTH)"},
		{Name: "models.default", Kind: "string", Default: "", Doc: "the model chat and respond use when --model is not given (ollama:NAME[:TAG] or mlx:NAME)"},
		{Name: "models.enabled", Kind: "list", Default: "", Doc: "the models wisp may run, as comma-separated names, each with @ and the digest it was checked at (set by wisp models enable, disable and check)", Security: true},
		{Name: "models.trusted", Kind: "list", Default: "", Doc: "publishers you trust to pull models from (set by wisp models trust)", Security: true},
		{Name: "sandbox.mode", Kind: "enum", Default: "workspace-write", Doc: "where run_command's commands may write: read-only, workspace-write (the workspace and a private temp folder) or off (no sandbox, and every command is asked)", Security: true},
		{Name: "sandbox.network", Kind: "bool", Default: "false", Doc: "let run_command's commands reach the network", Security: true},
		{Name: "tools.ask", Kind: "bool", Default: "false", Doc: "give ask, the tool that puts questions to you, to conversations that get every tool", Security: true},
		{Name: "tools.ask_user", Kind: "bool", Default: "false", Doc: "give ask_user, the tool that puts structured questions to you and collects secrets, to conversations that get every tool", Security: true},
		{Name: "tools.disabled", Kind: "list", Default: "", Doc: "tools taken out of every conversation, as comma-separated names", Security: true},
		{Name: "tools.edit_file", Kind: "bool", Default: "false", Doc: "give edit_file, the tool that changes a file in the workspace once you approved its diff, to conversations that get every tool", Security: true},
		{Name: "tools.list_files", Kind: "bool", Default: "false", Doc: "give list_files, the tool that lists the workspace's files, to conversations that get every tool (a chat has it anyway)", Security: true},
		{Name: "tools.memory", Kind: "bool", Default: "false", Doc: "give memory, the tool that keeps facts across conversations with your approval, to conversations that get every tool", Security: true},
		{Name: "tools.models", Kind: "bool", Default: "false", Doc: "give models, the tool that lists models and asks you to change them, to conversations that get every tool", Security: true},
		{Name: "tools.read_file", Kind: "bool", Default: "false", Doc: "give read_file, the tool that reads a file in the workspace, to conversations that get every tool (a chat has it anyway)", Security: true},
		{Name: "tools.request_approval", Kind: "bool", Default: "false", Doc: "give request_approval, the tool that asks your permission before a destructive, irreversible or outward-facing action, to conversations that get every tool", Security: true},
		{Name: "tools.run_command", Kind: "bool", Default: "false", Doc: "give run_command, the tool that runs shell commands in the workspace through the classifier, your approval and the sandbox, to conversations that get every tool", Security: true},
		{Name: "tools.scan_secrets", Kind: "bool", Default: "false", Doc: "give scan_secrets, the tool that scans the workspace's files for credentials and names each by a marker, never its value, to conversations that get every tool", Security: true},
		{Name: "tools.search", Kind: "bool", Default: "false", Doc: "give search, the tool that searches the workspace's files, to conversations that get every tool (a chat has it anyway)", Security: true},
	}
	if diff := cmp.Diff(want, config.Keys()); diff != "" {
		t.Errorf("Keys() (-want +got):\n%s", diff)
	}
}

// A change made through Set shows in Diff, with what a list gained and
// lost; nothing changed, nothing shows.
func TestDiff(t *testing.T) {
	key := func(name string) config.Key {
		i := slices.IndexFunc(config.Keys(), func(k config.Key) bool { return k.Name == name })
		return config.Keys()[i]
	}
	tests := []struct {
		name  string
		start map[string]string
		set   map[string]string
		want  []config.Change
	}{
		{"nothing", nil, nil, nil},
		{"same value", map[string]string{"approval.threshold": "dangerous"}, map[string]string{"approval.threshold": "dangerous"}, nil},
		{"a bool", nil, map[string]string{"approval.outOfBand": "off"},
			[]config.Change{{Key: key("approval.outOfBand"), From: "true", To: "false"}}},
		{"an int", nil, map[string]string{"inquiry.timeoutSeconds": "30"},
			[]config.Change{{Key: key("inquiry.timeoutSeconds"), From: "0", To: "30"}}},
		{"a list", map[string]string{"tools.disabled": "ask,models"}, map[string]string{"tools.disabled": "models,request_approval,ask_user"},
			[]config.Change{{Key: key("tools.disabled"), From: "ask,models", To: "ask_user,models,request_approval", Added: []string{"ask_user", "request_approval"}, Removed: []string{"ask"}}}},
		{"several, by name", nil, map[string]string{"tools.ask": "on", "approval.threshold": "safe", "models.trusted": "mlx-community"},
			[]config.Change{
				{Key: key("approval.threshold"), From: "moderate", To: "safe"},
				{Key: key("models.trusted"), From: "", To: "mlx-community", Added: []string{"mlx-community"}},
				{Key: key("tools.ask"), From: "false", To: "true"},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := config.Default()
			for k, v := range tt.start {
				if err := before.Set(k, v); err != nil {
					t.Fatal(err)
				}
			}
			after := before
			for k, v := range tt.set {
				if err := after.Set(k, v); err != nil {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(tt.want, config.Diff(before, after)); diff != "" {
				t.Errorf("Diff (-want +got):\n%s", diff)
			}
		})
	}
}

// TestKeyTable holds every row of the key table to its promises, so that
// a new row cannot break them unnoticed.
func TestKeyTable(t *testing.T) {
	keys := config.Keys()
	if !slices.IsSortedFunc(keys, func(a, b config.Key) int { return strings.Compare(a.Name, b.Name) }) {
		t.Errorf("Keys() not sorted by name: %v", keys)
	}
	def := config.Default()
	for _, k := range keys {
		if k.Kind != "bool" && k.Kind != "int" && k.Kind != "list" && k.Kind != "enum" && k.Kind != "string" {
			t.Errorf("%s: kind %q, want bool, int, list or enum", k.Name, k.Kind)
		}
		if k.Doc == "" || strings.Contains(k.Doc, "\n") {
			t.Errorf("%s: doc %q, want one line", k.Name, k.Doc)
		}
		got, err := def.Get(k.Name)
		if err != nil || got != k.Default {
			t.Errorf("Default().Get(%q) = %q, %v; want the key's default %q", k.Name, got, err, k.Default)
		}
		c := config.Default()
		if err := c.Set(k.Name, k.Default); err != nil {
			t.Errorf("Set(%q, default %q) = %v", k.Name, k.Default, err)
		}
	}

	// The JSON leaves of a Config are exactly the dotted names.
	data, err := json.Marshal(def)
	if err != nil {
		t.Fatal(err)
	}
	var tree map[string]any
	if err := json.Unmarshal(data, &tree); err != nil {
		t.Fatal(err)
	}
	var leaves []string
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			if sub, ok := v.(map[string]any); ok {
				walk(prefix+k+".", sub)
				continue
			}
			leaves = append(leaves, prefix+k)
		}
	}
	walk("", tree)
	sort.Strings(leaves)
	var names []string
	for _, k := range keys {
		names = append(names, k.Name)
	}
	if diff := cmp.Diff(names, leaves); diff != "" {
		t.Errorf("JSON leaves of Config vs key names (-want +got):\n%s", diff)
	}
}

func TestDefault(t *testing.T) {
	want := config.Config{
		Tools:    config.Tools{Ask: false, Disabled: []string{}},
		Inquiry:  config.Inquiry{TimeoutSeconds: 0},
		Models:   config.Models{Enabled: []string{}, Trusted: []string{}},
		Approval: config.Approval{Threshold: "moderate", OutOfBand: true},
		Sandbox:  config.Sandbox{Mode: "workspace-write"},
		Commands: config.CommandSettings{Env: []string{}},
	}
	if diff := cmp.Diff(want, config.Default()); diff != "" {
		t.Errorf("Default() (-want +got):\n%s", diff)
	}
}

func TestTimeout(t *testing.T) {
	tests := []struct {
		seconds int
		want    time.Duration
	}{
		{0, 0},
		{10, 10 * time.Second},
		{86400, 24 * time.Hour},
		{-5, 0},
	}
	for _, tt := range tests {
		c := config.Default()
		c.Inquiry.TimeoutSeconds = tt.seconds
		if got := c.Timeout(); got != tt.want {
			t.Errorf("Timeout() with %d seconds = %v, want %v", tt.seconds, got, tt.want)
		}
	}
}
