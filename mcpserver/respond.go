package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wisp-agent/wisp/agent/threadfile"
)

// ToolName is the name of the tool that runs a turn.
const ToolName = "respond"

// MaxPrompt bounds a prompt, in characters.
const MaxPrompt = 100000

// respondDescription is what the caller's model reads about respond.
const respondDescription = "Runs one turn of wisp's local agent on a thread: wisp's model reads the prompt " +
	"and the thread so far, may run its tools, and replies. The reply and the thread_id come back; pass the " +
	"thread_id again to continue the same conversation. Without thread_id a new thread starts; a thread_id " +
	"wisp has never seen starts a thread of that name. tools names the tools wisp's model may use on this " +
	"turn (left out: every tool the person's settings allow; an empty list: none). Any question wisp's model " +
	"asks goes to the person at their terminal, never to you. Each thread is readable as the resource " +
	"wisp://threads/{thread_id}."

// respondInput is the JSON Schema of respond's arguments.
var respondInput = json.RawMessage(`{
  "type": "object",
  "properties": {
    "prompt": {
      "type": "string",
      "minLength": 1,
      "maxLength": 100000,
      "description": "What to say to wisp's agent on this turn."
    },
    "thread_id": {
      "type": "string",
      "pattern": "^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$",
      "description": "The thread to continue, as an earlier call returned it; left out, a new thread starts."
    },
    "tools": {
      "type": "array",
      "items": {"type": "string"},
      "description": "The tools wisp's agent may use on this turn; left out, every tool the settings allow."
    }
  },
  "required": ["prompt"],
  "additionalProperties": false
}`)

// respondOutput is the JSON Schema of respond's structured result.
var respondOutput = json.RawMessage(`{
  "type": "object",
  "properties": {
    "reply": {"type": "string", "description": "wisp's reply"},
    "thread_id": {"type": "string", "description": "the thread the turn ran on"},
    "turn": {"type": "integer", "description": "the turn's number on the thread, from 1"},
    "flags": {"type": "array", "items": {"type": "string"}, "description": "claims in the reply that the turn cannot back"}
  },
  "required": ["reply", "thread_id", "turn"]
}`)

// respondTool is respond's definition. It is a literal, not mcp.NewTool:
// NewTool fills in InputSchema, and a tool with both InputSchema and
// RawInputSchema fails to marshal.
func respondTool() mcp.Tool {
	return mcp.Tool{
		Name:            ToolName,
		Description:     respondDescription,
		RawInputSchema:  respondInput,
		RawOutputSchema: respondOutput,
		Annotations: mcp.ToolAnnotation{
			Title: "Ask wisp",
			// It changes the thread and its tools may change files, but
			// every command passes wisp's policy and the person's gate;
			// nothing reaches beyond the machine by itself.
			ReadOnlyHint:    mcp.ToBoolPtr(false),
			DestructiveHint: mcp.ToBoolPtr(false),
			IdempotentHint:  mcp.ToBoolPtr(false),
			OpenWorldHint:   mcp.ToBoolPtr(false),
		},
	}
}

// RespondResult is respond's structured result.
type RespondResult struct {
	Reply    string   `json:"reply"`
	ThreadID string   `json:"thread_id"`
	Turn     int      `json:"turn"`
	Flags    []string `json:"flags,omitempty"`
}

// respondArgs are respond's arguments, checked.
type respondArgs struct {
	prompt string
	thread string   // "" for a new thread
	tools  []string // nil: every tool
}

// parseRespond checks respond's arguments; the error is a line for the
// caller.
func parseRespond(raw any) (respondArgs, error) {
	args, ok := raw.(map[string]any)
	if !ok {
		return respondArgs{}, fmt.Errorf("the arguments must be an object with prompt, and optionally thread_id and tools")
	}
	var a respondArgs
	for k := range args {
		if k != "prompt" && k != "thread_id" && k != "tools" {
			return respondArgs{}, fmt.Errorf("unknown argument %q; respond takes prompt, thread_id and tools", k)
		}
	}
	p, ok := args["prompt"].(string)
	switch n := utf8.RuneCountInString(p); {
	case !ok || n == 0:
		return respondArgs{}, fmt.Errorf("prompt is required: a string of 1 to %d characters", MaxPrompt)
	case n > MaxPrompt:
		return respondArgs{}, fmt.Errorf("prompt has %d characters; the most is %d", n, MaxPrompt)
	}
	a.prompt = p
	if v, ok := args["thread_id"]; ok && v != nil {
		id, isString := v.(string)
		if !isString || !threadfile.ValidID(id) {
			return respondArgs{}, fmt.Errorf("thread_id %s is not a thread id: %v; pass one an earlier call returned, or leave it out for a new thread", short(v), threadfile.ErrBadID)
		}
		a.thread = id
	}
	if v, ok := args["tools"]; ok && v != nil {
		list, isList := v.([]any)
		if !isList {
			return respondArgs{}, fmt.Errorf("tools must be a list of tool names")
		}
		a.tools = make([]string, 0, len(list))
		for _, item := range list {
			name, isString := item.(string)
			if !isString {
				return respondArgs{}, fmt.Errorf("tools must be a list of tool names; %s is not a name", short(item))
			}
			a.tools = append(a.tools, name)
		}
	}
	return a, nil
}

// short renders a JSON value for an error line, cut to 60 bytes.
func short(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(b)
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

// errorResult is a result the caller can read and act on: one line.
func errorResult(format string, a ...any) *mcp.CallToolResult {
	return mcp.NewToolResultError("error: " + oneLine(fmt.Sprintf(format, a...)))
}

// oneLine folds line breaks so an error stays one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

// respond runs one turn. Failures the caller can act on, and turns that
// fail, come back as error results; the handler itself never fails.
func (s *Server) respond(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	args, err := parseRespond(req.GetArguments())
	if err != nil {
		return errorResult("%v", err), nil
	}
	thread := args.thread
	if thread == "" {
		if thread, err = s.newThread(); err != nil {
			return errorResult("%v", err), nil
		}
	}
	if s.opts.Conversations == nil {
		return errorResult("this server has no agent to run turns"), nil
	}
	if s.opts.OnCall != nil {
		ctx = s.opts.OnCall(ctx, thread)
	}
	a, err := s.opts.Conversations.Agent(ctx, args.tools)
	if err != nil {
		return errorResult("%v", err), nil
	}

	unlock, err := s.lockThread(ctx, thread)
	if err != nil {
		return errorResult("thread %s: %v", thread, err), nil
	}
	reply, err := a.Respond(ctx, thread, args.prompt)
	unlock()
	if err != nil {
		res := errorResult("%v", err)
		res.Content = append(res.Content, mcp.NewTextContent("thread: "+thread))
		return res, nil
	}
	out := RespondResult{Reply: reply.Text, ThreadID: reply.Thread, Turn: reply.Turn, Flags: reply.Flags}
	text := reply.Text + "\n\nthread: " + reply.Thread
	for _, f := range reply.Flags {
		text += "\nflag: " + f
	}
	return mcp.NewToolResultStructured(out, text), nil
}

// maxIDTries bounds the attempts to find an unused thread id.
const maxIDTries = 16

// newThread returns an id no saved thread has.
func (s *Server) newThread() (string, error) {
	for range maxIDTries {
		id := s.opts.NewID()
		if !threadfile.ValidID(id) {
			return "", fmt.Errorf("the new thread id %q is not a thread id: %v", id, threadfile.ErrBadID)
		}
		_, exists, err := s.opts.Threads.Load(id)
		if err != nil || exists {
			continue
		}
		if !s.busy(id) {
			return id, nil
		}
	}
	return "", fmt.Errorf("found no unused thread id in %d tries; pass a thread_id", maxIDTries)
}

// threadLock serialises respond calls on one thread. The agent serialises
// a thread too, but Conversations may build a new agent for each call.
type threadLock struct {
	token chan struct{}
	refs  int
}

// busy reports whether a respond call holds or waits for thread.
func (s *Server) busy(thread string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.threads[thread]
	return ok
}

// lockThread waits for thread's turn, or for ctx. The returned func
// releases it.
func (s *Server) lockThread(ctx context.Context, thread string) (func(), error) {
	s.mu.Lock()
	l := s.threads[thread]
	if l == nil {
		l = &threadLock{token: make(chan struct{}, 1)}
		s.threads[thread] = l
	}
	l.refs++
	s.mu.Unlock()

	release := func() {
		s.mu.Lock()
		l.refs--
		if l.refs == 0 {
			delete(s.threads, thread)
		}
		s.mu.Unlock()
	}
	select {
	case l.token <- struct{}{}:
		return func() { <-l.token; release() }, nil
	case <-ctx.Done():
		release()
		return nil, context.Cause(ctx)
	}
}
