package wisp

import "encoding/json"

// Role says who wrote a message.
type Role string

// The roles of a conversation.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// A Message is one message of a conversation with a model.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content,omitempty"`
	// ToolCalls are the calls an assistant message makes.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID and Name tie a tool message to the call it answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	Name       string `json:"name,omitempty"`
}

// A ToolCall is a model's request to call a tool.
type ToolCall struct {
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// A ChatRequest is what a model is given for one step of a turn.
type ChatRequest struct {
	Messages []Message
	Tools    []ToolSpec
}

// A ChatDelta is a piece of a reply as it streams: text of the reply, or
// of the model's thinking, which is kept apart from the reply.
type ChatDelta struct {
	Content  string
	Thinking string
}

// A ChatResponse is a model's whole answer to one request.
type ChatResponse struct {
	Message Message
	// Thinking is the model's reasoning, apart from Message.Content; it is
	// shown, never sent back as the reply.
	Thinking string
}
