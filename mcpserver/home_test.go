package mcpserver_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/audit"
	"github.com/wisp-agent/wisp/config"
	"github.com/wisp-agent/wisp/conversation"
	"github.com/wisp-agent/wisp/home"
	"github.com/wisp-agent/wisp/mcpserver"
)

// wisp mcp serves HTTP on a loopback host and port only; anything else
// is refused with a line that says how to mend it.
func TestCheckAddr(t *testing.T) {
	tests := []struct {
		addr string
		want string // "" for none
	}{
		{"127.0.0.1:8765", ""},
		{"localhost:0", ""},
		{"[::1]:8765", ""},
		{"0.0.0.0:8765", `"0.0.0.0:8765": wisp serves MCP on a loopback address only, such as 127.0.0.1:8765`},
		{"example.com:80", `"example.com:80": wisp serves MCP on a loopback address only, such as 127.0.0.1:8765`},
		{"8765", `"8765": give a loopback address and port, such as 127.0.0.1:8765`},
	}
	for _, tc := range tests {
		err := mcpserver.CheckAddr(tc.addr)
		got := ""
		if err != nil {
			got = err.Error()
			if !errors.Is(err, mcpserver.ErrNotLoopback) {
				t.Errorf("CheckAddr(%q) = %v, which is not ErrNotLoopback", tc.addr, err)
			}
		}
		if got != tc.want {
			t.Errorf("CheckAddr(%q) = %q, want %q", tc.addr, got, tc.want)
		}
	}
	if _, err := mcpserver.ListenHTTP("0.0.0.0:0"); !errors.Is(err, mcpserver.ErrNotLoopback) {
		t.Errorf("ListenHTTP(0.0.0.0:0) = %v, want ErrNotLoopback", err)
	}
}

// ServeHTTP serves the handler, token and all, until its context ends.
func TestServeHTTP(t *testing.T) {
	srv := mcpserver.New(&mcpserver.Options{Token: strings.Repeat("k", 40),
		Conversations: mcpserver.ConversationsFunc(func(context.Context, []string) (wisp.Agent, error) {
			return nil, errors.New("no agent here")
		})})
	ln, err := mcpserver.ListenHTTP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- srv.ServeHTTP(ctx, ln) }()
	postWithoutToken(t, ln.Addr().String())
	cancel()
	if err := <-done; err != nil {
		t.Errorf("ServeHTTP after its context ended = %v, want nil", err)
	}
}

// postWithoutToken posts to the server on addr without the token, which
// it must refuse.
func postWithoutToken(t *testing.T, addr string) {
	t.Helper()
	resp, err := http.Post("http://"+addr+mcpserver.EndpointPath, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("POST without the token = %d, want 401", resp.StatusCode)
	}
}

// HomeOptions: the settings of the home, its folders witnessed by the
// server's log, and each thread's audit records, none before there is a
// log.
func TestHomeOptions(t *testing.T) {
	h, err := home.Open(filepath.Join(t.TempDir(), "home"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Settings().Set(t.Context(), "inquiry.elicitation", "on", &config.SetOptions{Events: h.Events()}); err != nil {
		t.Fatal(err)
	}
	log, err := h.OpenAudit(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	o, err := mcpserver.HomeOptions(h, log)
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		Elicitation, OutOfBand, Witnessed bool
		Pending, Approvals, Threads, Home string
	}
	want := got{true, true, true, filepath.Join(h.Dir(), "pending"), filepath.Join(h.Dir(), "approvals"), filepath.Join(h.Dir(), "threads"), h.Dir()}
	g := got{o.Elicitation, o.OutOfBand, o.Pending.Witness != nil && o.Approvals.Witness != nil && o.Events != nil,
		o.Pending.Dir, o.Approvals.Dir, o.Threads.Path, o.Home}
	if diff := cmp.Diff(want, g); diff != "" {
		t.Errorf("HomeOptions (-want +got):\n%s", diff)
	}
	if b, err := o.Audit("t-1"); len(b) != 0 || err != nil {
		t.Errorf("Audit(t-1) with no records = %q, %v; want nothing", b, err)
	}
	for _, thread := range []string{"t-1", "t-2", "t-1"} {
		if _, err := log.Append(t.Context(), audit.Entry{Kind: "turn.ended", Thread: thread, Source: audit.SourceWisp}); err != nil {
			t.Fatal(err)
		}
	}
	b, err := o.Audit("t-1")
	if n := strings.Count(string(b), `"thread":"t-1"`); err != nil || n != 2 || strings.Count(string(b), "\n") != 2 {
		t.Errorf("Audit(t-1) = %q, %v; want its 2 records as JSON lines", b, err)
	}
}

// Sweep clears what crashes left in both folders, and folders not made
// yet are nothing to sweep.
func TestSweep(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "home")
	h, err := home.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	o := &mcpserver.Options{Pending: h.Questions(nil), Approvals: h.Approvals(nil)}
	if err := mcpserver.New(o).Sweep(t.Context()); err != nil {
		t.Fatalf("Sweep with no folders = %v", err)
	}
	var left []string
	for _, f := range []string{"pending/.a1b2c3d4.question.json.tmp-1", "approvals/.a1b2c3d4.request.json.tmp-1"} {
		path := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("{"), 0o600); err != nil {
			t.Fatal(err)
		}
		left = append(left, path)
	}
	if err := mcpserver.New(o).Sweep(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, path := range left {
		if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("after Sweep, %s: %v; want it gone", path, err)
		}
	}
}

// NewInHome: a server over a home, as wisp mcp runs it, its folders swept,
// whose respond calls run the home's conversations, which keep their
// threads where its resources read them.
func TestNewInHome(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "home")
	h, err := home.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	leftover := filepath.Join(dir, "pending", ".a1b2c3d4.question.json.tmp-1")
	if err := os.MkdirAll(filepath.Dir(leftover), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(leftover, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	scriptPath := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(scriptPath, []byte(`{"content":"Hello from home."}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	log, err := h.OpenAudit(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	srv, pool, err := mcpserver.NewInHome(t.Context(), h, log, "", &conversation.Options{Home: dir, ModelName: "script:" + scriptPath})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := os.Lstat(leftover); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after NewInHome, %s: %v; want it swept", leftover, err)
	}
	c, err := client.NewInProcessClient(srv.MCP())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	var ir mcp.InitializeRequest
	ir.Params.ClientInfo = mcp.Implementation{Name: "t", Version: "0"}
	if _, err := c.Initialize(t.Context(), ir); err != nil {
		t.Fatal(err)
	}
	var call mcp.CallToolRequest
	call.Params.Name = "respond"
	call.Params.Arguments = map[string]any{"prompt": "hi", "thread_id": "t-home", "tools": []string{}}
	res, err := c.CallTool(t.Context(), call)
	if err != nil {
		t.Fatal(err)
	}
	if sc, _ := res.StructuredContent.(map[string]any); sc["reply"] != "Hello from home." {
		t.Errorf("respond = %+v, want the script's reply", res)
	}
	if _, err := os.Lstat(filepath.Join(dir, "threads", "t-home.json")); err != nil {
		t.Errorf("the thread file: %v; want it kept in the home", err)
	}
}

// ServeHome: wisp mcp's whole run over a home. Over stdio it answers on
// the streams it was given; on HTTP it makes the home's token file, says
// where it listens, and refuses a request without the token; a model that
// cannot run, a token file over stdio and an address off loopback are
// refused before a client connects.
func TestServeHome(t *testing.T) {
	newHome := func(t *testing.T) (*home.Home, *conversation.Options) {
		t.Helper()
		dir := filepath.Join(t.TempDir(), "home")
		h, err := home.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		script := filepath.Join(t.TempDir(), "s.jsonl")
		if err := os.WriteFile(script, []byte(`{"content":"hi"}`+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return h, &conversation.Options{Home: dir, ModelName: "script:" + script}
	}
	t.Run("stdio", func(t *testing.T) {
		h, conv := newHome(t)
		in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}` + "\n")
		var out strings.Builder
		if err := mcpserver.ServeHome(t.Context(), h, conv, &mcpserver.HomeServeOptions{Stdin: in, Stdout: &out}); err != nil {
			t.Fatalf("ServeHome over stdio = %v", err)
		}
		if !strings.Contains(out.String(), `"id":1`) || !strings.Contains(out.String(), `"serverInfo"`) {
			t.Errorf("ServeHome over stdio wrote %q, want the initialize result", out.String())
		}
	})
	t.Run("http", func(t *testing.T) {
		h, conv := newHome(t)
		ctx, cancel := context.WithCancel(t.Context())
		listening := make(chan string, 1)
		done := make(chan error, 1)
		go func() {
			done <- mcpserver.ServeHome(ctx, h, conv, &mcpserver.HomeServeOptions{Addr: "127.0.0.1:0",
				Listening: func(addr net.Addr, tokenFile string) {
					if want := filepath.Join(h.Dir(), "mcp-token"); tokenFile != want {
						t.Errorf("Listening(%s, %q), want the token file %q", addr, tokenFile, want)
					}
					listening <- addr.String()
				}})
		}()
		addr := <-listening
		if _, err := os.Stat(filepath.Join(h.Dir(), "mcp-token")); err != nil {
			t.Errorf("the token file: %v", err)
		}
		postWithoutToken(t, addr)
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeHome after its context ended = %v, want nil", err)
		}
	})
	refusals := []struct {
		name string
		conv func(*conversation.Options)
		opts mcpserver.HomeServeOptions
		want error
	}{
		{"no model", func(o *conversation.Options) { o.ModelName = "" }, mcpserver.HomeServeOptions{}, conversation.ErrNoModel},
		{"a token file over stdio", nil, mcpserver.HomeServeOptions{TokenFile: "t"}, mcpserver.ErrTokenWithoutHTTP},
		{"off loopback", nil, mcpserver.HomeServeOptions{Addr: "0.0.0.0:8765"}, mcpserver.ErrNotLoopback},
	}
	for _, tc := range refusals {
		t.Run(tc.name, func(t *testing.T) {
			h, conv := newHome(t)
			if tc.conv != nil {
				tc.conv(conv)
			}
			opts := tc.opts
			opts.Stdin, opts.Stdout = strings.NewReader(""), io.Discard
			if err := mcpserver.ServeHome(t.Context(), h, conv, &opts); !errors.Is(err, tc.want) {
				t.Errorf("ServeHome = %v, want %v", err, tc.want)
			}
			if _, err := os.Stat(filepath.Join(h.Dir(), "mcp-token")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a refused server left a token file: %v", err)
			}
		})
	}
}
