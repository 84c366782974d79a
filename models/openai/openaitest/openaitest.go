// Package openaitest is a fake OpenAI-style chat server for tests, shaped
// like mlx_lm.server: it answers POST /v1/chat/completions with scripted
// replies, streamed in small server-sent-event chunks, GET /v1/models and
// GET /health, over a loopback httptest server. It can be told to fail in
// the ways a real server does: to answer with an error status, to cut a
// stream short, to send something that is not a stream, or to hold a
// stream open until the client goes away.
//
// Its answers are deterministic: fixed ids and times, and tool call ids
// "call_1", "call_2", … in the order the server sends them.
package openaitest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Model is the one model GET /v1/models lists.
const Model = "openaitest/model"

// A Reply is one scripted answer of the model.
type Reply struct {
	// Content is the reply's text, sent word by word.
	Content string
	// Reasoning is the model's reasoning, sent word by word before the
	// content as delta.reasoning, as mlx_lm.server sends it.
	Reasoning string
	// ToolCalls are sent after the content, each its arguments split
	// across several chunks, the calls' pieces interleaved.
	ToolCalls []ToolCall
	// FinishReason is the finish_reason sent at the end; "" means
	// "tool_calls" when there are tool calls, else "stop".
	FinishReason string
}

// A ToolCall is one scripted tool call.
type ToolCall struct {
	// ID is the call's id; "" means "call_N", N counting the server's
	// calls from 1.
	ID   string
	Name string
	// Arguments is the text of the arguments, as the model wrote it:
	// normally a JSON object.
	Arguments string
}

// A Request is one decoded request body of POST /v1/chat/completions.
// The server refuses a body with a field these types do not have, so the
// client's wire shape is pinned.
type Request struct {
	Model     string    `json:"model,omitempty"`
	Messages  []Message `json:"messages"`
	Tools     []Tool    `json:"tools,omitempty"`
	Stream    bool      `json:"stream"`
	MaxTokens *int      `json:"max_tokens,omitempty"`
	// Authorization is the request's Authorization header.
	Authorization string `json:"-"`
}

// A Message is one message of a request.
type Message struct {
	Role       string     `json:"role"`
	Content    *string    `json:"content"`
	ToolCalls  []WireCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Name       string     `json:"name,omitempty"`
}

// A WireCall is a tool call as the API carries it.
type WireCall struct {
	Index    *int     `json:"index,omitempty"`
	ID       string   `json:"id,omitempty"`
	Type     string   `json:"type,omitempty"`
	Function Function `json:"function"`
}

// A Function is a tool call's name and arguments, a string of JSON.
type Function struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

// A Tool is one tool a request offers.
type Tool struct {
	Type     string       `json:"type"`
	Function ToolFunction `json:"function"`
}

// A ToolFunction describes a tool.
type ToolFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// A Server is a running fake server. Its methods are safe for concurrent
// use.
type Server struct {
	// URL is the server's base URL, as "http://127.0.0.1:PORT".
	URL string

	srv  *httptest.Server
	done chan struct{}

	mu         sync.Mutex
	replies    []Reply
	requests   []Request
	calls      int
	truncate   bool
	garbage    bool
	hold       bool
	unstreamed bool
	fail       int
}

// NewServer starts a server that answers the chat requests with replies
// in turn, and stops it when the test ends. A request after the last
// reply is answered with HTTP 500.
func NewServer(t testing.TB, replies ...Reply) *Server {
	t.Helper()
	s := Start(replies...)
	t.Cleanup(s.Close)
	return s
}

// Start starts a server, as NewServer does, for code without a
// testing.TB, such as an Example. The caller must Close it.
func Start(replies ...Reply) *Server {
	s := &Server{replies: replies, done: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.chat)
	mux.HandleFunc("POST /chat/completions", s.chat)
	mux.HandleFunc("GET /v1/models", s.models)
	mux.HandleFunc("GET /health", s.health)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte("Not Found"))
	})
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL
	return s
}

// Close releases any held stream and stops the server. It may be called
// more than once.
func (s *Server) Close() {
	s.mu.Lock()
	select {
	case <-s.done:
	default:
		close(s.done)
	}
	s.mu.Unlock()
	s.srv.Close()
}

// Requests returns the chat requests the server has decoded, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Truncate sets whether the next streams end, without finish_reason or
// [DONE], after the reply's last piece.
func (s *Server) Truncate(on bool) { s.set(func() { s.truncate = on }) }

// Garbage sets whether chat requests are answered with HTTP 200 and an
// HTML page instead of a stream.
func (s *Server) Garbage(on bool) { s.set(func() { s.garbage = on }) }

// Hold sets whether streams stop after the reply's last piece, before
// finish_reason, and stay open until the client goes away or the server
// closes.
func (s *Server) Hold(on bool) { s.set(func() { s.hold = on }) }

// Unstreamed sets whether chat requests are answered with one JSON
// completion even when they ask for a stream, as a server that ignores
// "stream" does.
func (s *Server) Unstreamed(on bool) { s.set(func() { s.unstreamed = on }) }

// Fail sets the HTTP status every request is answered with, its body
// {"error": "..."} as mlx_lm.server writes it; 0 answers normally again.
func (s *Server) Fail(status int) { s.set(func() { s.fail = status }) }

func (s *Server) set(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f()
}

// failed writes the failure Fail set, and reports whether it did.
func (s *Server) failed(w http.ResponseWriter, what string) bool {
	s.mu.Lock()
	status := s.fail
	s.mu.Unlock()
	if status == 0 {
		return false
	}
	writeError(w, status, fmt.Sprintf("openaitest: %s failed as told (%d)", what, status))
	return true
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	if s.failed(w, "health") {
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"status": "ok"}`))
}

func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	if s.failed(w, "models") {
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = fmt.Fprintf(w, `{"object": "list", "data": [{"id": %q, "object": "model", "created": 0}]}`, Model)
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength < 0 {
		// mlx_lm.server reads exactly Content-Length bytes.
		writeError(w, http.StatusLengthRequired, "openaitest: the request has no Content-Length")
		return
	}
	var req Request
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "Invalid JSON in request body: "+err.Error())
		return
	}
	req.Authorization = r.Header.Get("Authorization")

	s.mu.Lock()
	s.requests = append(s.requests, req)
	n := len(s.requests)
	var reply Reply
	ok := n <= len(s.replies)
	if ok {
		reply = s.replies[n-1]
	}
	truncate, garbage, hold, unstreamed := s.truncate, s.garbage, s.hold, s.unstreamed
	ids := make([]string, len(reply.ToolCalls))
	for i, c := range reply.ToolCalls {
		ids[i] = c.ID
		if ids[i] == "" {
			s.calls++
			ids[i] = fmt.Sprintf("call_%d", s.calls)
		}
	}
	s.mu.Unlock()

	if s.failed(w, "chat") {
		return
	}
	if !ok {
		writeError(w, http.StatusInternalServerError, fmt.Sprintf("openaitest: no reply left for request %d", n))
		return
	}
	if garbage {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html><body>It works!</body></html>\n"))
		return
	}
	finish := reply.FinishReason
	if finish == "" {
		finish = "stop"
		if len(reply.ToolCalls) > 0 {
			finish = "tool_calls"
		}
	}
	if unstreamed || !req.Stream {
		s.whole(w, req, reply, ids, finish)
		return
	}

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	flusher, _ := w.(http.Flusher)
	send := func(s string) {
		_, _ = w.Write([]byte(s))
		if flusher != nil {
			flusher.Flush()
		}
	}
	chunk := func(delta map[string]any, finish any) {
		b, _ := json.Marshal(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
		})
		send("data: " + string(b) + "\n\n")
	}
	send(": keepalive 1/1\n\n")
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	for _, w := range words(reply.Reasoning) {
		chunk(map[string]any{"reasoning": w}, nil)
	}
	for _, w := range words(reply.Content) {
		chunk(map[string]any{"content": w}, nil)
	}
	pieces := make([][]string, len(reply.ToolCalls))
	for i, c := range reply.ToolCalls {
		pieces[i] = split(c.Arguments, 4)
		chunk(map[string]any{"tool_calls": []any{map[string]any{
			"index": i, "id": ids[i], "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": ""},
		}}}, nil)
	}
	for more := true; more; {
		more = false
		for i := range pieces {
			if len(pieces[i]) == 0 {
				continue
			}
			chunk(map[string]any{"tool_calls": []any{map[string]any{
				"index": i, "function": map[string]any{"arguments": pieces[i][0]},
			}}}, nil)
			pieces[i] = pieces[i][1:]
			more = true
		}
	}
	switch {
	case truncate:
		return
	case hold:
		select {
		case <-r.Context().Done():
		case <-s.done:
		}
		return
	}
	chunk(map[string]any{}, finish)
	send("data: [DONE]\n\n")
}

// whole writes reply as one chat.completion object.
func (s *Server) whole(w http.ResponseWriter, req Request, reply Reply, ids []string, finish string) {
	var calls []WireCall
	for i, c := range reply.ToolCalls {
		calls = append(calls, WireCall{ID: ids[i], Type: "function", Function: Function{Name: c.Name, Arguments: c.Arguments}})
	}
	msg := map[string]any{"role": "assistant", "content": reply.Content, "reasoning": reply.Reasoning, "tool_calls": calls}
	if calls == nil {
		msg["tool_calls"] = []any{}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]int{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
	})
}

// words splits s after each space, so the pieces join back to s.
func words(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, ' ')
		if i < 0 {
			return append(out, s)
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// split cuts s into pieces of n characters, the last shorter.
func split(s string, n int) []string {
	var out []string
	r := []rune(s)
	for len(r) > n {
		out = append(out, string(r[:n]))
		r = r[n:]
	}
	if len(r) > 0 {
		out = append(out, string(r))
	}
	return out
}
