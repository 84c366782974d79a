package openai

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/wisp-agent/wisp/internal/neterr"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/wisp-agent/wisp"
)

// Chat is one model on a Client's server. It is safe for concurrent use.
type Chat struct {
	c     *Client
	model string
}

var _ wisp.Model = (*Chat)(nil)

// Chat sends req to POST /v1/chat/completions, asking for a stream, and
// returns the model's message: its Content, its ToolCalls in the order of
// their index, and its reasoning apart in Thinking. If stream is not nil,
// Chat calls it, from the calling goroutine, with each piece of content
// (ChatDelta.Content) and of reasoning (ChatDelta.Thinking) as it
// arrives. A server that ignores "stream" and sends the whole answer as
// JSON is read too; stream is then called once.
//
// A tool call's id and name come from its first piece and its arguments
// are the concatenation of all its pieces. Arguments are always valid
// JSON: "" becomes {}, and text that is not JSON is kept as a JSON
// string holding that text, so that the tool layer tells the model its
// arguments are not an object and the text is kept for the record.
//
// Chat returns an error, on one line that says how to mend it, when the
// server does not answer (wrapping ErrUnreachable), answers with an HTTP
// error (wrapping a *StatusError with the server's message), sends
// something that is not an OpenAI-style answer, or ends the stream before
// a finish_reason (wrapping ErrIncomplete; no part of the answer is
// returned). When the model stops at the token limit (finish_reason
// "length"), Chat returns the part it got with an error wrapping
// ErrTokenLimit. Once ctx is done, Chat returns context.Cause(ctx)
// promptly.
func (m *Chat) Chat(ctx context.Context, req wisp.ChatRequest, stream func(wisp.ChatDelta)) (wisp.ChatResponse, error) {
	body, err := m.request(req)
	if err != nil {
		return wisp.ChatResponse{}, err
	}
	resp, err := m.c.send(ctx, http.MethodPost, chatPath, body, "text/event-stream")
	if err != nil {
		return wisp.ChatResponse{}, err
	}
	defer resp.Body.Close()
	if stream == nil {
		stream = func(wisp.ChatDelta) {}
	}

	var a answer
	br := bufio.NewReaderSize(resp.Body, 64<<10)
	whole, err := startsWithJSON(br)
	switch {
	case err != nil:
		err = m.readErr(ctx, err)
	case whole:
		err = m.readWhole(ctx, br, &a, stream)
	default:
		err = m.readStream(ctx, br, &a, stream)
	}
	if err != nil {
		return wisp.ChatResponse{}, err
	}
	out := a.response()
	if a.finish == "length" {
		return out, fmt.Errorf("the model %s stopped at the token limit (finish_reason \"length\": %w); %s", m.name(), ErrTokenLimit, mendTokens)
	}
	return out, nil
}

// name is the model's name for an error line.
func (m *Chat) name() string {
	if m.model == "" {
		return "the MLX server at " + m.c.URL() + " runs"
	}
	return fmt.Sprintf("%q", m.model)
}

// request is the JSON body for req.
func (m *Chat) request(req wisp.ChatRequest) ([]byte, error) {
	w := wireRequest{Model: m.model, Stream: true, MaxTokens: m.c.opts.MaxTokens, Messages: make([]wireMessage, len(req.Messages))}
	for i, msg := range req.Messages {
		wm := wireMessage{Role: string(msg.Role), Content: msg.Content, ToolCallID: msg.ToolCallID, Name: msg.Name}
		for _, tc := range msg.ToolCalls {
			wm.ToolCalls = append(wm.ToolCalls, wireCall{ID: tc.ID, Type: "function", Function: wireFunction{Name: tc.Name, Arguments: sentArguments(tc.Arguments)}})
		}
		w.Messages[i] = wm
	}
	for _, t := range req.Tools {
		schema := t.Schema
		if len(bytes.TrimSpace(schema)) == 0 {
			schema = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		if !json.Valid(schema) {
			return nil, fmt.Errorf("openai: the schema of tool %q is not valid JSON; fix the tool's Schema", t.Name)
		}
		w.Tools = append(w.Tools, wireTool{Type: "function", Function: wireToolFunction{Name: t.Name, Description: t.Description, Parameters: schema}})
	}
	b, err := json.Marshal(w)
	if err != nil {
		return nil, fmt.Errorf("openai: encoding the %s request: %w", chatPath, err)
	}
	return b, nil
}

// sentArguments is a call's arguments as the API carries them: a string
// of JSON, which mlx_lm.server parses. Empty arguments are "{}", and
// arguments that are not JSON are sent as a JSON string, so the server
// can parse them.
func sentArguments(args json.RawMessage) string {
	switch {
	case len(bytes.TrimSpace(args)) == 0:
		return "{}"
	case json.Valid(args):
		return string(args)
	}
	b, _ := json.Marshal(string(args))
	return string(b)
}

// readWhole reads an answer sent as one JSON object.
func (m *Chat) readWhole(ctx context.Context, r io.Reader, a *answer, stream func(wisp.ChatDelta)) error {
	body, err := io.ReadAll(io.LimitReader(r, maxBody+1))
	if err != nil {
		return m.readErr(ctx, err)
	}
	if len(body) > maxBody {
		return m.c.notOpenAI(chatPath, fmt.Errorf("more than %d MB", maxBody>>20))
	}
	var c wireChunk
	if err := json.Unmarshal(body, &c); err != nil {
		return m.c.notOpenAI(chatPath, err)
	}
	if err := m.chunkError(c); err != nil {
		return err
	}
	ch, ok := c.choice()
	if !ok || ch.Message == nil {
		return m.c.notOpenAI(chatPath, errors.New("no choices[0].message"))
	}
	a.add(*ch.Message, stream)
	a.finish = "stop"
	if ch.FinishReason != nil && *ch.FinishReason != "" {
		a.finish = *ch.FinishReason
	}
	return nil
}

// readStream reads a stream of server-sent events: "data: {chunk}" lines,
// blank lines between events, ": comment" lines, and "data: [DONE]" at
// the end. It returns nil at [DONE], or at the end of the body once a
// chunk has carried a finish_reason.
func (m *Chat) readStream(ctx context.Context, r io.Reader, a *answer, stream func(wisp.ChatDelta)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	var data []byte
	pending := false
	dispatch := func() (done bool, err error) {
		if !pending {
			return false, nil
		}
		pending = false
		payload := bytes.TrimSpace(data)
		data = data[:0]
		if string(payload) == "[DONE]" {
			return true, nil
		}
		var c wireChunk
		if err := json.Unmarshal(payload, &c); err != nil {
			return false, m.c.notOpenAI(chatPath, fmt.Errorf("data %q: %w", neterr.OneLine(string(payload), 60), err))
		}
		if err := m.chunkError(c); err != nil {
			return false, err
		}
		ch, ok := c.choice()
		if !ok {
			return false, nil // a usage chunk, or another choice's
		}
		a.add(ch.Delta, stream)
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			a.finish = *ch.FinishReason
		}
		return false, nil
	}
	for sc.Scan() {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		line := sc.Bytes()
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch {
		case len(line) == 0:
			done, err := dispatch()
			if err != nil {
				return err
			}
			if ctx.Err() != nil {
				return context.Cause(ctx)
			}
			if done {
				return m.ended(a)
			}
		case len(field) == 0: // a comment, such as mlx_lm.server's keepalive
		case string(field) == "data":
			if pending {
				data = append(data, '\n')
			}
			data = append(data, value...)
			pending = true
		case string(field) == "event", string(field) == "id", string(field) == "retry":
		default:
			return m.c.notOpenAI(chatPath, fmt.Errorf("line %q is not a server-sent event", neterr.OneLine(string(line), 60)))
		}
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if err := sc.Err(); err != nil {
		return m.readErr(ctx, err)
	}
	// The body ended. An event without its blank line is taken only if it
	// is whole, then the answer is whole only if it has finished.
	if payload := bytes.TrimSpace(data); pending && (string(payload) == "[DONE]" || json.Valid(payload)) {
		if done, err := dispatch(); err != nil || done {
			if err != nil {
				return err
			}
			return m.ended(a)
		}
	}
	if a.finish == "" {
		return fmt.Errorf("the MLX server at %s broke off its answer on %s (%w); %s", m.c.base, chatPath, ErrIncomplete, mendLog)
	}
	return nil
}

// ended checks an answer at [DONE]: it must have finished.
func (m *Chat) ended(a *answer) error {
	if a.finish == "" {
		return fmt.Errorf("the MLX server at %s ended its answer on %s without a finish_reason (%w); %s", m.c.base, chatPath, ErrIncomplete, mendLog)
	}
	return nil
}

// readErr is the error for a body that could not be read.
func (m *Chat) readErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if errors.Is(err, bufio.ErrTooLong) {
		return m.c.notOpenAI(chatPath, fmt.Errorf("a line longer than %d MB", maxLine>>20))
	}
	return fmt.Errorf("the MLX server at %s broke off its answer on %s (%w: %s); %s", m.c.base, chatPath, ErrIncomplete, neterr.Reason(err), mendLog)
}

// chunkError is the error an answer carries in place of a chunk.
func (m *Chat) chunkError(c wireChunk) error {
	if len(c.Error) == 0 || string(c.Error) == "null" {
		return nil
	}
	msg, _ := errorMessage([]byte(`{"error":` + string(c.Error) + `}`))
	return fmt.Errorf("the MLX server at %s failed mid-answer on %s (%s); %s", m.c.base, chatPath, neterr.OneLine(msg, 200), mendLog)
}

// startsWithJSON reports whether the body, past any white space, starts
// with "{": a whole answer rather than a stream.
func startsWithJSON(br *bufio.Reader) (bool, error) {
	for {
		b, err := br.Peek(1)
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			_, _ = br.ReadByte()
		case '{':
			return true, nil
		default:
			return false, nil
		}
	}
}

// answer gathers a reply from its pieces.
type answer struct {
	content, thinking strings.Builder
	calls             []*callPieces
	finish            string
}

// callPieces is one tool call as it is gathered.
type callPieces struct {
	index    int
	id, name string
	args     strings.Builder
}

// add takes one delta (or a whole message) and passes its text to stream.
func (a *answer) add(d wireDelta, stream func(wisp.ChatDelta)) {
	thinking := d.Reasoning
	if thinking == "" {
		thinking = d.ReasoningContent
	}
	if d.Content != "" || thinking != "" {
		a.content.WriteString(d.Content)
		a.thinking.WriteString(thinking)
		stream(wisp.ChatDelta{Content: d.Content, Thinking: thinking})
	}
	for i, p := range d.ToolCalls {
		c := a.call(p, i)
		if c.id == "" {
			c.id = p.ID
		}
		if c.name == "" {
			c.name = p.Function.Name
		}
		c.args.WriteString(argumentsPiece(p.Function.Arguments))
	}
}

// call finds the call a piece belongs to, by its index, or makes it. A
// piece without an index (as in a whole answer) is found by its id, or
// else is the i-th call of its delta.
func (a *answer) call(p wireCallPiece, i int) *callPieces {
	index := i
	if p.Index != nil {
		index = *p.Index
	} else if p.ID != "" {
		for _, c := range a.calls {
			if c.id == p.ID {
				return c
			}
		}
		index = len(a.calls)
	}
	for _, c := range a.calls {
		if c.index == index {
			return c
		}
	}
	c := &callPieces{index: index}
	a.calls = append(a.calls, c)
	return c
}

// argumentsPiece is the text of one piece of arguments: a JSON string, as
// the API sends it, or JSON of another kind, as some servers send it.
func argumentsPiece(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// response is the gathered answer.
func (a *answer) response() wisp.ChatResponse {
	msg := wisp.Message{Role: wisp.RoleAssistant, Content: a.content.String()}
	calls := slices.Clone(a.calls)
	slices.SortStableFunc(calls, func(x, y *callPieces) int { return x.index - y.index })
	for _, c := range calls {
		msg.ToolCalls = append(msg.ToolCalls, wisp.ToolCall{ID: c.id, Name: c.name, Arguments: arguments(c.args.String())})
	}
	return wisp.ChatResponse{Message: msg, Thinking: a.thinking.String()}
}

// arguments makes a call's gathered arguments valid JSON: "" is {}, and
// text that is not JSON becomes a JSON string holding it.
func arguments(s string) json.RawMessage {
	switch {
	case strings.TrimSpace(s) == "":
		return json.RawMessage("{}")
	case json.Valid([]byte(s)):
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}

// The wire shapes of a request.
type (
	wireRequest struct {
		Model     string        `json:"model,omitempty"`
		Messages  []wireMessage `json:"messages"`
		Tools     []wireTool    `json:"tools,omitempty"`
		Stream    bool          `json:"stream"`
		MaxTokens int           `json:"max_tokens,omitempty"`
	}
	wireMessage struct {
		Role string `json:"role"`
		// Content is always sent, "" included: chat templates read it.
		Content    string     `json:"content"`
		ToolCalls  []wireCall `json:"tool_calls,omitempty"`
		ToolCallID string     `json:"tool_call_id,omitempty"`
		Name       string     `json:"name,omitempty"`
	}
	wireCall struct {
		ID       string       `json:"id,omitempty"`
		Type     string       `json:"type"`
		Function wireFunction `json:"function"`
	}
	wireFunction struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	wireTool struct {
		Type     string           `json:"type"`
		Function wireToolFunction `json:"function"`
	}
	wireToolFunction struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
	}
)

// The wire shapes of an answer: a streamed chunk, or a whole completion.
type (
	wireChunk struct {
		Choices []wireChoice    `json:"choices"`
		Error   json.RawMessage `json:"error"`
	}
	wireChoice struct {
		Index        int        `json:"index"`
		Delta        wireDelta  `json:"delta"`
		Message      *wireDelta `json:"message"`
		FinishReason *string    `json:"finish_reason"`
	}
	wireDelta struct {
		Content          string          `json:"content"`
		Reasoning        string          `json:"reasoning"`
		ReasoningContent string          `json:"reasoning_content"`
		ToolCalls        []wireCallPiece `json:"tool_calls"`
	}
	wireCallPiece struct {
		Index    *int   `json:"index"`
		ID       string `json:"id"`
		Function struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	}
)

// choice returns the chunk's choice of index 0.
func (c wireChunk) choice() (wireChoice, bool) {
	for _, ch := range c.Choices {
		if ch.Index == 0 {
			return ch, true
		}
	}
	return wireChoice{}, false
}
