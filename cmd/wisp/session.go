package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/conversation"
	"github.com/wisp-agent/wisp/home"
	"github.com/wisp-agent/wisp/tools"
)

// openHome finds the wisp home (WISP_HOME, default ~/.wisp) and opens it:
// it exists, and is the person's own and closed to others.
func openHome(env environ) (*home.Home, error) {
	dir, err := home.Find(env.getenv("WISP_HOME"), env.userHome)
	if err != nil {
		return nil, err
	}
	return home.Open(dir)
}

// convOptions are what a command asks of a conversation.
type convOptions struct {
	model   string
	named   []string // --tool; nil for every tool
	face    wisp.Inquirer
	approve wisp.Approver  // nil: no person can approve
	display wisp.EventSink // nil: none
	notify  wisp.Notifier  // nil: none
	onDelta func(thread string, d wisp.ChatDelta)
	thread  string // continue this thread; "" starts a new one
}

// newConversation starts a conversation in the wisp home with the
// backends the environment names. A mistake in the options is a usage
// error.
func newConversation(ctx context.Context, env environ, o convOptions) (*conversation.Conversation, error) {
	opts, err := conversationOptions(env, o)
	if err != nil {
		return nil, err
	}
	conv, err := conversation.New(ctx, opts)
	return conv, usageOf(err)
}

// conversationOptions are the options of a conversation in the wisp home
// with the backends the environment names (OLLAMA_HOST, WISP_MLX_URL,
// HF_ENDPOINT, HF_TOKEN).
func conversationOptions(env environ, o convOptions) (*conversation.Options, error) {
	h, err := openHome(env)
	if err != nil {
		return nil, err
	}
	backends, pull, err := modelSetup(env, h)
	if err != nil {
		return nil, err
	}
	return &conversation.Options{
		Home:      h.Dir(),
		ModelName: o.model,
		Backends:  backends,
		Pull:      pull,
		Named:     o.named,
		Face:      o.face,
		Approver:  o.approve,
		Notifier:  o.notify,
		Events:    o.display,
		OnDelta:   o.onDelta,
		Thread:    o.thread,
	}, nil
}

// usageOf returns err, as a usage error when it is a mistake in how wisp
// was called: no model, a model or script that cannot run, an unknown
// tool, a thread id that names no thread.
func usageOf(err error) error {
	var unknown *tools.UnknownToolError
	var bad *conversation.OptionError
	switch {
	case errors.Is(err, conversation.ErrNoModel):
		return usagef("no model given; pass --model (ollama:NAME, mlx:NAME, or script:PATH such as script:examples/scripts/ask.jsonl), or set models.default")
	case errors.As(err, &unknown):
		return usageError{fmt.Errorf("%w (use --tool with one of the known tools)", err)}
	case errors.As(err, &bad):
		return usageError{err}
	}
	return err
}

func newID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
