package hf_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wisp-agent/wisp/models/hf"
	"github.com/wisp-agent/wisp/models/hf/hubtest"
)

// clientCommit is the commit of the repositories of the client's tests.
const clientCommit = "89abcdef0123456789abcdef0123456789abcdef"

// hubFile is a file of the fake Hub; lfs marks an LFS file.
func hubFile(path string, size int, lfs bool) hubtest.File {
	data := make([]byte, size)
	for i := range data {
		data[i] = byte(len(path) + i*7)
	}
	return hubtest.File{Path: path, Data: data, LFS: lfs}
}

// mlxFiles are the files of an MLX repository, with those a plan leaves
// out.
func mlxFiles() []hubtest.File {
	return []hubtest.File{
		hubFile(".gitattributes", 1519, false),
		hubFile("README.md", 700, false),
		hubFile("LICENSE", 300, false),
		hubFile("config.json", 900, false),
		hubFile("model-00001-of-00002.safetensors", 5000, true),
		hubFile("model-00002-of-00002.safetensors", 3000, true),
		hubFile("model.safetensors.index.json", 400, false),
		hubFile("tokenizer.json", 2000, true),
		hubFile("tokenizer_config.json", 500, false),
		hubFile("special_tokens_map.json", 100, false),
		hubFile("tokenizer.model", 800, true),
		hubFile("vocab.tiktoken", 600, true),
		hubFile("merges.txt", 450, false),
		hubFile("added_tokens.jsonl", 30, false),
		hubFile("chat_template.jinja", 250, false),
		hubFile("additional_chat_templates/tool_use.jinja", 260, false),
		hubFile("modeling_custom.py", 1200, false),
		hubFile("configuration_custom.py", 1100, false),
		hubFile("pytorch_model.bin", 4000, true),
		hubFile("model.gguf", 4000, true),
		hubFile("consolidated.safetensors", 4000, true),
		hubFile("images/diagram.png", 90, true),
	}
}

// planFile is the plan's File for f, with its digests as the Hub lists
// them (pinned apart from the client by hubtest's own tests).
func planFile(f hubtest.File) hf.File {
	pf := hf.File{Path: f.Path, Size: int64(len(f.Data)), BlobID: f.BlobID()}
	if f.LFS {
		pf.SHA256 = f.SHA256()
	}
	return pf
}

// newClient returns a client of the fake Hub s, with token, and retries
// that wait a millisecond or two.
func newClient(t *testing.T, s *hubtest.Server, token string, retries int) *hf.Client {
	t.Helper()
	c, err := hf.NewClient(&hf.ClientOptions{
		Endpoint:     s.URL,
		Token:        token,
		Retries:      retries,
		RetryWaitMin: time.Millisecond,
		RetryWaitMax: 2 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestNewClient(t *testing.T) {
	tests := []struct {
		endpoint, token, want string
	}{
		{"", "", ""},
		{"https://huggingface.co/", "hf_abc", ""},
		{"http://127.0.0.1:8080/mirror/", "", ""},
		{"huggingface.co", "", `the Hugging Face endpoint "huggingface.co" is not a URL such as https://huggingface.co (it is not http or https); set HF_ENDPOINT to one, or unset it`},
		{"ftp://hub", "", `the Hugging Face endpoint "ftp://hub" is not a URL such as https://huggingface.co (it is not http or https); set HF_ENDPOINT to one, or unset it`},
		{"https://", "", `the Hugging Face endpoint "https://" is not a URL such as https://huggingface.co (it has no host); set HF_ENDPOINT to one, or unset it`},
		{"https://me:secret@hub", "", `the Hugging Face endpoint "https://me:secret@hub" is not a URL such as https://huggingface.co (it holds a user name or password; pass a token as HF_TOKEN instead); set HF_ENDPOINT to one, or unset it`},
		{"https://hub/?x=1", "", `the Hugging Face endpoint "https://hub/?x=1" is not a URL such as https://huggingface.co (it has a query or fragment); set HF_ENDPOINT to one, or unset it`},
		{"https://hub\n", "", `the Hugging Face endpoint "https://hub\n" is not a URL such as https://huggingface.co (it does not parse); set HF_ENDPOINT to one, or unset it`},
		{"", "hf_abc\n", "HF_TOKEN holds a space, line break or other character no token has; set it to the token alone"},
	}
	for _, tt := range tests {
		_, err := hf.NewClient(&hf.ClientOptions{Endpoint: tt.endpoint, Token: tt.token})
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("NewClient(%q, %q) = %q, want %q", tt.endpoint, tt.token, got, tt.want)
		}
	}
	if _, err := hf.NewClient(nil); err != nil {
		t.Errorf("NewClient(nil) = %v, want the defaults", err)
	}
}

func TestPlan(t *testing.T) {
	files := mlxFiles()
	s := hubtest.NewServer(t, hubtest.Repo{ID: "mlx-community/Qwen3-4B-4bit", Commit: clientCommit, Files: files, License: "apache-2.0"})
	c := newClient(t, s, "", 0)

	want := hf.Plan{Repo: "mlx-community/Qwen3-4B-4bit", Commit: clientCommit, Licence: "apache-2.0", Publisher: "mlx-community"}
	for _, f := range files {
		switch f.Path {
		case ".gitattributes", "README.md", "LICENSE", "modeling_custom.py", "configuration_custom.py",
			"pytorch_model.bin", "model.gguf", "consolidated.safetensors", "images/diagram.png":
			continue
		}
		want.Files = append(want.Files, planFile(f))
	}
	slices.SortFunc(want.Files, func(a, b hf.File) int { return strings.Compare(a.Path, b.Path) })

	// Any case finds it; the plan spells it as the Hub does.
	for _, name := range []string{"mlx-community/Qwen3-4B-4bit", "MLX-Community/qwen3-4b-4bit"} {
		got, err := c.Plan(t.Context(), name)
		if err != nil {
			t.Fatalf("Plan(%q): %v", name, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Plan(%q) (-want +got):\n%s", name, diff)
		}
	}
	want1 := hubtest.Request{Method: "GET", Host: "hub", Path: "/api/models/mlx-community/Qwen3-4B-4bit/revision/main", Query: "blobs=true", AcceptEncoding: "gzip"}
	if got := s.Requests(); len(got) != 2 || !cmp.Equal(got[0], want1) {
		t.Errorf("Plan's requests = %+v, want one each: %+v", got, want1)
	}
}

func TestPlanLicenceAndPublisher(t *testing.T) {
	tests := []struct {
		license, name, author string
		licence, publisher    string
	}{
		{"mit", "", "", "mit", "org"},
		{"other", "qwen-research", "", "qwen-research", "org"},
		{"other", "", "", "other", "org"},
		{"", "", "", "", "org"},
		{"", "custom", "Org", "custom", "Org"},
		{"other", "evil\x1b[31m\u202eliam\n\tname", "not a/name", "evil [31mliam name", "org"},
	}
	for _, tt := range tests {
		files := []hubtest.File{hubFile("config.json", 10, false), hubFile("model.safetensors", 10, true)}
		s := hubtest.NewServer(t, hubtest.Repo{ID: "org/m", Files: files, License: tt.license, LicenseName: tt.name, Author: tt.author})
		p, err := newClient(t, s, "", 0).Plan(t.Context(), "org/m")
		if err != nil {
			t.Fatal(err)
		}
		if p.Licence != tt.licence || p.Publisher != tt.publisher {
			t.Errorf("license %q, license_name %q, author %q: Plan gives licence %q and publisher %q, want %q and %q",
				tt.license, tt.name, tt.author, p.Licence, p.Publisher, tt.licence, tt.publisher)
		}
	}
}

func TestPlanRefusals(t *testing.T) {
	mlx := []hubtest.File{hubFile("config.json", 10, false), hubFile("model.safetensors", 10, true)}
	with := func(id string, extra ...hubtest.File) hubtest.Repo {
		return hubtest.Repo{ID: id, Commit: clientCommit, Files: append(slices.Clone(mlx), extra...)}
	}
	only := func(id string, files ...hubtest.File) hubtest.Repo {
		return hubtest.Repo{ID: id, Commit: clientCommit, Files: files}
	}
	repos := []hubtest.Repo{
		{ID: "org/private", Files: mlx, Private: true},
		{ID: "org/gated", Files: mlx, Gated: true},
		only("org/pytorch", hubFile("config.json", 10, false), hubFile("pytorch_model.bin", 10, true)),
		only("org/no-config", hubFile("model.safetensors", 10, true), hubFile("tokenizer.json", 10, false)),
		only("org/consolidated", hubFile("config.json", 10, false), hubFile("consolidated.safetensors", 10, true)),
		only("org/nested", hubFile("config.json", 10, false), hubFile("mlx/model.safetensors", 10, true)),
		only("org/empty"),
		with("org/dotdot", hubFile("../x.json", 1, false)),
		with("org/dotdot-readme", hubFile("docs/../../README.md", 1, false)),
		with("org/abs", hubFile("/etc/passwd", 1, false)),
		with("org/backslash", hubFile(`a\b.json`, 1, false)),
		with("org/nul", hubFile("a\x00b.json", 1, false)),
		with("org/newline", hubFile("a\nb.json", 1, false)),
		with("org/blank", hubFile("", 1, false)),
		with("org/dot", hubFile("./config.json", 1, false)),
		with("org/slashes", hubFile("a//b.json", 1, false)),
		with("org/case", hubFile("Config.json", 1, false)),
		with("org/twice", hubFile("model.safetensors", 10, true)),
		{ID: "org/short-commit", Commit: "abc123", Files: mlx},
		{ID: "org/upper-commit", Commit: strings.ToUpper(clientCommit), Files: mlx},
	}
	repos = append(repos, hubtest.Repo{ID: "org/cut", Files: mlx})
	s := hubtest.NewServer(t, repos...)
	s.Fail("org/down", 500, 1000)
	for range 3 {
		s.DropAfter("org/cut", 5)
	}
	at := "Hugging Face at " + s.URL
	unsafe := func(repo, path, why string) string {
		return fmt.Sprintf("%s lists a file at an unsafe path, %s (%s), so none of it is pulled; pick another model", repo, path, why)
	}
	notMLX := func(repo string) string {
		return repo + " has no MLX weights (model*.safetensors with config.json); pick an MLX model, such as one from mlx-community"
	}
	badName := func(name, why string) string {
		return fmt.Sprintf("%s is not a repository name (%s): name one as ORGANISATION/NAME, such as mlx-community/Qwen3-4B-4bit", name, why)
	}

	tests := []struct {
		repo, token string
		kind        error
		want        string
	}{
		{"qwen3", "", hf.ErrBadRepo, badName(`"qwen3"`, "it has no /")},
		{"", "", hf.ErrBadRepo, badName(`""`, "it has no /")},
		{"org/a/b", "", hf.ErrBadRepo, badName(`"org/a/b"`, "it has more than one /")},
		{"org/", "", hf.ErrBadRepo, badName(`"org/"`, "a part is empty")},
		{"-org/x", "", hf.ErrBadRepo, badName(`"-org/x"`, "a part starts or ends with - or .")},
		{"org/.x", "", hf.ErrBadRepo, badName(`"org/.x"`, "a part starts or ends with - or .")},
		{"org/x.", "", hf.ErrBadRepo, badName(`"org/x."`, "a part starts or ends with - or .")},
		{"org/a..b", "", hf.ErrBadRepo, badName(`"org/a..b"`, "it has .. or --")},
		{"org/a--b", "", hf.ErrBadRepo, badName(`"org/a--b"`, "it has .. or --")},
		{"org/a b", "", hf.ErrBadRepo, badName(`"org/a b"`, "it has a character other than letters, digits, -, _ and .")},
		{"org/" + strings.Repeat("x", 97), "", hf.ErrBadRepo, badName(`"org/`+strings.Repeat("x", 76)+`…"`, "a part is longer than 96 characters")},
		{"https://huggingface.co/org/x", "", hf.ErrBadRepo, badName(`"https://huggingface.co/org/x"`, "it has more than one /")},

		{"org/none", hubtest.Token, hf.ErrNotFound, "no repository org/none on " + at + "; check the name"},
		{"org/none", "", hf.ErrPrivate, "org/none on " + at + " is private or needs HF_TOKEN; check the name, or set HF_TOKEN to a token that can read it"},
		{"org/private", "", hf.ErrPrivate, "org/private on " + at + " is private or needs HF_TOKEN; check the name, or set HF_TOKEN to a token that can read it"},
		{"org/private", hubtest.StrangerToken, hf.ErrNotFound, "no repository org/private on " + at + "; check the name"},
		{"org/private", "hf_nobody", hf.ErrBadToken, at + " refused HF_TOKEN as invalid; set it to a token from " + s.URL + "/settings/tokens, or unset it"},
		{"org/gated", "", hf.ErrGated, "org/gated is gated: accept its terms at " + s.URL + "/org/gated and set HF_TOKEN"},

		{"org/pytorch", "", hf.ErrNotMLX, notMLX("org/pytorch")},
		{"org/no-config", "", hf.ErrNotMLX, notMLX("org/no-config")},
		{"org/consolidated", "", hf.ErrNotMLX, notMLX("org/consolidated")},
		{"org/nested", "", hf.ErrNotMLX, notMLX("org/nested")},
		{"org/empty", "", hf.ErrNotMLX, notMLX("org/empty")},

		{"org/dotdot", "", hf.ErrUnsafePath, unsafe("org/dotdot", `"../x.json"`, "a .. element")},
		{"org/dotdot-readme", "", hf.ErrUnsafePath, unsafe("org/dotdot-readme", `"docs/../../README.md"`, "a .. element")},
		{"org/abs", "", hf.ErrUnsafePath, unsafe("org/abs", `"/etc/passwd"`, "absolute")},
		{"org/backslash", "", hf.ErrUnsafePath, unsafe("org/backslash", `"a\\b.json"`, "a backslash")},
		{"org/nul", "", hf.ErrUnsafePath, unsafe("org/nul", `"a\x00b.json"`, "a NUL or control character")},
		{"org/newline", "", hf.ErrUnsafePath, unsafe("org/newline", `"a\nb.json"`, "a NUL or control character")},
		{"org/blank", "", hf.ErrUnsafePath, unsafe("org/blank", `""`, "empty")},
		{"org/dot", "", hf.ErrUnsafePath, unsafe("org/dot", `"./config.json"`, "an empty or . element")},
		{"org/slashes", "", hf.ErrUnsafePath, unsafe("org/slashes", `"a//b.json"`, "an empty or . element")},
		{"org/case", "", hf.ErrUnsafePath, unsafe("org/case", `"Config.json"`, `it differs from "config.json" only in case or in Unicode form`)},
		{"org/twice", "", hf.ErrUnsafePath, unsafe("org/twice", `"model.safetensors"`, "listed twice")},

		{"org/short-commit", "", hf.ErrBadListing, "the listing of org/short-commit from " + at + ` is malformed: its commit "abc123" is not 40 lower-case hex digits; check that HF_ENDPOINT is a Hugging Face Hub`},
		{"org/upper-commit", "", hf.ErrBadListing, "the listing of org/upper-commit from " + at + ` is malformed: its commit "` + strings.ToUpper(clientCommit) + `" is not 40 lower-case hex digits; check that HF_ENDPOINT is a Hugging Face Hub`},

		{"org/down", "", nil, at + " answered 500 Internal Server Error for the listing of org/down, asked 3 times; try again later"},
		{"org/cut", "", io.ErrUnexpectedEOF, at + " broke off the listing of org/cut (connection closed), asked 3 times; try again later"},
	}
	for _, tt := range tests {
		t.Run(tt.repo, func(t *testing.T) {
			_, err := newClient(t, s, tt.token, 2).Plan(t.Context(), tt.repo)
			if err == nil {
				t.Fatalf("Plan(%q) = nil error, want %q", tt.repo, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("Plan(%q) = %q\nwant          %q", tt.repo, err, tt.want)
			}
			if tt.kind != nil && !errors.Is(err, tt.kind) {
				t.Errorf("Plan(%q) = %v, want it to wrap %v", tt.repo, err, tt.kind)
			}
		})
	}
}

func TestPlanUnreachable(t *testing.T) {
	s, stop := hubtest.Start()
	stop()
	_, err := newClient(t, s, "", 1).Plan(t.Context(), "org/m")
	want := "cannot reach Hugging Face at " + s.URL + " for the listing of org/m (connection refused), asked 2 times; check the network and HF_ENDPOINT"
	if err == nil || err.Error() != want || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("Plan of a stopped Hub = %v\nwant %s, wrapping ECONNREFUSED", err, want)
	}
}

func TestPlanRetries(t *testing.T) {
	repo := hubtest.Repo{ID: "org/m", Files: []hubtest.File{hubFile("config.json", 10, false), hubFile("model.safetensors", 10, true)}}
	tests := []struct {
		name     string
		arm      func(s *hubtest.Server)
		requests int
	}{
		{"503 twice", func(s *hubtest.Server) { s.Fail("org/m", 503, 2) }, 3},
		{"429 once", func(s *hubtest.Server) { s.Fail("org/m", 429, 1) }, 2},
		{"cut short", func(s *hubtest.Server) { s.DropAfter("org/m", 20) }, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := hubtest.NewServer(t, repo)
			tt.arm(s)
			if _, err := newClient(t, s, "", 0).Plan(t.Context(), "org/m"); err != nil {
				t.Fatalf("Plan: %v", err)
			}
			if n := len(s.Requests()); n != tt.requests {
				t.Errorf("Plan sent %d requests, want %d", n, tt.requests)
			}
		})
	}
}

// readAll reads b to its end and closes it.
func readAll(t *testing.T, b hf.Body) []byte {
	t.Helper()
	defer b.Close()
	data, err := io.ReadAll(b)
	if err != nil {
		t.Fatalf("reading the body: %v", err)
	}
	return data
}

func TestClientTokenStaysOnTheHub(t *testing.T) {
	files := mlxFiles()
	for _, tt := range []struct {
		name, token string
		repo        hubtest.Repo
	}{
		{"gated, with the token", hubtest.Token, hubtest.Repo{ID: "org/gated", Files: files, Gated: true}},
		{"private, with the token", hubtest.Token, hubtest.Repo{ID: "org/private", Files: files, Private: true}},
		{"public, without one", "", hubtest.Repo{ID: "org/public", Files: files}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := hubtest.NewServer(t, tt.repo)
			c := newClient(t, s, tt.token, 0)
			p, err := c.Plan(t.Context(), tt.repo.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range p.Files {
				b, err := c.Open(t.Context(), p, f, 0)
				if err != nil {
					t.Fatalf("Open(%s): %v", f.Path, err)
				}
				readAll(t, b)
			}
			cdn := 0
			for _, r := range s.Requests() {
				want := r.Host == "hub" && tt.token != ""
				if r.Auth != want {
					t.Errorf("%s %s%s: Authorization sent = %t, want %t", r.Method, r.Host, r.Path, r.Auth, want)
				}
				if r.Host == "cdn" {
					cdn++
				}
				if strings.Contains(r.Path, "/resolve/") || r.Host == "cdn" {
					if r.AcceptEncoding != "identity" {
						t.Errorf("%s %s%s: Accept-Encoding %q, want identity", r.Method, r.Host, r.Path, r.AcceptEncoding)
					}
				}
			}
			if cdn != 5 {
				t.Errorf("%d requests went to the CDN, want one for each of the 5 LFS files", cdn)
			}
		})
	}
}

func TestOpen(t *testing.T) {
	lfs := hubFile("model.safetensors", 1000, true)
	small := hubFile("config.json", 300, false)
	empty := hubFile("added_tokens.json", 0, false)
	odd := hubFile("templates/tool use #1?.jinja", 50, false)
	repo := hubtest.Repo{ID: "org/m", Commit: clientCommit, Files: []hubtest.File{small, lfs, empty, odd}}

	tests := []struct {
		name        string
		file        hubtest.File
		offset      int64
		ignoreRange bool
		wantOffset  int64
		wantRanges  []string // the Range header of each request
	}{
		{"LFS from 0", lfs, 0, false, 0, []string{"", ""}},
		{"LFS from an offset", lfs, 600, false, 600, []string{"bytes=600-", "bytes=600-"}},
		{"LFS ignoring Range", lfs, 600, true, 0, []string{"bytes=600-", "bytes=600-"}},
		{"LFS at its end", lfs, 1000, false, 1000, []string{"bytes=1000-", "bytes=1000-"}},
		{"small from 0", small, 0, false, 0, []string{""}},
		{"small from an offset", small, 299, false, 299, []string{"bytes=299-"}},
		{"small ignoring Range", small, 100, true, 0, []string{"bytes=100-"}},
		{"small at its end", small, 300, false, 300, []string{"bytes=300-"}},
		{"empty", empty, 0, false, 0, []string{""}},
		{"a path to escape", odd, 10, false, 10, []string{"bytes=10-"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := hubtest.NewServer(t, repo)
			s.IgnoreRange(tt.ignoreRange)
			c := newClient(t, s, "", 0)
			p := hf.Plan{Repo: repo.ID, Commit: clientCommit}
			b, err := c.Open(t.Context(), p, planFile(tt.file), tt.offset)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			data := readAll(t, b)
			if b.Offset != tt.wantOffset || !bytes.Equal(data, tt.file.Data[tt.wantOffset:]) {
				t.Errorf("Open(%s, %d) = offset %d and %d bytes, want offset %d and the %d bytes from there",
					tt.file.Path, tt.offset, b.Offset, len(data), tt.wantOffset, len(tt.file.Data)-int(tt.wantOffset))
			}
			var ranges []string
			for _, r := range s.Requests() {
				ranges = append(ranges, r.Range)
				if r.Host == "hub" && r.Path != "/org/m/resolve/"+clientCommit+"/"+tt.file.Path {
					t.Errorf("Open asked the Hub for %q, want the file at the plan's commit", r.Path)
				}
			}
			if diff := cmp.Diff(tt.wantRanges, ranges); diff != "" {
				t.Errorf("Range headers (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOpenRefusals(t *testing.T) {
	lfs := hubFile("model.safetensors", 1000, true)
	small := hubFile("config.json", 300, false)
	public := hubtest.Repo{ID: "org/m", Commit: clientCommit, Files: []hubtest.File{small, lfs}}
	gated := hubtest.Repo{ID: "org/gated", Commit: clientCommit, Files: []hubtest.File{small, lfs}, Gated: true}
	s := hubtest.NewServer(t, public, gated)
	s.Fail("org/m/config.json", 500, 1000)
	at := "Hugging Face at " + s.URL
	plan := hf.Plan{Repo: "org/m", Commit: clientCommit}
	gatedPlan := hf.Plan{Repo: "org/gated", Commit: clientCommit}
	longer := planFile(lfs)
	longer.Size = 2000
	shorter := planFile(lfs)
	shorter.Size = 999

	tests := []struct {
		name   string
		token  string
		plan   hf.Plan
		file   hf.File
		offset int64
		kind   error
		want   string
	}{
		{"a 500 that persists", "", plan, planFile(small), 0, nil,
			at + " answered 500 Internal Server Error for config.json of org/m, asked 3 times; try again later"},
		{"no such file", "", plan, hf.File{Path: "nope.json", Size: 1, BlobID: small.BlobID()}, 0, hf.ErrNotFound,
			`org/m has no file "nope.json" at commit ` + clientCommit + " on " + at + "; pull it again"},
		{"gated, without a token", "", gatedPlan, planFile(lfs), 0, hf.ErrGated,
			"org/gated is gated: accept its terms at " + s.URL + "/org/gated and set HF_TOKEN"},
		{"gated, terms not accepted", hubtest.StrangerToken, gatedPlan, planFile(lfs), 0, hf.ErrGated,
			"org/gated is gated and HF_TOKEN's account has no access to it yet; accept its terms at " + s.URL + "/org/gated, and wait for its authors if they grant access by hand"},
		{"longer than the file", "", plan, longer, 1500, hf.ErrBadListing,
			"the download host " + strings.TrimPrefix(s.CDNURL, "http://") + " answered for model.safetensors of org/m with what the plan does not expect: it has no byte 1500, though the plan says it has 2000; pull it again later"},
		{"another size", "", plan, shorter, 0, hf.ErrBadListing,
			"the download host " + strings.TrimPrefix(s.CDNURL, "http://") + " answered for model.safetensors of org/m with what the plan does not expect: it is 1000 bytes from byte 0, though the plan says 999; pull it again later"},
		{"an offset past the end", "", plan, planFile(small), 301, nil,
			"hf: offset 301 is outside config.json of org/m, which has 300 bytes"},
		{"a plan without a commit", "", hf.Plan{Repo: "org/m"}, planFile(small), 0, nil,
			`hf: the plan of "org/m" names no repository and commit; make it with Client.Plan`},
		{"an unsafe path", "", plan, hf.File{Path: "../config.json", Size: 1}, 0, hf.ErrUnsafePath,
			`org/m lists a file at an unsafe path, "../config.json" (a .. element), so none of it is pulled; pick another model`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := newClient(t, s, tt.token, 2).Open(t.Context(), tt.plan, tt.file, tt.offset)
			if err == nil {
				b.Close()
				t.Fatalf("Open = nil error, want %q", tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("Open = %q\nwant   %q", err, tt.want)
			}
			if tt.kind != nil && !errors.Is(err, tt.kind) {
				t.Errorf("Open = %v, want it to wrap %v", err, tt.kind)
			}
		})
	}
}

func TestOpenRetries(t *testing.T) {
	lfs := hubFile("model.safetensors", 1000, true)
	repo := hubtest.Repo{ID: "org/m", Commit: clientCommit, Files: []hubtest.File{lfs}}
	s := hubtest.NewServer(t, repo)
	s.Fail("model.safetensors", 503, 2)
	b, err := newClient(t, s, "", 2).Open(t.Context(), hf.Plan{Repo: "org/m", Commit: clientCommit}, planFile(lfs), 100)
	if err != nil {
		t.Fatalf("Open after two 503s: %v", err)
	}
	if data := readAll(t, b); b.Offset != 100 || !bytes.Equal(data, lfs.Data[100:]) {
		t.Errorf("Open after two 503s = offset %d and %d bytes, want 100 and 900", b.Offset, len(data))
	}
	var hosts []string
	for _, r := range s.Requests() {
		hosts = append(hosts, r.Host+" "+r.Range)
	}
	want := []string{"hub bytes=100-", "hub bytes=100-", "hub bytes=100-", "cdn bytes=100-"}
	if diff := cmp.Diff(want, hosts); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

// TestOpenResumes shows a body cut short is not retried by Open, and that
// Open from what arrived gets the rest.
func TestOpenResumes(t *testing.T) {
	lfs := hubFile("model.safetensors", 1000, true)
	s := hubtest.NewServer(t, hubtest.Repo{ID: "org/m", Commit: clientCommit, Files: []hubtest.File{lfs}})
	s.DropAfter("model.safetensors", 400)
	c := newClient(t, s, "", 2)
	p := hf.Plan{Repo: "org/m", Commit: clientCommit}
	b, err := c.Open(t.Context(), p, planFile(lfs), 0)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(b)
	b.Close()
	if !errors.Is(err, io.ErrUnexpectedEOF) || len(got) != 400 {
		t.Fatalf("reading a cut body = %d bytes, %v; want 400 and an unexpected EOF", len(got), err)
	}
	b, err = c.Open(t.Context(), p, planFile(lfs), int64(len(got)))
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, readAll(t, b)...)
	if !bytes.Equal(got, lfs.Data) {
		t.Errorf("the resumed file differs from the Hub's")
	}
}

func TestClientCancel(t *testing.T) {
	lfs := hubFile("model.safetensors", 1000, true)
	repo := hubtest.Repo{ID: "org/m", Commit: clientCommit, Files: []hubtest.File{hubFile("config.json", 10, false), lfs}}
	p := hf.Plan{Repo: "org/m", Commit: clientCommit}

	t.Run("mid-body", func(t *testing.T) {
		s := hubtest.NewServer(t, repo)
		s.Stall("model.safetensors", 100)
		ctx, cancel := context.WithCancel(t.Context())
		b, err := newClient(t, s, "", 0).Open(ctx, p, planFile(lfs), 0)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		if _, err := io.ReadFull(b, make([]byte, 100)); err != nil {
			t.Fatal(err)
		}
		time.AfterFunc(50*time.Millisecond, cancel)
		if _, err := io.ReadAll(b); !errors.Is(err, context.Canceled) {
			t.Errorf("reading a stalled body after cancel = %v, want context.Canceled", err)
		}
	})

	t.Run("between retries", func(t *testing.T) {
		s := hubtest.NewServer(t, repo)
		s.Fail("model.safetensors", 503, 1000)
		c, err := hf.NewClient(&hf.ClientOptions{Endpoint: s.URL, RetryWaitMin: time.Minute, RetryWaitMax: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err = c.Open(ctx, p, planFile(lfs), 0)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Open cancelled while waiting to retry = %v, want context.DeadlineExceeded", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("Open returned %v after its context was done", d)
		}
	})

	t.Run("before the plan", func(t *testing.T) {
		s := hubtest.NewServer(t, repo)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		_, err := newClient(t, s, "", 0).Plan(ctx, "org/m")
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Plan with a cancelled context = %v, want context.Canceled", err)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("Plan's error %q is more than one line", err)
		}
	})
}
