package mlx_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wisp-agent/wisp/models"
	"github.com/wisp-agent/wisp/models/mlx"
	"github.com/wisp-agent/wisp/models/mlx/mlxtest"
)

// flip changes one byte of the blob behind the snapshot file path,
// leaving its size as it was.
func flip(t *testing.T, snapshot, path string) {
	t.Helper()
	blob := blobOf(t, snapshot, path)
	data, err := os.ReadFile(blob)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0x01
	if err := os.WriteFile(blob, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// blobOf returns the blob the snapshot file path links to.
func blobOf(t *testing.T, snapshot, path string) string {
	t.Helper()
	link := filepath.Join(snapshot, filepath.FromSlash(path))
	target, err := os.Readlink(link)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(filepath.Dir(link), target)
}

// etag returns the etag of the file at path in r.
func etag(t *testing.T, r mlxtest.Repo, path string) string {
	t.Helper()
	for _, f := range r.Files {
		if f.Path == path {
			return f.Etag()
		}
	}
	t.Fatalf("the fixture has no %s", path)
	return ""
}

func TestCheck(t *testing.T) {
	tools := mlxtest.Qwen3Tools("mlx-community", "M")
	rest := []string{
		"config.json parses",
		"2 of 2 shards the index names are present",
		"tokenizer found (tokenizer.json)",
		"chat template found (tokenizer_config.json)",
		"chat template supports tool calls (json_tools parser, inferred from the chat template)",
	}
	tests := []struct {
		name   string
		setup  func(t *testing.T, home string) // writes the model "M"
		wantOK bool
		want   []string
	}{
		{
			name:   "every file matches",
			setup:  func(t *testing.T, home string) { mlxtest.Write(t, home, tools) },
			wantOK: true,
			want:   append([]string{"9 of 9 files match their digests"}, rest...),
		},
		{
			name:   "a template without tool calls passes",
			setup:  func(t *testing.T, home string) { mlxtest.Write(t, home, mlxtest.NoTools("acme", "M")) },
			wantOK: true,
			want: []string{
				"9 of 9 files match their digests",
				"config.json parses",
				"2 of 2 shards the index names are present",
				"tokenizer found (tokenizer.json)",
				"chat template found (tokenizer_config.json)",
				"chat template does not support tool calls",
			},
		},
		{
			name: "a flipped byte in a shard",
			setup: func(t *testing.T, home string) {
				flip(t, mlxtest.Write(t, home, tools), "model-00002-of-00002.safetensors")
			},
			want: append([]string{
				"model-00002-of-00002.safetensors does not match its digest (SHA-256 " +
					etag(t, tools, "model-00002-of-00002.safetensors")[:12] + "…); pull it again",
			}, rest...),
		},
		{
			name: "a flipped byte in a small file",
			setup: func(t *testing.T, home string) {
				flip(t, mlxtest.Write(t, home, tools), "README.md")
			},
			want: append([]string{
				"README.md does not match its digest (git SHA-1 " + etag(t, tools, "README.md")[:12] + "…); pull it again",
			}, rest...),
		},
		{
			name: "a blob that is gone",
			setup: func(t *testing.T, home string) {
				if err := os.Remove(blobOf(t, mlxtest.Write(t, home, tools), "special_tokens_map.json")); err != nil {
					t.Fatal(err)
				}
			},
			want: append([]string{"special_tokens_map.json is missing: its blob is gone; pull it again"}, rest...),
		},
		{
			name: "a file that is not a link to a blob",
			setup: func(t *testing.T, home string) {
				path := filepath.Join(mlxtest.Write(t, home, tools), ".gitattributes")
				if err := os.Remove(path); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte("*.safetensors filter=lfs\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			want: append([]string{".gitattributes has no recorded digest: it is not a link to a blob; pull it again"}, rest...),
		},
		{
			name: "a shard the index names is missing",
			setup: func(t *testing.T, home string) {
				mlxtest.Write(t, home, tools.Without("model-00001-of-00002.safetensors"))
			},
			want: []string{
				"8 of 8 files match their digests",
				"config.json parses",
				"model-00001-of-00002.safetensors is missing (the index names it); pull it again",
				"tokenizer found (tokenizer.json)",
				"chat template found (tokenizer_config.json)",
				"chat template supports tool calls (json_tools parser, inferred from the chat template)",
			},
		},
		{
			name: "no chat template",
			setup: func(t *testing.T, home string) {
				mlxtest.Write(t, home, tools.With(mlxtest.File{Path: "tokenizer_config.json", Data: []byte(`{"eos_token": "<|im_end|>"}`)}))
			},
			want: []string{
				"9 of 9 files match their digests",
				"config.json parses",
				"2 of 2 shards the index names are present",
				"tokenizer found (tokenizer.json)",
				"no chat template: neither chat_template.jinja nor a chat_template in tokenizer_config.json; the model cannot chat",
			},
		},
		{
			name: "the snapshot is gone",
			setup: func(t *testing.T, home string) {
				if err := os.RemoveAll(mlxtest.Write(t, home, tools)); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"its files are gone: the link points at a missing snapshot; pull it again"},
		},
		{
			name:   "a folder of one's own",
			setup:  func(t *testing.T, home string) { writeFolder(t, home, "M", mine()) },
			wantOK: true,
			want: []string{
				"no recorded digests (a folder of your own)",
				"config.json parses",
				"1 weight file, no index",
				"tokenizer found (tokenizer.json)",
				"chat template found (chat_template.jinja)",
				"chat template supports tool calls (mistral parser, inferred from the chat template)",
			},
		},
		{
			name: "a folder of one's own with a broken config",
			setup: func(t *testing.T, home string) {
				writeFolder(t, home, "M", append(mine(), mlxtest.File{Path: "config.json", Data: []byte("not json")}))
			},
			want: []string{
				"no recorded digests (a folder of your own)",
				"config.json is not valid JSON; copy the model into its folder again",
				"1 weight file, no index",
				"tokenizer found (tokenizer.json)",
				"chat template found (chat_template.jinja)",
				"chat template supports tool calls (mistral parser, inferred from the chat template)",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			tt.setup(t, home)
			got, err := mlx.New(home).Check(t.Context(), "M", nil)
			if err != nil {
				t.Fatalf("Check(M) error = %v", err)
			}
			if diff := cmp.Diff(tt.want, got.Findings); diff != "" {
				t.Errorf("Check(M) findings mismatch (-want +got):\n%s", diff)
			}
			if got.OK != tt.wantOK {
				t.Errorf("Check(M).OK = %v, want %v", got.OK, tt.wantOK)
			}
			if got.Info.Name != "M" || got.Info.Runtime != "mlx" {
				t.Errorf("Check(M).Info names %q, %q, want M, mlx", got.Info.Name, got.Info.Runtime)
			}
		})
	}
}

func TestCheckInfo(t *testing.T) {
	home := t.TempDir()
	mlxtest.Write(t, home, mlxtest.Qwen3Tools("mlx-community", "Qwen3-4B-4bit"))
	b := mlx.New(home)
	want, err := b.Show(t.Context(), "Qwen3-4B-4bit")
	if err != nil {
		t.Fatal(err)
	}
	got, err := b.Check(t.Context(), "Qwen3-4B-4bit", nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got.Info); diff != "" {
		t.Errorf("Check(Qwen3-4B-4bit).Info differs from Show (-want +got):\n%s", diff)
	}
}

func TestCheckNotFound(t *testing.T) {
	home := t.TempDir()
	mlxtest.Write(t, home, mlxtest.Qwen3Tools("mlx-community", "Qwen3-4B-4bit"))
	if _, err := mlx.New(home).Check(t.Context(), "Qwen3-8B-4bit", nil); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("Check(Qwen3-8B-4bit) error = %v, want one wrapping models.ErrNotFound", err)
	}
}
