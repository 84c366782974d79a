package mlx_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/models"
	"github.com/wisp-agent/wisp/models/mlx"
	"github.com/wisp-agent/wisp/models/mlx/mlxtest"
)

// size is the sum of the sizes of r's files.
func size(r mlxtest.Repo) int64 {
	var n int64
	for _, f := range r.Files {
		n += int64(len(f.Data))
	}
	return n
}

// writeFolder writes files as a folder of one's own,
// <home>/models/mlx/<name>, and returns the sum of their sizes.
func writeFolder(t *testing.T, home, name string, files []mlxtest.File) int64 {
	t.Helper()
	dir := filepath.Join(home, "models", "mlx", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, f := range files {
		path := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
		n += int64(len(f.Data))
	}
	return n
}

// mine returns a folder of one's own: a Llama-like model with one weight
// file, no index, and a template with Mistral's tool calls.
func mine() []mlxtest.File {
	return []mlxtest.File{
		{Path: "config.json", Data: []byte(`{"model_type": "llama", "max_position_embeddings": 8192}`)},
		{Path: "model.safetensors", Data: []byte("weights")},
		{Path: "tokenizer.json", Data: []byte(`{"version": "1.0"}`)},
		{Path: "chat_template.jinja", Data: []byte(`{%- for m in messages %}[INST]{{ m.content }}[/INST]{%- endfor %}[TOOL_CALLS]`)},
	}
}

// vision is a repository shaped like Qwen3Tools whose config.json is a
// vision model's, with the context length nested in text_config.
func vision(org, name string) mlxtest.Repo {
	return mlxtest.Qwen3Tools(org, name).With(mlxtest.File{Path: "config.json", Data: []byte(`{
  "model_type": "qwen2_5_vl",
  "text_config": {"max_position_embeddings": 128000},
  "vision_config": {"depth": 32, "hidden_size": 1280},
  "quantization": {"group_size": 64, "bits": 8}
}`)})
}

// fixtureHome writes a home holding one model of each kind, and returns
// it and what List should say of them, in name order.
func fixtureHome(t *testing.T) (string, []wisp.ModelInfo) {
	t.Helper()
	home := t.TempDir()
	all := []string{"completion", "tools", "thinking"}

	tools := mlxtest.Qwen3Tools("mlx-community", "Qwen3-4B-4bit")
	mlxtest.Write(t, home, tools)
	plain := mlxtest.NoTools("acme", "Plain-4bit")
	mlxtest.Write(t, home, plain)
	vis := vision("mlx-community", "Vision-8bit")
	mlxtest.Write(t, home, vis)
	badConfig := mlxtest.Qwen3Tools("mlx-community", "BadConfig-4bit").With(mlxtest.File{Path: "config.json", Data: []byte(`{"model_type": "qwen3",`)})
	mlxtest.Write(t, home, badConfig)
	noShard := mlxtest.Qwen3Tools("mlx-community", "NoShard-4bit").Without("model-00002-of-00002.safetensors")
	mlxtest.Write(t, home, noShard)
	noTokenizer := mlxtest.Qwen3Tools("mlx-community", "NoTokenizer-4bit").Without("tokenizer.json")
	mlxtest.Write(t, home, noTokenizer)
	noWeights := mlxtest.Qwen3Tools("mlx-community", "NoWeights-4bit").Without("model-00001-of-00002.safetensors").Without("model-00002-of-00002.safetensors")
	mlxtest.Write(t, home, noWeights)
	snapshot := mlxtest.Write(t, home, mlxtest.Qwen3Tools("mlx-community", "Dangling-4bit"))
	if err := os.RemoveAll(snapshot); err != nil {
		t.Fatal(err)
	}
	mineSize := writeFolder(t, home, "Mine", mine())
	writeFolder(t, home, "Mine-empty", nil)

	// Entries that are not models: a link a pull is still making, and a
	// stray file.
	dir := filepath.Join(home, "models", "mlx")
	if err := os.Symlink("../../hub/models--x--y/snapshots/0", filepath.Join(dir, ".pulling-y")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "stray.txt"), []byte("not a model"), 0o644); err != nil {
		t.Fatal(err)
	}

	want := []wisp.ModelInfo{
		{
			Name: "BadConfig-4bit", Runtime: "mlx", Repo: "mlx-community/BadConfig-4bit",
			Parameters: "4.0B", Size: size(badConfig), Capabilities: all, Licence: "apache-2.0",
			Why: "config.json is not valid JSON; pull it again",
		},
		{
			Name: "Dangling-4bit", Runtime: "mlx", Repo: "mlx-community/Dangling-4bit",
			Why: "its files are gone: the link points at a missing snapshot; pull it again",
		},
		{
			Name: "Mine", Runtime: "mlx", Size: mineSize, Context: 8192,
			Capabilities: []string{"completion", "tools"}, Usable: true,
		},
		{
			Name: "Mine-empty", Runtime: "mlx",
			Why: "config.json is missing; copy the model into its folder again",
		},
		{
			Name: "NoShard-4bit", Runtime: "mlx", Repo: "mlx-community/NoShard-4bit",
			Parameters: "4.0B", Quantization: "4-bit", Size: size(noShard), Context: 40960,
			Capabilities: all, Licence: "apache-2.0",
			Why: "model-00002-of-00002.safetensors is missing (the index names it); pull it again",
		},
		{
			Name: "NoTokenizer-4bit", Runtime: "mlx", Repo: "mlx-community/NoTokenizer-4bit",
			Parameters: "4.0B", Quantization: "4-bit", Size: size(noTokenizer), Context: 40960,
			Capabilities: all, Licence: "apache-2.0",
			Why: "no tokenizer: the folder has none of tokenizer.json, tokenizer.model or a vocabulary file; pull it again",
		},
		{
			Name: "NoWeights-4bit", Runtime: "mlx", Repo: "mlx-community/NoWeights-4bit",
			Parameters: "4.0B", Quantization: "4-bit", Size: size(noWeights), Context: 40960,
			Capabilities: all, Licence: "apache-2.0",
			Why: "no weights: the folder has no model*.safetensors file; pull it again",
		},
		{
			Name: "Plain-4bit", Runtime: "mlx", Repo: "acme/Plain-4bit",
			Parameters: "4.0B", Quantization: "4-bit", Size: size(plain), Context: 40960,
			Capabilities: []string{"completion"}, Licence: "apache-2.0", Usable: true,
		},
		{
			Name: "Qwen3-4B-4bit", Runtime: "mlx", Repo: "mlx-community/Qwen3-4B-4bit",
			Parameters: "4.0B", Quantization: "4-bit", Size: size(tools), Context: 40960,
			Capabilities: all, Licence: "apache-2.0", Usable: true,
		},
		{
			Name: "Vision-8bit", Runtime: "mlx", Repo: "mlx-community/Vision-8bit",
			Parameters: "4.0B", Quantization: "8-bit", Size: size(vis), Context: 128000,
			Capabilities: []string{"completion", "tools", "thinking", "vision"}, Licence: "apache-2.0", Usable: true,
		},
	}
	for i := range want {
		want[i].RunContext = want[i].Context // an MLX server runs a model with all it takes
		if want[i].Repo != "" {
			want[i].Digest = filepath.Base(snapshot) // the commit pulled
		}
	}
	return home, want
}

func TestList(t *testing.T) {
	home, want := fixtureHome(t)
	got, err := mlx.New(home).List(t.Context())
	if err != nil {
		t.Fatalf("List() error = %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("List() mismatch (-want +got):\n%s", diff)
	}
}

func TestListWithoutModelsFolder(t *testing.T) {
	got, err := mlx.New(t.TempDir()).List(t.Context())
	if err != nil || len(got) != 0 {
		t.Errorf("List() on an empty home = %v, %v; want no models and no error", got, err)
	}
}

func TestShow(t *testing.T) {
	home, want := fixtureHome(t)
	b := mlx.New(home)
	for _, w := range want {
		t.Run(w.Name, func(t *testing.T) {
			got, err := b.Show(t.Context(), w.Name)
			if err != nil {
				t.Fatalf("Show(%q) error = %v", w.Name, err)
			}
			if diff := cmp.Diff(w, got); diff != "" {
				t.Errorf("Show(%q) mismatch (-want +got):\n%s", w.Name, diff)
			}
		})
	}
}

func TestShowNotFound(t *testing.T) {
	home, _ := fixtureHome(t)
	b := mlx.New(home)
	for _, name := range []string{
		"Qwen3-4B",             // no such model
		"qwen3-4b-4bit",        // the name in another case
		"stray.txt",            // a file, not a model
		".pulling-y",           // a link a pull is making
		"",                     // no name
		".",                    // the models folder itself
		"../../hub",            // outside the models folder
		"Qwen3-4B-4bit/config", // inside a model
	} {
		if _, err := b.Show(t.Context(), name); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("Show(%q) error = %v, want one wrapping models.ErrNotFound", name, err)
		}
	}
}

func TestCancelled(t *testing.T) {
	home, _ := fixtureHome(t)
	b := mlx.New(home)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := b.List(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("List(cancelled) error = %v, want context.Canceled", err)
	}
	if _, err := b.Show(ctx, "Qwen3-4B-4bit"); !errors.Is(err, context.Canceled) {
		t.Errorf("Show(cancelled) error = %v, want context.Canceled", err)
	}
	if _, err := b.Check(ctx, "Qwen3-4B-4bit", nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Check(cancelled) error = %v, want context.Canceled", err)
	}
}

func TestRuntime(t *testing.T) {
	if got := mlx.New(t.TempDir()).Runtime(); got != "mlx" {
		t.Errorf("Runtime() = %q, want %q", got, "mlx")
	}
}

func TestResolve(t *testing.T) {
	home := t.TempDir()
	mlxtest.Write(t, home, mlxtest.Qwen3Tools("mlx-community", "Qwen3-4B-4bit"))
	mlxtest.Write(t, home, mlxtest.NoTools("acme", "Plain-4bit"))
	snapshot := mlxtest.Write(t, home, mlxtest.NoTools("mlx-community", "Gone-4bit"))
	if err := os.RemoveAll(snapshot); err != nil {
		t.Fatal(err)
	}
	writeFolder(t, home, "Mine", mine())
	// A second link into Qwen3-4B-4bit's repository, sorting first: the
	// link named like the repository still wins.
	dir := filepath.Join(home, "models", "mlx")
	if err := os.Symlink("../../hub/models--mlx-community--Qwen3-4B-4bit/snapshots/5e1d6c0b9a8f7e6d5c4b3a29180f7e6d5c4b3a29", filepath.Join(dir, "Alias")); err != nil {
		t.Fatal(err)
	}
	// A link into a repository under another name only.
	if err := os.Symlink("../../hub/models--acme--Other/snapshots/5e1d6c0b9a8f7e6d5c4b3a29180f7e6d5c4b3a29", filepath.Join(dir, "Nickname")); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		repo   string
		want   string
		wantOK bool
	}{
		{"mlx-community/Qwen3-4B-4bit", "Qwen3-4B-4bit", true},
		{"MLX-Community/qwen3-4b-4BIT", "Qwen3-4B-4bit", true},
		{"acme/Plain-4bit", "Plain-4bit", true},
		{"mlx-community/Gone-4bit", "Gone-4bit", true}, // its snapshot is gone, its link is not
		{"acme/other", "Nickname", true},
		{"mlx-community/Plain-4bit", "", false}, // another publisher's
		{"acme/Qwen3-4B-4bit", "", false},
		{"Mine", "", false}, // a folder of one's own has no repository
		{"", "", false},
	}
	b := mlx.New(home)
	for _, tt := range tests {
		got, ok := b.Resolve(tt.repo)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("Resolve(%q) = %q, %v, want %q, %v", tt.repo, got, ok, tt.want, tt.wantOK)
		}
	}
	if got, ok := mlx.New(t.TempDir()).Resolve("mlx-community/Qwen3-4B-4bit"); ok {
		t.Errorf("Resolve on an empty home = %q, true, want false", got)
	}
}
