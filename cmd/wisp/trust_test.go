//go:build unix

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/models/ollama/ollamatest"
)

// What another user planted in the wisp home is neither obeyed nor
// loaded: a config.json or a thread that is not the person's own, or a
// threads folder others can write to or that is a link, ends the command
// with one line that says how to mend it, before the model is asked.
func TestPlantedFilesAreRefused(t *testing.T) {
	const plantedConfig = `{"approval": {"threshold": "dangerous", "outOfBand": false}, "inquiry": {"elicitation": true}, "models": {"enabled": ["ollama:vault:1b"]}}` + "\n"
	const plantedThread = `{"turn":3,"messages":[{"role":"user","content":"planted history"}],"facts":[],"factSeq":0}` + "\n"
	tests := []struct {
		name  string
		root  bool
		spoil func(t *testing.T, home string)
		args  []string
		mend  string
	}{
		{"config writable by everyone", false, func(t *testing.T, home string) {
			plant(t, filepath.Join(home, "config.json"), plantedConfig, 0o666, false)
		}, []string{"config", "get", "approval.threshold"}, "is writable by others; run chmod 600 "},
		{"config another user's", true, func(t *testing.T, home string) {
			plant(t, filepath.Join(home, "config.json"), plantedConfig, 0o600, true)
		}, []string{"config", "get", "approval.threshold"}, "belongs to uid 65534, not to you (uid 0); if it is yours, run chown 0 "},
		{"config another user's, changed", true, func(t *testing.T, home string) {
			plant(t, filepath.Join(home, "config.json"), plantedConfig, 0o600, true)
		}, []string{"config", "set", "tools.ask", "on"}, "belongs to uid 65534"},
		{"threads writable by everyone", false, func(t *testing.T, home string) {
			os.Chmod(filepath.Join(home, "threads"), 0o777)
		}, []string{"respond", "--model", "ollama:vault:1b", "--thread", "work", "go"}, "thread folder " + "HOME/threads is writable by others; run chmod 700 HOME/threads"},
		{"threads a symbolic link", false, func(t *testing.T, home string) {
			elsewhere := filepath.Join(t.TempDir(), "elsewhere")
			if err := os.Rename(filepath.Join(home, "threads"), elsewhere); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(elsewhere, filepath.Join(home, "threads")); err != nil {
				t.Fatal(err)
			}
		}, []string{"respond", "--model", "ollama:vault:1b", "--thread", "work", "go"}, "is a symbolic link; wisp keeps threads only in a real folder"},
		{"thread another user's", true, func(t *testing.T, home string) {
			chownNobody(t, filepath.Join(home, "threads", "work.json"))
		}, []string{"respond", "--model", "ollama:vault:1b", "--thread", "work", "go"}, "thread file HOME/threads/work.json belongs to uid 65534, not to you (uid 0); remove it (rm HOME/threads/work.json)"},
		{"thread writable by everyone", false, func(t *testing.T, home string) {
			os.Chmod(filepath.Join(home, "threads", "work.json"), 0o666)
		}, []string{"respond", "--model", "ollama:vault:1b", "--thread", "work", "go"}, "thread file HOME/threads/work.json is writable by others"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.root && os.Geteuid() != 0 {
				t.Skip("needs root to give a file to another user (uid 65534)")
			}
			srv, home := vaultModel(t, ollamatest.Reply{Content: "obeyed"})
			plant(t, filepath.Join(home, "threads", "work.json"), plantedThread, 0o600, false)
			tt.spoil(t, home)
			env := testEnv(home)
			env.getenv = func(k string) string {
				return map[string]string{"WISP_HOME": home, "OLLAMA_HOST": srv.URL}[k]
			}
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tt.args, strings.NewReader(""), &stdout, &stderr, env)
			mend := strings.ReplaceAll(tt.mend, "HOME", home)
			// respond names its thread on a line of its own first.
			errLine := strings.TrimPrefix(stderr.String(), "thread work\n")
			if code != 1 || strings.Count(errLine, "\n") != 1 || !strings.HasPrefix(errLine, "wisp: ") || !strings.Contains(errLine, mend) {
				t.Errorf("wisp %s = exit %d, %q; want 1 and one line that says %q", strings.Join(tt.args, " "), code, stderr.String(), mend)
			}
			if strings.Contains(stdout.String(), "dangerous") || strings.Contains(stdout.String(), "obeyed") || len(srv.Chats()) != 0 {
				t.Errorf("wisp %s obeyed what was planted: printed %q, the model was asked %d times", strings.Join(tt.args, " "), stdout.String(), len(srv.Chats()))
			}
		})
	}
}

// plant writes data to path with mode, as another user (uid 65534) when
// theirs is set.
func plant(t *testing.T, path, data string, mode os.FileMode, theirs bool) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	if theirs {
		chownNobody(t, path)
	}
}

func chownNobody(t *testing.T, path string) {
	t.Helper()
	if err := os.Lchown(path, 65534, 65534); err != nil {
		t.Fatal(err)
	}
}
