package secrets_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/audit"
	"github.com/wisp-agent/wisp/policy/secrets"
	"github.com/wisp-agent/wisp/tools"
)

// runTool is what a tool that runs commands with secrets does. wisp has
// no such tool; this one shows the pattern. It is given the session's
// Vault and Redactor when it is built, as every tool of the session is,
// resolves the references the model sent into the command's environment
// as it runs, and passes what the command printed through the Redactor
// before the model reads it.
type runTool struct {
	vault    *secrets.Vault
	redactor *secrets.Redactor
}

func (*runTool) Name() string { return "run" }
func (*runTool) Description() string {
	return "Run a shell command; env lists session:NAME secrets to give it."
}
func (*runTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type": "object", "properties": {
		"command": {"type": "string", "minLength": 1},
		"env": {"type": "array", "items": {"type": "string"}}
	}, "required": ["command"], "additionalProperties": false}`)
}

func (t *runTool) Call(ctx context.Context, c wisp.Call) (wisp.Result, error) {
	var a struct {
		Command string   `json:"command"`
		Env     []string `json:"env"`
	}
	if err := json.Unmarshal(c.Arguments, &a); err != nil {
		return wisp.ErrorResult(err.Error()), nil
	}
	env, err := t.vault.Environ(a.Env)
	if err != nil {
		return wisp.ErrorResult(err.Error()), nil
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", a.Command)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	text, _ := t.redactor.Redact(string(out))
	if err != nil {
		msg, _ := t.redactor.Redact(err.Error())
		return wisp.ErrorResult(fmt.Sprintf("%s (%s)", text, msg)), nil
	}
	return wisp.Result{Content: text}, nil
}

// TestVaultInCommandEnvironment runs a command with a secret in its
// environment and checks that what it prints reaches the model and the
// audit log only as the secret's marker.
func TestVaultInCommandEnvironment(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh:", err)
	}
	const token = "FAKE-gh-EXAMPLE-token-0123456789abcdef"
	t.Setenv("GH_TOKEN", "") // whatever the test's own environment holds
	redactor := secrets.NewRedactor()
	vault := secrets.NewVault(redactor)
	// What the desk does when the person answers a secret question; the
	// model is told ref, never the value.
	ref, err := vault.Put("GH_TOKEN", token)
	if err != nil {
		t.Fatal(err)
	}

	reg := tools.NewRegistry()
	if err := reg.Add(&runTool{vault: vault, redactor: redactor}); err != nil {
		t.Fatal(err)
	}
	set, err := reg.Select(tools.Selection{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "audit")
	log, err := audit.Open(dir, &audit.Options{Redact: func(s string) string {
		out, _ := redactor.Redact(s)
		return out
	}})
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name    string
		command string
		env     []string
		want    string
		isError bool
	}{
		{name: "printed", command: `printf %s "$GH_TOKEN"`, env: []string{ref}, want: "[REDACTED:session:GH_TOKEN]"},
		{name: "in JSON", command: `printf '{"auth": "Bearer %s"}\n' "$GH_TOKEN"`, env: []string{ref},
			want: `{"auth": "Bearer [REDACTED:session:GH_TOKEN]"}` + "\n"},
		{name: "the whole environment", command: `env | grep '^GH_TOKEN='`, env: []string{ref}, want: "GH_TOKEN=[REDACTED:session:GH_TOKEN]\n"},
		{name: "base64", command: `printf %s "$GH_TOKEN" | base64`, env: []string{ref}, want: "[REDACTED:session:GH_TOKEN]\n"},
		{name: "not given", command: `printf '[%s]' "$GH_TOKEN"`, want: "[]"},
		{name: "unknown ref", command: "true", env: []string{"session:NPM_TOKEN"}, isError: true,
			want: "error: there is no secret session:NPM_TOKEN in this session (it holds session:GH_TOKEN); a secret is stored only when the person answers a secret question"},
		{name: "on failure", command: `echo "$GH_TOKEN" >&2; exit 3`, env: []string{ref}, isError: true,
			want: "error: [REDACTED:session:GH_TOKEN]\n (exit status 3)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := map[string]any{"command": tt.command}
			if tt.env != nil {
				a["env"] = tt.env
			}
			args, _ := json.Marshal(a)
			call := wisp.Call{Name: "run", Arguments: args, Thread: "t-1", Turn: 1}
			res, err := set.Call(context.Background(), call)
			if err != nil {
				t.Fatal(err)
			}
			if res.Content != tt.want || res.IsError != tt.isError {
				t.Errorf("run %q = %q (error %v), want %q (error %v)", tt.command, res.Content, res.IsError, tt.want, tt.isError)
			}
			// What the agent records: the call and the result. A tool that
			// forgot to redact is caught here too: the raw value is
			// recorded beside the result, and the log redacts it.
			for _, e := range []audit.Entry{
				{Kind: wisp.KindToolCall, Thread: "t-1", Turn: 1, Source: wisp.SourceModel, Data: map[string]any{"name": "run", "arguments": string(args)}},
				{Kind: wisp.KindToolResult, Thread: "t-1", Turn: 1, Source: wisp.SourceTool, Data: map[string]any{"content": res.Content, "raw": "GH_TOKEN=" + token}},
			} {
				if _, err := log.Append(context.Background(), e); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	if strings.Contains(all.String(), token) || strings.Contains(all.String(), "0123456789abcdef") {
		t.Errorf("the audit log holds the secret:\n%s", all.String())
	}
	if !strings.Contains(all.String(), `GH_TOKEN=[REDACTED:session:GH_TOKEN]`) {
		t.Errorf("the audit log does not hold the marker:\n%s", all.String())
	}
}

func ExampleVault() {
	redactor := secrets.NewRedactor()
	vault := secrets.NewVault(redactor)

	// The person answered a secret question; the model is told ref.
	ref, _ := vault.Put("GH_TOKEN", "FAKE-EXAMPLE-token-not-real")
	fmt.Println(ref)

	// A tool resolves the reference as it runs, into a command's
	// environment, and redacts what the command prints.
	env, _ := vault.Environ([]string{ref})
	fmt.Println(len(env), strings.HasPrefix(env[0], "GH_TOKEN="))
	out, _ := redactor.Redact("the command printed FAKE-EXAMPLE-token-not-real")
	fmt.Println(out)

	_, err := vault.Resolve("session:NPM_TOKEN")
	fmt.Println(err)
	fmt.Println(vault)
	// Output:
	// session:GH_TOKEN
	// 1 true
	// the command printed [REDACTED:session:GH_TOKEN]
	// there is no secret session:NPM_TOKEN in this session (it holds session:GH_TOKEN); a secret is stored only when the person answers a secret question
	// secrets.Vault(1 sealed)
}
