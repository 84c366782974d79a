package mlxtest_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wisp-agent/wisp/models/mlx/mlxtest"
)

func TestEtag(t *testing.T) {
	tests := []struct {
		f    mlxtest.File
		want string
	}{
		// What git hash-object and sha256sum say of "hello\n".
		{mlxtest.File{Data: []byte("hello\n")}, "ce013625030ba8dba906f756967f9e9ca394464a"},
		{mlxtest.File{Data: []byte("hello\n"), LFS: true}, "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"},
		{mlxtest.File{}, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"}, // git's empty blob
	}
	for _, tt := range tests {
		if got := tt.f.Etag(); got != tt.want {
			t.Errorf("File{Data: %q, LFS: %v}.Etag() = %q, want %q", tt.f.Data, tt.f.LFS, got, tt.want)
		}
	}
}

func TestWrite(t *testing.T) {
	home := t.TempDir()
	sub := mlxtest.File{Path: "additional_chat_templates/tool_use.jinja", Data: []byte("{{ x }}")}
	r := mlxtest.Repo{
		Org: "acme", Name: "Tiny", Commit: "0123456789abcdef0123456789abcdef01234567",
		Files: []mlxtest.File{
			{Path: "config.json", Data: []byte("{}")},
			{Path: "model.safetensors", Data: []byte("weights"), LFS: true},
			sub,
		},
	}
	snapshot := mlxtest.Write(t, home, r)

	repoDir := filepath.Join(home, "hub", "models--acme--Tiny")
	if want := filepath.Join(repoDir, "snapshots", r.Commit); snapshot != want {
		t.Errorf("Write() = %q, want %q", snapshot, want)
	}
	readlink := func(path string) string {
		t.Helper()
		target, err := os.Readlink(path)
		if err != nil {
			t.Fatal(err)
		}
		return filepath.ToSlash(target)
	}
	for _, f := range r.Files {
		link := filepath.Join(snapshot, filepath.FromSlash(f.Path))
		want := strings.Repeat("../", 2+strings.Count(f.Path, "/")) + "blobs/" + f.Etag()
		if got := readlink(link); got != want {
			t.Errorf("snapshot link %s -> %q, want %q", f.Path, got, want)
		}
		data, err := os.ReadFile(link)
		if err != nil || string(data) != string(f.Data) {
			t.Errorf("reading %s through its link = %q, %v, want %q", f.Path, data, err, f.Data)
		}
	}
	if got, want := readlink(filepath.Join(snapshot, "additional_chat_templates", "tool_use.jinja")), "../../../blobs/"+sub.Etag(); got != want {
		t.Errorf("a file in a subfolder links to %q, want %q", got, want)
	}
	if data, err := os.ReadFile(filepath.Join(repoDir, "refs", "main")); err != nil || string(data) != r.Commit {
		t.Errorf("refs/main = %q, %v, want %q", data, err, r.Commit)
	}
	modelLink := filepath.Join(home, "models", "mlx", "Tiny")
	if got, want := readlink(modelLink), "../../hub/models--acme--Tiny/snapshots/"+r.Commit; got != want {
		t.Errorf("models/mlx/Tiny -> %q, want %q", got, want)
	}

	// Writing another commit moves the model's link.
	r.Commit = "89abcdef0123456789abcdef0123456789abcdef"
	mlxtest.Write(t, home, r)
	if got, want := readlink(modelLink), "../../hub/models--acme--Tiny/snapshots/"+r.Commit; got != want {
		t.Errorf("after a second Write, models/mlx/Tiny -> %q, want %q", got, want)
	}
}

func TestWithWithout(t *testing.T) {
	r := mlxtest.Repo{Files: []mlxtest.File{{Path: "a", Data: []byte("1")}, {Path: "b", Data: []byte("2")}}}
	paths := func(r mlxtest.Repo) []string {
		var out []string
		for _, f := range r.Files {
			out = append(out, f.Path+"="+string(f.Data))
		}
		return out
	}
	tests := []struct {
		name string
		got  mlxtest.Repo
		want []string
	}{
		{"replace", r.With(mlxtest.File{Path: "a", Data: []byte("3")}), []string{"a=3", "b=2"}},
		{"add", r.With(mlxtest.File{Path: "c", Data: []byte("4")}), []string{"a=1", "b=2", "c=4"}},
		{"remove", r.Without("a"), []string{"b=2"}},
		{"remove what is not there", r.Without("z"), []string{"a=1", "b=2"}},
		{"the original is unchanged", r, []string{"a=1", "b=2"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, paths(tt.got)); diff != "" {
			t.Errorf("%s: files mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestFixtures(t *testing.T) {
	tests := []struct {
		name        string
		r           mlxtest.Repo
		wantToolTag bool
	}{
		{"Qwen3Tools", mlxtest.Qwen3Tools("o", "n"), true},
		{"NoTools", mlxtest.NoTools("o", "n"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.r.Org != "o" || tt.r.Name != "n" || len(tt.r.Commit) != 40 {
				t.Errorf("repository %s/%s at %q, want o/n at a 40-digit commit", tt.r.Org, tt.r.Name, tt.r.Commit)
			}
			files := map[string]mlxtest.File{}
			for _, f := range tt.r.Files {
				files[f.Path] = f
				if strings.HasSuffix(f.Path, ".json") {
					if !json.Valid(f.Data) {
						t.Errorf("%s is not valid JSON", f.Path)
					}
				}
			}
			for _, name := range []string{"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors", "tokenizer.json"} {
				if !files[name].LFS {
					t.Errorf("%s is not an LFS file", name)
				}
			}
			var tc struct {
				ChatTemplate string `json:"chat_template"`
			}
			if err := json.Unmarshal(files["tokenizer_config.json"].Data, &tc); err != nil {
				t.Fatal(err)
			}
			hasTools := strings.Contains(tc.ChatTemplate, "<tool_call>") && strings.Contains(tc.ChatTemplate, "tool_call.name")
			if hasTools != tt.wantToolTag {
				t.Errorf("chat template has <tool_call> and tool_call.name: %v, want %v", hasTools, tt.wantToolTag)
			}
			var index struct {
				Metadata struct {
					TotalParameters int64 `json:"total_parameters"`
				}
				WeightMap map[string]string `json:"weight_map"`
			}
			if err := json.Unmarshal(files["model.safetensors.index.json"].Data, &index); err != nil {
				t.Fatal(err)
			}
			if index.Metadata.TotalParameters != 4022468096 {
				t.Errorf("total_parameters = %d, want 4022468096", index.Metadata.TotalParameters)
			}
			for _, shard := range index.WeightMap {
				if _, ok := files[shard]; !ok {
					t.Errorf("the index names %s, which the repository lacks", shard)
				}
			}
		})
	}
}
