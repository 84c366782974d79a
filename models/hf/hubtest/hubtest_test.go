package hubtest_test

import (
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wisp-agent/wisp/models/hf/hubtest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

const commit = "0123456789abcdef0123456789abcdef01234567"

var (
	config  = hubtest.File{Path: "config.json", Data: []byte(`{"model_type":"qwen3"}` + "\n")}
	weights = hubtest.File{Path: "model.safetensors", Data: bytes.Repeat([]byte("0123456789"), 100), LFS: true}
	tiny    = hubtest.Repo{ID: "mlx-community/Tiny-4bit", Commit: commit, Files: []hubtest.File{config, weights}, License: "apache-2.0"}
)

// answer is what a test reads of a response.
type answer struct {
	Status int
	Header map[string]string
	Body   string
}

// get sends one request to url, following no redirect, and returns the
// status, the headers named and the body.
func get(t *testing.T, method, url string, header map[string]string, names ...string) answer {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	c := &http.Client{
		Transport:     &http.Transport{DisableCompression: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, url, err)
	}
	a := answer{Status: resp.StatusCode, Header: map[string]string{}, Body: string(body)}
	for _, n := range names {
		if v := resp.Header.Get(n); v != "" {
			a.Header[n] = v
		}
	}
	return a
}

func TestListingGolden(t *testing.T) {
	s := hubtest.NewServer(t, tiny)
	a := get(t, "GET", s.URL+"/api/models/mlx-community/Tiny-4bit/revision/main?blobs=true", nil, "Content-Type")
	if a.Status != http.StatusOK || a.Header["Content-Type"] != "application/json; charset=utf-8" {
		t.Fatalf("listing: %d %v, want 200 JSON", a.Status, a.Header)
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, []byte(a.Body), "", "  "); err != nil {
		t.Fatalf("listing is not JSON: %v", err)
	}
	pretty.WriteByte('\n')
	golden := filepath.Join("testdata", "listing.json")
	if *update {
		if err := os.WriteFile(golden, pretty.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if diff := cmp.Diff(string(want), pretty.String()); diff != "" {
		t.Errorf("listing differs from %s (-want +got):\n%s", golden, diff)
	}
}

// TestDigests pins the digests to their definitions, computed here apart
// from the fake.
func TestDigests(t *testing.T) {
	sha := sha256.Sum256(weights.Data)
	pointer := fmt.Sprintf("version https://git-lfs.github.com/spec/v1\noid sha256:%x\nsize %d\n", sha, len(weights.Data))
	blob := func(b []byte) string {
		h := sha1.New()
		fmt.Fprintf(h, "blob %d\x00", len(b))
		h.Write(b)
		return hex.EncodeToString(h.Sum(nil))
	}
	got := []string{weights.SHA256(), weights.BlobID(), weights.Etag(), config.BlobID(), config.Etag()}
	want := []string{hex.EncodeToString(sha[:]), blob([]byte(pointer)), hex.EncodeToString(sha[:]), blob(config.Data), blob(config.Data)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("digests (-want +got):\n%s", diff)
	}
	derived := sha1.Sum([]byte("commit org/x"))
	if got, want := (hubtest.Repo{ID: "org/x"}).Sha(), hex.EncodeToString(derived[:]); got != want {
		t.Errorf("Sha() = %q, want %q", got, want)
	}
}

func TestListing(t *testing.T) {
	s := hubtest.NewServer(t, tiny)
	newer := tiny
	newer.Commit = strings.Repeat("b", 40)
	newer.Files = []hubtest.File{config}
	s.Push(newer)

	// listed is what a test reads of a listing.
	type listed struct {
		ID       string
		Sha      string
		Siblings []map[string]any
	}
	tests := []struct {
		name, path string
		status     int
		code       string
		want       listed
	}{
		{"main, any case, no revision", "/api/models/MLX-community/tiny-4BIT", 200, "",
			listed{ID: tiny.ID, Sha: newer.Commit, Siblings: []map[string]any{{"rfilename": "config.json"}}}},
		{"an older commit, with blobs", "/api/models/mlx-community/Tiny-4bit/revision/" + commit + "?blobs=true", 200, "",
			listed{ID: tiny.ID, Sha: commit, Siblings: []map[string]any{
				{"rfilename": "config.json", "size": float64(len(config.Data)), "blobId": config.BlobID()},
				{"rfilename": "model.safetensors", "size": float64(1000), "blobId": weights.BlobID(),
					"lfs": map[string]any{"sha256": weights.SHA256(), "size": float64(1000), "pointerSize": float64(129)}},
			}}},
		{"no such revision", "/api/models/mlx-community/Tiny-4bit/revision/v2", 404, "RevisionNotFound", listed{}},
		{"no such repository", "/api/models/mlx-community/None", 401, "RepoNotFound", listed{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := get(t, "GET", s.URL+tt.path, nil, "X-Error-Code")
			if a.Status != tt.status || a.Header["X-Error-Code"] != tt.code {
				t.Fatalf("GET %s = %d %q, want %d %q", tt.path, a.Status, a.Header["X-Error-Code"], tt.status, tt.code)
			}
			if tt.status != 200 {
				return
			}
			var got listed
			if err := json.Unmarshal([]byte(a.Body), &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("GET %s (-want +got):\n%s", tt.path, diff)
			}
		})
	}
}

func TestAccess(t *testing.T) {
	public := hubtest.Repo{ID: "org/public", Files: []hubtest.File{config}}
	private := hubtest.Repo{ID: "org/private", Files: []hubtest.File{config}, Private: true}
	gated := hubtest.Repo{ID: "org/gated", Files: []hubtest.File{config}, Gated: true}
	s := hubtest.NewServer(t, public, private, gated)

	tokens := []string{"", hubtest.Token, hubtest.StrangerToken, "hf_nobody"}
	// want[repo][token] is "listing status/code, file status/code".
	want := map[string][4]string{
		"org/public":  {"200 200", "200 200", "200 200", "401 401"},
		"org/private": {"401 RepoNotFound 401 RepoNotFound", "200 200", "404 RepoNotFound 404 RepoNotFound", "401 401"},
		"org/gated":   {"200 401 GatedRepo", "200 200", "200 403 GatedRepo", "401 401"},
		"org/missing": {"401 RepoNotFound 401 RepoNotFound", "404 RepoNotFound 404 RepoNotFound", "404 RepoNotFound 404 RepoNotFound", "401 401"},
	}
	for repo, row := range want {
		for i, token := range tokens {
			t.Run(fmt.Sprintf("%s/%q", repo, token), func(t *testing.T) {
				h := map[string]string{}
				if token != "" {
					h["Authorization"] = "Bearer " + token
				}
				var got []string
				for _, path := range []string{"/api/models/" + repo, "/" + repo + "/resolve/main/config.json"} {
					a := get(t, "GET", s.URL+path, h, "X-Error-Code")
					got = append(got, strings.TrimSpace(fmt.Sprint(a.Status, " ", a.Header["X-Error-Code"])))
				}
				if g := strings.Join(got, " "); g != row[i] {
					t.Errorf("listing and file = %q, want %q", g, row[i])
				}
			})
		}
	}
}

func TestResolve(t *testing.T) {
	s := hubtest.NewServer(t, tiny)
	headers := []string{"Location", "X-Repo-Commit", "X-Linked-Etag", "X-Linked-Size", "ETag", "Content-Range", "Content-Length", "X-Error-Code"}
	lfs := get(t, "GET", s.URL+"/mlx-community/Tiny-4bit/resolve/main/model.safetensors", nil, headers...)
	cdn := lfs.Header["Location"]
	if !strings.HasPrefix(cdn, s.CDNURL+"/") {
		t.Fatalf("an LFS file's Location is %q, want one on the CDN host %s", cdn, s.CDNURL)
	}
	tests := []struct {
		name, method, url string
		header            map[string]string
		want              answer
	}{
		{"LFS file redirects", "GET", s.URL + "/mlx-community/Tiny-4bit/resolve/" + commit + "/model.safetensors", nil, answer{
			Status: 302, Header: map[string]string{"Location": cdn, "X-Repo-Commit": commit, "X-Linked-Etag": `"` + weights.SHA256() + `"`,
				"X-Linked-Size": "1000", "ETag": `"` + weights.BlobID() + `"`}}},
		{"CDN whole", "GET", cdn, nil, answer{Status: 200, Header: map[string]string{"Content-Length": "1000", "ETag": `"` + weights.SHA256() + `"`}, Body: string(weights.Data)}},
		{"CDN range", "GET", cdn, map[string]string{"Range": "bytes=995-"}, answer{
			Status: 206, Header: map[string]string{"Content-Range": "bytes 995-999/1000", "Content-Length": "5", "ETag": `"` + weights.SHA256() + `"`}, Body: "56789"}},
		{"CDN range past the end", "GET", cdn, map[string]string{"Range": "bytes=1000-"}, answer{
			Status: 416, Header: map[string]string{"Content-Range": "bytes */1000", "Content-Length": "32", "ETag": `"` + weights.SHA256() + `"`}, Body: "Requested Range Not Satisfiable\n"}},
		{"CDN refuses a token", "GET", cdn, map[string]string{"Authorization": "Bearer " + hubtest.Token}, answer{
			Status: 400, Header: map[string]string{"Content-Length": "49"}, Body: "InvalidArgument: Only one auth mechanism allowed\n"}},
		{"small file", "GET", s.URL + "/mlx-community/Tiny-4bit/resolve/main/config.json", nil, answer{
			Status: 200, Header: map[string]string{"X-Repo-Commit": commit, "ETag": `"` + config.BlobID() + `"`, "Content-Length": "23"}, Body: string(config.Data)}},
		{"small file HEAD", "HEAD", s.URL + "/mlx-community/Tiny-4bit/resolve/main/config.json", nil, answer{
			Status: 200, Header: map[string]string{"X-Repo-Commit": commit, "ETag": `"` + config.BlobID() + `"`, "Content-Length": "23"}}},
		{"small file range", "GET", s.URL + "/mlx-community/Tiny-4bit/resolve/main/config.json", map[string]string{"Range": "bytes=2-11"}, answer{
			Status: 206, Header: map[string]string{"X-Repo-Commit": commit, "ETag": `"` + config.BlobID() + `"`, "Content-Range": "bytes 2-11/23", "Content-Length": "10"}, Body: `model_type`}},
		{"no such file", "GET", s.URL + "/mlx-community/Tiny-4bit/resolve/main/nope.json", nil, answer{
			Status: 404, Header: map[string]string{"X-Error-Code": "EntryNotFound", "Content-Length": "49"}, Body: `{"error":"nope.json does not exist on \"main\""}` + "\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := get(t, tt.method, tt.url, tt.header, headers...)
			if tt.want.Header["Location"] == "" {
				delete(got.Header, "Location")
			}
			if got.Status == 302 {
				delete(got.Header, "Content-Length")
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s %s (-want +got):\n%s", tt.method, tt.url, diff)
			}
		})
	}
}

func TestPushKeepsOldCommits(t *testing.T) {
	s := hubtest.NewServer(t, tiny)
	s.Push(hubtest.Repo{ID: tiny.ID, Commit: strings.Repeat("c", 40), Files: []hubtest.File{config}})
	for _, tt := range []struct {
		rev    string
		status int
		body   string
	}{
		{commit, 200, string(weights.Data)},
		{"main", 404, `{"error":"model.safetensors does not exist on \"main\""}` + "\n"},
	} {
		status, body, err := read(t.Context(), s.URL+"/mlx-community/Tiny-4bit/resolve/"+tt.rev+"/model.safetensors", 0)
		if err != nil || status != tt.status || body != tt.body {
			t.Errorf("model.safetensors at %s = %d, %d bytes, %v; want %d, %d bytes", tt.rev, status, len(body), err, tt.status, len(tt.body))
		}
	}
}

// read reads url's body from offset with a client that follows
// redirects, and returns what arrived and the error that ended it.
func read(ctx context.Context, url string, offset int64) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		return 0, "", err
	}
	if offset > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", offset))
	}
	resp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

func TestFaults(t *testing.T) {
	const file = "/mlx-community/Tiny-4bit/resolve/main/model.safetensors"
	data := string(weights.Data)
	flipped := []byte(data)
	flipped[500] ^= 0xff

	// step is one read and what it should give.
	type step struct {
		offset int64
		status int
		body   string
		err    bool
	}
	tests := []struct {
		name  string
		arm   func(s *hubtest.Server)
		steps []step
	}{
		{"Fail counts down", func(s *hubtest.Server) { s.Fail("model.safetensors", 503, 2) },
			[]step{{0, 503, `{"error":"Service Unavailable"}` + "\n", false}, {0, 503, `{"error":"Service Unavailable"}` + "\n", false}, {0, 200, data, false}}},
		{"Fail by repository and path", func(s *hubtest.Server) { s.Fail("mlx-community/Tiny-4bit/model.safetensors", 500, 1) },
			[]step{{0, 500, `{"error":"Internal Server Error"}` + "\n", false}, {0, 200, data, false}}},
		{"Fail disarmed", func(s *hubtest.Server) { s.Fail("model.safetensors", 500, 1); s.Fail("model.safetensors", 500, 0) },
			[]step{{0, 200, data, false}}},
		{"DropAfter cuts once", func(s *hubtest.Server) { s.DropAfter("model.safetensors", 300) },
			[]step{{0, 200, data[:300], true}, {300, 206, data[300:], false}, {0, 200, data, false}}},
		{"DropAfter spares an answer from past it", func(s *hubtest.Server) { s.DropAfter("model.safetensors", 300) },
			[]step{{400, 206, data[400:], false}, {0, 200, data[:300], true}}},
		{"DropAfter twice", func(s *hubtest.Server) { s.DropAfter("model.safetensors", 0); s.DropAfter("model.safetensors", 0) },
			[]step{{0, 200, "", true}, {0, 200, "", true}, {0, 200, data, false}}},
		{"Corrupt every answer with the middle byte", func(s *hubtest.Server) { s.Corrupt("model.safetensors") },
			[]step{{0, 200, string(flipped), false}, {0, 200, string(flipped), false}, {490, 206, string(flipped[490:]), false}, {501, 206, data[501:], false}}},
		{"IgnoreRange", func(s *hubtest.Server) { s.IgnoreRange(true) },
			[]step{{500, 200, data, false}}},
		{"Reset", func(s *hubtest.Server) {
			s.Fail("model.safetensors", 500, 1)
			s.DropAfter("model.safetensors", 1)
			s.Corrupt("model.safetensors")
			s.Stall("model.safetensors", 1)
			s.IgnoreRange(true)
			s.Throttle(1)
			s.Reset()
		}, []step{{1, 206, data[1:], false}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := hubtest.NewServer(t, tiny)
			tt.arm(s)
			for i, st := range tt.steps {
				status, body, err := read(t.Context(), s.URL+file, st.offset)
				if status != st.status || body != st.body || (err != nil) != st.err {
					t.Errorf("read %d from %d = %d, %d bytes, %v; want %d, %d bytes, error %t", i, st.offset, status, len(body), err, st.status, len(st.body), st.err)
				}
			}
		})
	}
}

func TestFailListing(t *testing.T) {
	s := hubtest.NewServer(t, tiny)
	s.Fail("mlx-community/Tiny-4bit", 429, 1)
	s.DropAfter("mlx-community/Tiny-4bit", 10)
	url := s.URL + "/api/models/MLX-community/tiny-4bit/revision/main"
	status, _, err := read(t.Context(), url, 0)
	if status != 429 || err != nil {
		t.Errorf("first listing = %d, %v; want 429", status, err)
	}
	status, body, err := read(t.Context(), url, 0)
	if status != 200 || len(body) != 10 || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("second listing = %d, %d bytes, %v; want 200, 10 bytes, unexpected EOF", status, len(body), err)
	}
	status, body, err = read(t.Context(), url, 0)
	if status != 200 || err != nil || !json.Valid([]byte(body)) {
		t.Errorf("third listing = %d, %v; want 200 and JSON", status, err)
	}
}

func TestStall(t *testing.T) {
	s := hubtest.NewServer(t, tiny)
	s.Stall("model.safetensors", 100)
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	status, body, err := read(ctx, s.URL+"/mlx-community/Tiny-4bit/resolve/main/model.safetensors", 0)
	if status != 200 || body != string(weights.Data[:100]) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("stalled read = %d, %d bytes, %v; want 200, 100 bytes, deadline exceeded", status, len(body), err)
	}
	if d := time.Since(start); d < 250*time.Millisecond {
		t.Errorf("stalled read ended after %v, before the client gave up", d)
	}
	status, body, err = read(t.Context(), s.URL+"/mlx-community/Tiny-4bit/resolve/main/model.safetensors", 0)
	if status != 200 || body != string(weights.Data) || err != nil {
		t.Errorf("read after the stall = %d, %d bytes, %v; want the whole file", status, len(body), err)
	}
}

func TestStopEndsStall(t *testing.T) {
	s, stop := hubtest.Start(tiny)
	s.Stall("config.json", 5)
	done := make(chan error, 1)
	go func() {
		_, _, err := read(context.Background(), s.URL+"/mlx-community/Tiny-4bit/resolve/main/config.json", 0)
		done <- err
	}()
	for len(s.Requests()) == 0 {
		time.Sleep(time.Millisecond)
	}
	stop()
	stop() // a second call does nothing
	select {
	case err := <-done:
		if err == nil {
			t.Error("a stalled read ended without an error when the server stopped")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("stop did not end a stalled answer")
	}
}

func TestThrottle(t *testing.T) {
	s := hubtest.NewServer(t, tiny)
	s.Throttle(2000) // 1000 bytes: about half a second
	start := time.Now()
	_, body, err := read(t.Context(), s.URL+"/mlx-community/Tiny-4bit/resolve/main/model.safetensors", 0)
	if err != nil || body != string(weights.Data) {
		t.Fatalf("throttled read: %d bytes, %v", len(body), err)
	}
	if d := time.Since(start); d < 400*time.Millisecond {
		t.Errorf("1000 bytes at 2000 B/s took %v, want about 500ms", d)
	}
}

func TestRequests(t *testing.T) {
	s := hubtest.NewServer(t, tiny)
	req, _ := http.NewRequestWithContext(t.Context(), "GET", s.URL+"/mlx-community/Tiny-4bit/resolve/main/model.safetensors", nil)
	req.Header.Set("Range", "bytes=10-")
	req.Header.Set("Accept-Encoding", "identity")
	req.Header.Set("Authorization", "Bearer "+hubtest.Token)
	// net/http keeps the token on a redirect to the same host name, as
	// the CDN's is here; drop it as a careful client does.
	c := &http.Client{CheckRedirect: func(r *http.Request, _ []*http.Request) error {
		r.Header.Del("Authorization")
		return nil
	}}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	got := s.Requests()
	if len(got) != 2 {
		t.Fatalf("Requests() = %+v, want two", got)
	}
	want := []hubtest.Request{
		{Method: "GET", Host: "hub", Path: "/mlx-community/Tiny-4bit/resolve/main/model.safetensors", Range: "bytes=10-", AcceptEncoding: "identity", Auth: true},
		{Method: "GET", Host: "cdn", Path: got[1].Path, Range: "bytes=10-", AcceptEncoding: "identity"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Requests() (-want +got):\n%s", diff)
	}
	if !strings.HasSuffix(got[1].Path, "/mlx-community/Tiny-4bit/model.safetensors") {
		t.Errorf("the CDN path %q does not end with the repository and file", got[1].Path)
	}
}
