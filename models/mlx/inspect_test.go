package mlx

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHumanParameters(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{4022468096, "4.0B"},
		{14768307200, "14.8B"},
		{7000000000, "7B"},
		{1000000000, "1B"},
		{596049920, "596M"},
		{999499999, "999M"},
		{1000000, "1M"},
		{50000, "50K"},
		{999, "999"},
		{0, "0"},
	}
	for _, tt := range tests {
		if got := humanParameters(tt.n); got != tt.want {
			t.Errorf("humanParameters(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

// object decodes a JSON object for the tests of what is read from one.
func object(t *testing.T, s string) map[string]json.RawMessage {
	t.Helper()
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

func TestQuantization(t *testing.T) {
	tests := []struct {
		config string
		want   string
	}{
		{`{"quantization": {"group_size": 64, "bits": 4, "mode": "affine"}}`, "4-bit"},
		{`{"quantization": {"group_size": 64, "bits": 8}}`, "8-bit"},
		{`{"quantization": {"group_size": 32, "bits": 4, "mode": "mxfp4"}}`, "mxfp4"},
		{`{"quantization": {"group_size": 16, "bits": 4, "mode": "nvfp4"}}`, "nvfp4"},
		{`{"quantization": {"bits": 4.0}}`, "4-bit"},
		{`{"quantization": {"group_size": 64, "bits": 3, "model.layers.0.mlp.down_proj": {"group_size": 64, "bits": 6}}}`, "3-bit"},
		{`{"quantization_config": {"group_size": 64, "bits": 6}}`, "6-bit"},
		{`{"quantization": null, "torch_dtype": "bfloat16"}`, ""},
		{`{"quantization": {"bits": "four"}}`, ""},
		{`{}`, ""},
	}
	for _, tt := range tests {
		if got := quantization(object(t, tt.config)); got != tt.want {
			t.Errorf("quantization(%s) = %q, want %q", tt.config, got, tt.want)
		}
	}
}

func TestContextLength(t *testing.T) {
	tests := []struct {
		config string
		want   int
	}{
		{`{"max_position_embeddings": 40960}`, 40960},
		{`{"max_position_embeddings": 32768.0}`, 32768},
		{`{"text_config": {"max_position_embeddings": 131072}, "vision_config": {}}`, 131072},
		{`{"max_position_embeddings": 8192, "text_config": {"max_position_embeddings": 131072}}`, 8192},
		{`{"max_position_embeddings": "long"}`, 0},
		{`{"max_position_embeddings": -1}`, 0},
		{`{}`, 0},
	}
	for _, tt := range tests {
		if got := contextLength(object(t, tt.config)); got != tt.want {
			t.Errorf("contextLength(%s) = %d, want %d", tt.config, got, tt.want)
		}
	}
}

func TestLicence(t *testing.T) {
	tests := []struct {
		name   string
		readme string // "" writes no README.md
		want   string
	}{
		{"plain", "---\nlicense: apache-2.0\nlibrary_name: mlx\n---\n# Model\n", "apache-2.0"},
		{"quoted", "---\nlicense: \"mit\"\n---\n", "mit"},
		{"Windows line ends", "---\r\nlicense: mit\r\n---\r\n", "mit"},
		{"other, with a name", "---\nlicense: other\nlicense_name: qwen-research\nlicense_link: LICENSE\n---\n", "qwen-research"},
		{"other, without a name", "---\nlicense: other\n---\n", "other"},
		{"nested key is not the licence", "---\ncardData:\n  license: mit\n---\n", ""},
		{"after the front matter", "---\ntags:\n- mlx\n---\nlicense: mit\n", ""},
		{"no front matter", "# Model\nlicense: mit\n", ""},
		{"no README.md", "", ""},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		if tt.readme != "" {
			if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(tt.readme), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if got := licence(dir); got != tt.want {
			t.Errorf("%s: licence() = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestRepoFromFolder(t *testing.T) {
	tests := []struct {
		folder, want string
	}{
		{"models--mlx-community--Qwen3-4B-4bit", "mlx-community/Qwen3-4B-4bit"},
		{"models--Qwen--Qwen3-0.6B", "Qwen/Qwen3-0.6B"},
		{"datasets--org--name", ""},
		{"models--org", ""},
		{"models----name", ""},
		{"models--org--", ""},
		{"models--org--a--b", ""},
	}
	for _, tt := range tests {
		if got := repoFromFolder(tt.folder); got != tt.want {
			t.Errorf("repoFromFolder(%q) = %q, want %q", tt.folder, got, tt.want)
		}
	}
}

func TestDigestKind(t *testing.T) {
	tests := []struct {
		etag, want string
	}{
		{strings.Repeat("a1", 32), "SHA-256"},
		{strings.Repeat("0f", 20), "git SHA-1"},
		{strings.Repeat("A1", 32), ""}, // the hub's etags are lower case
		{strings.Repeat("a", 63), ""},
		{strings.Repeat("g", 40), ""},
		{"model.safetensors", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := digestKind(tt.etag); got != tt.want {
			t.Errorf("digestKind(%q) = %q, want %q", tt.etag, got, tt.want)
		}
	}
}

func TestHashFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(big, make([]byte, 3*hashChunk+1), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path, kind, want string
	}{
		// What sha256sum and git hash-object say of "hello\n".
		{path, sha256Kind, "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"},
		{path, gitKind, "ce013625030ba8dba906f756967f9e9ca394464a"},
		// A file of several chunks.
		{big, sha256Kind, "5983281b51c767c831104f52c95e4075f27e6f4fa8dd0526e3929f79176a1217"},
	}
	for _, tt := range tests {
		got, err := hashFile(t.Context(), tt.path, tt.kind)
		if err != nil || got != tt.want {
			t.Errorf("hashFile(%s, %s) = %q, %v, want %q", filepath.Base(tt.path), tt.kind, got, err, tt.want)
		}
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := hashFile(ctx, big, sha256Kind); !errors.Is(err, context.Canceled) {
		t.Errorf("hashFile(cancelled) error = %v, want context.Canceled", err)
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := readFile(path, 5); err != nil || string(data) != "12345" {
		t.Errorf("readFile(5 bytes, limit 5) = %q, %v, want the file", data, err)
	}
	if _, err := readFile(path, 4); !errors.As(err, new(tooLarge)) {
		t.Errorf("readFile(5 bytes, limit 4) error = %v, want tooLarge", err)
	}
	if _, err := readFile(dir, 4); !errors.Is(err, errNotRegular) {
		t.Errorf("readFile(a folder) error = %v, want errNotRegular", err)
	}
	if err := os.WriteFile(path, []byte("[1, 2]"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readObject(path); !errors.Is(err, errNotJSON) {
		t.Errorf("readObject(an array) error = %v, want errNotJSON", err)
	}
}

func TestProblem(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{&fs.PathError{Op: "stat", Path: "/x/config.json", Err: fs.ErrNotExist}, "config.json is missing; pull it again"},
		{tooLarge{maxTemplate}, "config.json is larger than 1 MiB; pull it again"},
		{tooLarge{maxJSON}, "config.json is larger than 8 MiB; pull it again"},
		{errNotJSON, "config.json is not valid JSON; pull it again"},
		{errNotRegular, "config.json is not a file; pull it again"},
		{&fs.PathError{Op: "open", Path: "/x/config.json", Err: fs.ErrPermission}, "config.json cannot be read (permission denied); pull it again"},
	}
	for _, tt := range tests {
		if got := problem("config.json", tt.err, "pull it again"); got != tt.want {
			t.Errorf("problem(config.json, %v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}
