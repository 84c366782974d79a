// Package script is a scripted model: it plays a fixed list of messages,
// one per model step, so the CLI, every face and the contract suites can
// run whole turns with no model server, deterministically.
//
// A script file is JSON lines, each line the model's next message:
//
//	{"content":"…","tool_calls":[{"name":"ask","arguments":{"question":"…"}}]}
//
// Blank lines are skipped. A script that runs out ends the turn with an
// error that wraps wisp.ErrScriptExhausted.
package script

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/wisp-agent/wisp"
)

// A Step is one message the model plays.
type Step struct {
	Content   string     `json:"content"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
}

// A ToolCall is a call a step makes.
type ToolCall struct {
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// Model plays steps in order. It is safe for concurrent use; steps are
// handed out one per Chat call.
type Model struct {
	name  string
	mu    sync.Mutex
	steps []Step
	next  int
	seen  []wisp.ChatRequest
}

var _ wisp.Model = (*Model)(nil)

// New returns a model that plays steps. name appears in errors.
func New(name string, steps []Step) *Model {
	return &Model{name: name, steps: append([]Step(nil), steps...)}
}

// Load reads a script file.
func Load(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("script %s: %w", path, err)
	}
	defer f.Close()
	return Parse(f, filepath.Base(path))
}

// maxLine bounds one line of a script.
const maxLine = 1 << 20

// Parse reads a script from r. name appears in errors. A line that is not
// a message is an error naming the line and what a line must be.
func Parse(r io.Reader, name string) (*Model, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), maxLine)
	var steps []Step
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		step, err := parseLine(line)
		if err != nil {
			return nil, fmt.Errorf("script %s:%d: %v; each line is one message: {\"content\":\"…\",\"tool_calls\":[{\"name\":\"…\",\"arguments\":{…}}]}", name, n, err)
		}
		steps = append(steps, step)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("script %s: %w", name, err)
	}
	if len(steps) == 0 {
		return nil, fmt.Errorf("script %s: no messages; each line is one message: {\"content\":\"…\"}", name)
	}
	return New(name, steps), nil
}

func parseLine(line []byte) (Step, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	var s Step
	if err := dec.Decode(&s); err != nil {
		return Step{}, fmt.Errorf("not a message (%v)", err)
	}
	if dec.More() {
		return Step{}, fmt.Errorf("more than one message on the line")
	}
	for i, c := range s.ToolCalls {
		if c.Name == "" {
			return Step{}, fmt.Errorf("tool call %d has no name", i+1)
		}
		if len(c.Arguments) > 0 && (c.Arguments[0] != '{') {
			return Step{}, fmt.Errorf("tool call %d: arguments must be a JSON object", i+1)
		}
	}
	if s.Content == "" && len(s.ToolCalls) == 0 {
		return Step{}, fmt.Errorf("the message has neither content nor tool calls")
	}
	return s, nil
}

// Chat plays the next step. It streams the content in one piece.
func (m *Model) Chat(ctx context.Context, req wisp.ChatRequest, stream func(wisp.ChatDelta)) (wisp.ChatResponse, error) {
	if err := ctx.Err(); err != nil {
		return wisp.ChatResponse{}, context.Cause(ctx)
	}
	m.mu.Lock()
	m.seen = append(m.seen, req)
	if m.next >= len(m.steps) {
		n := len(m.steps)
		m.mu.Unlock()
		return wisp.ChatResponse{}, fmt.Errorf("script %s: %w after %d messages; add a line for the model's next message", m.name, wisp.ErrScriptExhausted, n)
	}
	s := m.steps[m.next]
	m.next++
	m.mu.Unlock()

	if stream != nil && s.Content != "" {
		stream(wisp.ChatDelta{Content: s.Content})
	}
	msg := wisp.Message{Role: wisp.RoleAssistant, Content: s.Content}
	for _, c := range s.ToolCalls {
		msg.ToolCalls = append(msg.ToolCalls, wisp.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
	}
	return wisp.ChatResponse{Message: msg}, nil
}

// Requests returns what the model was sent, one request per Chat call.
func (m *Model) Requests() []wisp.ChatRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]wisp.ChatRequest(nil), m.seen...)
}

// Remaining returns how many steps are left to play.
func (m *Model) Remaining() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.steps) - m.next
}
