//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/models/ollama/ollamatest"
	"github.com/wisp-agent/wisp/policy/secrets/secretstest"
)

// homeLeaks returns the cases of the corpus that some file under home
// holds, by file.
func homeLeaks(t *testing.T, home string, cases []secretstest.Case) map[string][]string {
	t.Helper()
	leaks := map[string][]string{}
	err := filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if l := secretstest.Leaks(b, cases); l != nil {
			leaks[path] = l
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return leaks
}

// A model that puts credentials in its tool calls, as the tools' names,
// as keys of their arguments, and as values only their keys show to be
// secret, leaves none of them in any file under the wisp home (the audit
// log, the thread) nor in what wisp prints (the ⚙ lines of the calls
// included).
func TestCorpusReachesNoSink(t *testing.T) {
	cases := secretstest.Corpus()
	var calls []ollamatest.ToolCall
	for i, c := range cases {
		args, err := json.Marshal(map[string]any{c.Text: "x", c.Key: c.Value, "q": c.Text})
		if err != nil {
			t.Fatal(err)
		}
		calls = append(calls, ollamatest.ToolCall{ID: fmt.Sprintf("call_%d", i), Name: c.Text, Arguments: string(args)})
	}
	var replies []ollamatest.Reply // a message makes at most agent.MaxToolCalls calls
	for rest := calls; len(rest) > 0; rest = rest[min(len(rest), agent.MaxToolCalls):] {
		replies = append(replies, ollamatest.Reply{ToolCalls: rest[:min(len(rest), agent.MaxToolCalls)]})
	}
	srv, home := vaultModel(t, append(replies, ollamatest.Reply{Content: "done"})...)
	env := testEnv(home)
	env.getenv = func(k string) string {
		return map[string]string{"WISP_HOME": home, "OLLAMA_HOST": srv.URL}[k]
	}
	var stdout, stderr bytes.Buffer
	args := []string{"respond", "--model", "ollama:vault:1b", "--thread", "corpus", "go"}
	if code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr, env); code != 0 {
		t.Fatalf("wisp %s = exit %d:\n%s", strings.Join(args, " "), code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "done") || strings.Count(stderr.String(), "⚙") != len(calls) {
		t.Fatalf("wisp respond printed %q and %d tool lines, want done and %d:\n%s", stdout.String(), strings.Count(stderr.String(), "⚙"), len(calls), stderr.String())
	}
	for what, out := range map[string][]byte{"stdout": stdout.Bytes(), "stderr": stderr.Bytes()} {
		if l := secretstest.Leaks(out, cases); l != nil {
			t.Errorf("%s holds %d cases of the corpus: %v", what, len(l), l)
		}
	}
	for path, l := range homeLeaks(t, home, cases) {
		t.Errorf("%s holds %d cases of the corpus: %v", path, len(l), l)
	}
	if _, err := os.Stat(filepath.Join(home, "threads", "corpus.json")); err != nil {
		t.Errorf("the thread was not saved: %v", err)
	}
}

// wisp config set refuses a credential for any setting with one line
// that does not repeat it, and leaves config.json as it was: a publisher,
// a model or a tool name is never a credential.
func TestConfigSetRefusesCredentials(t *testing.T) {
	cases := secretstest.Corpus()
	home := t.TempDir()
	env := testEnv(home)
	before, err := os.ReadFile(filepath.Join(home, "config.json"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	for _, c := range cases {
		for _, key := range []string{"models.trusted", "models.default", "models.enabled", "tools.disabled", "approval.threshold", "tools.ask"} {
			var stdout, stderr bytes.Buffer
			// After "--", so a private key's dashes are not read as a flag.
			code := run(context.Background(), []string{"config", "set", "--", key, c.Text}, strings.NewReader(""), &stdout, &stderr, env)
			if code != 2 || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), "never holds a credential") {
				t.Fatalf("case %s: wisp config set %s = exit %d, %q; want 2 and one line refusing a credential", c.Name, key, code, stderr.String())
			}
			if l := secretstest.Leaks(append(stdout.Bytes(), stderr.Bytes()...), cases); l != nil {
				t.Errorf("case %s: wisp config set %s printed %v: %q", c.Name, key, l, stderr.String())
			}
		}
		// Read as a flag, or as a key: either way it is not repeated.
		for _, args := range [][]string{{"config", "set", "models.trusted", c.Text}, {"config", "get", c.Text}} {
			var stdout, stderr bytes.Buffer
			if code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr, env); code != 2 || secretstest.Leaks(stderr.Bytes(), cases) != nil {
				t.Errorf("case %s: wisp %s = exit %d, %q; want 2 without it", c.Name, strings.Join(args[:2], " "), code, stderr.String())
			}
		}
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), []string{"config", "get", "--", c.Text}, strings.NewReader(""), &stdout, &stderr, env); code != 2 || secretstest.Leaks(stderr.Bytes(), cases) != nil {
			t.Errorf("case %s: wisp config get with the credential as key = exit %d, %q; want 2 without it", c.Name, code, stderr.String())
		}
	}
	after, err := os.ReadFile(filepath.Join(home, "config.json"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Errorf("config.json changed:\n%s", after)
	}
	for path, l := range homeLeaks(t, home, cases) {
		t.Errorf("%s holds %d cases of the corpus: %v", path, len(l), l)
	}
}

// A piped wisp chat writes a transcript of what the person sent; a
// credential in it shows as its marker, as the model and the audit log
// get it.
func TestPipedChatShowsMarkers(t *testing.T) {
	cases := secretstest.Corpus()
	var line []string
	for _, c := range cases {
		if !strings.ContainsAny(c.Text, "\r\n") {
			line = append(line, c.Text)
		}
	}
	srv, home := vaultModel(t, ollamatest.Reply{Content: "ok"})
	env := testEnv(home)
	env.getenv = func(k string) string {
		return map[string]string{"WISP_HOME": home, "OLLAMA_HOST": srv.URL}[k]
	}
	var stdout, stderr bytes.Buffer
	args := []string{"chat", "--model", "ollama:vault:1b"}
	if code := run(context.Background(), args, strings.NewReader(strings.Join(line, " ; ")+"\n"), &stdout, &stderr, env); code != 0 {
		t.Fatalf("wisp chat = exit %d:\n%s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "› ") || !strings.Contains(stdout.String(), "[REDACTED:") {
		t.Errorf("wisp chat showed %q, want the line with markers", stdout.String())
	}
	if l := secretstest.Leaks(append(stdout.Bytes(), stderr.Bytes()...), cases); l != nil {
		t.Errorf("wisp chat printed %d cases of the corpus: %v", len(l), l)
	}
	for path, l := range homeLeaks(t, home, cases) {
		t.Errorf("%s holds %d cases of the corpus: %v", path, len(l), l)
	}
}
