package conversation_test

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp/conversation"
	"github.com/wisp-agent/wisp/policy/secrets/secretstest"
	"github.com/wisp-agent/wisp/wisptest"
)

// scan_secrets is off by default, on with tools.scan_secrets in a
// workspace, and its findings carry the markers the rest of the
// conversation gives the same values: a token the person typed, then
// found in a file, is [REDACTED:github-pat#1] in both, and its value
// reaches neither the model nor any file in the home.
func TestScanSecretsTool(t *testing.T) {
	f, _ := secretstest.Generate("github-pat", rand.New(rand.NewPCG(5, 6)))
	token := f.Text
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "app.env"), []byte("NAME=x\nTOKEN="+token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, settings string
		want           []string
	}{
		{name: "off by default", want: nil},
		{name: "on", settings: `{"tools":{"scan_secrets":true}}`, want: []string{"scan_secrets"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			if c.settings != "" {
				if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(c.settings), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			steps := []string{`{"content":"ok"}`}
			if c.want != nil {
				steps = []string{`{"content":"","tool_calls":[{"name":"scan_secrets","arguments":{}}]}`, `{"content":"done"}`}
			}
			m := model(t, steps...)
			conv, err := conversation.New(context.Background(), &conversation.Options{Home: home, Model: m, Workspace: ws, Face: wisptest.NewPerson()})
			if err != nil {
				t.Fatal(err)
			}
			defer conv.Close()
			if _, err := conv.Respond(context.Background(), "is my token "+token+" in the project?"); err != nil {
				t.Fatal(err)
			}
			reqs := m.Requests()
			var offered []string
			for _, s := range reqs[0].Tools {
				offered = append(offered, s.Name)
			}
			if diff := cmp.Diff(c.want, offered); diff != "" {
				t.Fatalf("the tools offered (-want +got):\n%s", diff)
			}
			if c.want == nil {
				return
			}
			last := reqs[len(reqs)-1].Messages
			got := last[len(last)-1].Content
			if want := "app.env:2:7: github-pat [REDACTED:github-pat#1]\n"; !strings.HasPrefix(got, want) {
				t.Errorf("scan_secrets gave the model %q; want it to start %q", got, want)
			}
			for _, r := range reqs {
				for _, msg := range r.Messages {
					if strings.Contains(msg.Content, token) {
						t.Errorf("the model read the token in %q", msg.Content)
					}
				}
			}
			conv.Close()
			if l := leaks(t, home, nil, token); len(l) > 0 {
				t.Errorf("the token reached the home: %v", l)
			}
		})
	}
}
