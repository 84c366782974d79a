package mlx

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wisp-agent/wisp"
)

// A finding is one line of what a look at a model found.
type finding struct {
	line string
	// ok is false when the finding is a failure; Check is OK only when
	// every finding is.
	ok bool
	// blocks is true when the failure means the model cannot run, so
	// that Usable is false and Why is this line.
	blocks bool
}

// An inspection is what a look at a model's folder found, without
// reading its weights.
type inspection struct {
	info     wisp.ModelInfo
	findings []finding
}

// pass, fail and fatal make findings.
func pass(line string) finding  { return finding{line: line, ok: true} }
func fail(line string) finding  { return finding{line: line} }
func fatal(line string) finding { return finding{line: line, blocks: true} }

// mend says how to mend a model whose files are wrong.
func (m *model) mend() string {
	if m.repo == "" {
		return "copy the model into its folder again"
	}
	return "pull it again"
}

// goneLine says that a link's target is missing.
func (m *model) goneLine() string {
	if m.repo == "" {
		return "its files are gone: the link points at a missing folder; link the folder again"
	}
	return "its files are gone: the link points at a missing snapshot; pull it again"
}

// inspect reads the model's facts and finds what stops it running, in
// this order: config.json, the weights and the index, the tokenizer, the
// chat template, tool calls.
func (m *model) inspect() inspection {
	info := wisp.ModelInfo{Name: m.name, Runtime: runtime, Repo: m.repo}
	if m.repo != "" {
		info.Digest = filepath.Base(m.dir) // the snapshot's commit
	}
	if m.gone {
		line := m.goneLine()
		info.Why = line
		return inspection{info: info, findings: []finding{fatal(line)}}
	}
	info.Size = folderSize(m.dir)
	info.Licence = licence(m.dir)

	var found []finding

	cfg, err := readObject(filepath.Join(m.dir, "config.json"))
	if err != nil {
		found = append(found, fatal(problem("config.json", err, m.mend())))
	} else {
		found = append(found, pass("config.json parses"))
		info.Context = contextLength(cfg)
		info.RunContext = info.Context // an MLX server runs it with all it takes
		info.Quantization = quantization(cfg)
	}

	params, weights := m.weights()
	info.Parameters = params
	found = append(found, weights)

	found = append(found, m.tokenizer())

	caps, said := abilities(m.dir, cfg, m.mend())
	found = append(found, said...)
	info.Capabilities = caps

	info.Usable = true
	for _, f := range found {
		if f.blocks {
			info.Usable, info.Why = false, f.line
			break
		}
	}
	return inspection{info: info, findings: found}
}

// abilities says what the model in dir can do, by its chat template and
// config.json (cfg): chat (a template), call tools (a parser mlx-lm
// infers or tokenizer_config.json names), think (a pair of thinking
// tokens), see (a vision_config). It reads none of the weights and only
// the head of tokenizer.json, and only when the other files do not show
// thinking tokens. mend says how to mend a file that cannot be read.
func abilities(dir string, cfg map[string]json.RawMessage, mend string) (caps []string, found []finding) {
	tmpl := readTemplates(dir)
	if tmpl.err != nil {
		found = append(found, fatal(problem(tmpl.bad, tmpl.err, mend)))
	}
	switch {
	case tmpl.source == "":
		found = append(found, fail("no chat template: neither chat_template.jinja nor a chat_template in tokenizer_config.json; the model cannot chat"))
	default:
		found = append(found, pass("chat template found ("+tmpl.source+")"))
		caps = append(caps, "completion")
	}
	switch {
	case tmpl.parser != "":
		found = append(found, pass(fmt.Sprintf("chat template supports tool calls (%s parser, %s)", tmpl.parser, tmpl.parserFrom)))
		caps = append(caps, "tools")
	case tmpl.source != "":
		found = append(found, pass("chat template does not support tool calls"))
	}
	if tmpl.thinking {
		caps = append(caps, "thinking")
	}
	if _, ok := member[json.RawMessage](cfg, "vision_config"); ok {
		caps = append(caps, "vision")
	}
	return caps, found
}

// weights finds the weight files and checks them against the index. It
// returns the parameter count the index states, formatted, and a finding.
func (m *model) weights() (string, finding) {
	entries, _ := os.ReadDir(m.dir)
	present := map[string]bool{}
	var files []string
	for _, e := range entries {
		n := e.Name()
		if strings.HasPrefix(n, "model") && strings.HasSuffix(n, ".safetensors") && isFile(filepath.Join(m.dir, n)) {
			present[n] = true
			files = append(files, n)
		}
	}

	const indexName = "model.safetensors.index.json"
	index, err := readObject(filepath.Join(m.dir, indexName))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fatal(problem(indexName, err, m.mend()))
	}
	var params string
	var shards []string
	if index != nil {
		meta, _ := member[map[string]json.RawMessage](index, "metadata")
		if n, ok := integer(meta, "total_parameters"); ok && n > 0 {
			params = humanParameters(n)
		}
		weightMap, _ := member[map[string]string](index, "weight_map")
		for _, shard := range weightMap {
			shards = append(shards, shard)
		}
		slices.Sort(shards)
		shards = slices.Compact(shards)
	}

	if len(files) == 0 {
		return params, fatal("no weights: the folder has no model*.safetensors file; " + m.mend())
	}
	if index == nil {
		return params, pass(count(len(files), "weight file", "weight files") + ", no index")
	}
	for _, shard := range shards {
		if !filepath.IsLocal(shard) {
			return params, fatal(fmt.Sprintf("%s names %q, outside the model's folder; %s", indexName, shard, m.mend()))
		}
		if !present[shard] && !isFile(filepath.Join(m.dir, shard)) {
			return params, fatal(fmt.Sprintf("%s is missing (the index names it); %s", shard, m.mend()))
		}
	}
	return params, pass(fmt.Sprintf("%d of %d shards the index names are present", len(shards), len(shards)))
}

// tokenizerFiles are the files any one of which gives a model a tokenizer,
// in the order they are looked for; a file ending in ".tiktoken" also
// does.
var tokenizerFiles = [...]string{"tokenizer.json", "tokenizer.model", "tiktoken.model", "vocab.json", "vocab.txt"}

// tokenizer finds the model's tokenizer.
func (m *model) tokenizer() finding {
	for _, n := range tokenizerFiles {
		if isFile(filepath.Join(m.dir, n)) {
			return pass("tokenizer found (" + n + ")")
		}
	}
	entries, _ := os.ReadDir(m.dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tiktoken") && isFile(filepath.Join(m.dir, e.Name())) {
			return pass("tokenizer found (" + e.Name() + ")")
		}
	}
	return fatal("no tokenizer: the folder has none of tokenizer.json, tokenizer.model or a vocabulary file; " + m.mend())
}

// isFile reports whether path is, or links to, a regular file.
func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// folderSize is the sum of the sizes of the files under dir, following
// the links to blobs. A link whose blob is missing counts nothing.
func folderSize(dir string) int64 {
	var size int64
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
			size += fi.Size()
		}
		return nil
	})
	return size
}

// contextLength is max_position_embeddings, or text_config's for a model
// whose language model is nested; 0 when neither is stated.
func contextLength(cfg map[string]json.RawMessage) int {
	if n, ok := integer(cfg, "max_position_embeddings"); ok {
		return int(n)
	}
	text, _ := member[map[string]json.RawMessage](cfg, "text_config")
	if n, ok := integer(text, "max_position_embeddings"); ok {
		return int(n)
	}
	return 0
}

// quantization names how the weights are quantized: the mode for the
// floating-point modes ("mxfp4", "nvfp4"), "<bits>-bit" for the affine
// one (mode absent or "affine"), and "" for weights that are not
// quantized. quantization_config, which mirrors quantization, is the
// fallback.
func quantization(cfg map[string]json.RawMessage) string {
	for _, key := range []string{"quantization", "quantization_config"} {
		q, ok := member[map[string]json.RawMessage](cfg, key)
		if !ok {
			continue
		}
		if mode, _ := member[string](q, "mode"); mode != "" && mode != "affine" {
			return mode
		}
		if bits, ok := integer(q, "bits"); ok && bits > 0 {
			return fmt.Sprintf("%d-bit", bits)
		}
	}
	return ""
}

// humanParameters formats a parameter count the way Ollama models state
// their parameter_size, so that both runtimes read alike: one decimal in
// billions ("4.0B", none when whole: "7B"), whole millions ("596M") and
// thousands ("50K").
func humanParameters(n int64) string {
	const (
		thousand = 1000
		million  = 1000 * thousand
		billion  = 1000 * million
	)
	switch {
	case n >= billion:
		if n%billion == 0 {
			return fmt.Sprintf("%dB", n/billion)
		}
		return fmt.Sprintf("%.1fB", float64(n)/billion)
	case n >= million:
		return fmt.Sprintf("%.0fM", float64(n)/million)
	case n >= thousand:
		return fmt.Sprintf("%.0fK", float64(n)/thousand)
	}
	return fmt.Sprint(n)
}

// licence is the licence README.md's front matter states: its license,
// or its license_name when the licence is "other". It is "" when there
// is no README.md, no front matter, or no licence in it.
func licence(dir string) string {
	data, err := readPrefix(filepath.Join(dir, "README.md"), readmeIn)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != "---" {
		return ""
	}
	fields := map[string]string{}
	for _, line := range lines[1:] {
		if strings.TrimSpace(line) == "---" {
			break
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok || key != strings.TrimSpace(key) {
			continue // not a top-level key
		}
		value = strings.TrimSpace(value)
		if len(value) >= 2 && (value[0] == '"' || value[0] == '\'') && value[len(value)-1] == value[0] {
			value = value[1 : len(value)-1]
		}
		fields[key] = value
	}
	if l := fields["license"]; l != "other" || fields["license_name"] == "" {
		return l
	}
	return fields["license_name"]
}

// count says "1 weight file" or "3 weight files".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
