package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// These tests run wisp-tui in a real terminal: a tmux server of the test's
// own (its own socket, killed at the end) runs it in a detached session,
// the test sends keys and reads the pane. They are skipped when tmux is
// not on PATH. wisp-tui is this test binary run as it (TestMain);
// scripts/tui-demo.sh does the same by hand and prints the panes.

// tmux is a tmux server of the test's own with one session.
type tmux struct {
	t    *testing.T
	sock string
}

// startTmux starts a server on a socket in a temporary folder, running
// argv in a session of 100x32. env is set for the command. When the
// command ends the pane stays, showing its exit status.
func startTmux(t *testing.T, env []string, argv ...string) *tmux {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not on PATH")
	}
	dir := t.TempDir()
	tm := &tmux{t: t, sock: filepath.Join(dir, "tmux.sock")}
	var cmd strings.Builder
	env = append(env, "GORACE="+quickRaceExit())
	for _, e := range env {
		cmd.WriteString("export " + shellQuote(e) + "; ")
	}
	for _, a := range argv {
		cmd.WriteString(shellQuote(a) + " ")
	}
	cmd.WriteString(`; echo "wisp-tui exited with status $?"; sleep 60`)
	tm.run("-f", "/dev/null", "new-session", "-d", "-s", "tui", "-x", "100", "-y", "32", "sh", "-c", cmd.String())
	t.Cleanup(func() { exec.Command("tmux", "-S", tm.sock, "kill-server").Run() })
	return tm
}

func (tm *tmux) run(args ...string) string {
	tm.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", tm.sock}, args...)...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// pane returns what the pane shows.
func (tm *tmux) pane() string {
	tm.t.Helper()
	return tm.run("capture-pane", "-p", "-t", "tui")
}

// waitFor waits until the pane shows every one of wants, and returns it.
func (tm *tmux) waitFor(wants ...string) string {
	tm.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		p := tm.pane()
		missing := ""
		for _, w := range wants {
			if !strings.Contains(p, w) {
				missing = w
				break
			}
		}
		if missing == "" {
			return p
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("the pane never showed %q; it shows:\n%s", missing, p)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// keys sends tmux key names (Enter, Down, Escape, C-c, Space).
func (tm *tmux) keys(names ...string) {
	tm.t.Helper()
	tm.run(append([]string{"send-keys", "-t", "tui"}, names...)...)
}

// typeText types s literally.
func (tm *tmux) typeText(s string) {
	tm.t.Helper()
	tm.run("send-keys", "-t", "tui", "-l", s)
}

// pastGuard waits out the time a new dialog ignores answering keys.
func pastGuard() { time.Sleep(guard + 100*time.Millisecond) }

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// self is this test binary, which runs as wisp-tui or a fake wisp.
func self(t *testing.T) string {
	t.Helper()
	p, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestTmuxFakeWisp runs wisp-tui on the fake wisp of engine_test.go: a
// question answered with arrow and Enter, then Ctrl-D leaves.
func TestTmuxFakeWisp(t *testing.T) {
	tm := startTmux(t, []string{"WISP_TUI_TEST_AS=wisp-tui", "WISP_TUI_TEST_ENGINE=fake-wisp"},
		self(t), "--wisp", self(t), "--model", "fake")
	tm.waitFor("wisp-tui · chat --json --model fake · tools: ask")
	tm.typeText("Go on")
	tm.keys("Enter")
	tm.waitFor("? the model asks", "Which one?", "› 1 a", "3 none of these")
	pastGuard()
	tm.keys("Down", "Enter")
	p := tm.waitFor("you chose: b", "↳ chose: option 2", "Using it.")
	if strings.Contains(p, "? the model asks") {
		t.Errorf("the picker is still open:\n%s", p)
	}
	tm.keys("C-d")
	tm.waitFor("wisp-tui exited with status 0")
}

// built is wisp, built once for the whole package run by the first test
// that needs it, in a folder TestMain removes at the end.
var built struct {
	once sync.Once
	dir  string
	bin  string
	skip string // why the tests that need wisp skip, if they do
	err  error
}

// buildWisp returns cmd/wisp built into a temporary folder, building it
// the first time it is asked for. With the build cache warm (go vet ./...
// or go build ./... compile the same packages) that takes a second or two.
func buildWisp(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			built.skip = "go is not on PATH, to build wisp"
			return
		}
		if built.dir, built.err = os.MkdirTemp("", "wisp-tui-test-"); built.err != nil {
			return
		}
		bin := filepath.Join(built.dir, "wisp")
		if out, err := exec.Command(goTool, "build", "-o", bin, "../wisp").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("building wisp: %v\n%s", err, out)
			return
		}
		if out, _ := exec.Command(bin, "chat", "--help").CombinedOutput(); !strings.Contains(string(out), "--json") {
			built.skip = "this wisp has no chat --json yet"
			return
		}
		built.bin = bin
	})
	switch {
	case built.err != nil:
		t.Fatal(built.err)
	case built.skip != "":
		t.Skip(built.skip)
	}
	return built.bin
}

// removeBuilt removes what buildWisp built.
func removeBuilt() {
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
}

// TestTmuxScripted runs wisp-tui on the real wisp and the bundled scripted
// models, as scripts/tui-demo.sh does.
func TestTmuxScripted(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not on PATH")
	}
	if testing.Short() {
		t.Skip("builds wisp; skipped with -short")
	}
	wisp := buildWisp(t)
	examples, err := filepath.Abs("../../examples/scripts")
	if err != nil {
		t.Fatal(err)
	}
	env := func() []string {
		return []string{"WISP_TUI_TEST_AS=wisp-tui", "WISP_TUI_TEST_ENGINE=", "WISP_HOME=" + t.TempDir()}
	}

	t.Run("ask", func(t *testing.T) {
		tm := startTmux(t, env(), self(t), "--wisp", wisp, "--model", "script:"+filepath.Join(examples, "ask.jsonl"), "--tool", "ask")
		tm.waitFor("wisp-tui · script:", "Enter sends")
		tm.typeText("Replace the config with the new defaults.")
		tm.keys("Enter")
		p := tm.waitFor("? the model asks", "Which config did you mean?", "› 1 ~/.wisp/config.json", "2 ./wisp.json", "3 none of these",
			"your answer goes to the model")
		t.Logf("the question:\n%s", p)
		for _, bad := range []string{"wisp asks your approval", "[y]", "allow?"} {
			if strings.Contains(p, bad) {
				t.Errorf("the question shows %q", bad)
			}
		}
		pastGuard()
		tm.keys("Down", "Enter")
		p = tm.waitFor("you chose: ./wisp.json", "I will replace the config you chose")
		t.Logf("after the answer:\n%s", p)
		tm.keys("C-d")
		tm.waitFor("wisp-tui exited with status 0")
	})

	t.Run("ask, Esc declines", func(t *testing.T) {
		tm := startTmux(t, env(), self(t), "--wisp", wisp, "--model", "script:"+filepath.Join(examples, "ask.jsonl"), "--tool", "ask")
		tm.waitFor("wisp-tui · script:", "Enter sends")
		tm.typeText("Replace the config.")
		tm.keys("Enter")
		tm.waitFor("? the model asks")
		tm.keys("Escape")
		tm.waitFor("you declined the question", "↳ the person declined to answer")
		tm.keys("C-d")
		tm.waitFor("wisp-tui exited with status 0")
	})

	t.Run("a hostile reply is escaped", func(t *testing.T) {
		script := filepath.Join(t.TempDir(), "hostile.jsonl")
		reply := `{"content":"before\u001b[2J\u001b[H\u001b]0;pwned\u0007 \u202egpj.exe after"}` + "\n"
		if err := os.WriteFile(script, []byte(reply), 0o600); err != nil {
			t.Fatal(err)
		}
		tm := startTmux(t, env(), self(t), "--wisp", wisp, "--model", "script:"+script, "--tool", "ask")
		tm.waitFor("wisp-tui · script:", "Enter sends")
		tm.typeText("Say something.")
		tm.keys("Enter")
		p := tm.waitFor(`before\e[2J\e[H\e]0;pwned\u{7} \u{202E}gpj.exe after`, "› Say something.")
		t.Logf("the reply:\n%s", p)
		if title := tm.run("display-message", "-p", "-t", "tui", "#{pane_title}"); strings.Contains(title, "pwned") {
			t.Errorf("the reply set the pane's title: %q", title)
		}
		tm.keys("C-d")
		tm.waitFor("wisp-tui exited with status 0")
	})

	t.Run("edit_file's diff", func(t *testing.T) {
		ws, dir := t.TempDir(), t.TempDir()
		notes := filepath.Join(ws, "notes.txt")
		if err := os.WriteFile(notes, []byte("keep\nold line\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		script := filepath.Join(dir, "edit.jsonl")
		lines := `{"content":"","tool_calls":[{"name":"edit_file","arguments":{"path":"notes.txt","mode":"replace","old":"old line","new":"new \u001b[2J line"}}]}` + "\n" +
			`{"content":"Edited."}` + "\n"
		if err := os.WriteFile(script, []byte(lines), 0o600); err != nil {
			t.Fatal(err)
		}
		tm := startTmux(t, append(env(), "TERM=xterm-256color"), self(t), "--wisp", wisp, "--model", "script:"+script,
			"--tool", "edit_file", "--workspace", ws)
		tm.waitFor("wisp-tui · script:", "Enter sends")
		tm.typeText("Change the old line.")
		tm.keys("Enter")
		p := tm.waitFor("! wisp asks your approval", "edit_file replace", "--- a/notes.txt", "+++ b/notes.txt", "-old line",
			`+new \e[2J line`, "allow? [y]once")
		t.Logf("the approval:\n%s", p)
		styled := tm.run("capture-pane", "-p", "-e", "-t", "tui")
		if !strings.Contains(styled, "\x1b[32m") || !strings.Contains(styled, "\x1b[31m") {
			t.Errorf("the diff is not coloured:\n%q", styled)
		}
		pastGuard()
		tm.keys("y")
		tm.waitFor("you approved, once", "Edited.")
		if b, err := os.ReadFile(notes); err != nil || string(b) != "keep\nnew \x1b[2J line\n" {
			t.Errorf("notes.txt holds %q (%v) after the approval", b, err)
		}
		tm.keys("C-d")
		tm.waitFor("wisp-tui exited with status 0")
	})

	t.Run("ask_user", func(t *testing.T) {
		tm := startTmux(t, env(), self(t), "--wisp", wisp, "--model", "script:"+filepath.Join(examples, "ask_user.jsonl"),
			"--tool", "ask_user", "--tool", "request_approval")
		tm.waitFor("wisp-tui · script:", "Enter sends")
		tm.typeText("Run the migration.")
		tm.keys("Enter")
		p := tm.waitFor("? the model asks · 2 questions", "1/2 · Env", "› 1 staging (recommended)", "safe to break; data is a week old", "then 2/2 · Checks")
		t.Logf("the card:\n%s", p)
		pastGuard()
		tm.keys("1")
		tm.waitFor("2/2 · Checks", "○ 3 lint")
		tm.keys("1", "3")
		tm.waitFor("● 1 unit tests", "● 3 lint")
		tm.keys("Enter")
		p = tm.waitFor("╔", "! wisp asks your approval", "drop the table sessions_old in staging", "allow? [y]once [n]o")
		t.Logf("the approval:\n%s", p)
		if strings.Contains(p, "the model asks") {
			t.Errorf("the approval dialog says the model asks:\n%s", p)
		}
		pastGuard()
		tm.keys("y")
		p = tm.waitFor("you approved, once", "I will run the checks you picked")
		t.Logf("after the answers:\n%s", p)
		tm.keys("C-d")
		tm.waitFor("wisp-tui exited with status 0")
	})
}
