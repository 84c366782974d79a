// Package models is the one place for model rules: which local models
// there are, under which names, whether each is enabled, and what the
// person or (with the person's approval) the model may change.
package models

import (
	"context"
	"errors"

	"github.com/wisp-agent/wisp"
)

// A Backend is one runtime's view of the models on this machine. Names a
// backend takes and returns are its own, without the runtime prefix
// ("qwen3:4b", "Qwen3-4B-4bit"); ModelActions adds and strips the prefix.
//
// A Backend is safe for concurrent use. Its methods return promptly with
// ctx's error when ctx is done.
type Backend interface {
	// Runtime is the prefix of the backend's names: "ollama", "mlx".
	Runtime() string
	// List returns every local model, Name and Runtime set, without the
	// prefix. An error means the backend did not answer; ModelActions shows
	// it as one line and lists the other backends.
	List(ctx context.Context) ([]wisp.ModelInfo, error)
	// Show returns one model's facts. It returns an error wrapping
	// ErrNotFound when the backend has no model by that exact name.
	Show(ctx context.Context, name string) (wisp.ModelInfo, error)
	// Check verifies that a model can run as opts say every request to
	// it runs (nil: the runtime's own settings): for Ollama its facts and
	// a one-token chat offered a tool; for MLX every file against its
	// recorded digest, the configuration and the chat template.
	Check(ctx context.Context, name string, opts *RunOptions) (CheckReport, error)
}

// RunOptions say how wisp runs a model, the same for every request to
// it, the probe of a check among them, so that the runtime never loads
// it one way for one request and another way for the next. A nil
// *RunOptions, like a zero one, leaves everything to the runtime.
type RunOptions struct {
	// ContextTokens is the context, in tokens, every request asks for
	// (models.contextLength in config.json); 0 asks for none, so the
	// runtime's own setting stands.
	ContextTokens int
}

// A Runner is a Backend whose models can be opened for chat. Actions.Open
// opens a model through its backend's Runner.
type Runner interface {
	// Model opens the model name (without the runtime's prefix) for chat,
	// every request run as opts say (nil: the runtime's own settings);
	// info is its facts as Actions.Runnable returned them. It reaches no
	// server: a model that does not answer fails on its first Chat.
	Model(name string, info wisp.ModelInfo, opts *RunOptions) (wisp.Model, error)
}

// CheckReport is what a check found.
type CheckReport struct {
	// OK is true when every finding passed.
	OK bool
	// Why is the first finding that failed, with the runtime's own words
	// where it gave any; "" when OK.
	Why string
	// Findings are one line each, in the order checked: "12 of 12 files
	// match their digests", "chat template supports tool calls".
	Findings []string
	// Info is the model's facts as the check saw them.
	Info wisp.ModelInfo
}

// ErrNotFound: a backend has no model by that name.
var ErrNotFound = errors.New("no such model")
