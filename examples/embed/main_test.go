package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/audit"
	"github.com/wisp-agent/wisp/models/script"
	"github.com/wisp-agent/wisp/policy/secrets/secretstest"
)

// Every credential of the corpus, typed as the person's message to the
// embedding program, reaches no sink: not the model's requests, not what
// the program prints, not the audit log nor the thread, which is kept; and
// the audit chain verifies. The program gets these guarantees from
// conversation.New alone.
func TestCredentialReachesNoSink(t *testing.T) {
	cases := secretstest.Corpus()
	var message []string
	for _, c := range cases {
		if !strings.ContainsAny(c.Text, "\r\n") { // one line is one message
			message = append(message, c.Text)
		}
	}
	model, err := script.Load(filepath.Join("..", "scripts", "ask.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var out bytes.Buffer
	in := strings.NewReader(strings.Join(message, " ; ") + "\n2\n")
	if err := run(context.Background(), dir, model, in, &out); err != nil {
		t.Fatalf("run = %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "I will replace the config you chose") {
		t.Errorf("the program printed %q, want the reply", out.String())
	}

	sent, err := json.Marshal(model.Requests())
	if err != nil {
		t.Fatal(err)
	}
	sinks := map[string][]byte{"the model's requests": sent, "stdout": out.Bytes()}
	threads := 0
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(path)
		if strings.HasPrefix(path, filepath.Join(dir, "threads")) {
			threads++
		}
		sinks[path] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := sinks[filepath.Join(dir, "audit", "audit.jsonl")]; threads != 1 || !ok {
		t.Fatalf("the home holds %d thread files (want 1), and an audit log: %v", threads, ok)
	}
	for sink, b := range sinks {
		if l := secretstest.Leaks(b, cases); l != nil {
			t.Errorf("%s holds %d cases of the corpus: %v", sink, len(l), l)
		}
	}
	if !strings.Contains(string(sent), "[REDACTED:") {
		t.Errorf("the model was not sent the markers: %s", sent)
	}
	r, err := audit.Verify(filepath.Join(dir, "audit"))
	if err != nil || r.Break != nil || r.Torn != nil || r.Records == 0 {
		t.Errorf("audit.Verify = %+v, %v; want an intact chain", r, err)
	}
}
