package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/wisp-agent/wisp/conversation"
	"github.com/wisp-agent/wisp/home"
	"github.com/wisp-agent/wisp/internal/cmdline"
	"github.com/wisp-agent/wisp/tools"
)

// environment is the part of the help of chat, respond and mcp that
// names what they read from the environment.
const environment = `

Environment:
  WISP_HOME     wisp's settings, audit log and threads (default ~/.wisp)
  OLLAMA_HOST   the Ollama server (default 127.0.0.1:11434)
  WISP_MLX_URL  the OpenAI-compatible server that runs MLX models (default http://127.0.0.1:8080)
  HF_ENDPOINT   the Hugging Face Hub that pulls fetch from (default https://huggingface.co)
  HF_TOKEN      the token sent to the Hub, for gated and private repositories
  NO_COLOR      when set and not empty, nothing wisp prints is coloured`

// openHome finds the wisp home (WISP_HOME, default ~/.wisp) and opens it:
// it exists, and is the person's own and closed to others.
func openHome(env environ) (*home.Home, error) {
	dir, err := home.Find(env.getenv("WISP_HOME"), env.userHome)
	if err != nil {
		return nil, err
	}
	return home.Open(dir)
}

// newConversation starts a conversation with o in the wisp home, with
// the backends the environment names. A mistake in the options is a
// usage error.
func newConversation(ctx context.Context, env environ, o conversation.Options) (*conversation.Conversation, error) {
	if err := inHome(env, &o); err != nil {
		return nil, err
	}
	conv, err := conversation.New(ctx, &o)
	return conv, usageOf(err)
}

// inHome sets o's home, the wisp home, its workspace (--workspace, or the
// folder wisp was started in), the environment run_command's commands
// take their allowed variables from, and the backends the environment
// names (OLLAMA_HOST, WISP_MLX_URL, HF_ENDPOINT, HF_TOKEN).
func inHome(env environ, o *conversation.Options) error {
	h, err := openHome(env)
	if err != nil {
		return err
	}
	o.Home = h.Dir()
	if o.Workspace = *env.workspace; o.Workspace == "" {
		o.Workspace, _ = os.Getwd()
	}
	if env.environment != nil {
		o.Environ = env.environment()
	}
	o.Backends, o.Pull, err = modelSetup(env, h)
	return err
}

// usageOf returns err, as a usage error when it is a mistake in how wisp
// was called: no model, a model or script that cannot run, an unknown
// tool, a thread id that names no thread.
func usageOf(err error) error {
	var unknown *tools.UnknownToolError
	var bad *conversation.OptionError
	switch {
	case errors.Is(err, conversation.ErrNoModel):
		return cmdline.Usagef("no model given; pass --model (ollama:NAME, mlx:NAME, or script:PATH such as script:examples/scripts/ask.jsonl), or set models.default")
	case errors.As(err, &unknown):
		return &cmdline.UsageError{Err: fmt.Errorf("%w (use --tool with one of the known tools)", err)}
	case errors.As(err, &bad):
		return &cmdline.UsageError{Err: err}
	}
	return err
}

// workspaceFlag gives c the --workspace flag.
func workspaceFlag(c *cobra.Command, env environ) {
	c.Flags().StringVar(env.workspace, "workspace", "", "the folder the model works in, whose AGENTS.md it reads (default: the current folder)")
}

func newID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
