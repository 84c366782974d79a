package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/wisp-agent/wisp/agent/threadfile"
)

// Resource templates.
const (
	ThreadTemplate = "wisp://threads/{thread_id}"
	AuditTemplate  = "wisp://threads/{thread_id}/audit"
)

// ErrUnknownThread reports a thread that was never saved.
var ErrUnknownThread = errors.New("no such thread")

// Thread is the JSON of the wisp://threads/{thread_id} resource.
type Thread struct {
	ThreadID string          `json:"thread_id"`
	Turn     int             `json:"turn"`
	Messages []ThreadMessage `json:"messages"`
	// Facts are the thread's facts as the model reads them
	// (wisp.Fact.String).
	Facts []string `json:"facts"`
}

// A ThreadMessage is one record of a thread: a message, or a record wisp
// added, which Kind names.
type ThreadMessage struct {
	// Kind is "notice" for wisp's word to the model between turns (the
	// end of a pull, an answer that came late) and "condensed" for the
	// note that stands where condensed messages were; left out for the
	// conversation's messages, whatever their text says.
	Kind    string `json:"kind,omitempty"`
	Role    string `json:"role"`
	Content string `json:"content"`
	// ToolCalls are the calls an assistant message makes.
	ToolCalls []ThreadToolCall `json:"tool_calls,omitempty"`
	// Tool names the tool whose result a tool message is.
	Tool string `json:"tool,omitempty"`
}

// A ThreadToolCall is a tool call in a thread.
type ThreadToolCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

func (s *Server) addResources() {
	s.mcp.AddResourceTemplate(
		mcp.NewResourceTemplate(ThreadTemplate, "thread",
			mcp.WithTemplateDescription("A wisp thread: its turn count, messages and facts, as JSON."),
			mcp.WithTemplateMIMEType("application/json")),
		s.readThread)
	if s.opts.Audit != nil {
		s.mcp.AddResourceTemplate(
			mcp.NewResourceTemplate(AuditTemplate, "thread audit",
				mcp.WithTemplateDescription("A wisp thread's audit records, as JSON lines."),
				mcp.WithTemplateMIMEType("application/jsonl")),
			s.readAudit)
	}
}

// threadArg returns the thread_id of a resource request, checked.
func threadArg(req mcp.ReadResourceRequest) (string, error) {
	var id string
	switch v := req.Params.Arguments["thread_id"].(type) {
	case []string: // what mcp-go's template matcher gives
		if len(v) == 1 {
			id = v[0]
		}
	case string:
		id = v
	}
	if !threadfile.ValidID(id) {
		return "", fmt.Errorf("%s: %q is not a thread id: %w", req.Params.URI, id, threadfile.ErrBadID)
	}
	return id, nil
}

func (s *Server) loadThread(req mcp.ReadResourceRequest) (Thread, error) {
	id, err := threadArg(req)
	if err != nil {
		return Thread{}, err
	}
	st, ok, err := s.opts.Threads.Load(id)
	if err != nil {
		return Thread{}, fmt.Errorf("thread %s: %w", id, err)
	}
	if !ok {
		return Thread{}, fmt.Errorf("thread %s: %w: %w", id, ErrUnknownThread, server.ErrResourceNotFound)
	}
	t := Thread{ThreadID: id, Turn: st.Turn, Messages: make([]ThreadMessage, 0, len(st.Messages)), Facts: make([]string, 0, len(st.Facts))}
	for _, m := range st.Messages {
		tm := ThreadMessage{Kind: string(m.Kind), Role: string(m.Role), Content: m.Content}
		for _, c := range m.ToolCalls {
			tm.ToolCalls = append(tm.ToolCalls, ThreadToolCall{Name: c.Name, Arguments: c.Arguments})
		}
		if m.Role == "tool" {
			tm.Tool = m.Name
		}
		t.Messages = append(t.Messages, tm)
	}
	for _, f := range st.Facts {
		t.Facts = append(t.Facts, f.String())
	}
	return t, nil
}

func (s *Server) readThread(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	t, err := s.loadThread(req)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(t)
	if err != nil {
		return nil, err
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "application/json", Text: string(b)}}, nil
}

func (s *Server) readAudit(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	t, err := s.loadThread(req)
	if err != nil {
		return nil, err
	}
	b, err := s.opts.Audit(t.ThreadID)
	if err != nil {
		return nil, fmt.Errorf("thread %s: audit: %w", t.ThreadID, err)
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "application/jsonl", Text: string(b)}}, nil
}
