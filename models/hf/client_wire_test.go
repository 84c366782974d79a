package hf

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wisp-agent/wisp/models/hf/hubtest"
)

// TestClientWireRoundTrip: the fake Hub's listing decodes into what the
// client reads, field for field.
func TestClientWireRoundTrip(t *testing.T) {
	config := hubtest.File{Path: "config.json", Data: []byte(`{"model_type":"qwen3"}`)}
	weights := hubtest.File{Path: "model.safetensors", Data: []byte("weights"), LFS: true}
	repo := hubtest.Repo{ID: "mlx-community/Tiny", Files: []hubtest.File{config, weights},
		License: "other", LicenseName: "tiny-licence", Author: "mlx-community", Gated: true}
	s := hubtest.NewServer(t, repo)

	resp, err := http.Get(s.URL + "/api/models/mlx-community/Tiny/revision/main?blobs=true")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewClient(&ClientOptions{Endpoint: s.URL})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.decodeListing(repo.ID, body)
	if err != nil {
		t.Fatal(err)
	}
	size := func(n int) *int64 { v := int64(n); return &v }
	want := modelInfo{
		ID:       "mlx-community/Tiny",
		Author:   "mlx-community",
		Sha:      repo.Sha(),
		Gated:    "manual",
		CardData: cardData{License: names{"other"}, LicenseName: "tiny-licence"},
		Siblings: []sibling{
			{RFilename: "config.json", Size: size(len(config.Data)), BlobID: config.BlobID()},
			{RFilename: "model.safetensors", Size: size(len(weights.Data)), BlobID: weights.BlobID(),
				LFS: &lfsInfo{SHA256: weights.SHA256(), Size: int64(len(weights.Data))}},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the fake Hub's listing decodes to (-want +got):\n%s", diff)
	}
}

// hubAnswer is the shape of the Hub's answer for an MLX repository, with
// fields the client skips (config, safetensors, transformersInfo, spaces)
// and a licence list.
const hubAnswer = `{
  "_id": "68146e5f7a1c2b3d4e5f6a7b",
  "id": "mlx-community/Qwen3-4B-4bit",
  "private": false,
  "pipeline_tag": "text-generation",
  "library_name": "mlx",
  "tags": ["mlx", "safetensors", "qwen3", "text-generation", "conversational", "base_model:Qwen/Qwen3-4B", "license:apache-2.0", "region:us"],
  "downloads": 12345,
  "likes": 42,
  "modelId": "mlx-community/Qwen3-4B-4bit",
  "author": "mlx-community",
  "sha": "4f9b6c1a0d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a",
  "lastModified": "2025-04-29T01:02:03.000Z",
  "gated": false,
  "disabled": false,
  "widgetData": [{"text": "Hi"}],
  "config": {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "tokenizer_config": {"eos_token": "<|im_end|>"}},
  "cardData": {"license": ["apache-2.0", "other"], "license_name": "qwen-research", "library_name": "mlx", "base_model": "Qwen/Qwen3-4B", "tags": ["mlx"], "pipeline_tag": "text-generation"},
  "transformersInfo": {"auto_model": "AutoModelForCausalLM"},
  "siblings": [
    {"rfilename": ".gitattributes", "size": 1570, "blobId": "a6344aac8c09253b3b630fb776ae94478aa0275b"},
    {"rfilename": "README.md", "size": 812, "blobId": "0f4c0f7e5b1f6a2d3c4b5a69788796a5b4c3d2e1"},
    {"rfilename": "config.json", "size": 937, "blobId": "1d2c3b4a5f6e7d8c9b0a1f2e3d4c5b6a79887766"},
    {"rfilename": "model.safetensors", "size": 2263022529, "blobId": "9f8e7d6c5b4a39281706f5e4d3c2b1a098765432",
     "lfs": {"sha256": "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00", "size": 2263022529, "pointerSize": 135}},
    {"rfilename": "model.safetensors.index.json", "size": 49870, "blobId": "2e3d4c5b6a79887766554433221100ffeeddccbb"},
    {"rfilename": "tokenizer.json", "size": 11422654, "blobId": "3f4e5d6c7b8a99887766554433221100ffeeddcc",
     "lfs": {"sha256": "aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4", "size": 11422654, "pointerSize": 133}},
    {"rfilename": "tokenizer_config.json", "size": 9706, "blobId": "4a5b6c7d8e9f00112233445566778899aabbccdd"}
  ],
  "spaces": ["someone/space"],
  "createdAt": "2025-04-28T00:00:00.000Z",
  "safetensors": {"parameters": {"BF16": 1000, "U32": 2000}, "total": 3000},
  "usedStorage": 2274506221
}`

func TestPlanFromHubAnswer(t *testing.T) {
	c, err := NewClient(nil)
	if err != nil {
		t.Fatal(err)
	}
	info, err := c.decodeListing("mlx-community/qwen3-4b-4bit", []byte(hubAnswer))
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.plan("mlx-community/qwen3-4b-4bit", info)
	if err != nil {
		t.Fatal(err)
	}
	want := Plan{
		Repo:   "mlx-community/Qwen3-4B-4bit",
		Commit: "4f9b6c1a0d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a",
		Files: []File{
			{Path: "config.json", Size: 937, BlobID: "1d2c3b4a5f6e7d8c9b0a1f2e3d4c5b6a79887766"},
			{Path: "model.safetensors", Size: 2263022529, SHA256: "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00", BlobID: "9f8e7d6c5b4a39281706f5e4d3c2b1a098765432"},
			{Path: "model.safetensors.index.json", Size: 49870, BlobID: "2e3d4c5b6a79887766554433221100ffeeddccbb"},
			{Path: "tokenizer.json", Size: 11422654, SHA256: "aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4", BlobID: "3f4e5d6c7b8a99887766554433221100ffeeddcc"},
			{Path: "tokenizer_config.json", Size: 9706, BlobID: "4a5b6c7d8e9f00112233445566778899aabbccdd"},
		},
		Licence:   "apache-2.0, qwen-research",
		Publisher: "mlx-community",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("plan of the Hub's answer (-want +got):\n%s", diff)
	}
	if got.Bytes() != 2263022529+937+49870+11422654+9706 {
		t.Errorf("Bytes() = %d", got.Bytes())
	}
}

func TestPlanMalformedListing(t *testing.T) {
	const (
		blob = `"blobId": "1d2c3b4a5f6e7d8c9b0a1f2e3d4c5b6a79887766"`
		sha  = "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00"
	)
	listing := func(weights string) string {
		return `{"id": "org/m", "sha": "4f9b6c1a0d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a", "siblings": [
			{"rfilename": "config.json", "size": 10, ` + blob + `},
			` + weights + `]}`
	}
	const mend = "; try again later"
	tests := []struct {
		name, body, want string
	}{
		{"not JSON", `<html>Sign in</html>`,
			"Hugging Face answered the listing of org/m with something other than its JSON (invalid character '<' looking for beginning of value); try again later"},
		{"gated not a flag", `{"gated": 3}`,
			"Hugging Face answered the listing of org/m with something other than its JSON (gated is 3, not false or a string); try again later"},
		{"no size", listing(`{"rfilename": "model.safetensors", ` + blob + `}`),
			`the listing of org/m from Hugging Face is malformed: "model.safetensors" has no size` + mend},
		{"negative size", listing(`{"rfilename": "model.safetensors", "size": -1, ` + blob + `}`),
			`the listing of org/m from Hugging Face is malformed: "model.safetensors" has size -1` + mend},
		{"short blobId", listing(`{"rfilename": "model.safetensors", "size": 1, "blobId": "abc"}`),
			`the listing of org/m from Hugging Face is malformed: "model.safetensors" has blobId "abc", not 40 lower-case hex digits` + mend},
		{"no blobId", listing(`{"rfilename": "model.safetensors", "size": 1}`),
			`the listing of org/m from Hugging Face is malformed: "model.safetensors" has blobId "", not 40 lower-case hex digits` + mend},
		{"sha256 not hex", listing(`{"rfilename": "model.safetensors", "size": 1, ` + blob + `, "lfs": {"sha256": "` + strings.Repeat("z", 64) + `", "size": 1}}`),
			`the listing of org/m from Hugging Face is malformed: "model.safetensors" has lfs.sha256 "` + strings.Repeat("z", 64) + `", not 64 lower-case hex digits` + mend},
		{"sha256 short", listing(`{"rfilename": "model.safetensors", "size": 1, ` + blob + `, "lfs": {"sha256": "` + sha[:63] + `", "size": 1}}`),
			`the listing of org/m from Hugging Face is malformed: "model.safetensors" has lfs.sha256 "` + sha[:63] + `", not 64 lower-case hex digits` + mend},
		{"lfs size differs", listing(`{"rfilename": "model.safetensors", "size": 1, ` + blob + `, "lfs": {"sha256": "` + sha + `", "size": 2}}`),
			`the listing of org/m from Hugging Face is malformed: "model.safetensors" has lfs.size 2 but size 1` + mend},
		{"a file not fetched", listing(`{"rfilename": "model.safetensors", "size": 1, ` + blob + `}, {"rfilename": "README.md", "size": -5, ` + blob + `}`),
			`the listing of org/m from Hugging Face is malformed: "README.md" has size -5` + mend},
		{"no commit", `{"id": "org/m", "siblings": []}`,
			`the listing of org/m from Hugging Face is malformed: its commit "" is not 40 lower-case hex digits` + mend},
		{"an id that is no name", `{"id": "org/../m", "sha": "4f9b6c1a0d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a"}`,
			`the listing of org/m from Hugging Face is malformed: its id "org/../m" is not a repository name` + mend},
		{"disabled", `{"id": "org/m", "sha": "4f9b6c1a0d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a", "disabled": true}`,
			"org/m is disabled on Hugging Face; pick another model"},
	}
	c, err := NewClient(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info, err := c.decodeListing("org/m", []byte(tt.body))
			if err == nil {
				_, err = c.plan("org/m", info)
			}
			if err == nil || err.Error() != tt.want {
				t.Fatalf("plan = %v\nwant   %s", err, tt.want)
			}
			kind := ErrBadListing
			if tt.name == "disabled" {
				kind = ErrNotFound
			}
			if !errors.Is(err, kind) {
				t.Errorf("plan = %v, want it to wrap %v", err, kind)
			}
		})
	}
}

func TestPlanGateAndLicenceFields(t *testing.T) {
	tests := []struct {
		body  string
		gate  gate
		names names
	}{
		{`{"gated": false, "cardData": {"license": "mit"}}`, "", names{"mit"}},
		{`{"gated": "auto", "cardData": {"license": ["mit", "other"]}}`, "auto", names{"mit", "other"}},
		{`{"gated": true, "cardData": {"license": 7}}`, "true", nil},
		{`{"gated": null}`, "", nil},
		{`{"gated": "false", "cardData": {"license": null}}`, "", nil},
	}
	for _, tt := range tests {
		var info modelInfo
		if err := json.Unmarshal([]byte(tt.body), &info); err != nil {
			t.Fatalf("%s: %v", tt.body, err)
		}
		if info.Gated != tt.gate || !cmp.Equal(info.CardData.License, tt.names) {
			t.Errorf("%s: gated %q, license %q; want %q, %q", tt.body, info.Gated, info.CardData.License, tt.gate, tt.names)
		}
	}
}

func TestPlanGatedNeedsToken(t *testing.T) {
	body := `{"id": "org/m", "sha": "4f9b6c1a0d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a", "gated": "manual", "siblings": [
		{"rfilename": "config.json", "size": 1, "blobId": "1d2c3b4a5f6e7d8c9b0a1f2e3d4c5b6a79887766"},
		{"rfilename": "model.safetensors", "size": 1, "blobId": "1d2c3b4a5f6e7d8c9b0a1f2e3d4c5b6a79887766"}]}`
	for _, token := range []string{"", "hf_x"} {
		c, err := NewClient(&ClientOptions{Token: token})
		if err != nil {
			t.Fatal(err)
		}
		info, err := c.decodeListing("org/m", []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.plan("org/m", info)
		if got := errors.Is(err, ErrGated); got != (token == "") {
			t.Errorf("token %q: plan of a gated repository = %v; want ErrGated only without a token", token, err)
		}
	}
}

func TestClientWanted(t *testing.T) {
	tests := map[string]bool{
		"config.json": true, "model.safetensors": true, "model-00001-of-00009.safetensors": true,
		"model.safetensors.index.json": true, "tokenizer.json": true, "tokenizer.model": true,
		"tiktoken.model": true, "qwen.tiktoken": true, "merges.txt": true, "vocab.txt": true,
		"added_tokens.jsonl": true, "chat_template.jinja": true, "additional_chat_templates/tool_use.jinja": true,
		"original/params.json": true, "LICENSE.txt": true,

		"modeling_qwen.py": false, "README.md": false, "LICENSE": false, ".gitattributes": false,
		"pytorch_model.bin": false, "model.gguf": false, "consolidated.safetensors": false,
		"weights.npz": false, "sub/tokenizer.model": false, "Config.JSON": false, "model.safetensors.bak": false,
	}
	for path, want := range tests {
		if got := wanted(path); got != want {
			t.Errorf("wanted(%q) = %t, want %t", path, got, want)
		}
	}
}

func TestClientBackoff(t *testing.T) {
	retryAfter := func(code int, v string) *http.Response {
		return &http.Response{StatusCode: code, Header: http.Header{"Retry-After": {v}}}
	}
	tests := []struct {
		name    string
		attempt int
		resp    *http.Response
		want    time.Duration
	}{
		{"first", 0, nil, time.Second},
		{"doubles", 2, nil, 4 * time.Second},
		{"capped", 10, nil, 30 * time.Second},
		{"Retry-After on 429", 0, retryAfter(429, "7"), 7 * time.Second},
		{"Retry-After on 503", 3, retryAfter(503, "2"), 2 * time.Second},
		{"Retry-After capped", 0, retryAfter(429, "3600"), 30 * time.Second},
		{"Retry-After ignored on 500", 0, retryAfter(500, "7"), time.Second},
	}
	for _, tt := range tests {
		if got := backoff(time.Second, 30*time.Second, tt.attempt, tt.resp); got != tt.want {
			t.Errorf("%s: backoff = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// roundTripFunc adapts a function to http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestClientTokenOrigin(t *testing.T) {
	var sent string
	at := &authTransport{
		base: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			sent = r.Header.Get("Authorization")
			return &http.Response{StatusCode: 200, Body: http.NoBody}, nil
		}),
		origin: originOf(mustParse(t, "https://huggingface.co")),
		header: "Bearer hf_x",
	}
	tests := map[string]bool{
		"https://huggingface.co/api/models/a/b":      true,
		"https://HuggingFace.co:443/a/b/resolve/x":   true,
		"https://cdn-lfs.huggingface.co/repos/x/y":   false, // net/http would send it to a subdomain
		"https://huggingface.co:8443/a":              false,
		"http://huggingface.co/a":                    false,
		"https://cas-bridge.xethub.hf.co/xet-bridge": false,
	}
	for u, want := range tests {
		req, _ := http.NewRequest("GET", u, nil)
		req.Header.Set("Authorization", "Bearer leaked")
		if _, err := at.RoundTrip(req); err != nil {
			t.Fatal(err)
		}
		if got := sent == "Bearer hf_x"; got != want || (!want && sent != "") {
			t.Errorf("GET %s sent Authorization %q; want the token: %t", u, sent, want)
		}
		if req.Header.Get("Authorization") != "Bearer leaked" {
			t.Errorf("RoundTrip changed the caller's request")
		}
	}
}

func TestClientRedirectPolicy(t *testing.T) {
	check := checkRedirect(nil)
	req := func(u string) *http.Request { return &http.Request{URL: mustParse(t, u)} }
	https := []*http.Request{req("https://huggingface.co/a/b/resolve/c/d")}
	if err := check(req("https://cdn.example/x"), https); err != nil {
		t.Errorf("https to https: %v", err)
	}
	if err := check(req("http://cdn.example/x"), https); !errors.Is(err, errDowngrade) {
		t.Errorf("https to http = %v, want errDowngrade", err)
	}
	if err := check(req("http://cdn.example/x"), []*http.Request{req("http://127.0.0.1/a")}); err != nil {
		t.Errorf("http to http: %v", err)
	}
	many := make([]*http.Request, maxRedirects)
	for i := range many {
		many[i] = https[0]
	}
	if err := check(req("https://cdn.example/x"), many); err == nil || err.Error() != "stopped after 10 redirects" {
		t.Errorf("eleventh redirect = %v, want stopped", err)
	}
	theirs := errors.New("theirs")
	if err := checkRedirect(func(*http.Request, []*http.Request) error { return theirs })(req("https://cdn.example/x"), https); err != theirs {
		t.Errorf("the caller's policy was not asked: %v", err)
	}
}

// TestClientQuiet: retryablehttp's default logger prints every request;
// the client's has none.
func TestClientQuiet(t *testing.T) {
	c, err := NewClient(nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.rc.Logger != nil {
		t.Errorf("the retrying client has a logger, %T; a library prints nothing", c.rc.Logger)
	}
}

func TestClientClean(t *testing.T) {
	tests := map[string]string{
		"apache-2.0":                "apache-2.0",
		"  two\n\nlines\t ":         "two lines",
		"bidi\u202etxt.exe\u2066":   "biditxt.exe",
		"bell\a and \x1b[2J escape": "bell and [2J escape",
		"bad\xffutf8":               "badutf8",
		"emoji 👩\u200d💻":            "emoji 👩\u200d💻",
		strings.Repeat("x", 120):    strings.Repeat("x", 99) + "…",
	}
	for in, want := range tests {
		if got := clean(in, 100); got != want {
			t.Errorf("clean(%q) = %q, want %q", in, got, want)
		}
	}
}

func mustParse(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestOpenAnswers checks answers the fake Hub never gives.
func TestOpenAnswers(t *testing.T) {
	c, err := NewClient(&ClientOptions{Endpoint: "https://hub.example"})
	if err != nil {
		t.Fatal(err)
	}
	const commit = "4f9b6c1a0d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a"
	p := Plan{Repo: "org/m", Commit: commit}
	f := File{Path: "model.safetensors", Size: 1000, SHA256: strings.Repeat("a", 64), BlobID: strings.Repeat("b", 40)}
	answer := func(host string, status int, header ...string) *http.Response {
		h := http.Header{}
		for i := 0; i < len(header); i += 2 {
			h.Set(header[i], header[i+1])
		}
		return &http.Response{StatusCode: status, Header: h, Body: http.NoBody, ContentLength: -1,
			Request: &http.Request{URL: mustParse(t, "https://"+host+"/x")}}
	}
	const from = " answered for model.safetensors of org/m with what the plan does not expect: "
	tests := []struct {
		name   string
		resp   *http.Response
		offset int64
		kind   error
		want   string
	}{
		{"another start", answer("cdn.example", 206, "Content-Range", "bytes 0-999/1000"), 100, ErrBadListing,
			`the download host cdn.example` + from + `it sent the range "bytes 0-999/1000", not bytes 100-999/1000; pull it again later`},
		{"another size", answer("cdn.example", 206, "Content-Range", "bytes 100-1999/2000"), 100, ErrBadListing,
			`the download host cdn.example` + from + `it sent the range "bytes 100-1999/2000", not bytes 100-999/1000; pull it again later`},
		{"no range", answer("cdn.example", 206), 100, ErrBadListing,
			`the download host cdn.example` + from + `it sent the range "", not bytes 100-999/1000; pull it again later`},
		{"compressed", answer("cdn.example", 200, "Content-Encoding", "gzip"), 0, ErrBadListing,
			`the download host cdn.example` + from + `it came encoded as "gzip"; pull it again later`},
		{"another commit", answer("hub.example", 200, "X-Repo-Commit", strings.Repeat("9", 40)), 0, ErrBadListing,
			"Hugging Face at https://hub.example" + from + `it came from commit "` + strings.Repeat("9", 40) + `", not ` + commit + "; pull it again later"},
		{"the CDN refuses", answer("cdn.example", 403), 0, nil,
			"the download host cdn.example answered 403 Forbidden for model.safetensors of org/m; try again later"},
		{"disabled", answer("hub.example", 403, "X-Error-Message", "Access to this resource is disabled."), 0, ErrNotFound,
			"org/m is disabled on Hugging Face at https://hub.example; pick another model"},
		{"a status of its own", answer("hub.example", 299), 0, nil,
			"Hugging Face at https://hub.example answered 299 for model.safetensors of org/m; try again later"},
	}
	for _, tt := range tests {
		_, err := c.body(tt.resp, p, f, tt.offset, "model.safetensors of org/m")
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: body = %v\nwant %s", tt.name, err, tt.want)
			continue
		}
		if tt.kind != nil && !errors.Is(err, tt.kind) {
			t.Errorf("%s: body = %v, want it to wrap %v", tt.name, err, tt.kind)
		}
	}
	// A 206 whose length is unknown and whose range is right is taken.
	b, err := c.body(answer("cdn.example", 206, "Content-Range", "bytes 100-999/*"), p, f, 100, "x")
	if err != nil || b.Offset != 100 {
		t.Errorf("a right range = %v, %v; want offset 100", b.Offset, err)
	}
}
