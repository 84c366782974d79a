//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/wisp-agent/wisp/inquiry/jsonl"
	"github.com/wisp-agent/wisp/sandbox"
)

func needSandbox(t *testing.T) {
	t.Helper()
	if s := sandbox.Probe(context.Background()); !s.Confined {
		t.Skipf("no sandbox here: %s", s.Reason)
	}
}

// runStep is a scripted model's step that runs line, with env's secrets.
func runStep(line string, env map[string]string) string {
	args := map[string]any{"command": line}
	if env != nil {
		args["env"] = env
	}
	b, _ := json.Marshal(map[string]any{"content": "", "tool_calls": []any{map[string]any{"name": "run_command", "arguments": args}}})
	return string(b)
}

// Through wisp chat --json, as a front end drives it, with real commands
// in wisp's sandbox: the approval is a choice of kind approval that names
// the sandbox, and a dangerous command offers once alone; a command's
// output comes as tool lines of phase output; an approved command still
// cannot write the wisp home nor reach a server on loopback; a secret the
// person gives reaches the command by reference, and neither the thread
// the model reads nor the audit log holds it.
func TestRunCommandChatJSON(t *testing.T) {
	needSandbox(t)
	dir := t.TempDir()
	home, ws := filepath.Join(dir, "home"), filepath.Join(dir, "ws")
	if err := os.MkdirAll(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprintln(w, "reached")
	}))
	defer srv.Close()
	const secret = "ghp_Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lm9Nb"
	// The model writes a script in the workspace and runs it; the script
	// writes the wisp home, which the classifier cannot see in the line.
	planter := fmt.Sprintf("echo '{}' > %s/config.json; touch %s/planted", home, home)
	if err := os.WriteFile(filepath.Join(ws, "w.sh"), []byte(planter+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	script := writeScript(t, dir,
		runStep("echo hello", nil),
		runStep("sh w.sh", nil),
		runStep("curl -sS -m 5 "+srv.URL, nil),
		`{"content":"","tool_calls":[{"name":"ask_user","arguments":{"secret":{"name":"GH_TOKEN","question":"Which token should I use?"}}}]}`,
		runStep(`printf %s "$GH_TOKEN" > token.txt && echo "token: $GH_TOKEN"`, map[string]string{"GH_TOKEN": "session:GH_TOKEN"}),
		`{"content":"Done."}`)
	runWispOut(t, home, "config", "set", "inquiry.timeoutSeconds", "600") // makes the home and its config.json
	configBefore, err := os.ReadFile(filepath.Join(home, "config.json"))
	if err != nil {
		t.Fatal(err)
	}

	p := startChatJSON(t, home, "--model", "script:"+script, "--tool", "ask_user,run_command", "--workspace", ws)
	p.next() // hello
	p.send(`{"type":"message","text":"go"}`)
	var approvals []jsonl.Approval
	var outputs []jsonl.ToolOutput
	var results []jsonl.ToolResult
	for done := false; !done; {
		switch l := p.next().(type) {
		case jsonl.Approval:
			approvals = append(approvals, l)
			p.send(fmt.Sprintf(`{"type":"approve","id":%q,"scope":"once"}`, l.ID))
		case jsonl.Card:
			p.send(fmt.Sprintf(`{"type":"choose","id":%q,"answers":[{"text":%q}]}`, l.ID, secret))
		case jsonl.ToolOutput:
			outputs = append(outputs, l)
		case jsonl.ToolResult:
			results = append(results, l)
		case jsonl.End:
			if l.Error != "" || l.Reply != "Done." {
				t.Fatalf("the turn ended %+v", l)
			}
			done = true
		}
	}
	if code := p.exit(); code != 0 {
		t.Fatalf("wisp chat --json exited %d: %s", code, p.stderr.String())
	}

	// Asked: all but echo, each naming the sandbox; curl once only.
	var asked []string
	for _, a := range approvals {
		asked = append(asked, a.Command)
		if !strings.Contains(a.Text, "sandbox: workspace-write (writes only in the workspace and a private temp folder; network off)") {
			t.Errorf("approval %q does not name the sandbox: %q", a.Command, a.Text)
		}
	}
	want := []string{"run_command sh w.sh", "run_command curl -sS -m 5 " + srv.URL, `run_command -e GH_TOKEN -- printf %s "$GH_TOKEN" > token.txt && echo "token: $GH_TOKEN"`}
	if strings.Join(asked, "\n") != strings.Join(want, "\n") {
		t.Fatalf("asked %q, want %q", asked, want)
	}
	if got := strings.Join(approvals[1].Scopes, ","); got != "once" {
		t.Errorf("curl offered %s, want once alone", got)
	}
	// Output as it came, redacted.
	var shown []string
	for _, o := range outputs {
		shown = append(shown, o.Stream+": "+o.Text)
	}
	if got := strings.Join(shown, ""); !strings.Contains(got, "stdout: hello\n") || !strings.Contains(got, "stdout: token: [REDACTED:session:GH_TOKEN]\n") {
		t.Errorf("output lines %q, want hello and the secret's marker", shown)
	}
	if len(results) != 5 {
		t.Fatalf("%d results, want 5: %+v", len(results), results)
	}
	for i, ok := range map[int]bool{0: true, 1: false, 2: false, 4: true} {
		if got := strings.HasPrefix(results[i].Text, "exit status 0 "); got != ok {
			t.Errorf("result %d = %q, want success %v", i, results[i].Text, ok)
		}
	}
	// The wisp home and the network, out of reach.
	if b, _ := os.ReadFile(filepath.Join(home, "config.json")); string(b) != string(configBefore) {
		t.Errorf("the approved script changed config.json: %q", b)
	}
	if _, err := os.Stat(filepath.Join(home, "planted")); err == nil {
		t.Error("the approved script made a file in the wisp home")
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the server on loopback was reached %d times", n)
	}
	// The secret: in the command's file, nowhere in the home.
	if b, err := os.ReadFile(filepath.Join(ws, "token.txt")); err != nil || string(b) != secret {
		t.Errorf("token.txt = %q, %v; want the secret", b, err)
	}
	err = filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err == nil && strings.Contains(string(b), secret) {
			t.Errorf("%s holds the secret", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	threads, _ := filepath.Glob(filepath.Join(home, "threads", "*"))
	var thread []byte
	for _, f := range threads {
		b, _ := os.ReadFile(f)
		thread = append(thread, b...)
	}
	if !strings.Contains(string(thread), "[REDACTED:session:GH_TOKEN]") {
		t.Errorf("the thread the model reads has no marker of the secret")
	}
	// On record: four commands, each started and ended.
	audit := runWispOut(t, home, "audit", "--kind", "command")
	if s, e := strings.Count(audit, "command.started"), strings.Count(audit, "command.ended"); s != 4 || e != 4 {
		t.Errorf("wisp audit --kind command: %d started, %d ended, want 4 each:\n%s", s, e, audit)
	}
}

// Under wisp mcp, respond with tools ["run_command"] runs commands in the
// workspace: a safe one at once; one that must be asked waits for the
// person, announced to the client with the command wisp approvals
// approve, whose answer at a terminal lets it run.
func TestRunCommandMCP(t *testing.T) {
	needSandbox(t)
	dir := t.TempDir()
	home, ws := filepath.Join(dir, "home"), filepath.Join(dir, "ws")
	if err := os.MkdirAll(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	script := writeScript(t, dir,
		runStep("ls", nil),
		runStep("mkdir -p out && echo built > out/a.txt", nil),
		`{"content":"Built."}`)
	p := startMCP(t, home, "--model", "script:"+script, "--workspace", ws)
	p.await(p.request(1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "test", "version": "1"}}))
	p.send(map[string]any{"method": "notifications/initialized"})
	p.await(p.request(2, "logging/setLevel", map[string]any{"level": "notice"}))
	call := p.request(3, "tools/call", map[string]any{"name": "respond", "arguments": map[string]any{"prompt": "Build it.", "tools": []string{"run_command"}}})
	id := announcedApproval(p)

	list := runWispOut(t, home, "approvals", "list", "--json")
	if !strings.Contains(list, "run_command mkdir -p out && echo built > out/a.txt") || !strings.Contains(list, "sandbox: workspace-write") {
		t.Errorf("wisp approvals list does not show the command and its sandbox:\n%s", list)
	}
	approveAtTerminal(t, home, id)
	if res := p.await(call); replyOf(res) != "Built." {
		t.Fatalf("respond = %v", res)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "out", "a.txt")); err != nil || string(b) != "built\n" {
		t.Errorf("out/a.txt = %q, %v; want the approved command's output", b, err)
	}
	audit := runWispOut(t, home, "audit", "--kind", "command.ended")
	if strings.Count(audit, `"exitCode":0`) != 2 {
		t.Errorf("wisp audit --kind command.ended, want two commands that ran:\n%s", audit)
	}
}
