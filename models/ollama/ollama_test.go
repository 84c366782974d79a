package ollama_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/ollama/ollama/api"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/models"
	"github.com/wisp-agent/wisp/models/ollama"
	"github.com/wisp-agent/wisp/models/ollama/ollamatest"
)

var (
	qwen = ollamatest.Model{
		Name: "qwen3:4b", Size: 2_497_293_931, Family: "qwen3", ParameterSize: "4.0B",
		Quantization: "Q4_K_M", ContextLength: 40960, Capabilities: []string{"completion", "tools", "thinking"},
		License: "\n\n   Apache License\n   Version 2.0, January 2004\n",
	}
	gemma = ollamatest.Model{
		Name: "gemma3:latest", Size: 3_338_801_804, Family: "gemma3", ParameterSize: "4.3B",
		Quantization: "Q4_K_M", ContextLength: 131072,
		License: "Gemma Terms of Use, Last modified: February 21, 2024. By using, reproducing, modifying, distributing, performing or displaying any portion",
	}
	embed = ollamatest.Model{
		Name: "nomic-embed-text:latest", Size: 274_302_450, Family: "nomic-bert", ParameterSize: "137M",
		Quantization: "F16", ContextLength: 2048, Capabilities: []string{"embedding"},
	}
	bare = ollamatest.Model{Name: "hf.co/someone/tiny:Q8_0", Size: 1000, Capabilities: []string{}}
)

// digest is the digest the fake gives a model of this name.
func digest(name string) string {
	sum := sha256.Sum256([]byte(name))
	return hex.EncodeToString(sum[:])
}

// backend returns a Backend for a fake Ollama with the given models.
func backend(t *testing.T, ms ...ollamatest.Model) (*ollama.Backend, *ollamatest.Server) {
	t.Helper()
	s := ollamatest.NewServer(t, ms...)
	b, err := ollama.New(s.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	return b, s
}

// closedHost returns a host:port on which nothing listens.
func closedHost(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func oneLine(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil && strings.Contains(err.Error(), "\n") {
		t.Errorf("%s error is not one line: %q", what, err)
	}
}

func TestRuntime(t *testing.T) {
	b, _ := backend(t)
	if got := b.Runtime(); got != "ollama" {
		t.Errorf("Runtime() = %q, want ollama", got)
	}
}

// List gives every model as Ollama lists it, usable, with Context and
// Capabilities only when the list reports them.
func TestList(t *testing.T) {
	qwenInfo := wisp.ModelInfo{Name: "qwen3:4b", Runtime: "ollama", Parameters: "4.0B", Quantization: "Q4_K_M", Size: 2_497_293_931, Digest: digest("qwen3:4b"), Usable: true}
	gemmaInfo := wisp.ModelInfo{Name: "gemma3:latest", Runtime: "ollama", Parameters: "4.3B", Quantization: "Q4_K_M", Size: 3_338_801_804, Digest: digest("gemma3:latest"), Usable: true}
	embedInfo := wisp.ModelInfo{Name: "nomic-embed-text:latest", Runtime: "ollama", Parameters: "137M", Quantization: "F16", Size: 274_302_450, Digest: digest("nomic-embed-text:latest"), Usable: true}
	with := func(m wisp.ModelInfo, ctx int, caps ...string) wisp.ModelInfo {
		m.Context, m.Capabilities = ctx, caps
		return m
	}
	tests := []struct {
		name     string
		models   []ollamatest.Model
		listCaps bool
		want     []wisp.ModelInfo
	}{
		{name: "none", want: []wisp.ModelInfo{}},
		{name: "one", models: []ollamatest.Model{qwen}, want: []wisp.ModelInfo{qwenInfo}},
		{
			name:   "several, in Ollama's order",
			models: []ollamatest.Model{gemma, qwen, embed},
			want:   []wisp.ModelInfo{gemmaInfo, qwenInfo, embedInfo},
		},
		{
			name:     "a list that reports capabilities and context",
			models:   []ollamatest.Model{gemma, qwen, embed},
			listCaps: true,
			want: []wisp.ModelInfo{
				with(gemmaInfo, 131072, "completion"),
				with(qwenInfo, 40960, "completion", "tools", "thinking"),
				with(embedInfo, 2048, "embedding"),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, s := backend(t, tt.models...)
			s.ListCapabilities(tt.listCaps)
			got, err := b.List(t.Context())
			if err != nil {
				t.Fatalf("List() = %v", err)
			}
			if got == nil {
				t.Error("List() = nil, want a non-nil slice")
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("List() (-want +got):\n%s", diff)
			}
		})
	}
}

// Show gives one model's facts from /api/show, its size from /api/tags.
func TestShow(t *testing.T) {
	tests := []struct {
		name string
		want wisp.ModelInfo
	}{
		{"qwen3:4b", wisp.ModelInfo{
			Name: "qwen3:4b", Runtime: "ollama", Parameters: "4.0B", Quantization: "Q4_K_M", Size: 2_497_293_931,
			Context: 40960, Digest: digest("qwen3:4b"), Capabilities: []string{"completion", "tools", "thinking"}, Licence: "Apache License", Usable: true,
		}},
		// A name without a tag is Ollama's ":latest"; the licence is cut
		// to 80 characters.
		{"gemma3", wisp.ModelInfo{
			Name: "gemma3:latest", Runtime: "ollama", Parameters: "4.3B", Quantization: "Q4_K_M", Size: 3_338_801_804,
			Context: 131072, Digest: digest("gemma3:latest"), Capabilities: []string{"completion"},
			Licence: "Gemma Terms of Use, Last modified: February 21, 2024. By using, reproducing, mo…", Usable: true,
		}},
		{"nomic-embed-text:latest", wisp.ModelInfo{
			Name: "nomic-embed-text:latest", Runtime: "ollama", Parameters: "137M", Quantization: "F16", Size: 274_302_450,
			Context: 2048, Digest: digest("nomic-embed-text:latest"), Capabilities: []string{"embedding"}, Usable: true,
		}},
		// No context length, no capabilities, no licence.
		{"hf.co/someone/tiny:Q8_0", wisp.ModelInfo{
			Name: "hf.co/someone/tiny:Q8_0", Runtime: "ollama", Size: 1000, Digest: digest("hf.co/someone/tiny:Q8_0"), Usable: true,
		}},
	}
	b, s := backend(t, qwen, gemma, embed, bare)
	for _, tt := range tests {
		got, err := b.Show(t.Context(), tt.name)
		if err != nil {
			t.Errorf("Show(%q) = %v", tt.name, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Show(%q) (-want +got):\n%s", tt.name, diff)
		}
	}
	if n := len([]rune(tests[1].want.Licence)); n != 80 {
		t.Fatalf("the cut licence in the table is %d characters, want 80", n)
	}
	want := []string{"POST /api/show", "GET /api/tags"}
	if diff := cmp.Diff(want, s.Requests()[:2]); diff != "" {
		t.Errorf("Show() requests (-want +got):\n%s", diff)
	}
}

// Show of a model Ollama lacks wraps models.ErrNotFound and says how to
// get it.
func TestShowNotFound(t *testing.T) {
	b, _ := backend(t, qwen)
	_, err := b.Show(t.Context(), "qwen3:8b")
	if !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("Show(qwen3:8b) = %v, want models.ErrNotFound", err)
	}
	want := `ollama at ` + b.URL() + `: no such model "qwen3:8b"; fetch it with "ollama pull qwen3:8b", or see "ollama list"`
	if err.Error() != want {
		t.Errorf("Show(qwen3:8b) error\n got %s\nwant %s", err, want)
	}
}

// A failing /api/show or /api/tags is an error that keeps Ollama's status,
// and is not ErrNotFound.
func TestShowServerError(t *testing.T) {
	for _, path := range []string{"/api/show", "/api/tags"} {
		t.Run(path, func(t *testing.T) {
			b, s := backend(t, qwen)
			s.Fail(path, http.StatusInternalServerError)
			_, err := b.Show(t.Context(), "qwen3:4b")
			want := "ollama at " + b.URL() + " failed on " + path + " (500 Internal Server Error: internal server error); see the ollama server log"
			if err == nil || err.Error() != want {
				t.Fatalf("Show() = %v, want %s", err, want)
			}
			if errors.Is(err, models.ErrNotFound) {
				t.Error("Show() error is ErrNotFound, want not")
			}
			var se api.StatusError
			if !errors.As(err, &se) || se.StatusCode != 500 {
				t.Errorf("Show() error does not wrap api.StatusError 500: %v", err)
			}
			if _, err := b.Check(t.Context(), "qwen3:4b", nil); err == nil {
				t.Error("Check() = nil error, want the same failure")
			}
		})
	}
}

// When nothing listens, every call says so in one line that says how to
// mend it, and wraps ErrUnreachable.
func TestNotRunning(t *testing.T) {
	b, err := ollama.New(closedHost(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `ollama is not answering at ` + b.URL() + ` (connection refused); start it with "ollama serve", or set OLLAMA_HOST`
	calls := map[string]func() error{
		"List":  func() error { _, err := b.List(t.Context()); return err },
		"Show":  func() error { _, err := b.Show(t.Context(), "qwen3:4b"); return err },
		"Check": func() error { _, err := b.Check(t.Context(), "qwen3:4b", nil); return err },
	}
	for name, call := range calls {
		err := call()
		if !errors.Is(err, ollama.ErrUnreachable) {
			t.Errorf("%s() = %v, want ErrUnreachable", name, err)
		}
		if err == nil || err.Error() != want {
			t.Errorf("%s() error\n got %v\nwant %s", name, err, want)
		}
	}
}

// A server that drops connections reads as not answering too.
func TestDown(t *testing.T) {
	b, s := backend(t, qwen)
	s.SetDown(true)
	_, err := b.List(t.Context())
	want := `ollama is not answering at ` + b.URL() + ` (connection closed); start it with "ollama serve", or set OLLAMA_HOST`
	if !errors.Is(err, ollama.ErrUnreachable) || err.Error() != want {
		t.Errorf("List() while down = %v, want %s", err, want)
	}
}

// Something that is not Ollama at the address is named as such.
func TestNotOllama(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		want    string
	}{
		{
			name: "a web page",
			handler: func(w http.ResponseWriter, r *http.Request) {
				io.WriteString(w, "<html>hello</html>")
			},
			want: "answered /api/tags with something that is not ollama's JSON (invalid character '<' looking for beginning of value); check that OLLAMA_HOST points at ollama",
		},
		{
			name:    "no such route",
			handler: http.NotFound,
			want:    "failed on /api/tags (404 Not Found: 404 page not found); check that OLLAMA_HOST points at ollama",
		},
		{
			name: "a login wall",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusUnauthorized)
				io.WriteString(w, `{"error":"unauthorized"}`)
			},
			want: "failed on /api/tags (401 Unauthorized: unauthorized); check that OLLAMA_HOST points at a local ollama",
		},
		{
			name: "a many-line error page",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusBadGateway)
				io.WriteString(w, "<html>\n<body>\nbad gateway\n</body>\n</html>\n")
			},
			want: "failed on /api/tags (502 Bad Gateway: <html> <body> bad gateway </body> </html>); check that OLLAMA_HOST points at ollama",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			t.Cleanup(srv.Close)
			b, err := ollama.New(srv.URL, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = b.List(t.Context())
			want := "ollama at " + b.URL() + " " + tt.want
			if err == nil || err.Error() != want {
				t.Errorf("List() error\n got %v\nwant %s", err, want)
			}
		})
	}
}

// Check shows the model, tells what it can do, probes it with one token
// offering it a tool, and says the context Ollama loaded it with. A model
// that cannot take tools fails with Ollama's own words.
func TestCheck(t *testing.T) {
	loaded := "ollama has it loaded with 4,096 tokens of context (the server's own setting; wisp asks for none)"
	noTools := "the model cannot take tools: ollama answers a chat that offers one with 400 Bad Request: registry.ollama.ai/library/gemma3:latest does not support tools"
	tests := []struct {
		name     string
		want     models.CheckReport // Findings without the first, which names the URL
		wantReqs []string
	}{
		{"qwen3:4b", models.CheckReport{
			OK: true,
			Findings: []string{
				"capabilities: completion, tools, thinking",
				"the model can call tools",
				"the model loads and answers (1-token probe, offered a tool)",
				loaded,
			},
			Info: wisp.ModelInfo{
				Name: "qwen3:4b", Runtime: "ollama", Parameters: "4.0B", Quantization: "Q4_K_M", Size: 2_497_293_931,
				Context: 40960, RunContext: 4096, Digest: digest("qwen3:4b"), Capabilities: []string{"completion", "tools", "thinking"}, Licence: "Apache License", Usable: true,
			},
		}, []string{"POST /api/show", "GET /api/tags", "GET /api/ps", "POST /api/chat", "GET /api/ps"}},
		{"gemma3:latest", models.CheckReport{
			Why: noTools,
			Findings: []string{
				"capabilities: completion",
				"the model cannot call tools",
				noTools,
			},
			Info: wisp.ModelInfo{
				Name: "gemma3:latest", Runtime: "ollama", Parameters: "4.3B", Quantization: "Q4_K_M", Size: 3_338_801_804,
				Context: 131072, Digest: digest("gemma3:latest"), Capabilities: []string{"completion"},
				Licence: "Gemma Terms of Use, Last modified: February 21, 2024. By using, reproducing, mo…", Why: noTools,
			},
		}, []string{"POST /api/show", "GET /api/tags", "GET /api/ps", "POST /api/chat"}},
		// An embedding model cannot chat: no probe, not OK.
		{"nomic-embed-text:latest", models.CheckReport{
			Why: "the model cannot chat (no completion capability), so it cannot drive an agent",
			Findings: []string{
				"capabilities: embedding",
				"the model cannot call tools",
				"the model cannot chat (no completion capability), so it cannot drive an agent",
			},
			Info: wisp.ModelInfo{
				Name: "nomic-embed-text:latest", Runtime: "ollama", Parameters: "137M", Quantization: "F16", Size: 274_302_450,
				Context: 2048, Digest: digest("nomic-embed-text:latest"), Capabilities: []string{"embedding"},
				Why: "the model cannot chat (no completion capability), so it cannot drive an agent",
			},
		}, []string{"POST /api/show", "GET /api/tags", "GET /api/ps"}},
		// A server that reports no capabilities: the probe decides.
		{"hf.co/someone/tiny:Q8_0", models.CheckReport{
			OK: true,
			Findings: []string{
				"capabilities: none reported",
				"ollama does not say whether the model can call tools",
				"the model loads and answers (1-token probe, offered a tool)",
				loaded,
			},
			Info: wisp.ModelInfo{Name: "hf.co/someone/tiny:Q8_0", Runtime: "ollama", Size: 1000, RunContext: 4096, Digest: digest("hf.co/someone/tiny:Q8_0"), Usable: true},
		}, []string{"POST /api/show", "GET /api/tags", "GET /api/ps", "POST /api/chat", "GET /api/ps"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, s := backend(t, qwen, gemma, embed, bare)
			got, err := b.Check(t.Context(), tt.name, nil)
			if err != nil {
				t.Fatalf("Check(%q) = %v", tt.name, err)
			}
			want := tt.want
			want.Findings = append([]string{"ollama answers at " + b.URL()}, want.Findings...)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Check(%q) (-want +got):\n%s", tt.name, diff)
			}
			if diff := cmp.Diff(tt.wantReqs, s.Requests()); diff != "" {
				t.Errorf("Check(%q) requests (-want +got):\n%s", tt.name, diff)
			}
		})
	}
}

// The probe asks for one token with a tiny message, streamed, offering a
// tool, and asks for the context every chat asks for: none unless one is
// set, so that Ollama loads the model for the probe as it will for chats.
func TestCheckProbe(t *testing.T) {
	type probe struct {
		Model    string
		Messages []api.Message
		Tools    []string
		Stream   bool
		Options  map[string]any
	}
	for _, tc := range []struct {
		name    string
		opts    *models.RunOptions
		options map[string]any
		loaded  int
	}{
		{"no context set", nil, map[string]any{"num_predict": float64(1)}, 4096},
		{"a context set", &models.RunOptions{ContextTokens: 2048}, map[string]any{"num_predict": float64(1), "num_ctx": float64(2048)}, 2048},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, s := backend(t, qwen)
			rep, err := b.Check(t.Context(), "qwen3:4b", tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []probe
			for _, c := range s.Chats() {
				var tools []string
				for _, tl := range c.Tools {
					tools = append(tools, tl.Function.Name)
				}
				got = append(got, probe{c.Model, c.Messages, tools, c.Stream != nil && *c.Stream, c.Options})
			}
			want := []probe{{
				Model:    "qwen3:4b",
				Messages: []api.Message{{Role: "user", Content: "hi"}},
				Tools:    []string{"wisp_probe"},
				Stream:   true,
				Options:  tc.options,
			}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("probe (-want +got):\n%s", diff)
			}
			if rep.Info.RunContext != tc.loaded {
				t.Errorf("Check().Info.RunContext = %d, want %d", rep.Info.RunContext, tc.loaded)
			}
		})
	}
}

// A model that cannot load fails its check with Ollama's own reason.
func TestCheckLoadFails(t *testing.T) {
	broken := qwen
	broken.LoadError = ollamatest.LineMissingTensor
	b, _ := backend(t, broken)
	got, err := b.Check(t.Context(), "qwen3:4b", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "the model does not answer (1-token probe): ollama at " + b.URL() +
		" failed on /api/chat (500 Internal Server Error: llama runner process has terminated: error loading model: missing tensor 'blk.0.ffn_up.weight' llama_model_load_from_file_impl: failed to load model); see the ollama server log"
	if got.OK || got.Why != want || got.Info.Why != want {
		t.Errorf("Check() = OK %v, Why %q\nwant not OK, Why %q", got.OK, got.Why, want)
	}
}

// A probe that fails, or a stream that ends without a message marked
// done, makes the report not OK, with a finding that says why. This is the
// guard for Ollama's own client, which returns nil for a cut stream.
func TestCheckProbeFails(t *testing.T) {
	tests := []struct {
		name    string
		breakIt func(*ollamatest.Server)
		why     string
	}{
		{"stream ends without done", func(s *ollamatest.Server) { s.TruncateChat(true) },
			"ended its answer on /api/chat early (no message marked done); see the ollama server log"},
		{"connection dropped mid-stream", func(s *ollamatest.Server) { s.AbortChat(true) },
			"broke off its answer on /api/chat (unexpected EOF); see the ollama server log"},
		{"chat fails", func(s *ollamatest.Server) { s.Fail("/api/chat", http.StatusInternalServerError) },
			"failed on /api/chat (500 Internal Server Error: internal server error); see the ollama server log"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, s := backend(t, qwen)
			tt.breakIt(s)
			got, err := b.Check(t.Context(), "qwen3:4b", nil)
			if err != nil {
				t.Fatalf("Check() = %v, want a report", err)
			}
			why := "the model does not answer (1-token probe): ollama at " + b.URL() + " " + tt.why
			want := models.CheckReport{
				Why: why,
				Findings: []string{
					"ollama answers at " + b.URL(),
					"capabilities: completion, tools, thinking",
					"the model can call tools",
					why,
				},
				Info: wisp.ModelInfo{
					Name: "qwen3:4b", Runtime: "ollama", Parameters: "4.0B", Quantization: "Q4_K_M", Size: 2_497_293_931,
					Context: 40960, Digest: digest("qwen3:4b"), Capabilities: []string{"completion", "tools", "thinking"}, Licence: "Apache License",
					Why: why,
				},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Check() (-want +got):\n%s", diff)
			}
		})
	}
}

// Check of a model Ollama lacks is ErrNotFound, not a report.
func TestCheckNotFound(t *testing.T) {
	b, s := backend(t, qwen)
	_, err := b.Check(t.Context(), "nope", nil)
	if !errors.Is(err, models.ErrNotFound) {
		t.Errorf("Check(nope) = %v, want models.ErrNotFound", err)
	}
	if diff := cmp.Diff([]string{"POST /api/show"}, s.Requests()); diff != "" {
		t.Errorf("Check(nope) requests (-want +got):\n%s", diff)
	}
}

// cancelOnChat cancels a context as soon as the first bytes of a chat
// answer arrive.
type cancelOnChat struct {
	cancel context.CancelFunc
}

func (c cancelOnChat) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && r.URL.Path == "/api/chat" {
		resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: c.cancel}
	}
	return resp, err
}

type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.cancel()
	}
	return n, err
}

// A ctx cancelled mid-answer ends Check with ctx's error, not with a
// report that reads as a short answer or a failed model. This is the
// guard for Ollama's own client, which returns nil then.
func TestCheckCancelledMidStream(t *testing.T) {
	s := ollamatest.NewServer(t, qwen)
	s.HoldChat(true)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	b, err := ollama.New(s.URL, &ollama.Options{HTTPClient: &http.Client{Transport: cancelOnChat{cancel}}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := b.Check(ctx, "qwen3:4b", nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Check() = %v, want context.Canceled", err)
	}
	oneLine(t, "Check()", err)
	if diff := cmp.Diff(models.CheckReport{}, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Check() report (-want +got):\n%s", diff)
	}
}

// A ctx already done stops every call before it sends anything.
func TestCancelledBeforehand(t *testing.T) {
	b, s := backend(t, qwen)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := b.List(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("List() = %v, want context.Canceled", err)
	}
	if _, err := b.Show(ctx, "qwen3:4b"); !errors.Is(err, context.Canceled) {
		t.Errorf("Show() = %v, want context.Canceled", err)
	}
	if _, err := b.Check(ctx, "qwen3:4b", nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Check() = %v, want context.Canceled", err)
	}
	if got := s.Requests(); len(got) != 0 {
		t.Errorf("requests after a cancelled ctx = %q, want none", got)
	}
}
