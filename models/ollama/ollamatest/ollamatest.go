// Package ollamatest is a fake Ollama server for tests. It speaks the wire
// shapes of Ollama's HTTP API (package github.com/ollama/ollama/api) for
// /api/tags, /api/show, /api/chat, /api/ps, /api/version and /, over
// httptest, and can be told to fail in the ways a real server does: to
// stop answering, to answer a path with an error status, or to cut a chat
// answer short. Like Ollama it loads a model on the first chat, with the
// context the request asks for (num_ctx) or its own default, loads it
// again when a request asks for another, reports what it has loaded on
// /api/ps, refuses tools to a model that cannot take them, and fails every
// chat of a model that cannot load.
//
// Its answers are deterministic: fixed times, digests derived from names,
// and replies taken from each Model: its scripted Replies in turn, with
// thinking and tool calls, then its ChatReply.
package ollamatest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// Version is what GET /api/version reports.
const Version = "0.17.4"

// modifiedAt is every model's modified_at, and every answer's created_at.
func modifiedAt() time.Time { return time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC) }

// A Model is one model the fake server has.
type Model struct {
	// Name is the model's name as Ollama lists it: "qwen3:4b". A request
	// for a name without a tag ("qwen3") finds "qwen3:latest".
	Name string
	// Size is the bytes on disk /api/tags reports.
	Size int64
	// Family is details.family, and the architecture /api/show names in
	// model_info; "llama" when empty.
	Family string
	// ParameterSize is details.parameter_size: "4.0B".
	ParameterSize string
	// Quantization is details.quantization_level: "Q4_K_M".
	Quantization string
	// ContextLength is model_info's "<arch>.context_length"; 0 leaves it
	// out.
	ContextLength int
	// Capabilities are what /api/show reports: "completion", "tools",
	// "thinking", "vision", "embedding". Nil means ["completion"]; an
	// empty, non-nil slice means none, as an older server reports. A
	// model with capabilities but not "completion" refuses chat, as
	// Ollama refuses it for embedding models.
	Capabilities []string
	// License is the licence text /api/show reports.
	License string
	// Template is the chat template /api/show reports.
	Template string
	// ChatReply is what the model answers, split into one chunk a word;
	// "" means "Hello! How can I help?". A request's num_predict option
	// keeps only that many chunks, with done_reason "length".
	ChatReply string
	// Replies script a dialogue: each /api/chat request for the model
	// that has messages is answered with the next reply, whatever it
	// asks, and once they run out with ChatReply. Rewind starts them
	// again.
	Replies []Reply
	// Digest is the manifest digest /api/tags and /api/ps report, 64 hex
	// digits; "" derives one from Name. A model put in place of another
	// of the same name (Put) has another digest.
	Digest string
	// LoadError, when set, is why the model cannot load: it is listed and
	// shown, but every chat that would load it fails with status 500 and
	// this error, as Ollama's does for a model file missing a tensor
	// (LineMissingTensor).
	LoadError string
}

// LineMissingTensor is what Ollama 0.17 says when a model's file lacks a
// tensor it needs, for Model.LoadError.
const LineMissingTensor = "llama runner process has terminated: error loading model: missing tensor 'blk.0.ffn_up.weight'\nllama_model_load_from_file_impl: failed to load model"

// DefaultContext is the context the fake loads a model with when a
// request asks for none, as Ollama does without OLLAMA_CONTEXT_LENGTH on
// a machine with little memory; SetDefaultContext changes it.
const DefaultContext = 4096

// A Load is one time the fake loaded a model: its name and the context
// its runner got.
type Load struct {
	Model   string
	Context int
}

// A Reply is one scripted answer. Streamed, it comes as Ollama sends one:
// the thinking one word a chunk, then the content one word a chunk, then
// every tool call in one chunk, then a last chunk marked done with
// done_reason "stop". num_predict does not cut it.
type Reply struct {
	// Thinking is the model's reasoning, sent as message.thinking. It is
	// left out when the request says "think": false.
	Thinking string
	// Content is the reply's text.
	Content string
	// ToolCalls are the tools the reply calls.
	ToolCalls []ToolCall
}

// A ToolCall is a tool call of a scripted reply.
type ToolCall struct {
	// ID is the call's id; "" sends none, as older servers do.
	ID string
	// Name is the tool's name.
	Name string
	// Arguments are the call's arguments, a JSON object sent with its
	// keys in the order written; "" sends {}. Arguments that are not a
	// JSON object make the request fail with status 500.
	Arguments string
}

// Server is a running fake Ollama. Its methods are safe for concurrent
// use, also while requests are being served; a setting applies to the
// requests that arrive after it.
type Server struct {
	// URL is the server's base URL, "http://127.0.0.1:PORT": pass it to
	// the code under test as OLLAMA_HOST.
	URL string

	srv  *httptest.Server
	quit chan struct{}
	stop sync.Once

	mu       sync.Mutex
	models   []Model
	down     bool
	fail     map[string]int
	truncate bool
	abort    bool
	hold     bool
	listCaps bool
	garbage  bool
	midError string
	next     map[string]int // the next scripted reply of each model
	requests []string
	chats    []api.ChatRequest
	defCtx   int            // the context a model loads with when none is asked for
	running  map[string]int // the context of each loaded model's runner, by name
	loads    []Load
}

// NewServer starts a fake Ollama with the given models and closes it when
// the test ends.
func NewServer(t testing.TB, models ...Model) *Server {
	t.Helper()
	s, stop := Start(models...)
	t.Cleanup(stop)
	return s
}

// Start starts a fake Ollama with the given models, for code that has no
// testing.TB (a test binary serving it as a background command, an
// Example). The returned function stops it: it ends any held chat, closes
// every connection and waits for the handlers to return. Calling it again
// does nothing.
func Start(models ...Model) (*Server, func()) {
	s := &Server{quit: make(chan struct{}), fail: map[string]int{}, next: map[string]int{},
		defCtx: DefaultContext, running: map[string]int{}}
	for _, m := range models {
		s.models = append(s.models, m.clone())
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s, func() {
		s.stop.Do(func() {
			close(s.quit)
			s.srv.CloseClientConnections()
			s.srv.Close()
		})
	}
}

// clone copies m, so that the caller's slices are not shared.
func (m Model) clone() Model {
	m.Capabilities = slices.Clone(m.Capabilities)
	m.Replies = slices.Clone(m.Replies)
	for i := range m.Replies {
		m.Replies[i].ToolCalls = slices.Clone(m.Replies[i].ToolCalls)
	}
	return m
}

// Put adds m, or puts it in place of the model of the same name, as
// "ollama pull" of a newer model under the name does: it is unloaded, and
// its scripted replies start again.
func (s *Server) Put(m Model) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m = m.clone()
	delete(s.running, m.Name)
	delete(s.next, m.Name)
	for i := range s.models {
		if s.models[i].Name == m.Name {
			s.models[i] = m
			return
		}
	}
	s.models = append(s.models, m)
}

// Remove takes away the model named name, as "ollama rm" does.
func (s *Server) Remove(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.running, name)
	s.models = slices.DeleteFunc(s.models, func(m Model) bool { return m.Name == name })
}

// SetDefaultContext sets the context a model loads with when a request
// asks for none, as OLLAMA_CONTEXT_LENGTH does (DefaultContext until
// then). Models already loaded keep theirs.
func (s *Server) SetDefaultContext(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.defCtx = n
}

// Loads returns every time a model was loaded so far, in order: a model
// is loaded by its first chat, and again by a chat that asks for another
// context than its runner has.
func (s *Server) Loads() []Load {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.loads)
}

// SetDown makes the server drop every connection without an answer, as
// when Ollama has died, until it is set up again.
func (s *Server) SetDown(down bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = down
}

// Fail makes every request for path ("/api/show") answer status, with
// Ollama's {"error": "..."} body. A status of 0 ends the failure.
func (s *Server) Fail(path string, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if status == 0 {
		delete(s.fail, path)
		return
	}
	s.fail[path] = status
}

// TruncateChat makes a streamed chat answer end cleanly after its first
// chunk, with no message marked done: what a client sees when a stream is
// cut at a line boundary. A non-streamed answer comes with done false.
func (s *Server) TruncateChat(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.truncate = on
}

// AbortChat makes a streamed chat answer drop its connection after its
// first chunk, so the client reads an unexpected EOF. A non-streamed
// answer is dropped before it is written.
func (s *Server) AbortChat(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.abort = on
}

// HoldChat makes a streamed chat answer stop after its first chunk, and a
// non-streamed one before it is written, until the client goes away or the
// server stops: for tests that cancel mid-answer.
func (s *Server) HoldChat(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hold = on
}

// Garbage makes a streamed chat answer send, after its first chunk, a
// line that is not JSON and end there, and a non-streamed one answer that
// line alone: what a client sees when something other than Ollama answers.
func (s *Server) Garbage(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.garbage = on
}

// garbageLine is the line Garbage sends.
const garbageLine = "<html><body>It works!</body></html>"

// StreamError makes a streamed chat answer send, after its first chunk,
// Ollama's error line {"error": msg} and end there, as Ollama does when a
// model fails mid-answer; a non-streamed answer fails with status 500 and
// msg. An empty msg ends it.
func (s *Server) StreamError(msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.midError = msg
}

// Rewind starts every model's Replies again from the first.
func (s *Server) Rewind() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.next)
}

// ListCapabilities makes /api/tags report each model's capabilities and
// details.context_length, as newer Ollama servers may. Ollama 0.17 does
// not, and by default neither does the fake.
func (s *Server) ListCapabilities(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listCaps = on
}

// Requests returns every request received so far, in order, as method and
// path: "GET /api/tags", "POST /api/chat".
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// Chats returns the body of every well-formed /api/chat request received
// so far, in order.
func (s *Server) Chats() []api.ChatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.chats)
}

// serve is the whole server: logging, the failure switches, then routing.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests = append(s.requests, r.Method+" "+r.URL.Path)
	down, status := s.down, s.fail[r.URL.Path]
	s.mu.Unlock()

	if down {
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close()
			return
		}
		panic(http.ErrAbortHandler)
	}
	if status != 0 {
		writeError(w, status, strings.ToLower(http.StatusText(status)))
		return
	}

	switch r.Method + " " + r.URL.Path {
	case "GET /", "HEAD /":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, "Ollama is running")
	case "GET /api/version":
		writeJSON(w, http.StatusOK, map[string]string{"version": Version})
	case "GET /api/tags":
		s.tags(w)
	case "POST /api/show":
		s.show(w, r)
	case "POST /api/chat":
		s.chat(w, r)
	case "GET /api/ps":
		s.ps(w)
	default:
		// Ollama's router answers unknown routes, and known routes with
		// the wrong method, this way.
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, "404 page not found")
	}
}

// tagsModel is one /api/tags entry with the fields newer servers add.
type tagsModel struct {
	api.ListModelResponse
	Details      tagsDetails        `json:"details"`
	Capabilities []model.Capability `json:"capabilities,omitempty"`
}

type tagsDetails struct {
	api.ModelDetails
	ContextLength int `json:"context_length,omitempty"`
}

func (s *Server) tags(w http.ResponseWriter) {
	s.mu.Lock()
	models, listCaps := slices.Clone(s.models), s.listCaps
	s.mu.Unlock()

	if !listCaps {
		out := api.ListResponse{Models: []api.ListModelResponse{}}
		for _, m := range models {
			out.Models = append(out.Models, m.listEntry())
		}
		writeJSON(w, http.StatusOK, out)
		return
	}
	out := struct {
		Models []tagsModel `json:"models"`
	}{Models: []tagsModel{}}
	for _, m := range models {
		e := m.listEntry()
		out.Models = append(out.Models, tagsModel{
			ListModelResponse: e,
			Details:           tagsDetails{ModelDetails: e.Details, ContextLength: m.ContextLength},
			Capabilities:      m.capabilities(),
		})
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) show(w http.ResponseWriter, r *http.Request) {
	var req api.ShowRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid request body: "+err.Error())
		return
	}
	name := req.Model
	if name == "" {
		name = req.Name
	}
	if name == "" {
		writeError(w, http.StatusBadRequest, "model is required")
		return
	}
	m, ok := s.find(name)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", name))
		return
	}

	info := map[string]any{"general.architecture": m.arch()}
	if m.ContextLength > 0 {
		info[m.arch()+".context_length"] = m.ContextLength
	}
	modelfile := fmt.Sprintf("# Modelfile generated by \"ollama show\"\n# To build a new Modelfile based on this, replace FROM with:\n# FROM %s\n\nFROM %s\n", m.Name, m.Name)
	if m.Template != "" {
		modelfile += fmt.Sprintf("TEMPLATE \"\"\"%s\"\"\"\n", m.Template)
	}
	if m.License != "" {
		modelfile += fmt.Sprintf("LICENSE \"\"\"%s\"\"\"\n", m.License)
	}
	writeJSON(w, http.StatusOK, api.ShowResponse{
		License:      m.License,
		Modelfile:    modelfile,
		Template:     m.Template,
		Details:      m.details(),
		ModelInfo:    info,
		Capabilities: m.capabilities(),
		ModifiedAt:   modifiedAt(),
	})
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	var req api.ChatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid request body: "+err.Error())
		return
	}
	s.mu.Lock()
	s.chats = append(s.chats, req)
	truncate, abort, hold := s.truncate, s.abort, s.hold
	s.mu.Unlock()

	if req.Model == "" {
		writeError(w, http.StatusBadRequest, "model is required")
		return
	}
	m, ok := s.find(req.Model)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("model %q not found, try pulling it first", req.Model))
		return
	}
	if caps := m.capabilities(); len(caps) > 0 && !slices.Contains(caps, model.CapabilityCompletion) {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("%q does not support chat", req.Model))
		return
	}
	if caps := m.capabilities(); len(req.Tools) > 0 && len(caps) > 0 && !slices.Contains(caps, model.CapabilityTools) {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("registry.ollama.ai/library/%s does not support tools", m.Name))
		return
	}
	if m.LoadError != "" {
		writeError(w, http.StatusInternalServerError, m.LoadError)
		return
	}
	s.load(m, req.Options)

	head := api.ChatResponse{Model: req.Model, CreatedAt: modifiedAt(), Message: api.Message{Role: "assistant"}}
	if len(req.Messages) == 0 {
		// Ollama loads the model and says so.
		head.Done, head.DoneReason = true, "load"
		writeJSON(w, http.StatusOK, head)
		return
	}

	chunks, reason, err := s.answer(m, req)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	s.mu.Lock()
	garbage, midError := s.garbage, s.midError
	s.mu.Unlock()
	final := head
	final.Done, final.DoneReason = true, reason
	final.Metrics = api.Metrics{
		TotalDuration:      time.Duration(len(chunks)+1) * time.Millisecond,
		LoadDuration:       time.Millisecond,
		PromptEvalCount:    promptTokens(req.Messages),
		PromptEvalDuration: time.Millisecond,
		EvalCount:          len(chunks),
		EvalDuration:       time.Duration(len(chunks)) * time.Millisecond,
	}

	if req.Stream != nil && !*req.Stream {
		switch {
		case abort:
			panic(http.ErrAbortHandler)
		case hold:
			s.wait(r)
			return
		case garbage:
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			fmt.Fprintln(w, garbageLine)
			return
		case midError != "":
			writeError(w, http.StatusInternalServerError, midError)
			return
		case truncate:
			final.Done, final.DoneReason = false, ""
		}
		for _, c := range chunks {
			final.Message.Thinking += c.Thinking
			final.Message.Content += c.Content
			final.Message.ToolCalls = append(final.Message.ToolCalls, c.ToolCalls...)
		}
		writeJSON(w, http.StatusOK, final)
		return
	}

	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	enc := json.NewEncoder(w)
	for i, c := range chunks {
		msg := head
		msg.Message = c
		if enc.Encode(msg) != nil || rc.Flush() != nil {
			return
		}
		if i == 0 {
			switch {
			case abort:
				panic(http.ErrAbortHandler)
			case hold:
				s.wait(r)
				return
			case garbage:
				fmt.Fprintln(w, garbageLine)
				return
			case midError != "":
				enc.Encode(map[string]string{"error": midError})
				return
			case truncate:
				return
			}
		}
	}
	enc.Encode(final)
}

// load gives m a runner with the context opts ask for (num_ctx), or the
// default, cut to the most the model takes, as Ollama does: a runner
// with another context is replaced, and each load is recorded.
func (s *Server) load(m Model, opts map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.defCtx
	if v, ok := opts["num_ctx"].(float64); ok && v > 0 {
		n = int(v)
	}
	if m.ContextLength > 0 {
		n = min(n, m.ContextLength)
	}
	if have, ok := s.running[m.Name]; ok && have == n {
		return
	}
	s.running[m.Name] = n
	s.loads = append(s.loads, Load{Model: m.Name, Context: n})
}

// ps answers /api/ps: the models loaded, by name.
func (s *Server) ps(w http.ResponseWriter) {
	s.mu.Lock()
	out := api.ProcessResponse{Models: []api.ProcessModelResponse{}}
	for _, m := range s.models {
		n, ok := s.running[m.Name]
		if !ok {
			continue
		}
		e := m.listEntry()
		out.Models = append(out.Models, api.ProcessModelResponse{
			Name: m.Name, Model: m.Name, Size: m.Size, Digest: e.Digest, Details: e.Details,
			ExpiresAt: modifiedAt().Add(5 * time.Minute), SizeVRAM: 0, ContextLength: n,
		})
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

// answer returns the chunks of the answer to req, each a message to
// stream, and the done_reason: the model's next scripted reply, or its
// ChatReply.
func (s *Server) answer(m Model, req api.ChatRequest) ([]api.Message, string, error) {
	s.mu.Lock()
	n := s.next[m.Name]
	if n < len(m.Replies) {
		s.next[m.Name] = n + 1
	}
	s.mu.Unlock()

	var out []api.Message
	if n >= len(m.Replies) {
		words, reason := m.reply(req.Options)
		for _, w := range words {
			out = append(out, api.Message{Role: "assistant", Content: w})
		}
		return out, reason, nil
	}
	rep := m.Replies[n]
	if req.Think == nil || !req.Think.IsBool() || req.Think.Bool() {
		for _, w := range words(rep.Thinking) {
			out = append(out, api.Message{Role: "assistant", Thinking: w})
		}
	}
	for _, w := range words(rep.Content) {
		out = append(out, api.Message{Role: "assistant", Content: w})
	}
	if len(rep.ToolCalls) > 0 {
		calls := make([]api.ToolCall, len(rep.ToolCalls))
		for i, tc := range rep.ToolCalls {
			args := api.NewToolCallFunctionArguments()
			if tc.Arguments != "" {
				if err := args.UnmarshalJSON([]byte(tc.Arguments)); err != nil {
					return nil, "", fmt.Errorf("ollamatest: reply %d of %s: the arguments of tool call %d (%s) are not a JSON object: %v", n+1, m.Name, i+1, tc.Name, err)
				}
			}
			calls[i] = api.ToolCall{ID: tc.ID, Function: api.ToolCallFunction{Index: i, Name: tc.Name, Arguments: args}}
		}
		out = append(out, api.Message{Role: "assistant", ToolCalls: calls})
	}
	return out, "stop", nil
}

// wait blocks until the client goes away or the server stops.
func (s *Server) wait(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-s.quit:
	}
}

// find looks a model up as Ollama does: by its name, or a name without a
// tag by its ":latest".
func (s *Server) find(name string) (Model, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	alt := name
	if last := name[strings.LastIndex(name, "/")+1:]; !strings.Contains(last, ":") {
		alt = name + ":latest"
	}
	for _, want := range []string{name, alt} {
		for _, m := range s.models {
			if m.Name == want {
				return m, true
			}
		}
	}
	return Model{}, false
}

func (m Model) arch() string {
	if m.Family == "" {
		return "llama"
	}
	return m.Family
}

func (m Model) details() api.ModelDetails {
	return api.ModelDetails{
		Format:            "gguf",
		Family:            m.arch(),
		Families:          []string{m.arch()},
		ParameterSize:     m.ParameterSize,
		QuantizationLevel: m.Quantization,
	}
}

func (m Model) listEntry() api.ListModelResponse {
	digest := m.Digest
	if digest == "" {
		sum := sha256.Sum256([]byte(m.Name))
		digest = hex.EncodeToString(sum[:])
	}
	return api.ListModelResponse{
		Name:       m.Name,
		Model:      m.Name,
		ModifiedAt: modifiedAt(),
		Size:       m.Size,
		Digest:     digest,
		Details:    m.details(),
	}
}

func (m Model) capabilities() []model.Capability {
	if m.Capabilities == nil {
		return []model.Capability{model.CapabilityCompletion}
	}
	out := make([]model.Capability, len(m.Capabilities))
	for i, c := range m.Capabilities {
		out[i] = model.Capability(c)
	}
	return out
}

// reply splits the model's ChatReply into one chunk a word, and keeps
// num_predict of them.
func (m Model) reply(opts map[string]any) (chunks []string, doneReason string) {
	text := m.ChatReply
	if text == "" {
		text = "Hello! How can I help?"
	}
	chunks = words(text)
	if n, ok := opts["num_predict"].(float64); ok && n > 0 && int(n) < len(chunks) {
		return chunks[:int(n)], "length"
	}
	return chunks, "stop"
}

// words splits text into one chunk a word, each after the first with its
// leading space.
func words(text string) []string {
	var chunks []string
	for i, w := range strings.Fields(text) {
		if i > 0 {
			w = " " + w
		}
		chunks = append(chunks, w)
	}
	return chunks
}

// promptTokens counts the words of the messages, a stand-in for tokens.
func promptTokens(msgs []api.Message) int {
	n := 0
	for _, m := range msgs {
		n += len(strings.Fields(m.Content))
	}
	return n
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}
