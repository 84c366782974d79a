package ollama

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
	"net/url"

	"github.com/ollama/ollama/api"
)

const (
	// maxBody bounds a JSON answer; a non-verbose /api/show is a few KB.
	maxBody = 64 << 20
	// maxLine bounds one line of a streamed answer, as Ollama's client does.
	maxLine = 8 << 20
	// maxErrorBody bounds how much of an error answer is read.
	maxErrorBody = 64 << 10
)

// client speaks Ollama's HTTP API with the wire types of package api.
//
// It is not api.Client: that client reads OLLAMA_AUTH on every request,
// may sign requests with the key in ~/.ollama, returns nil when a stream
// is cut short or its context is cancelled mid-stream, and gives errors
// that do not say how to mend them. Every method here checks ctx after
// each call and returns an error wrapping ctx.Err() once ctx is done.
type client struct {
	base *url.URL
	hc   *http.Client
}

// call sends in (nil for none) as JSON and decodes the JSON answer into
// out (nil to discard it).
func (c *client) call(ctx context.Context, method, path string, in, out any) error {
	resp, err := c.send(ctx, method, path, in, "application/json")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err := c.ctxErr(ctx, path); err != nil {
		return err
	}
	if err != nil {
		return c.brokeOff(path, err)
	}
	if len(body) > maxBody {
		return fmt.Errorf("ollama at %s answered %s with more than %d MB; check that OLLAMA_HOST points at ollama", c.base, path, maxBody>>20)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(body, out); err != nil {
		return c.notOllama(path, err)
	}
	return nil
}

// chat posts req to /api/chat and calls fn with each message of the
// answer, streamed or not. It returns an error when the answer breaks off,
// carries an error, or ends without a message marked done; an error from
// fn stops the answer and is returned as it is.
func (c *client) chat(ctx context.Context, req *api.ChatRequest, fn func(api.ChatResponse) error) error {
	const path = "/api/chat"
	resp, err := c.send(ctx, http.MethodPost, path, req, "application/x-ndjson")
	if err != nil {
		return err
	}
	defer resp.Body.Close()

	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	done := false
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
			if err := c.ctxErr(ctx, path); err != nil {
				return err
			}
			return c.notOllama(path, err)
		}
		if msg.Error != "" {
			return fmt.Errorf("ollama at %s failed mid-answer on %s (%s); see the ollama server log", c.base, path, neterr.OneLine(msg.Error, 200))
		}
		if err := fn(msg.ChatResponse); err != nil {
			return err
		}
		done = msg.Done
	}
	if err := c.ctxErr(ctx, path); err != nil {
		return err
	}
	if err := sc.Err(); err != nil {
		return c.brokeOff(path, err)
	}
	if !done {
		return fmt.Errorf("ollama at %s ended its answer on %s early (%w); see the ollama server log", c.base, path, errIncomplete)
	}
	return nil
}

// send makes one request and returns a response whose status is below 400.
func (c *client) send(ctx context.Context, method, path string, in any, accept string) (*http.Response, error) {
	if err := c.ctxErr(ctx, path); err != nil {
		return nil, err
	}
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, fmt.Errorf("ollama: encoding the %s request: %w", path, err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base.JoinPath(path).String(), body)
	if err != nil {
		return nil, fmt.Errorf("ollama: making the %s request: %w", path, err)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", accept)
	req.Header.Set("User-Agent", "wisp")

	resp, err := c.hc.Do(req)
	if err != nil {
		if err := c.ctxErr(ctx, path); err != nil {
			return nil, err
		}
		return nil, &unreachableError{base: c.base.String(), reason: neterr.Reason(err), err: err}
	}
	if resp.StatusCode < http.StatusBadRequest {
		return resp, nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	if err := c.ctxErr(ctx, path); err != nil {
		return nil, err
	}
	return nil, c.statusError(path, resp, b)
}

// statusError turns an answer of status 400 or above into an error that
// wraps an api.StatusError, so callers can read the status with errors.As.
func (c *client) statusError(path string, resp *http.Response, body []byte) error {
	se := api.StatusError{StatusCode: resp.StatusCode, Status: resp.Status}
	fromOllama := json.Unmarshal(body, &se) == nil && se.ErrorMessage != ""
	if !fromOllama {
		se.ErrorMessage = string(body)
	}
	se.ErrorMessage = neterr.OneLine(se.ErrorMessage, 200)
	mend := "see the ollama server log"
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		mend = "check that OLLAMA_HOST points at a local ollama"
	case !fromOllama:
		mend = "check that OLLAMA_HOST points at ollama"
	}
	return fmt.Errorf("ollama at %s failed on %s (%w); %s", c.base, path, se, mend)
}

// notOllama is the error for an answer that is not Ollama's JSON.
func (c *client) notOllama(path string, err error) error {
	return fmt.Errorf("ollama at %s answered %s with something that is not ollama's JSON (%w); check that OLLAMA_HOST points at ollama", c.base, path, err)
}

// brokeOff is the error for an answer cut short.
func (c *client) brokeOff(path string, err error) error {
	return fmt.Errorf("ollama at %s broke off its answer on %s (%w); see the ollama server log", c.base, path, err)
}

// ctxErr returns an error wrapping ctx.Err() once ctx is done, else nil.
func (c *client) ctxErr(ctx context.Context, path string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("ollama %s at %s: %w", path, c.base, err)
	}
	return nil
}

// isStatus reports whether err carries an HTTP status code from Ollama.
func isStatus(err error, code int) bool {
	var se api.StatusError
	return errors.As(err, &se) && se.StatusCode == code
}
