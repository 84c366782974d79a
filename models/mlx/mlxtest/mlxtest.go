// Package mlxtest writes MLX model folders under a wisp home folder, in
// the layout package mlx reads, for tests: blobs named by etag, snapshot
// links to them, refs/main and the model's link under models/mlx.
package mlxtest

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A File is one file of a repository.
type File struct {
	// Path is the file's path in the repository, with forward slashes
	// ("config.json", "additional_chat_templates/tool_use.jinja").
	Path string
	// Data is the file's contents.
	Data []byte
	// LFS is true for a file stored with Git LFS, whose etag is the
	// SHA-256 of its contents; otherwise the etag is its git blob SHA-1.
	LFS bool
}

// Etag returns the file's etag, the name of its blob, in lower-case hex:
// the SHA-256 of Data for an LFS file, sha1("blob <len>\x00" + Data)
// otherwise.
func (f File) Etag() string {
	if f.LFS {
		sum := sha256.Sum256(f.Data)
		return hex.EncodeToString(sum[:])
	}
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(f.Data))
	h.Write(f.Data)
	return hex.EncodeToString(h.Sum(nil))
}

// A Repo is one commit of a model repository "Org/Name".
type Repo struct {
	Org, Name string
	// Commit is the commit the snapshot holds, 40 hex digits.
	Commit string
	Files  []File
}

// With returns a copy of r in which f replaces the file at f.Path, or is
// added when r has none there.
func (r Repo) With(f File) Repo {
	r.Files = slices.Clone(r.Files)
	for i := range r.Files {
		if r.Files[i].Path == f.Path {
			r.Files[i] = f
			return r
		}
	}
	r.Files = append(r.Files, f)
	return r
}

// Without returns a copy of r without the file at path.
func (r Repo) Without(path string) Repo {
	r.Files = slices.DeleteFunc(slices.Clone(r.Files), func(f File) bool { return f.Path == path })
	return r
}

// Write writes r under home: each file's blob in
// hub/models--<Org>--<Name>/blobs/, a relative link to it in
// snapshots/<Commit>/, refs/main, and models/mlx/<Name>, a relative link
// to the snapshot, replacing any link already there. It returns the
// snapshot folder. It stops the test on any failure.
func Write(t testing.TB, home string, r Repo) string {
	t.Helper()
	if r.Org == "" || r.Name == "" || r.Commit == "" {
		t.Fatalf("mlxtest.Write: the repository needs an Org, a Name and a Commit; got %q, %q, %q", r.Org, r.Name, r.Commit)
	}
	folder := "models--" + r.Org + "--" + r.Name
	repoDir := filepath.Join(home, "hub", folder)
	snapshot := filepath.Join(repoDir, "snapshots", r.Commit)
	mkdir(t, filepath.Join(repoDir, "blobs"))
	mkdir(t, snapshot)
	for _, f := range r.Files {
		if !filepath.IsLocal(filepath.FromSlash(f.Path)) {
			t.Fatalf("mlxtest.Write: file path %q is not inside the repository", f.Path)
		}
		etag := f.Etag()
		write(t, filepath.Join(repoDir, "blobs", etag), f.Data)
		up := strings.Repeat("../", 2+strings.Count(f.Path, "/"))
		link(t, up+"blobs/"+etag, filepath.Join(snapshot, filepath.FromSlash(f.Path)))
	}
	write(t, filepath.Join(repoDir, "refs", "main"), []byte(r.Commit))
	link(t, "../../hub/"+folder+"/snapshots/"+r.Commit, filepath.Join(home, "models", "mlx", r.Name))
	return snapshot
}

// mkdir makes dir and its parents.
func mkdir(t testing.TB, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

// write writes data to path, making its folder.
func write(t testing.TB, path string, data []byte) {
	t.Helper()
	mkdir(t, filepath.Dir(path))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// link makes path a symbolic link to target (slash-separated, relative
// to path's folder), replacing a link already there.
func link(t testing.TB, target, path string) {
	t.Helper()
	mkdir(t, filepath.Dir(path))
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.FromSlash(target), path); err != nil {
		t.Fatal(err)
	}
}

// commit is the commit the fixtures' snapshots hold.
const commit = "5e1d6c0b9a8f7e6d5c4b3a29180f7e6d5c4b3a29"

// Qwen3Tools returns a small repository shaped like a 4-bit Qwen3 4B
// converted for MLX: config.json (model_type qwen3, 40960 positions,
// 4-bit quantization), model.safetensors.index.json (4022468096
// parameters, two shards), two tiny shards, tokenizer.json,
// tokenizer_config.json whose chat template calls tools in <tool_call>
// tags and thinks in <think> tags, and a README.md stating the licence
// apache-2.0. Its shards and tokenizer.json are LFS files; the rest are
// small files.
func Qwen3Tools(org, name string) Repo {
	return qwen3(org, name, toolsTemplate, true)
}

// NoTools returns a repository shaped like [Qwen3Tools] whose chat
// template is plain ChatML, without tool calls, and whose tokenizer has no
// thinking tokens.
func NoTools(org, name string) Repo {
	return qwen3(org, name, plainTemplate, false)
}

// qwen3 builds the fixture around a chat template.
func qwen3(org, name, template string, thinks bool) Repo {
	tokens := []string{"<|endoftext|>", "<|im_start|>", "<|im_end|>"}
	if thinks {
		tokens = append(tokens, "<tool_call>", "</tool_call>", "<think>", "</think>")
	}
	var decoder, added []string
	for i, tok := range tokens {
		id := 151643 + i
		decoder = append(decoder, fmt.Sprintf(`    %q: {"content": %q, "lstrip": false, "normalized": false, "rstrip": false, "single_word": false, "special": true}`, fmt.Sprint(id), tok))
		added = append(added, fmt.Sprintf(`{"id":%d,"content":%q,"single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true}`, id, tok))
	}
	tokenizerConfig := fmt.Sprintf(`{
  "add_bos_token": false,
  "added_tokens_decoder": {
%s
  },
  "bos_token": null,
  "chat_template": %s,
  "clean_up_tokenization_spaces": false,
  "eos_token": "<|im_end|>",
  "model_max_length": 131072,
  "pad_token": "<|endoftext|>",
  "tokenizer_class": "Qwen2Tokenizer"
}
`, strings.Join(decoder, ",\n"), quote(template))
	tokenizer := fmt.Sprintf(`{"version":"1.0","truncation":null,"padding":null,"added_tokens":[%s],"normalizer":{"type":"NFC"},"pre_tokenizer":{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":false,"use_regex":true},"post_processor":null,"decoder":{"type":"ByteLevel","add_prefix_space":true,"trim_offsets":true,"use_regex":true},"model":{"type":"BPE","dropout":null,"unk_token":null,"continuing_subword_prefix":"","end_of_word_suffix":"","fuse_unk":false,"byte_fallback":false,"vocab":{"!":0,"\"":1,"#":2},"merges":[]}}`,
		strings.Join(added, ","))

	return Repo{
		Org:    org,
		Name:   name,
		Commit: commit,
		Files: []File{
			{Path: ".gitattributes", Data: []byte("*.safetensors filter=lfs diff=lfs merge=lfs -text\ntokenizer.json filter=lfs diff=lfs merge=lfs -text\n")},
			{Path: "README.md", Data: []byte(fmt.Sprintf(readme, org, name))},
			{Path: "config.json", Data: []byte(config)},
			{Path: "model-00001-of-00002.safetensors", Data: safetensors("model.embed_tokens.weight", 1), LFS: true},
			{Path: "model-00002-of-00002.safetensors", Data: safetensors("model.norm.weight", 2), LFS: true},
			{Path: "model.safetensors.index.json", Data: []byte(index)},
			{Path: "special_tokens_map.json", Data: []byte(`{"eos_token": {"content": "<|im_end|>", "lstrip": false, "normalized": false, "rstrip": false, "single_word": false}, "pad_token": "<|endoftext|>"}` + "\n")},
			{Path: "tokenizer.json", Data: []byte(tokenizer), LFS: true},
			{Path: "tokenizer_config.json", Data: []byte(tokenizerConfig)},
		},
	}
}

// quote spells s as a JSON string, keeping < and > as they are, the way
// the tokenizer files on the hub spell them.
func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`)
	return `"` + r.Replace(s) + `"`
}

// safetensors returns a tiny safetensors file holding one tensor of two
// 32-bit values, each equal to fill.
func safetensors(tensor string, fill uint32) []byte {
	header := fmt.Sprintf(`{"__metadata__":{"format":"mlx"},%q:{"dtype":"U32","shape":[2],"data_offsets":[0,8]}}`, tensor)
	for len(header)%8 != 0 {
		header += " "
	}
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	out = append(out, header...)
	out = binary.LittleEndian.AppendUint32(out, fill)
	return binary.LittleEndian.AppendUint32(out, fill)
}

const config = `{
  "architectures": [
    "Qwen3ForCausalLM"
  ],
  "attention_bias": false,
  "attention_dropout": 0.0,
  "bos_token_id": 151643,
  "eos_token_id": 151645,
  "head_dim": 128,
  "hidden_act": "silu",
  "hidden_size": 2560,
  "initializer_range": 0.02,
  "intermediate_size": 9728,
  "max_position_embeddings": 40960,
  "max_window_layers": 36,
  "model_type": "qwen3",
  "num_attention_heads": 32,
  "num_hidden_layers": 36,
  "num_key_value_heads": 8,
  "quantization": {
    "group_size": 64,
    "bits": 4,
    "mode": "affine"
  },
  "quantization_config": {
    "group_size": 64,
    "bits": 4,
    "mode": "affine"
  },
  "rms_norm_eps": 1e-06,
  "rope_scaling": null,
  "rope_theta": 1000000,
  "sliding_window": null,
  "tie_word_embeddings": true,
  "torch_dtype": "bfloat16",
  "use_cache": true,
  "use_sliding_window": false,
  "vocab_size": 151936
}
`

const index = `{
  "metadata": {
    "total_size": 2262556672,
    "total_parameters": 4022468096
  },
  "weight_map": {
    "model.embed_tokens.weight": "model-00001-of-00002.safetensors",
    "model.norm.weight": "model-00002-of-00002.safetensors"
  }
}
`

const readme = `---
license: apache-2.0
library_name: mlx
pipeline_tag: text-generation
base_model: Qwen/Qwen3-4B
tags:
- mlx
---

# %s/%s

A 4-bit MLX conversion, for tests.
`

// toolsTemplate is a ChatML template that offers tools, writes the
// model's calls in <tool_call> tags from tool_call.name and
// tool_call.arguments, and turns thinking off with an empty <think> block.
const toolsTemplate = `{%- if tools %}
{{- '<|im_start|>system\n' }}
{%- if messages[0].role == 'system' %}{{- messages[0].content + '\n\n' }}{%- endif %}
{{- '# Tools\n\nThe functions you may call are listed in <tools></tools> tags:\n<tools>' }}
{%- for tool in tools %}{{- '\n' + (tool | tojson) }}{%- endfor %}
{{- '\n</tools>\n\nTo call one, answer with its name and arguments as JSON in <tool_call></tool_call> tags.<|im_end|>\n' }}
{%- endif %}
{%- for message in messages %}
{%- if message.role == 'assistant' %}
{{- '<|im_start|>assistant\n' + (message.content or '') }}
{%- for tool_call in message.tool_calls or [] %}
{%- if tool_call.function %}{%- set tool_call = tool_call.function %}{%- endif %}
{{- '\n<tool_call>\n{"name": "' + tool_call.name + '", "arguments": ' + (tool_call.arguments | tojson) + '}\n</tool_call>' }}
{%- endfor %}
{{- '<|im_end|>\n' }}
{%- elif message.role == 'tool' %}
{{- '<|im_start|>user\n<tool_response>\n' + message.content + '\n</tool_response><|im_end|>\n' }}
{%- elif not (loop.first and tools and message.role == 'system') %}
{{- '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>\n' }}
{%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
{{- '<|im_start|>assistant\n' }}
{%- if enable_thinking is defined and enable_thinking is false %}{{- '<think>\n\n</think>\n\n' }}{%- endif %}
{%- endif %}
`

// plainTemplate is ChatML without tools or thinking.
const plainTemplate = `{%- for message in messages %}
{{- '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>\n' }}
{%- endfor %}
{%- if add_generation_prompt %}{{- '<|im_start|>assistant\n' }}{%- endif %}
`
