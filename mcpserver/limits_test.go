package mcpserver_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wisp-agent/wisp/mcpserver"
	"github.com/wisp-agent/wisp/models/script"
)

// tooLarge is the error message for a message over the default bound.
const tooLarge = "request too large: wisp mcp reads messages of at most 2097152 bytes; a respond prompt may have up to 100000 characters"

// callPrefix begins a respond call with id 7 whose prompt goes on.
const callPrefix = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"respond","arguments":{"prompt":"`

// endless is a request body: prefix, then "a" for ever. Past limit bytes
// it fails, so a server that reads whole bodies cannot pass for one that
// stops at its bound.
type endless struct {
	prefix string
	limit  int64
	read   int64
}

func (e *endless) Read(p []byte) (int, error) {
	if e.read >= e.limit {
		return 0, fmt.Errorf("read %d bytes of the body, past the bound", e.read)
	}
	p = p[:min(int64(len(p)), e.limit-e.read)]
	for i := range p {
		if off := e.read + int64(i); off < int64(len(e.prefix)) {
			p[i] = e.prefix[off]
		} else {
			p[i] = 'a'
		}
	}
	e.read += int64(len(p))
	return len(p), nil
}

// post sends body to h as a client with the token does, and returns the
// response.
func post(h http.Handler, body io.Reader, header http.Header) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8765"+mcpserver.EndpointPath, body)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+testToken)
	for k, v := range header {
		req.Header[k] = v
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// rpcError decodes a JSON-RPC error response.
func rpcError(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("response body %q is not JSON: %v", body, err)
	}
	return m
}

func TestHTTPBodyOverBound(t *testing.T) {
	f := newFixture(t, fixtureOptions{model: script.New("s", nil)})
	body := &endless{prefix: callPrefix, limit: 4 * mcpserver.DefaultMaxRequestBytes}
	rec := post(f.srv.HTTPHandler(), body, nil)
	if rec.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("POST of an endless body = %d %q, want 413", rec.Code, rec.Body.String())
	}
	if body.read > mcpserver.DefaultMaxRequestBytes+1 {
		t.Errorf("the server read %d bytes of the body; want at most %d", body.read, mcpserver.DefaultMaxRequestBytes+1)
	}
	want := map[string]any{"jsonrpc": "2.0", "id": float64(7), "error": map[string]any{"code": float64(mcp.INVALID_REQUEST), "message": tooLarge}}
	if diff := cmp.Diff(want, rpcError(t, rec.Body.Bytes())); diff != "" {
		t.Errorf("413 body (-want +got):\n%s", diff)
	}
	if got := rec.Header().Get("Content-Type"); got != "application/json" {
		t.Errorf("413 Content-Type = %q, want application/json", got)
	}
}

// httpServer serves f over loopback and returns a client that sends
// the token, initialised in the protocol's newest era.
func (f *fixture) httpClient(t *testing.T, opts ...transport.StreamableHTTPCOption) (*client.Client, *httptest.Server) {
	t.Helper()
	hs := httptest.NewServer(f.srv.HTTPHandler())
	t.Cleanup(hs.Close)
	tr, err := transport.NewStreamableHTTP(hs.URL+mcpserver.EndpointPath, append([]transport.StreamableHTTPCOption{withToken()}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr)
	t.Cleanup(func() { c.Close() })
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	var ir mcp.InitializeRequest
	ir.Params.ClientInfo = mcp.Implementation{Name: "wisp-test-client", Version: "0"}
	if _, err := c.Initialize(t.Context(), ir); err != nil {
		t.Fatalf("Initialize: %v", err)
	}
	return c, hs
}

// callRespond calls respond and returns its result or error.
func callRespond(c *client.Client, args map[string]any) (*mcp.CallToolResult, error) {
	var req mcp.CallToolRequest
	req.Params.Name = "respond"
	req.Params.Arguments = args
	return c.CallTool(context.Background(), req)
}

// A client of the MCP library that sends a prompt over the bound gets the
// refusal as the call's error, and its next call goes through.
func TestHTTPBodyOverBoundOverMCP(t *testing.T) {
	f := newFixture(t, fixtureOptions{model: script.New("s", steps("after"))})
	c, _ := f.httpClient(t)
	_, err := callRespond(c, map[string]any{"prompt": strings.Repeat("a", 3<<20)})
	if err == nil || !strings.Contains(err.Error(), tooLarge) {
		t.Errorf("respond with a 3 MiB prompt = %v, want the error %q", err, tooLarge)
	}
	res := respond(t, c, map[string]any{"prompt": "hi", "thread_id": "after"})
	if diff := cmp.Diff(mcpserver.RespondResult{Reply: "after", ThreadID: "after", Turn: 1}, structured(t, res)); diff != "" {
		t.Errorf("respond after the refusal (-want +got):\n%s", diff)
	}
}

// The bound holds the largest call respond takes: MaxPrompt characters,
// each written as the longest JSON escape.
func TestHTTPLargestPromptFits(t *testing.T) {
	f := newFixture(t, fixtureOptions{model: script.New("s", steps("fits"))})
	h := f.srv.HTTPHandler()
	rec := post(h, strings.NewReader(initializeBody), nil)
	session := rec.Header().Get("Mcp-Session-Id")
	if rec.Code != http.StatusOK || session == "" {
		t.Fatalf("initialize = %d %q, session %q", rec.Code, rec.Body.String(), session)
	}
	hdr := http.Header{"Mcp-Session-Id": {session}, "Mcp-Protocol-Version": {"2025-11-25"}}
	post(h, strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), hdr)
	body := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"respond","arguments":{"thread_id":"big","prompt":"` +
		strings.Repeat(`\ud83d\ude00`, mcpserver.MaxPrompt) + `"}}}`
	if len(body) >= mcpserver.DefaultMaxRequestBytes {
		t.Fatalf("the largest respond call has %d bytes, not under DefaultMaxRequestBytes (%d)", len(body), mcpserver.DefaultMaxRequestBytes)
	}
	rec = post(h, strings.NewReader(body), hdr)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"thread_id":"big","turn":1`) {
		t.Errorf("respond with %d characters in %d bytes = %d %.300q, want turn 1", mcpserver.MaxPrompt, len(body), rec.Code, rec.Body.String())
	}
}

func TestHTTPToken(t *testing.T) {
	const realm = `Bearer realm="wisp mcp"`
	tests := []struct {
		name      string
		method    string
		auth      []string // Authorization headers
		want      int
		challenge string // WWW-Authenticate
	}{
		{name: "right", auth: []string{"Bearer " + testToken}, want: http.StatusOK},
		{name: "scheme in lower case", auth: []string{"bearer " + testToken}, want: http.StatusOK},
		{name: "none", want: http.StatusUnauthorized, challenge: realm},
		{name: "none on GET", method: http.MethodGet, want: http.StatusUnauthorized, challenge: realm},
		{name: "none on DELETE", method: http.MethodDelete, want: http.StatusUnauthorized, challenge: realm},
		{name: "wrong", auth: []string{"Bearer wrong-token-0123456789abcdefghijklmnopqrstu"}, want: http.StatusUnauthorized,
			challenge: realm + `, error="invalid_token"`},
		{name: "longer", auth: []string{"Bearer " + testToken + "x"}, want: http.StatusUnauthorized, challenge: realm + `, error="invalid_token"`},
		{name: "shorter", auth: []string{"Bearer " + testToken[:len(testToken)-1]}, want: http.StatusUnauthorized, challenge: realm + `, error="invalid_token"`},
		{name: "empty bearer", auth: []string{"Bearer "}, want: http.StatusUnauthorized, challenge: realm},
		{name: "not bearer", auth: []string{"Basic " + testToken}, want: http.StatusUnauthorized, challenge: realm},
		{name: "token alone", auth: []string{testToken}, want: http.StatusUnauthorized, challenge: realm},
		{name: "two headers", auth: []string{"Bearer " + testToken, "Bearer " + testToken}, want: http.StatusUnauthorized, challenge: realm},
	}
	f := newFixture(t, fixtureOptions{model: script.New("s", nil)})
	h := f.srv.HTTPHandler()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			method := tt.method
			if method == "" {
				method = http.MethodPost
			}
			req := httptest.NewRequest(method, "http://127.0.0.1:8765"+mcpserver.EndpointPath, strings.NewReader(initializeBody))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header["Authorization"] = tt.auth
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tt.want {
				t.Errorf("%s with Authorization %q = %d %q, want %d", method, tt.auth, rec.Code, rec.Body.String(), tt.want)
			}
			if got := rec.Header().Get("WWW-Authenticate"); got != tt.challenge {
				t.Errorf("%s with Authorization %q: WWW-Authenticate = %q, want %q", method, tt.auth, got, tt.challenge)
			}
			if tt.want == http.StatusUnauthorized {
				if e, _ := rpcError(t, rec.Body.Bytes())["error"].(map[string]any); e == nil || !strings.HasPrefix(e["message"].(string), "unauthorized: send the header Authorization: Bearer TOKEN") {
					t.Errorf("401 body = %q, want a JSON-RPC error saying what to send", rec.Body.String())
				}
			}
		})
	}
}

// A client of the MCP library without the token is refused, and told
// that it needs authorization.
func TestHTTPTokenOverMCP(t *testing.T) {
	f := newFixture(t, fixtureOptions{model: script.New("s", nil)})
	hs := httptest.NewServer(f.srv.HTTPHandler())
	defer hs.Close()
	for _, tc := range []struct {
		name string
		opts []transport.StreamableHTTPCOption
	}{
		{"no token", nil},
		{"wrong token", []transport.StreamableHTTPCOption{transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer nope"})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := transport.NewStreamableHTTP(hs.URL+mcpserver.EndpointPath, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			c := client.NewClient(tr)
			defer c.Close()
			if err := c.Start(t.Context()); err != nil {
				t.Fatal(err)
			}
			var ir mcp.InitializeRequest
			ir.Params.ClientInfo = mcp.Implementation{Name: "t", Version: "0"}
			_, err = c.Initialize(t.Context(), ir)
			var auth *transport.AuthorizationRequiredError
			if !errors.As(err, &auth) {
				t.Errorf("Initialize = %v, want an AuthorizationRequiredError", err)
			}
		})
	}
}

// A server given no token lets no request in.
func TestHTTPNoTokenLetsNoneIn(t *testing.T) {
	f := newFixture(t, fixtureOptions{model: script.New("s", nil), configure: func(o *mcpserver.Options) { o.Token = "" }})
	for _, auth := range [][]string{nil, {"Bearer "}, {"Bearer " + testToken}} {
		rec := post(f.srv.HTTPHandler(), strings.NewReader(initializeBody), http.Header{"Authorization": auth})
		if rec.Code != http.StatusUnauthorized {
			t.Errorf("POST with Authorization %q to a server without a token = %d, want 401", auth, rec.Code)
		}
	}
}

// Beyond MaxRequests at once, a request is refused with 503 before its
// body is read; one without the token is refused with 401 first, so it
// never takes a place.
func TestHTTPRequestBound(t *testing.T) {
	entered := make(chan string, 2)
	release := make(chan struct{})
	var releaseOnce sync.Once
	open := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(open)
	f := newFixture(t, fixtureOptions{model: script.New("s", steps("one", "two", "three")), configure: func(o *mcpserver.Options) {
		o.MaxRequests = 2
		o.OnCall = func(ctx context.Context, thread string) context.Context {
			entered <- thread
			<-release
			return ctx
		}
	}})
	c, hs := f.httpClient(t)
	results := make(chan error, 2)
	for _, thread := range []string{"a", "b"} {
		go func() {
			res, err := callRespond(c, map[string]any{"prompt": "hi", "thread_id": thread})
			if err == nil && res.IsError {
				err = errors.New(text(res))
			}
			results <- err
		}()
	}
	receive(t, entered, "the first call entering")
	receive(t, entered, "the second call entering")

	body := &endless{prefix: callPrefix, limit: 1 << 20}
	rec := post(f.srv.HTTPHandler(), body, nil)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "1" {
		t.Errorf("a third request at once = %d, Retry-After %q; want 503, 1", rec.Code, rec.Header().Get("Retry-After"))
	}
	if body.read != 0 {
		t.Errorf("the refused request's body was read (%d bytes); want none", body.read)
	}
	want := map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": float64(mcp.INVALID_REQUEST),
		"message": "busy: wisp mcp serves at most 2 requests at once; try again when one of yours has ended"}}
	if diff := cmp.Diff(want, rpcError(t, rec.Body.Bytes())); diff != "" {
		t.Errorf("503 body (-want +got):\n%s", diff)
	}
	if rec := post(f.srv.HTTPHandler(), strings.NewReader(initializeBody), http.Header{"Authorization": nil}); rec.Code != http.StatusUnauthorized {
		t.Errorf("a third request at once without the token = %d, want 401", rec.Code)
	}
	if _, err := callRespond(c, map[string]any{"prompt": "hi", "thread_id": "c"}); err == nil || !strings.Contains(err.Error(), "busy: wisp mcp serves at most 2") {
		t.Errorf("a third respond at once over %s = %v, want the busy error", hs.URL, err)
	}

	open()
	for range 2 {
		if err := receive(t, results, "a respond call within the bound returning"); err != nil {
			t.Errorf("a respond call within the bound: %v", err)
		}
	}
	res := respond(t, c, map[string]any{"prompt": "hi", "thread_id": "d"})
	if res.IsError {
		t.Errorf("respond once the calls ended: %q", text(res))
	}
}

// Over stdio a line over the bound is read past, never held whole, and
// answered with an error for its id; the session goes on.
func TestStdioLineOverBound(t *testing.T) {
	f := newFixture(t, fixtureOptions{model: script.New("s", steps("still here"))})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- f.srv.ServeStdio(t.Context(), inR, outW); outW.Close() }()
	lines := bufio.NewScanner(outR)
	lines.Buffer(nil, 1<<20)
	reply := func(id int) map[string]any {
		t.Helper()
		for lines.Scan() {
			var m map[string]any
			if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
				t.Fatalf("stdout line %q: %v", lines.Text(), err)
			}
			if got, ok := m["id"].(float64); ok && int(got) == id {
				return m
			}
		}
		t.Fatalf("no response %d on stdout: %v", id, lines.Err())
		return nil
	}
	send := func(r io.Reader) {
		t.Helper()
		if _, err := io.Copy(inW, r); err != nil {
			t.Fatal(err)
		}
	}
	send(strings.NewReader(initializeBody + "\n"))
	reply(1)
	send(strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))

	const size = 32 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		io.Copy(inW, io.MultiReader(io.LimitReader(&endless{prefix: callPrefix, limit: size + 1}, size), strings.NewReader("\"}}}\n")))
	}()
	got := reply(7)
	receive(t, sent, "the long line sent")
	runtime.ReadMemStats(&after)
	want := map[string]any{"jsonrpc": "2.0", "id": float64(7), "error": map[string]any{"code": float64(mcp.INVALID_REQUEST), "message": tooLarge}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("a 32 MiB line (-want +got):\n%s", diff)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("reading a %d-byte line allocated %d bytes; want the line never held whole", size, alloc)
	}

	send(strings.NewReader(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"respond","arguments":{"prompt":"hi","thread_id":"s1"}}}` + "\n"))
	if sc := reply(8)["result"].(map[string]any)["structuredContent"]; !cmp.Equal(sc, map[string]any{"reply": "still here", "thread_id": "s1", "turn": float64(1)}) {
		t.Errorf("respond after the long line = %v", sc)
	}
	inW.Close()
	if err := receive(t, done, "ServeStdio returning"); err != nil {
		t.Errorf("ServeStdio = %v", err)
	}
}

func TestBoundedLines(t *testing.T) {
	long := strings.Repeat("a", 40)
	tests := []struct {
		name    string
		in      string
		wantOut string
		wantIDs []string // the ids of the lines read past; "null" when none was found
	}{
		{name: "short lines", in: "a\nbb\n", wantOut: "a\nbb\n"},
		{name: "at the bound", in: strings.Repeat("x", 16) + "\nok\n", wantOut: strings.Repeat("x", 16) + "\nok\n"},
		{name: "one past the bound", in: strings.Repeat("x", 17) + "\nok\n", wantOut: "ok\n", wantIDs: []string{"null"}},
		{name: "number id", in: `{"id":5,"x":"` + long + "\"}\nok\n", wantOut: "ok\n", wantIDs: []string{"5"}},
		{name: "string id", in: `{"id":"r-1","x":"` + long + "\"}\nok\n", wantOut: "ok\n", wantIDs: []string{`"r-1"`}},
		{name: "id after the bound", in: `{"x":"` + long + `","id":3}` + "\nok\n", wantOut: "ok\n", wantIDs: []string{"null"}},
		{name: "two in a row", in: `{"id":1,"x":"` + long + "\"}\n" + `{"id":2,"x":"` + long + "\"}\nok\n", wantOut: "ok\n", wantIDs: []string{"1", "2"}},
		{name: "last line without newline", in: "ok\nend", wantOut: "ok\nend"},
		{name: "long last line without newline", in: "ok\n" + long, wantOut: "ok\n", wantIDs: []string{"null"}},
		{name: "empty", in: "", wantOut: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ids []string
			r := mcpserver.BoundedLines(strings.NewReader(tt.in), 16, func(id json.RawMessage) {
				if id == nil {
					id = json.RawMessage("null")
				}
				ids = append(ids, string(id))
			})
			out, err := io.ReadAll(iotestOneByte(r))
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tt.wantOut {
				t.Errorf("lines of %q = %q, want %q", tt.in, out, tt.wantOut)
			}
			if diff := cmp.Diff(tt.wantIDs, ids); diff != "" {
				t.Errorf("ids of lines read past (-want +got):\n%s", diff)
			}
		})
	}
}

// iotestOneByte reads r a byte at a time, as a reader with a small
// buffer would.
func iotestOneByte(r io.Reader) io.Reader { return &oneByte{r} }

type oneByte struct{ r io.Reader }

func (o *oneByte) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return o.r.Read(p[:1])
}

func TestRequestID(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" for none
	}{
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call"`, "7"},
		{`{"id":"abc","params":{"x":"aaaa`, `"abc"`},
		{`{"jsonrpc":"2.0","method":"x","params":{"a":[1,2,{"id":9}]},"id":-3}`, "-3"},
		{`{"params":{"x":"aaaa`, ""},
		{`{"id":null}`, ""},
		{`{"id":{"a":1}}`, ""},
		{`{"id":[1]}`, ""},
		{`{"id":tru`, ""},
		{`{"id":12`, ""}, // a number cut short is not the id
		{`[{"id":1}]`, ""},
		{`not json`, ""},
		{``, ""},
	}
	for _, tt := range tests {
		if got := string(mcpserver.RequestID([]byte(tt.in))); got != tt.want {
			t.Errorf("RequestID(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzRequestID(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"respond","arguments":{"prompt":"aaa`,
		`{"id":"x\"y","params":{}}`, `{"id":1e3}`, `{"id":-0.5,"id":2}`, `{"a":{"b":[{"c":"d"}]},"id":"e"}`,
		`{"id":"\ud83d\ude00"}`, `{`, `}`, `{"id"`, `{"id":`, ` {"id" : 3 }`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, prefix []byte) {
		id := mcpserver.RequestID(prefix)
		if id == nil {
			return
		}
		var v any
		if err := json.Unmarshal(id, &v); err != nil {
			t.Fatalf("RequestID(%q) = %q, not JSON: %v", prefix, id, err)
		}
		switch v.(type) {
		case string, float64:
		default:
			t.Fatalf("RequestID(%q) = %q, neither a string nor a number", prefix, id)
		}
		if !bytes.Contains(prefix, id) {
			t.Fatalf("RequestID(%q) = %q, not found in the prefix", prefix, id)
		}
	})
}
