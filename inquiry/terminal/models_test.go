package terminal_test

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/config"
	"github.com/wisp-agent/wisp/inquiry/terminal"
	"github.com/wisp-agent/wisp/models"
)

// fakeBackend has one model, whose facts and check come from a backend
// that writes escapes.
type fakeBackend struct{}

var shady = wisp.ModelInfo{Name: "qwen3:4b", Runtime: "fake", Parameters: "4B\x1b[2J", Capabilities: []string{"completion", "tools"}, Usable: true}

func (fakeBackend) Runtime() string { return "fake" }

func (fakeBackend) List(context.Context) ([]wisp.ModelInfo, error) {
	return []wisp.ModelInfo{shady}, nil
}

func (fakeBackend) Show(_ context.Context, name string) (wisp.ModelInfo, error) {
	if name != shady.Name {
		return wisp.ModelInfo{}, models.ErrNotFound
	}
	return shady, nil
}

func (fakeBackend) Check(context.Context, string, *models.RunOptions) (models.CheckReport, error) {
	return models.CheckReport{Why: "the template is \x1b[31mbroken", Findings: []string{"template \x1b[31mbroken"}, Info: shady}, nil
}

// Models writes what a command says, every backend's word escaped, a
// failed check as its lines with its error after them, and nothing for
// any other error.
func TestModels(t *testing.T) {
	dir := t.TempDir()
	a := models.New(&models.Options{Backends: []models.Backend{fakeBackend{}},
		Settings: config.Store{Path: filepath.Join(dir, "config.json"), LockPath: filepath.Join(dir, "config.lock")}})
	tests := []struct {
		args    []string
		json    bool
		want    []string // what out holds, in part
		wantErr error    // nil: none
	}{
		{args: []string{"show", "fake:qwen3:4b"}, want: []string{"name: fake:qwen3:4b\n", `parameters: 4B\e[2J` + "\n"}},
		{args: []string{"check", "fake:qwen3:4b"}, want: []string{`fake:qwen3:4b failed its check: the template is \e[31mbroken` + "\n"}, wantErr: models.ErrCheckFailed},
		{args: []string{"list"}, want: []string{"fake:qwen3:4b", `4B\e[2J`}},
		{args: []string{"list"}, json: true, want: []string{`"name":"fake:qwen3:4b"`, `4B\u001b[2J`}},
		{args: []string{"list", "9"}, wantErr: models.ErrNoPage},
	}
	for _, tc := range tests {
		var out bytes.Buffer
		err := terminal.Models(context.Background(), a, tc.args, &out, &terminal.ModelsOptions{JSON: tc.json})
		if !errors.Is(err, tc.wantErr) {
			t.Errorf("Models(%q) = %v, want %v", tc.args, err, tc.wantErr)
		}
		for _, w := range tc.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("Models(%q) wrote\n%s\nwant it to hold %q", tc.args, out.String(), w)
			}
		}
		if tc.want == nil && out.Len() > 0 {
			t.Errorf("Models(%q) wrote %q, want nothing", tc.args, out.String())
		}
		if strings.Contains(out.String(), "\x1b") {
			t.Errorf("Models(%q) wrote an escape:\n%q", tc.args, out.String())
		}
	}
}
