package models_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/escape"
	"github.com/wisp-agent/wisp/models"
)

// The table: a header, a row a model with its columns aligned and every
// backend's word escaped, then why each model that cannot be used
// cannot, the backends that did not answer, and the next page.
func TestFormatTable(t *testing.T) {
	l := wisp.Listing{Page: 1, Pages: 2, Unreachable: []string{"mlx: the server is not answering\x1b[2J"}, Models: []wisp.ModelInfo{
		{Name: "ollama:qwen3:4b", Runtime: "ollama", Parameters: "4.0B", Size: 2_500_000_000, Context: 40960, RunContext: 4096,
			Enabled: true, Usable: true, Capabilities: []string{"completion", "tools"}},
		{Name: "ollama:evil\x1b]0;x\x07:latest", Runtime: "ollama", Size: 1000, Context: 131072, Usable: false,
			Why: "cannot call tools", Capabilities: []string{"completion"}},
		{Name: "ollama:gone:latest", Runtime: "ollama", Enabled: true, Why: "ollama no longer has it; wisp models disable ollama:gone:latest forgets it"},
	}}
	want := `NAME                           RUNTIME  PARAMETERS  SIZE    CONTEXT  IN USE   STATE     CAPABILITIES
ollama:qwen3:4b                ollama   4.0B        2.5 GB  40,960   4,096    enabled   completion, tools
ollama:evil\e]0;x\u{7}:latest  ollama   ?           1.0 kB  131,072  default  disabled  completion
ollama:gone:latest             ollama   ?           ?       ?        default  enabled   undeclared
ollama:evil\e]0;x\u{7}:latest cannot be used: cannot call tools
ollama:gone:latest cannot be used: ollama no longer has it; wisp models disable ollama:gone:latest forgets it
(mlx: the server is not answering\e[2J)
page 1 of 2; wisp models list --page 2 shows more
`
	if diff := cmp.Diff(want, models.FormatTable(l)); diff != "" {
		t.Errorf("FormatTable (-want +got):\n%s", diff)
	}
	if got := models.FormatTable(wisp.Listing{Page: 1, Pages: 1}); got != "no models\n" {
		t.Errorf("FormatTable(no models) = %q, want %q", got, "no models\n")
	}
}

// ListJSON gives every model, on no page, with its facts, and the
// backends that did not answer; nothing in it is unsafe on a terminal.
func TestListJSON(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if _, err := f.actions.Enable(ctx, "qwen3:4b", wisp.ActorPerson); err != nil {
		t.Fatal(err)
	}
	b, err := models.ListJSON(ctx, f.actions)
	if err != nil {
		t.Fatal(err)
	}
	if !escape.Clean(strings.TrimSuffix(string(b), "\n")) || !strings.HasSuffix(string(b), "}\n") {
		t.Errorf("ListJSON = %q, want one clean line", b)
	}
	type model struct {
		Name, Runtime, Parameters, Quantization, Digest, Why, Licence string
		Size                                                          int64
		Context, RunContext                                           int
		Enabled, Usable                                               bool
		Capabilities                                                  []string
	}
	var got struct {
		Models      []model
		Unreachable []string
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("ListJSON = %q: %v", b, err)
	}
	var names []string
	for _, m := range got.Models {
		names = append(names, m.Name)
	}
	if diff := cmp.Diff([]string{"mlx:Qwen3-4B-4bit", "mlx:SmolLM-135M-4bit", "ollama:gemma3:latest", "ollama:granite4.1:8b", "ollama:qwen3:4b"}, names); diff != "" {
		t.Errorf("ListJSON models (-want +got):\n%s", diff)
	}
	wantQwen := model{Name: "ollama:qwen3:4b", Runtime: "ollama", Parameters: "4.0B", Quantization: "Q4_K_M", Digest: digest("qwen3:4b"),
		Licence: "Apache License 2.0", Size: 2_500_000_000, Context: 40960, RunContext: 4096, Enabled: true, Usable: true,
		Capabilities: []string{"completion", "tools", "thinking"}}
	if diff := cmp.Diff(wantQwen, got.Models[4]); diff != "" {
		t.Errorf("ListJSON ollama:qwen3:4b (-want +got):\n%s", diff)
	}
	if g := got.Models[2]; g.Usable || g.Why != models.LineCannotCallTools {
		t.Errorf("ListJSON ollama:gemma3:latest = %+v, want it not usable, and why", g)
	}
	if got.Unreachable == nil || len(got.Unreachable) != 0 {
		t.Errorf("ListJSON unreachable = %#v, want [] (every backend answered)", got.Unreachable)
	}
}

// RunCommand's list writes the table, or every model as JSON, which
// takes no page.
func TestRunCommandListFormats(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	table, err := models.RunCommand(ctx, f.actions, []string{"list"}, &models.CommandOptions{Table: true})
	if err != nil || !strings.HasPrefix(table, "NAME ") {
		t.Errorf("RunCommand(list) as a table = %q, %v; want the table", table, err)
	}
	js, err := models.RunCommand(ctx, f.actions, []string{"list"}, &models.CommandOptions{JSON: true})
	if want, _ := models.ListJSON(ctx, f.actions); err != nil || js != string(want) {
		t.Errorf("RunCommand(list) as JSON = %q, %v; want ListJSON's %q", js, err, want)
	}
	var ce *models.CommandError
	_, err = models.RunCommand(ctx, f.actions, []string{"list", "2"}, &models.CommandOptions{JSON: true})
	if !errors.As(err, &ce) || err.Error() != "list --json lists every model, on no page; leave the page out" {
		t.Errorf("RunCommand(list 2) as JSON = %v, want a *CommandError that says JSON takes no page", err)
	}
}
