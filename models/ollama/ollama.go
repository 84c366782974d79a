// Package ollama is the models.Backend for a local Ollama server: it lists
// the models Ollama has, shows one model's facts and checks that a model
// loads and answers.
//
// The caller passes the server's address as OLLAMA_HOST spells it; the
// package reads no environment. Package ollamatest is a fake Ollama for
// tests.
package ollama

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/internal/neterr"
	"github.com/wisp-agent/wisp/models"
)

// Options configure a Backend. A nil *Options, like a zero one, is all
// defaults.
type Options struct {
	// HTTPClient sends every request. Nil means a client of the Backend's
	// own that connects within 5 s, waits up to 6 minutes for an answer to
	// begin (Ollama may be loading a model, which it allows 5 minutes),
	// uses no proxy, and sets no overall timeout: answers stream for as
	// long as they take, and ctx ends them.
	HTTPClient *http.Client
}

// Backend is the models.Backend for one Ollama server. It is safe for
// concurrent use; it starts no goroutines of its own.
type Backend struct {
	c client
}

var _ models.Backend = (*Backend)(nil)

// New returns a Backend for the Ollama server at host, spelt as
// OLLAMA_HOST is:
//
//	""                    http://127.0.0.1:11434
//	"0.0.0.0"             http://0.0.0.0:11434
//	"example.org:8080"    http://example.org:8080
//	"http://example.org"  http://example.org:80
//	"https://example.org" https://example.org:443
//	"[::1]:11434"         http://[::1]:11434
//	"example.org/ollama"  http://example.org:11434/ollama
//	":8080"               http://127.0.0.1:8080
//	"ollama.com"          https://ollama.com:443
//
// Surrounding spaces and quotes are ignored, as Ollama ignores them. A
// value Ollama would quietly replace by its default (an unknown scheme, a
// port that is not a number from 1 to 65535, a host that is not a host
// name or IP address) is an error saying what OLLAMA_HOST must look like.
// New makes no request.
func New(host string, opts *Options) (*Backend, error) {
	base, err := parseHost(host)
	if err != nil {
		return nil, err
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = defaultHTTPClient()
	}
	return &Backend{c: client{base: base, hc: hc}}, nil
}

// defaultHTTPClient is the client behind a nil Options.HTTPClient.
func defaultHTTPClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 6 * time.Minute,
		ExpectContinueTimeout: time.Second,
		IdleConnTimeout:       90 * time.Second,
		MaxIdleConnsPerHost:   4,
		ForceAttemptHTTP2:     true,
	}}
}

// Runtime returns "ollama".
func (b *Backend) Runtime() string { return "ollama" }

// URL returns the server's base URL, as "http://127.0.0.1:11434".
func (b *Backend) URL() string { return b.c.base.String() }

// List returns every model Ollama has, in the order it lists them
// (/api/tags), each with its Digest. Each is Usable; its Context and
// Capabilities are set when the server's list reports them (Ollama 0.17
// does not; Show does), and its RunContext when Ollama has it loaded
// (/api/ps).
func (b *Backend) List(ctx context.Context) ([]wisp.ModelInfo, error) {
	tags, err := b.tags(ctx)
	if err != nil {
		return nil, err
	}
	loaded := b.loaded(ctx)
	out := make([]wisp.ModelInfo, 0, len(tags))
	for _, m := range tags {
		info := m.info()
		info.RunContext = loaded.context(m.Name)
		out = append(out, info)
	}
	return out, nil
}

// Show returns one model's facts (/api/show, with the size and digest
// from /api/tags, and the context Ollama has it loaded with from
// /api/ps). The name is Ollama's ("qwen3:4b"); Ollama reads a name
// without a tag as ":latest", and the returned Name is the one Ollama
// lists. The model is Usable; Check finds out whether it runs. When
// Ollama has no such model, the error wraps models.ErrNotFound.
func (b *Backend) Show(ctx context.Context, name string) (wisp.ModelInfo, error) {
	var sr api.ShowResponse
	err := b.c.call(ctx, http.MethodPost, "/api/show", &api.ShowRequest{Model: name}, &sr)
	if isStatus(err, http.StatusNotFound) {
		return wisp.ModelInfo{}, fmt.Errorf(`ollama at %s: %w %q; fetch it with "ollama pull %s", or see "ollama list"`, b.URL(), models.ErrNotFound, name, name)
	}
	if err != nil {
		return wisp.ModelInfo{}, err
	}
	tags, err := b.tags(ctx)
	if err != nil {
		return wisp.ModelInfo{}, err
	}

	info := wisp.ModelInfo{Name: name, Runtime: b.Runtime(), Usable: true}
	if i := findTag(tags, name); i >= 0 {
		info = tags[i].info()
	}
	info.Parameters = sr.Details.ParameterSize
	info.Quantization = sr.Details.QuantizationLevel
	if n := contextLength(sr.ModelInfo); n > 0 {
		info.Context = n
	}
	if caps := capabilities(sr.Capabilities); caps != nil {
		info.Capabilities = caps
	}
	info.Licence = licence(sr.License)
	info.RunContext = b.loaded(ctx).context(info.Name)
	return info, nil
}

// Check shows the model, then asks it for one token (/api/chat, "hi",
// num_predict 1) offering it one tool, run as opts say: with num_ctx
// when opts.ContextTokens is set, as every chat then asks, and without
// otherwise, so that the probe loads the model as chats will. The
// findings say where Ollama answers, what the model can do, whether it
// takes tools and answers, and the context Ollama loaded it with. OK is
// false, with Why and Info.Why set to the finding that failed (Ollama's
// own words included), when the model cannot chat, when Ollama refuses it
// the tool, and when the probe fails or ends without being done.
//
// Check returns an error, not a report, when Ollama does not answer, has
// no such model (wrapping models.ErrNotFound) or fails on /api/show, and
// when ctx ends (wrapping ctx.Err()).
func (b *Backend) Check(ctx context.Context, name string, opts *models.RunOptions) (models.CheckReport, error) {
	var o models.RunOptions
	if opts != nil {
		o = *opts
	}
	info, err := b.Show(ctx, name)
	if err != nil {
		return models.CheckReport{}, err
	}
	r := models.CheckReport{OK: true, Info: info}
	add := func(line string) { r.Findings = append(r.Findings, line) }
	fail := func(line string) {
		add(line)
		r.OK, r.Why, r.Info.Usable, r.Info.Why = false, line, false, line
	}

	add("ollama answers at " + b.URL())
	switch {
	case len(info.Capabilities) == 0:
		add("capabilities: none reported")
		add("ollama does not say whether the model can call tools")
	default:
		add("capabilities: " + strings.Join(info.Capabilities, ", "))
		if slices.Contains(info.Capabilities, string(model.CapabilityTools)) {
			add("the model can call tools")
		} else {
			add("the model cannot call tools")
		}
	}
	if len(info.Capabilities) > 0 && !slices.Contains(info.Capabilities, string(model.CapabilityCompletion)) {
		fail("the model cannot chat (no completion capability), so it cannot drive an agent")
		return r, nil
	}

	stream := true
	req := &api.ChatRequest{
		Model:    name,
		Messages: []api.Message{{Role: "user", Content: "hi"}},
		Tools:    api.Tools{probeTool()},
		Stream:   &stream,
		Options:  runOptions(o.ContextTokens, map[string]any{"num_predict": 1}),
	}
	err = b.c.chat(ctx, req, func(api.ChatResponse) error { return nil })
	if ctx.Err() != nil {
		return models.CheckReport{}, b.c.ctxErr(ctx, "/api/chat")
	}
	var se api.StatusError
	switch {
	case errors.As(err, &se) && se.StatusCode == http.StatusBadRequest && strings.Contains(se.ErrorMessage, "does not support tools"):
		fail(fmt.Sprintf("the model cannot take tools: ollama answers a chat that offers one with %s: %s", se.Status, se.ErrorMessage))
		return r, nil
	case err != nil:
		fail("the model does not answer (1-token probe): " + err.Error())
		return r, nil
	}
	add("the model loads and answers (1-token probe, offered a tool)")
	if n := b.loaded(ctx).context(info.Name); n > 0 {
		r.Info.RunContext = n
		how := "the server's own setting; wisp asks for none"
		if o.ContextTokens > 0 {
			how = fmt.Sprintf("wisp asks for %s", models.Thousands(o.ContextTokens))
		}
		add(fmt.Sprintf("ollama has it loaded with %s tokens of context (%s)", models.Thousands(n), how))
	}
	return r, nil
}

// probeTool is the tool a check offers, so that Ollama itself says
// whether the model takes tools.
func probeTool() api.Tool {
	return api.Tool{Type: "function", Function: api.ToolFunction{
		Name:        "wisp_probe",
		Description: "Does nothing.",
		Parameters:  api.ToolFunctionParameters{Type: "object", Properties: api.NewToolPropertiesMap()},
	}}
}

// runOptions returns opts with num_ctx set to tokens when tokens is
// positive: every request wisp makes asks for the same context, or none.
// It returns nil when there is nothing to send.
func runOptions(tokens int, opts map[string]any) map[string]any {
	if tokens > 0 {
		if opts == nil {
			opts = map[string]any{}
		}
		opts["num_ctx"] = tokens
	}
	return opts
}

// running is what /api/ps says of the models Ollama has loaded.
type running []api.ProcessModelResponse

// loaded fetches /api/ps. A server that does not answer it has nothing
// loaded, as far as wisp can tell.
func (b *Backend) loaded(ctx context.Context) running {
	var pr api.ProcessResponse
	if err := b.c.call(ctx, http.MethodGet, "/api/ps", nil, &pr); err != nil {
		return nil
	}
	return pr.Models
}

// context returns the context the runner of name has, in tokens, or 0
// when Ollama does not have it loaded.
func (r running) context(name string) int {
	for _, m := range r {
		if sameName(m.Name, name) || sameName(m.Model, name) {
			return m.ContextLength
		}
	}
	return 0
}

// sameName reports whether Ollama's listed name is name, as Ollama reads
// it: a name without a tag is its ":latest".
func sameName(listed, name string) bool {
	if listed == name {
		return true
	}
	if last := name[strings.LastIndex(name, "/")+1:]; !strings.Contains(last, ":") {
		return listed == name+":latest"
	}
	return false
}

// tags fetches /api/tags.
func (b *Backend) tags(ctx context.Context) ([]tagsModel, error) {
	var tr tagsResponse
	if err := b.c.call(ctx, http.MethodGet, "/api/tags", nil, &tr); err != nil {
		return nil, err
	}
	return tr.Models, nil
}

// tagsResponse is /api/tags as api.ListResponse has it, with the
// capabilities and context length newer servers may add to each entry.
type tagsResponse struct {
	Models []tagsModel `json:"models"`
}

type tagsModel struct {
	Name         string             `json:"name"`
	Model        string             `json:"model"`
	Size         int64              `json:"size"`
	Digest       string             `json:"digest"`
	Details      tagsDetails        `json:"details"`
	Capabilities []model.Capability `json:"capabilities,omitempty"`
}

type tagsDetails struct {
	api.ModelDetails
	ContextLength int `json:"context_length,omitempty"`
}

// info is what one /api/tags entry says of its model.
func (m tagsModel) info() wisp.ModelInfo {
	return wisp.ModelInfo{
		Name:         m.Name,
		Runtime:      "ollama",
		Parameters:   m.Details.ParameterSize,
		Quantization: m.Details.QuantizationLevel,
		Size:         m.Size,
		Digest:       m.Digest,
		Context:      m.Details.ContextLength,
		Capabilities: capabilities(m.Capabilities),
		Usable:       true,
	}
}

// findTag returns the index of the entry for name, or -1. A name without
// a tag matches its ":latest" entry, as Ollama reads it; an exact match
// wins.
func findTag(tags []tagsModel, name string) int {
	for i, m := range tags {
		if m.Name == name || m.Model == name {
			return i
		}
	}
	for i, m := range tags {
		if sameName(m.Name, name) || sameName(m.Model, name) {
			return i
		}
	}
	return -1
}

// contextLength reads "<arch>.context_length" from /api/show's model_info,
// where "general.architecture" names the arch. It returns 0 when either is
// missing.
func contextLength(mi map[string]any) int {
	arch, _ := mi["general.architecture"].(string)
	if arch == "" {
		return 0
	}
	switch v := mi[arch+".context_length"].(type) {
	case float64:
		return int(v)
	case int:
		return v
	case int64:
		return int(v)
	}
	return 0
}

// capabilities turns Ollama's capabilities into strings; none is nil.
func capabilities(cs []model.Capability) []string {
	if len(cs) == 0 {
		return nil
	}
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = string(c)
	}
	return out
}

// licence names a licence by the first non-empty line of its text, cut
// to 80 characters.
func licence(text string) string {
	for line := range strings.Lines(text) {
		if line = strings.TrimSpace(line); line != "" {
			return neterr.OneLine(line, 80)
		}
	}
	return ""
}
