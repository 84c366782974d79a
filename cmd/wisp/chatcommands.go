package main

import (
	"context"
	"errors"

	"github.com/wisp-agent/wisp/conversation"
	"github.com/wisp-agent/wisp/inquiry/jsonl"
)

// jsonCommands runs the command lines of chat --json: the person's
// /models and /config, as in a plain chat. conv is set before the session
// reads its first line.
type jsonCommands struct{ conv *conversation.Conversation }

func (j *jsonCommands) run(ctx context.Context, c jsonl.Command) (string, error) {
	text, err := j.conv.Command(ctx, c.Name, c.Args)
	if err != nil {
		return "", errors.New(errorLine(err))
	}
	return text, nil
}
