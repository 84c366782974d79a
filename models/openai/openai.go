// Package openai is a wisp.Model for servers that speak OpenAI's chat
// completions API, made for MLX models served by mlx_lm.server: it streams
// the model's reply, keeps the model's reasoning apart from it, and
// gathers its tool calls.
//
// The caller passes the server's address as WISP_MLX_URL spells it; the
// package reads no environment and writes nothing. Package openaitest is
// a fake server for tests.
package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/wisp-agent/wisp/internal/neterr"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"
)

const (
	chatPath   = "/v1/chat/completions"
	modelsPath = "/v1/models"
	healthPath = "/health"
	// maxBody bounds a JSON answer.
	maxBody = 64 << 20
	// maxLine bounds one line of a streamed answer.
	maxLine = 8 << 20
	// maxErrorBody bounds how much of an error answer is read.
	maxErrorBody = 64 << 10
)

// Options configure a Client. A nil *Options, like a zero one, is all
// defaults.
type Options struct {
	// HTTPClient sends every request. Nil means a client of the Client's
	// own that connects within 5 s, waits up to 10 minutes for an answer
	// to begin (mlx_lm.server loads a model on its first request for it),
	// uses no proxy, and sets no overall timeout: answers stream for as
	// long as they take, and ctx ends them.
	HTTPClient *http.Client
	// APIKey, when set, is sent as "Authorization: Bearer APIKey".
	// mlx_lm.server needs none.
	APIKey string
	// MaxTokens, when above 0, is sent as max_tokens: the most tokens a
	// model may write in one answer, its reasoning included. Zero sends
	// none, and the server's default applies (512 for mlx_lm.server,
	// which reasoning models often reach). Below 0 is an error.
	MaxTokens int
}

// A Client talks to one server. It is safe for concurrent use and starts
// no goroutines of its own.
type Client struct {
	base *url.URL
	hc   *http.Client
	opts Options
}

// New returns a Client for the server at baseURL, spelt as WISP_MLX_URL
// is:
//
//	""                         http://127.0.0.1:8080 (mlx_lm.server's default)
//	"127.0.0.1:8080"           http://127.0.0.1:8080
//	"localhost"                http://localhost:8080
//	":9000"                    http://127.0.0.1:9000
//	"[::1]:8080"               http://[::1]:8080
//	"http://example.org"       http://example.org (port 80)
//	"https://example.org/v1"   https://example.org (the /v1 is this package's)
//	"http://host:8080/mlx/"    http://host:8080/mlx, for a server behind a proxy
//
// A value without a scheme is http on port 8080. Surrounding spaces and
// quotes are ignored. Anything else (another scheme, a port that is not a
// number from 1 to 65535, a query) is a one-line error saying what
// WISP_MLX_URL must look like. New makes no request.
func New(baseURL string, opts *Options) (*Client, error) {
	base, err := parseURL(baseURL)
	if err != nil {
		return nil, err
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.MaxTokens < 0 {
		return nil, fmt.Errorf("openai: Options.MaxTokens is %d; set it to 0 for the server's default, or to the most tokens an answer may have", o.MaxTokens)
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = defaultHTTPClient()
	}
	return &Client{base: base, hc: hc, opts: o}, nil
}

// defaultHTTPClient is the client behind a nil Options.HTTPClient.
func defaultHTTPClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 10 * time.Minute,
		ExpectContinueTimeout: time.Second,
		IdleConnTimeout:       90 * time.Second,
		MaxIdleConnsPerHost:   4,
		ForceAttemptHTTP2:     true,
	}}
}

// URL returns the server's base URL, as "http://127.0.0.1:8080".
func (c *Client) URL() string { return c.base.String() }

// ChatModel returns the model the server names model: for mlx_lm.server,
// a local path or a Hugging Face repo id, which it loads on the first
// request for it. An empty model sends no name, and mlx_lm.server uses
// the model it was started with (--model).
func (c *Client) ChatModel(model string) *Chat {
	return &Chat{c: c, model: model}
}

// Health asks GET /health, and returns nil when the server answers
// {"status":"ok"}. Otherwise it returns the same one-line errors Chat
// does, or ctx's cause once ctx is done.
func (c *Client) Health(ctx context.Context) error {
	var h struct {
		Status string `json:"status"`
	}
	if err := c.call(ctx, http.MethodGet, healthPath, &h); err != nil {
		return err
	}
	if h.Status != "ok" {
		return fmt.Errorf("the MLX server at %s answered %s with status %q, not \"ok\"; %s", c.base, healthPath, neterr.OneLine(h.Status, 80), mendLog)
	}
	return nil
}

// Models returns the ids the server lists at GET /v1/models, in its
// order. mlx_lm.server lists the model it was started with and the MLX
// models in the Hugging Face cache.
func (c *Client) Models(ctx context.Context) ([]string, error) {
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := c.call(ctx, http.MethodGet, modelsPath, &list); err != nil {
		return nil, err
	}
	ids := make([]string, len(list.Data))
	for i, m := range list.Data {
		ids[i] = m.ID
	}
	return ids, nil
}

// call makes a bodiless request and decodes the JSON answer into out.
func (c *Client) call(ctx context.Context, method, path string, out any) error {
	resp, err := c.send(ctx, method, path, nil, "application/json")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if err != nil {
		return c.brokeOff(path, err)
	}
	if len(body) > maxBody {
		return c.notOpenAI(path, fmt.Errorf("more than %d MB", maxBody>>20))
	}
	if err := json.Unmarshal(body, out); err != nil {
		return c.notOpenAI(path, err)
	}
	return nil
}

// send makes one request and returns a response whose status is below
// 400. body, when not nil, is sent as JSON.
func (c *Client) send(ctx context.Context, method, path string, body []byte, accept string) (*http.Response, error) {
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base.JoinPath(path).String(), rd)
	if err != nil {
		return nil, fmt.Errorf("openai: making the %s request: %w", path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", accept)
	req.Header.Set("User-Agent", "wisp")
	if c.opts.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.opts.APIKey)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		if closedEarly(err) {
			return nil, fmt.Errorf("the MLX server at %s dropped the request on %s without answering (%s); %s", c.base, path, neterr.Reason(err), mendLog)
		}
		return nil, &unreachableError{base: c.base.String(), reason: neterr.Reason(err), err: err}
	}
	if resp.StatusCode < http.StatusBadRequest {
		return resp, nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	return nil, c.statusError(path, resp.StatusCode, b)
}

// statusError turns an answer of status 400 or above into an error that
// wraps a *StatusError.
func (c *Client) statusError(path string, code int, body []byte) error {
	msg, fromServer := errorMessage(body)
	if !fromServer {
		msg = string(body)
	}
	se := &StatusError{StatusCode: code, Message: neterr.OneLine(msg, 200)}
	mend := mendLog
	switch {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		mend = mendKey
	case code == http.StatusNotFound && !fromServer:
		mend = mendURL
	}
	return fmt.Errorf("the MLX server at %s failed on %s (%w); %s", c.base, path, se, mend)
}

// errorMessage reads the message of an error body: {"error": "text"} as
// mlx_lm.server writes it, or {"error": {"message": "text"}} as OpenAI
// does. ok is false when body is neither.
func errorMessage(body []byte) (msg string, ok bool) {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil || len(e.Error) == 0 || string(e.Error) == "null" {
		return "", false
	}
	if json.Unmarshal(e.Error, &msg) == nil && msg != "" {
		return msg, true
	}
	var o struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(e.Error, &o) == nil && o.Message != "" {
		return o.Message, true
	}
	return string(e.Error), true
}

// notOpenAI is the error for an answer that is not what the API sends.
func (c *Client) notOpenAI(path string, err error) error {
	return fmt.Errorf("the MLX server at %s answered %s with something that is not an OpenAI-style answer (%w); %s", c.base, path, err, mendURL)
}

// brokeOff is the error for an answer cut short.
func (c *Client) brokeOff(path string, err error) error {
	return fmt.Errorf("the MLX server at %s broke off its answer on %s (%w); %s", c.base, path, err, mendLog)
}
