package ollama

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/wisp-agent/wisp/internal/neterr"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/models"
)

// chatPath is Ollama's chat endpoint.
const chatPath = "/api/chat"

// The fixed lines of a chat's failures.
const (
	// lineCutOff is a chat whose answer ended before a message marked done.
	lineCutOff = "ollama's answer was cut off before it finished; try again"
	// lineNotAPI begins a chat answered with a line that is not Ollama's
	// JSON; the line follows, quoted and cut short.
	lineNotAPI = "ollama answered something that is not its API: "
)

// ChatOptions configure a Chat. A nil *ChatOptions, like a zero one, is
// all defaults: Ollama decides.
type ChatOptions struct {
	// ContextTokens is the context window to ask Ollama for (num_ctx), in
	// tokens. 0 leaves it to Ollama: the model's Modelfile, or Ollama's
	// default. A negative value is an error on every Chat.
	ContextTokens int
	// KeepAlive is how long Ollama keeps the model loaded after each
	// request: a Go duration ("5m", "1h30m"), a number of seconds ("300"),
	// "0" to unload at once or "-1" to keep it loaded. "" leaves it to
	// Ollama (5 minutes unless OLLAMA_KEEP_ALIVE says otherwise). Anything
	// else is an error on every Chat.
	KeepAlive string
	// Think asks a thinking model to think before it answers (true) or not
	// (false). Nil leaves it to Ollama, which lets a thinking model think.
	// Ollama refuses true for a model that cannot think.
	Think *bool
}

// A Chat is a wisp.Model that chats with one Ollama model through
// /api/chat. It is safe for concurrent use; it keeps no conversation of
// its own, and starts no goroutines.
type Chat struct {
	c         client
	name      string
	numCtx    int
	keepAlive *api.Duration
	think     *api.ThinkValue
	err       error // a bad option, returned by every Chat
}

var _ wisp.Model = (*Chat)(nil)

var _ models.Runner = (*Backend)(nil)

// Model opens the Ollama model name for chat, every request asking for
// the context opts sets (num_ctx) or, without one, for none, so that the
// server's own setting (OLLAMA_CONTEXT_LENGTH) stands and the model is
// never loaded again at another size: the models.Runner that Actions.Open
// uses.
func (b *Backend) Model(name string, _ wisp.ModelInfo, opts *models.RunOptions) (wisp.Model, error) {
	var o models.RunOptions
	if opts != nil {
		o = *opts
	}
	return b.ChatModel(name, &ChatOptions{ContextTokens: o.ContextTokens}), nil
}

// ChatModel returns a wisp.Model that chats with the Ollama model name
// ("qwen3:4b"), as "ollama list" spells it. It makes no request: a model
// Ollama does not have is an error on the first Chat.
func (b *Backend) ChatModel(name string, opts *ChatOptions) *Chat {
	var o ChatOptions
	if opts != nil {
		o = *opts
	}
	c := &Chat{c: b.c, name: name, numCtx: o.ContextTokens}
	if o.Think != nil {
		c.think = &api.ThinkValue{Value: *o.Think}
	}
	switch {
	case strings.TrimSpace(name) == "":
		c.err = errors.New(`ollama: the chat model has no name; name one as "ollama list" shows it, such as "qwen3:4b"`)
	case o.ContextTokens < 0:
		c.err = fmt.Errorf("ollama: a context of %d tokens cannot be; set ChatOptions.ContextTokens to 0 for Ollama's default, or to a number of tokens such as 8192", o.ContextTokens)
	case o.KeepAlive != "":
		d, err := keepAlive(o.KeepAlive)
		if err != nil {
			c.err = err
		}
		c.keepAlive = d
	}
	return c
}

// keepAlive reads a keep-alive as Ollama does: a number of seconds or a Go
// duration, negative meaning for good.
func keepAlive(s string) (*api.Duration, error) {
	var d time.Duration
	if secs, err := strconv.ParseFloat(s, 64); err == nil {
		d = time.Duration(secs * float64(time.Second))
	} else if d, err = time.ParseDuration(s); err != nil {
		return nil, fmt.Errorf(`ollama: keep-alive %q is not a duration; set ChatOptions.KeepAlive as "5m", "1h", "300" (seconds), "0" (unload at once) or "-1" (keep loaded)`, s)
	}
	if d < 0 {
		d = -1
	}
	return &api.Duration{Duration: d}, nil
}

// Name returns the Ollama model the Chat talks to.
func (c *Chat) Name() string { return c.name }

// Chat sends req to Ollama, streamed, and returns the model's message:
// its content, its tool calls and, apart, its thinking. If stream is not
// nil it is called, from the calling goroutine, with each piece of
// thinking (ChatDelta.Thinking) and of content (ChatDelta.Content) as it
// arrives.
//
// A tool call without an id from Ollama gets "call_<n>", n counting the
// calls of the message from 1. Its Arguments are the JSON object Ollama
// sent, keys in the order the model wrote them.
//
// Chat waits as long as Ollama takes; only ctx ends it, with
// context.Cause(ctx). It returns an error, never a short answer, when the
// answer ends before a message marked done, when Ollama reports an error
// mid-answer, when a line of the answer is not Ollama's JSON, when Ollama
// is not answering (wrapping ErrUnreachable), and when Ollama has no such
// model (wrapping models.ErrNotFound). A request it cannot build (a tool
// schema or tool-call arguments that are not JSON objects) is an error
// before anything is sent.
func (c *Chat) Chat(ctx context.Context, req wisp.ChatRequest, stream func(wisp.ChatDelta)) (wisp.ChatResponse, error) {
	if c.err != nil {
		return wisp.ChatResponse{}, c.err
	}
	if ctx.Err() != nil {
		return wisp.ChatResponse{}, context.Cause(ctx)
	}
	areq, err := c.request(req)
	if err != nil {
		return wisp.ChatResponse{}, err
	}
	resp, err := c.c.send(ctx, http.MethodPost, chatPath, areq, "application/x-ndjson")
	if err != nil {
		if ctx.Err() != nil {
			return wisp.ChatResponse{}, context.Cause(ctx)
		}
		var se api.StatusError
		if errors.As(err, &se) && se.StatusCode == http.StatusNotFound && strings.HasPrefix(se.ErrorMessage, "model ") {
			return wisp.ChatResponse{}, fmt.Errorf(`ollama at %s: %w %q; fetch it with "ollama pull %s", or see "ollama list"`, c.c.base, models.ErrNotFound, c.name, c.name)
		}
		return wisp.ChatResponse{}, err
	}
	defer resp.Body.Close()

	var (
		content, thinking strings.Builder
		calls             []wisp.ToolCall
		done              bool
	)
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	for !done && sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var msg struct {
			Error string `json:"error"`
			api.ChatResponse
		}
		if err := json.Unmarshal(line, &msg); err != nil {
			if ctx.Err() != nil {
				return wisp.ChatResponse{}, context.Cause(ctx)
			}
			return wisp.ChatResponse{}, &lineError{
				line: lineNotAPI + strconv.Quote(neterr.OneLine(string(line), 80)) + "; check that OLLAMA_HOST points at ollama",
				err:  err,
			}
		}
		if msg.Error != "" {
			return wisp.ChatResponse{}, fmt.Errorf("ollama at %s failed mid-answer: %s; see the ollama server log, and try again", c.c.base, neterr.OneLine(msg.Error, 200))
		}
		m := msg.Message
		if m.Thinking != "" {
			thinking.WriteString(m.Thinking)
			if stream != nil {
				stream(wisp.ChatDelta{Thinking: m.Thinking})
			}
		}
		if m.Content != "" {
			content.WriteString(m.Content)
			if stream != nil {
				stream(wisp.ChatDelta{Content: m.Content})
			}
		}
		for _, tc := range m.ToolCalls {
			call, err := toolCall(tc, len(calls)+1)
			if err != nil {
				return wisp.ChatResponse{}, err
			}
			calls = append(calls, call)
		}
		done = msg.Done
	}
	if ctx.Err() != nil {
		return wisp.ChatResponse{}, context.Cause(ctx)
	}
	if !done {
		cause := sc.Err()
		if cause == nil {
			cause = errIncomplete
		}
		return wisp.ChatResponse{}, &lineError{line: lineCutOff, err: cause}
	}
	return wisp.ChatResponse{
		Message:  wisp.Message{Role: wisp.RoleAssistant, Content: content.String(), ToolCalls: calls},
		Thinking: thinking.String(),
	}, nil
}

// ContextTokens returns the context, in tokens, Ollama's runner has for
// the model, as /api/ps reports it. A model Ollama has not loaded is
// loaded first, by a chat request with no messages sent with the options
// every Chat sends, so the next Chat finds it loaded as it would load it.
// It returns 0 when Ollama cannot tell (it does not answer, or the model
// fails to load: the Chat that follows says why). It makes the agent
// condense a thread to the context the model runs with, not the most it
// takes (agent.ContextSizer).
func (c *Chat) ContextTokens(ctx context.Context) int {
	if c.err != nil {
		return 0
	}
	b := Backend{c: c.c}
	if n := b.loaded(ctx).context(c.name); n > 0 {
		return n
	}
	stream := false
	load := &api.ChatRequest{Model: c.name, Messages: []api.Message{}, Stream: &stream,
		KeepAlive: c.keepAlive, Think: c.think, Options: runOptions(c.numCtx, nil)}
	if err := c.c.chat(ctx, load, func(api.ChatResponse) error { return nil }); err != nil {
		return 0
	}
	return b.loaded(ctx).context(c.name)
}

// request builds the /api/chat request for req.
func (c *Chat) request(req wisp.ChatRequest) (*api.ChatRequest, error) {
	stream := true
	out := &api.ChatRequest{
		Model:     c.name,
		Stream:    &stream,
		KeepAlive: c.keepAlive,
		Think:     c.think,
		Messages:  make([]api.Message, 0, len(req.Messages)),
	}
	out.Options = runOptions(c.numCtx, nil)
	for i, m := range req.Messages {
		am := api.Message{Role: string(m.Role), Content: m.Content, ToolCallID: m.ToolCallID}
		if m.Role == wisp.RoleTool {
			am.ToolName = m.Name
		}
		for j, tc := range m.ToolCalls {
			args := api.NewToolCallFunctionArguments()
			if raw := bytes.TrimSpace(tc.Arguments); len(raw) > 0 {
				if !json.Valid(raw) || raw[0] != '{' || args.UnmarshalJSON(raw) != nil {
					return nil, fmt.Errorf("ollama: message %d, tool call %d (%s): the arguments are not a JSON object: %s; send each call's arguments as a JSON object", i+1, j+1, tc.Name, neterr.OneLine(string(raw), 60))
				}
			}
			am.ToolCalls = append(am.ToolCalls, api.ToolCall{
				ID:       tc.ID,
				Function: api.ToolCallFunction{Index: j, Name: tc.Name, Arguments: args},
			})
		}
		out.Messages = append(out.Messages, am)
	}
	for _, spec := range req.Tools {
		t, err := tool(spec)
		if err != nil {
			return nil, err
		}
		out.Tools = append(out.Tools, t)
	}
	return out, nil
}

// tool turns a wisp tool spec into Ollama's. The schema is decoded into
// api.ToolFunctionParameters, as Ollama's server decodes it: keywords that
// type lacks (additionalProperties, minimum, format, ...) are dropped here
// as they would be there, so the model never sees them either way. An
// empty schema is an object with no properties; a schema without a type is
// an object. A schema that does not decode (not a JSON object, or a
// keyword of the wrong JSON type) is an error naming the tool.
func tool(spec wisp.ToolSpec) (api.Tool, error) {
	var p api.ToolFunctionParameters
	if len(bytes.TrimSpace(spec.Schema)) > 0 {
		if err := json.Unmarshal(spec.Schema, &p); err != nil {
			return api.Tool{}, fmt.Errorf("ollama: tool %q: its schema does not fit ollama's tool parameters (%w); give it a JSON Schema object such as {\"type\":\"object\",\"properties\":{...}}", spec.Name, err)
		}
	}
	if p.Type == "" {
		p.Type = "object"
	}
	if p.Properties == nil {
		p.Properties = api.NewToolPropertiesMap()
	}
	return api.Tool{
		Type:     "function",
		Function: api.ToolFunction{Name: spec.Name, Description: spec.Description, Parameters: p},
	}, nil
}

// toolCall turns Ollama's n-th tool call of a message (from 1) into
// wisp's.
func toolCall(tc api.ToolCall, n int) (wisp.ToolCall, error) {
	args, err := json.Marshal(tc.Function.Arguments)
	if err != nil {
		return wisp.ToolCall{}, fmt.Errorf("ollama: encoding the arguments of tool call %s: %w", tc.Function.Name, err)
	}
	id := tc.ID
	if id == "" {
		id = "call_" + strconv.Itoa(n)
	}
	return wisp.ToolCall{ID: id, Name: tc.Function.Name, Arguments: args}, nil
}

// lineError is an error whose text is one fixed line, wrapping the error
// that caused it.
type lineError struct {
	line string
	err  error
}

func (e *lineError) Error() string { return e.line }

func (e *lineError) Unwrap() error { return e.err }
