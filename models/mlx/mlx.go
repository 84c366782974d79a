package mlx

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/models"
	"github.com/wisp-agent/wisp/models/openai"
)

// runtime is the prefix of this backend's names.
const runtime = "mlx"

// Backend lists, shows and checks the MLX models under one home folder,
// and opens them for chat on an OpenAI-style server (mlx_lm.server). It
// holds no state but the folder and the server's address, reads the disk
// on every call, and is safe for concurrent use.
type Backend struct {
	// Server is the address of the server that runs the models, as
	// WISP_MLX_URL spells it (package openai documents the forms); ""
	// is http://127.0.0.1:8080. The server loads a model from the path
	// of its link under the home. Set it before the first call.
	Server string

	home string
}

var (
	_ models.Backend = (*Backend)(nil)
	_ models.Runner  = (*Backend)(nil)
)

// New returns the backend for the models under home, wisp's home folder
// (the one holding hub/ and models/mlx/). Nothing is read until a method
// is called.
func New(home string) *Backend {
	return &Backend{home: home}
}

// Model opens the MLX model name for chat on the Server, which loads it
// from the model's link. An MLX server takes no context length with a
// request and runs a model with all it takes (info.Context), so the
// model says it runs with that, or with opts.ContextTokens when they set
// fewer: the agent condenses a thread to fit. It fails only on a Server
// that is not an address.
func (b *Backend) Model(name string, info wisp.ModelInfo, opts *models.RunOptions) (wisp.Model, error) {
	c, err := openai.New(b.Server, nil)
	if err != nil {
		return nil, err
	}
	tokens := info.Context
	if opts != nil && opts.ContextTokens > 0 && (tokens == 0 || opts.ContextTokens < tokens) {
		tokens = opts.ContextTokens
	}
	return sizedChat{c.ChatModel(filepath.Join(b.modelsDir(), name)), tokens}, nil
}

// sizedChat is an MLX model on its server, which runs it with tokens of
// context (0: unknown).
type sizedChat struct {
	chat   *openai.Chat
	tokens int
}

// Chat sends req to the server (openai.Chat.Chat).
func (c sizedChat) Chat(ctx context.Context, req wisp.ChatRequest, stream func(wisp.ChatDelta)) (wisp.ChatResponse, error) {
	return c.chat.Chat(ctx, req, stream)
}

// ContextTokens returns the context the server runs the model with, for
// the agent to condense a thread to (agent.ContextSizer).
func (c sizedChat) ContextTokens(context.Context) int { return c.tokens }

// Inspect says what the model whose files are in the folder dir can do,
// from its configuration and chat template alone, by the rules Check and
// Show apply to a pulled model: a pull's plan reads them this way before
// it asks to fetch the weights (models.Inspector).
func (b *Backend) Inspect(dir string) models.Verdict {
	cfg, _ := readObject(filepath.Join(dir, "config.json"))
	caps, found := abilities(dir, cfg, "pull it again")
	v := models.Verdict{Capabilities: caps}
	for _, f := range found {
		v.Findings = append(v.Findings, f.line)
	}
	return v
}

var _ models.Inspector = (*Backend)(nil)

// Runtime returns "mlx".
func (b *Backend) Runtime() string { return runtime }

// List returns every model under <home>/models/mlx, sorted by name. A
// missing folder is an empty list, not an error. A model that cannot run
// is listed with Usable false and Why set.
func (b *Backend) List(ctx context.Context) ([]wisp.ModelInfo, error) {
	names, err := b.names()
	if err != nil {
		return nil, err
	}
	infos := make([]wisp.ModelInfo, 0, len(names))
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		m, err := b.locate(name)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed while listing
			}
			return nil, err
		}
		infos = append(infos, m.inspect().info)
	}
	return infos, nil
}

// Show returns the facts of the model whose link is named name, exactly
// as the link is spelt ("Qwen3-4B-4bit"). It returns an error wrapping
// [models.ErrNotFound] when there is no such model. A model that cannot
// run is no error: its ModelInfo has Usable false and Why set.
func (b *Backend) Show(ctx context.Context, name string) (wisp.ModelInfo, error) {
	if err := ctx.Err(); err != nil {
		return wisp.ModelInfo{}, err
	}
	m, err := b.find(name)
	if err != nil {
		return wisp.ModelInfo{}, err
	}
	return m.inspect().info, nil
}

// Resolve returns the name of the model whose link points into the
// repository repo ("mlx-community/Qwen3-4B-4bit"), compared without regard
// to case. When several links point into the repository, the one named
// like the repository wins, and otherwise the first by name. ok is false
// when no model comes from repo or the models folder cannot be read.
func (b *Backend) Resolve(repo string) (name string, ok bool) {
	names, err := b.names()
	if err != nil {
		return "", false
	}
	_, want, _ := strings.Cut(repo, "/")
	for _, n := range names {
		m, err := b.locate(n)
		if err != nil || m.repo == "" || !strings.EqualFold(m.repo, repo) {
			continue
		}
		if !ok || strings.EqualFold(n, want) && !strings.EqualFold(name, want) {
			name, ok = n, true
		}
	}
	return name, ok
}

// modelsDir is <home>/models/mlx.
func (b *Backend) modelsDir() string {
	return filepath.Join(b.home, "models", runtime)
}

// names returns the names of the entries of the models folder that may be
// models, sorted: folders and links whose names do not begin with ".".
func (b *Backend) names() ([]string, error) {
	entries, err := os.ReadDir(b.modelsDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the MLX models folder: %w", err)
	}
	var names []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if t := e.Type(); t.IsDir() || t&fs.ModeSymlink != 0 {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names, nil
}

// find returns the model named exactly name, or an error wrapping
// models.ErrNotFound. It reads the folder rather than trusting a path
// lookup, so that a file system that ignores case does not find
// "qwen3-4b-4bit" for "Qwen3-4B-4bit", and a name with a separator never
// leaves the folder.
func (b *Backend) find(name string) (*model, error) {
	notFound := fmt.Errorf("mlx model %q: %w", name, models.ErrNotFound)
	names, err := b.names()
	if err != nil {
		return nil, err
	}
	if _, ok := slices.BinarySearch(names, name); !ok {
		return nil, notFound
	}
	m, err := b.locate(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, notFound
	}
	return m, err
}

// model is where one model's files are, as its link says.
type model struct {
	name string
	// dir is the folder holding the model's files: the snapshot, or the
	// folder of one's own.
	dir string
	// repo is "org/name" for a link into the hub, "" for a folder of
	// one's own.
	repo string
	// gone is true when the link's target does not exist or is not a
	// folder.
	gone bool
}

// locate reads the entry name of the models folder: a real folder, a
// link into the hub, or a link elsewhere.
func (b *Backend) locate(name string) (*model, error) {
	path := filepath.Join(b.modelsDir(), name)
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	m := &model{name: name, dir: path}
	if fi.Mode()&fs.ModeSymlink == 0 {
		if !fi.IsDir() {
			return nil, fmt.Errorf("mlx model %q: %w", name, fs.ErrNotExist)
		}
		return m, nil
	}
	target, err := os.Readlink(path)
	if err != nil {
		return nil, err
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(path), target)
	}
	m.dir = filepath.Clean(target)
	m.repo = b.repoOf(m.dir)
	if fi, err := os.Stat(m.dir); err != nil || !fi.IsDir() {
		m.gone = true
	}
	return m, nil
}

// repoOf returns "org/name" when dir is
// <home>/hub/models--<org>--<name>/snapshots/<commit>, and "" otherwise.
func (b *Backend) repoOf(dir string) string {
	rel, err := filepath.Rel(filepath.Join(b.home, "hub"), dir)
	if err != nil {
		return ""
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	if len(parts) != 3 || parts[1] != "snapshots" || parts[2] == "." || parts[2] == ".." {
		return ""
	}
	return repoFromFolder(parts[0])
}

// repoFromFolder turns a hub folder name, "models--<org>--<name>", into
// "org/name". Hugging Face forbids "--" inside an owner or a repository
// name, so the first "--" after the prefix is the separator.
func repoFromFolder(folder string) string {
	rest, ok := strings.CutPrefix(folder, "models--")
	if !ok {
		return ""
	}
	org, name, ok := strings.Cut(rest, "--")
	if !ok || org == "" || name == "" || strings.Contains(name, "--") {
		return ""
	}
	return org + "/" + name
}
