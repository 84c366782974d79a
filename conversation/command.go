package conversation

import (
	"context"
	"fmt"
	"strings"

	"github.com/wisp-agent/wisp/config"
	"github.com/wisp-agent/wisp/models"
)

// A Command is one of the person's commands a conversation runs
// (Conversation.Command), as a face lists it.
type Command struct {
	// Name is the command's name: "models", "config".
	Name string
	// Usage is what it takes, its actions: "list|show|pull|…".
	Usage string
}

// Commands returns the person's commands a conversation runs, in the
// order a face lists them, each with the actions of models.Commands and
// config.Commands.
func Commands() []Command {
	var ms, cs []string
	for _, m := range models.Commands() {
		ms = append(ms, m.Name)
	}
	for _, c := range config.Commands() {
		cs = append(cs, c.Name)
	}
	return []Command{{"models", strings.Join(ms, "|")}, {"config", strings.Join(cs, "|")}}
}

// ModelsCommand runs one of the person's models commands in the
// conversation (a chat's /models; args are the words after it), as
// models.RunCommand does: the person's own actions, through the same
// rules and the same gate as the models tool, the conversation's model
// marked * in the listing. It returns what the person reads of it.
func (c *Conversation) ModelsCommand(ctx context.Context, args []string) (string, error) {
	return models.RunCommand(ctx, c.actions, args, &models.CommandOptions{Current: c.model})
}

// ConfigCommand runs one of the person's config commands in the
// conversation (a chat's /config; args are the words after it), as
// config.RunCommand does: a change to a security setting is recorded in
// the conversation's audit log and session before it is saved, or not
// made; tools.disabled takes only the names of the conversation's tools,
// wisp's own and Options.Tools. A change applies from the next
// conversation, never to this one.
// It returns what the person reads of it.
func (c *Conversation) ConfigCommand(ctx context.Context, args []string) (string, error) {
	return config.RunCommand(ctx, c.home.Settings(), args, &config.SetOptions{Events: c.log, Session: c.session, Tools: c.known})
}

// Command runs the person's command name, "models" or "config", with
// args, as ModelsCommand and ConfigCommand do: for a face that takes the
// person's commands by name, such as the command lines of chat --json.
func (c *Conversation) Command(ctx context.Context, name string, args []string) (string, error) {
	switch name {
	case "models":
		return c.ModelsCommand(ctx, args)
	case "config":
		return c.ConfigCommand(ctx, args)
	}
	return "", fmt.Errorf("unknown command %q; the commands are models and config", name)
}
