// Package hubtest is a fake Hugging Face Hub for tests. It speaks the wire
// shapes of the Hub that a pull uses, over httptest, on two hosts: the Hub
// itself, which answers the listing
// (GET /api/models/{org}/{name}[/revision/{rev}][?blobs=true]) and the
// resolve URLs (GET or HEAD /{org}/{name}/resolve/{rev}/{path}), and a CDN
// host that the resolve URL of an LFS file redirects to, as the real Hub
// redirects to its CDN with a signed URL.
//
// It answers as the Hub does: a private repository, and one that does not
// exist, answer 401 with X-Error-Code RepoNotFound to a request without a
// token, and 404 to one with a valid token that cannot read them; a gated
// repository lists its files to anyone but serves them only with [Token];
// an invalid token is refused with 401 on every Hub request; the CDN
// refuses a request that carries an Authorization header (400), as a
// signed storage URL does.
//
// Its answers are deterministic: fixed times, commits and ids derived from
// names, digests from the files' data. Faults can be switched on to test a
// client's retries and resumes: [Server.Fail], [Server.DropAfter],
// [Server.Stall], [Server.Corrupt], [Server.IgnoreRange] and
// [Server.Throttle].
package hubtest

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"
)

// The tokens the fake Hub knows. Any other token is invalid, and every
// request to the Hub that carries one is refused with 401.
const (
	// Token reads every repository: private ones, and gated ones whose
	// terms it has accepted.
	Token = "hf_hubtest_reader"
	// StrangerToken is a valid token that can read public repositories
	// only: a private repository is not found (404) and a gated one
	// refuses its files (403, GatedRepo), as for an account that has not
	// accepted the terms.
	StrangerToken = "hf_hubtest_stranger"
)

// lastModified is every repository's lastModified and createdAt.
const lastModified = "2025-01-02T03:04:05.000Z"

// A File is one file of a repository.
type File struct {
	// Path is the file's path in the repository, with forward slashes.
	// The fake serves any path, even one a client must refuse ("../x",
	// "/abs").
	Path string
	// Data is the file's contents.
	Data []byte
	// LFS is true for a file stored with Git LFS: the listing gives its
	// SHA-256 (lfs.sha256) and its resolve URL redirects to the CDN host.
	// Otherwise the Hub serves it itself, and its etag is its git blob
	// SHA-1.
	LFS bool
}

// SHA256 returns the SHA-256 of the file's data, in lower-case hex.
func (f File) SHA256() string {
	sum := sha256.Sum256(f.Data)
	return hex.EncodeToString(sum[:])
}

// BlobID returns the file's blobId as the listing gives it: the git blob
// SHA-1 of its data, or of its LFS pointer for an LFS file.
func (f File) BlobID() string {
	if f.LFS {
		return gitBlob([]byte(f.pointer()))
	}
	return gitBlob(f.Data)
}

// Etag returns the name of the file's blob in the Hugging Face cache:
// [File.SHA256] for an LFS file, [File.BlobID] otherwise.
func (f File) Etag() string {
	if f.LFS {
		return f.SHA256()
	}
	return f.BlobID()
}

// pointer is the file's Git LFS pointer, what git holds for an LFS file.
func (f File) pointer() string {
	return fmt.Sprintf("version https://git-lfs.github.com/spec/v1\noid sha256:%s\nsize %d\n", f.SHA256(), len(f.Data))
}

// gitBlob returns sha1("blob <len>\x00" + data) in lower-case hex.
func gitBlob(data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// A Repo is one model repository at one commit.
type Repo struct {
	// ID is "org/name". The Hub finds it under any case, and its listing
	// gives the ID as written here.
	ID string
	// Commit is the commit main points at; empty means one derived from
	// ID (see [Repo.Sha]). It is served as it is, even when it is not 40
	// hex digits.
	Commit string
	// Files are the repository's files, listed in this order.
	Files []File
	// License is cardData.license; LicenseName is cardData.license_name.
	// The listing has no cardData when both are empty.
	License     string
	LicenseName string
	// Author is the listing's author; empty means the org part of ID.
	Author string
	// Gated repositories list their files to anyone, but serve them only
	// with Token.
	Gated bool
	// Private repositories answer only to Token.
	Private bool
}

// Sha returns the commit the repository's main points at: Commit, or when
// that is empty the SHA-1 of ID in lower-case hex.
func (r Repo) Sha() string {
	if r.Commit != "" {
		return r.Commit
	}
	sum := sha1.Sum([]byte("commit " + r.ID))
	return hex.EncodeToString(sum[:])
}

// A Request is one request either host received.
type Request struct {
	// Method is GET or HEAD.
	Method string
	// Host is "hub" or "cdn".
	Host string
	// Path is the URL path, unescaped; Query the raw query.
	Path  string
	Query string
	// Range and AcceptEncoding are the request's headers of those names.
	Range          string
	AcceptEncoding string
	// Auth is true when the request carried an Authorization header.
	Auth bool
}

// Server is a running fake Hub. Its methods are safe for concurrent use,
// also while requests are being served; a setting applies to the
// requests that arrive after it.
type Server struct {
	// URL is the Hub's base URL, "http://127.0.0.1:PORT": pass it to the
	// code under test as the endpoint (HF_ENDPOINT).
	URL string
	// CDNURL is the base URL of the CDN host that the resolve URL of an
	// LFS file redirects to.
	CDNURL string

	hub, cdn *httptest.Server
	quit     chan struct{}
	stop     sync.Once

	mu       sync.Mutex
	repos    map[string]*history // by lower-case ID
	requests []Request
	fails    map[string][]failure
	cuts     map[string][]int64
	stalls   map[string][]int64
	corrupt  map[string]bool
	noRange  bool
	rate     int64

	digests sync.Map // digestKey → SHA-256 hex
}

// history is a repository's commits: main and every commit pushed.
type history struct {
	main    string
	commits map[string]Repo
}

// failure is one armed Fail: status for the next times requests.
type failure struct {
	status, times int
}

// NewServer starts a fake Hub with the given repositories and closes it
// when the test ends.
func NewServer(t testing.TB, repos ...Repo) *Server {
	t.Helper()
	s, stop := Start(repos...)
	t.Cleanup(stop)
	return s
}

// Start starts a fake Hub with the given repositories, for code that has
// no testing.TB (a benchmark server, a test binary serving it as a
// command, an Example). The returned function stops it: it ends any
// stalled or throttled answer, closes every connection and waits for the
// handlers to return. Calling it again does nothing.
func Start(repos ...Repo) (*Server, func()) {
	s := &Server{
		quit:    make(chan struct{}),
		repos:   map[string]*history{},
		fails:   map[string][]failure{},
		cuts:    map[string][]int64{},
		stalls:  map[string][]int64{},
		corrupt: map[string]bool{},
	}
	for _, r := range repos {
		s.Push(r)
	}
	s.hub = httptest.NewServer(http.HandlerFunc(s.serveHub))
	s.cdn = httptest.NewServer(http.HandlerFunc(s.serveCDN))
	s.URL, s.CDNURL = s.hub.URL, s.cdn.URL
	return s, func() {
		s.stop.Do(func() {
			close(s.quit)
			for _, h := range []*httptest.Server{s.hub, s.cdn} {
				h.CloseClientConnections()
				h.Close()
			}
		})
	}
}

// Push makes r's commit the one main points at, adding the repository if
// it is new. The commits pushed before stay resolvable by their hashes,
// as on the Hub, so a client pinned to one still gets its files.
func (s *Server) Push(r Repo) {
	r.Files = slices.Clone(r.Files)
	s.mu.Lock()
	defer s.mu.Unlock()
	key := strings.ToLower(r.ID)
	h := s.repos[key]
	if h == nil {
		h = &history{commits: map[string]Repo{}}
		s.repos[key] = h
	}
	h.main = r.Sha()
	h.commits[h.main] = r
}

// Fail answers status, with a JSON error body, to the next times requests
// for key, on either host; times <= 0 disarms it. A key is a file's path
// ("model.safetensors", in every repository) or a repository's ID and a
// file's path ("org/name/model.safetensors"), for the file's resolve URL
// and its CDN URL; or a repository's ID ("org/name") for its listing. A
// repository's ID is spelled as its Repo spells it, whatever the
// request's case.
// Calling Fail again for a key replaces its count.
func (s *Server) Fail(key string, status, times int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if times <= 0 {
		delete(s.fails, key)
		return
	}
	s.fails[key] = []failure{{status: status, times: times}}
}

// DropAfter cuts the connection once, the first time an answer for key
// (see [Server.Fail]) reaches byte n of the file (or of the listing): the
// answer promises the whole length, sends the bytes before n and closes
// the connection, so the client reads an unexpected EOF. An answer that
// starts at or past n is not cut and leaves the cut armed. Each call arms
// one more cut, so DropAfter(k, 0) three times cuts the next three
// answers that start at byte 0.
func (s *Server) DropAfter(key string, n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cuts[key] = append(s.cuts[key], n)
}

// Stall stops an answer once, the first time an answer for key (see
// [Server.Fail]) reaches byte after of the file: it sends the bytes
// before after and then nothing more, holding the connection open until
// the client gives up or the server stops. Each call arms one more stall.
func (s *Server) Stall(key string, after int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stalls[key] = append(s.stalls[key], after)
}

// Corrupt flips the bits of one byte, the middle one, of every answer for
// key (see [Server.Fail]) that includes it, until [Server.Reset]: the
// length is right and the digest is wrong. A file with no bytes cannot be
// corrupted.
func (s *Server) Corrupt(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.corrupt[key] = true
}

// IgnoreRange makes both hosts answer a Range request with 200 and the
// whole file, as a server that does not support ranges does, or stop
// doing so.
func (s *Server) IgnoreRange(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noRange = on
}

// Throttle sends every body at no more than bytesPerSecond, in pieces of
// about a tenth of a second; 0 or less sends at full speed.
func (s *Server) Throttle(bytesPerSecond int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rate = bytesPerSecond
}

// Reset disarms every fault: Fail, DropAfter, Stall, Corrupt, IgnoreRange
// and Throttle. The repositories and the requests seen stay.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.fails)
	clear(s.cuts)
	clear(s.stalls)
	clear(s.corrupt)
	s.noRange, s.rate = false, 0
}

// Requests returns the requests both hosts received, in the order they
// arrived.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// record notes r as received by host.
func (s *Server) record(host string, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, Request{
		Method:         r.Method,
		Host:           host,
		Path:           r.URL.Path,
		Query:          r.URL.RawQuery,
		Range:          r.Header.Get("Range"),
		AcceptEncoding: r.Header.Get("Accept-Encoding"),
		Auth:           r.Header.Get("Authorization") != "",
	})
}

// failing consumes one armed Fail among keys and returns its status, or 0.
func (s *Server) failing(keys []string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range keys {
		f := s.fails[k]
		if len(f) == 0 {
			continue
		}
		status := f[0].status
		if f[0].times--; f[0].times <= 0 {
			delete(s.fails, k)
		}
		return status
	}
	return 0
}

// access is what a request may see of a repository.
type access int

const (
	anonymous access = iota // no Authorization header
	stranger                // StrangerToken
	reader                  // Token
	invalid                 // any other Authorization header
)

// who says whose request r is.
func who(r *http.Request) access {
	switch r.Header.Get("Authorization") {
	case "":
		return anonymous
	case "Bearer " + Token:
		return reader
	case "Bearer " + StrangerToken:
		return stranger
	}
	return invalid
}

// hubError answers as the Hub does when it refuses a request: a JSON
// error, and X-Error-Code or X-Error-Message headers.
func hubError(w http.ResponseWriter, status int, code, message string) {
	if code != "" {
		w.Header().Set("X-Error-Code", code)
	}
	w.Header().Set("X-Error-Message", message)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": message})
}

// lookup finds the repository org/name at rev ("main" or a commit) as a
// request of a may see it, or answers the refusal and returns false.
// files is true for a request of a file's bytes, which a gated repository
// refuses without Token.
func (s *Server) lookup(w http.ResponseWriter, a access, id, rev string, files bool) (Repo, bool) {
	if a == invalid {
		hubError(w, http.StatusUnauthorized, "", "Invalid credentials in Authorization header")
		return Repo{}, false
	}
	s.mu.Lock()
	h := s.repos[strings.ToLower(id)]
	var repo Repo
	var exists, found bool
	if h != nil {
		exists = !h.commits[h.main].Private || a == reader
		if rev == "main" {
			rev = h.main
		}
		repo, found = h.commits[rev]
	}
	s.mu.Unlock()

	switch {
	case !exists:
		if a == anonymous {
			hubError(w, http.StatusUnauthorized, "RepoNotFound", "Repository not found")
		} else {
			hubError(w, http.StatusNotFound, "RepoNotFound", "Repository not found")
		}
		return Repo{}, false
	case !found:
		hubError(w, http.StatusNotFound, "RevisionNotFound", "Invalid rev id: "+rev)
		return Repo{}, false
	case files && repo.Gated && a != reader:
		status := http.StatusUnauthorized
		if a == stranger {
			status = http.StatusForbidden
		}
		hubError(w, status, "GatedRepo", "Access to model "+repo.ID+" is restricted. You must have access to it and be authenticated to access it. Please log in.")
		return Repo{}, false
	}
	return repo, true
}

// serveHub answers the Hub's listing and resolve URLs.
func (s *Server) serveHub(w http.ResponseWriter, r *http.Request) {
	s.record("hub", r)
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hubError(w, http.StatusMethodNotAllowed, "", "method not allowed")
		return
	}
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/")
	switch {
	case len(parts) >= 4 && parts[0] == "api" && parts[1] == "models":
		s.serveListing(w, r, parts[2:])
	case len(parts) >= 5 && parts[2] == "resolve":
		s.serveResolve(w, r, parts[0]+"/"+parts[1], parts[3], strings.Join(parts[4:], "/"))
	default:
		hubError(w, http.StatusNotFound, "", "Sorry, we can't find the page you are looking for.")
	}
}

// canonical returns the ID of the repository id names in any case, or id
// when there is none.
func (s *Server) canonical(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h := s.repos[strings.ToLower(id)]; h != nil {
		return h.commits[h.main].ID
	}
	return id
}

// serveListing answers /api/models/{org}/{name}[/revision/{rev}]; parts
// is the path after /api/models/.
func (s *Server) serveListing(w http.ResponseWriter, r *http.Request, parts []string) {
	rev := "main"
	switch {
	case len(parts) == 2:
	case len(parts) == 4 && parts[2] == "revision":
		rev = parts[3]
	default:
		hubError(w, http.StatusNotFound, "", "Sorry, we can't find the page you are looking for.")
		return
	}
	id := s.canonical(parts[0] + "/" + parts[1])
	if status := s.failing([]string{id}); status != 0 {
		hubError(w, status, "", http.StatusText(status))
		return
	}
	repo, ok := s.lookup(w, who(r), id, rev, false)
	if !ok {
		return
	}
	body, err := json.Marshal(listing(repo, r.URL.Query().Get("blobs") == "true"))
	if err != nil {
		hubError(w, http.StatusInternalServerError, "", err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	s.send(w, r, []string{repo.ID}, body, false)
}

// serveResolve answers GET or HEAD /{id}/resolve/{rev}/{path}.
func (s *Server) serveResolve(w http.ResponseWriter, r *http.Request, id, rev, path string) {
	id = s.canonical(id)
	if status := s.failing([]string{path, id + "/" + path}); status != 0 {
		hubError(w, status, "", http.StatusText(status))
		return
	}
	repo, ok := s.lookup(w, who(r), id, rev, true)
	if !ok {
		return
	}
	i := slices.IndexFunc(repo.Files, func(f File) bool { return f.Path == path })
	if i < 0 {
		hubError(w, http.StatusNotFound, "EntryNotFound", path+" does not exist on \""+rev+"\"")
		return
	}
	f := repo.Files[i]
	h := w.Header()
	h.Set("X-Repo-Commit", repo.Sha())
	h.Set("ETag", strconv.Quote(f.BlobID()))
	if f.LFS {
		h.Set("X-Linked-Etag", strconv.Quote(s.digest(f)))
		h.Set("X-Linked-Size", strconv.Itoa(len(f.Data)))
		h.Set("Location", s.CDNURL+"/repos/"+s.digest(f)+"/"+escape(repo.ID)+"/"+escape(f.Path))
		w.WriteHeader(http.StatusFound)
		return
	}
	h.Set("Content-Type", "application/octet-stream")
	s.send(w, r, []string{f.Path, repo.ID + "/" + f.Path}, f.Data, true)
}

// serveCDN answers /repos/{sha256}/{org}/{name}/{path}, the URL the Hub
// redirects an LFS file's resolve URL to.
func (s *Server) serveCDN(w http.ResponseWriter, r *http.Request) {
	s.record("cdn", r)
	parts := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/"), "/", 5)
	if len(parts) != 5 || parts[0] != "repos" || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		http.Error(w, "NoSuchKey", http.StatusNotFound)
		return
	}
	if r.Header.Get("Authorization") != "" {
		http.Error(w, "InvalidArgument: Only one auth mechanism allowed", http.StatusBadRequest)
		return
	}
	sha, id, path := parts[1], parts[2]+"/"+parts[3], parts[4]
	if status := s.failing([]string{path, id + "/" + path}); status != 0 {
		http.Error(w, http.StatusText(status), status)
		return
	}
	f, ok := s.blob(id, sha, path)
	if !ok {
		http.Error(w, "NoSuchKey", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("ETag", strconv.Quote(s.digest(f)))
	s.send(w, r, []string{f.Path, id + "/" + f.Path}, f.Data, true)
}

// blob finds the LFS file at path with the given SHA-256 in any commit of
// repository id.
func (s *Server) blob(id, sha, path string) (File, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.repos[strings.ToLower(id)]
	if h == nil {
		return File{}, false
	}
	for _, repo := range h.commits {
		for _, f := range repo.Files {
			if f.LFS && f.Path == path && s.digest(f) == sha {
				return f, true
			}
		}
	}
	return File{}, false
}

// digest is f's SHA-256, computed once per file's data: serving a large
// file must not cost a hash of it per request.
func (s *Server) digest(f File) string {
	key := digestKey{unsafe.SliceData(f.Data), len(f.Data)}
	if d, ok := s.digests.Load(key); ok {
		return d.(string)
	}
	d := f.SHA256()
	s.digests.Store(key, d)
	return d
}

type digestKey struct {
	data *byte
	n    int
}

// escape escapes each element of a slash-separated path.
func escape(p string) string {
	parts := strings.Split(p, "/")
	for i, e := range parts {
		parts[i] = url.PathEscape(e)
	}
	return strings.Join(parts, "/")
}

// send answers r with data, or the part of it r's Range asks for when
// ranges is true, applying the faults armed for keys.
func (s *Server) send(w http.ResponseWriter, r *http.Request, keys []string, data []byte, ranges bool) {
	s.mu.Lock()
	noRange, rate := s.noRange, s.rate
	s.mu.Unlock()

	size := int64(len(data))
	start, end := int64(0), size
	status := http.StatusOK
	h := w.Header()
	if ranges {
		h.Set("Accept-Ranges", "bytes")
		if from, to, ok := parseRange(r.Header.Get("Range")); ok && !noRange {
			if from >= size {
				h.Set("Content-Range", fmt.Sprintf("bytes */%d", size))
				http.Error(w, "Requested Range Not Satisfiable", http.StatusRequestedRangeNotSatisfiable)
				return
			}
			start, end, status = from, min(to+1, size), http.StatusPartialContent
			h.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, end-1, size))
		}
	}
	h.Set("Content-Length", strconv.FormatInt(end-start, 10))
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return
	}

	body := slices.Clone(data[start:end])
	within := func(n int64) bool { return start <= n && n < end }
	cut, stall := end, end
	var cutKey, stallKey string
	corrupt := false
	s.mu.Lock()
	for _, k := range keys {
		corrupt = corrupt || s.corrupt[k]
		for _, n := range s.cuts[k] {
			if within(n) && n < cut {
				cut, cutKey = n, k
			}
		}
		for _, n := range s.stalls[k] {
			if within(n) && n < stall {
				stall, stallKey = n, k
			}
		}
	}
	// Only the fault that ends this answer fires, and is disarmed.
	if cut < end && cut <= stall {
		s.cuts[cutKey] = removeOne(s.cuts[cutKey], cut)
		stall = end
	} else if stall < end {
		s.stalls[stallKey] = removeOne(s.stalls[stallKey], stall)
		cut = end
	}
	s.mu.Unlock()
	if corrupt && within(size/2) {
		body[size/2-start] ^= 0xff
	}

	stop := min(cut, stall)
	if !s.write(w, r, body[:stop-start], rate) {
		return
	}
	switch {
	case cut < end:
		http.NewResponseController(w).Flush()
		panic(http.ErrAbortHandler) // closes the connection mid-body
	case stall < end:
		http.NewResponseController(w).Flush()
		select {
		case <-r.Context().Done():
		case <-s.quit:
		}
	}
}

// removeOne returns list without its first n.
func removeOne(list []int64, n int64) []int64 {
	i := slices.Index(list, n)
	return slices.Delete(list, i, i+1)
}

// write sends b, at no more than rate bytes a second when rate > 0. It
// returns false when the client went away or the server is stopping.
func (s *Server) write(w http.ResponseWriter, r *http.Request, b []byte, rate int64) bool {
	if rate <= 0 {
		_, err := w.Write(b)
		return err == nil
	}
	piece := max(rate/10, 1)
	rc := http.NewResponseController(w)
	for len(b) > 0 {
		n := min(piece, int64(len(b)))
		if _, err := w.Write(b[:n]); err != nil {
			return false
		}
		rc.Flush()
		b = b[n:]
		if len(b) == 0 {
			break
		}
		t := time.NewTimer(time.Duration(n) * time.Second / time.Duration(rate))
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return false
		case <-s.quit:
			t.Stop()
			return false
		}
	}
	return true
}

// parseRange reads a single range "bytes=N-" or "bytes=N-M". It returns
// false for no header and for one it does not understand, which the
// server then ignores, as RFC 9110 allows.
func parseRange(h string) (from, to int64, ok bool) {
	spec, found := strings.CutPrefix(h, "bytes=")
	if !found || strings.Contains(spec, ",") {
		return 0, 0, false
	}
	a, b, found := strings.Cut(spec, "-")
	if !found {
		return 0, 0, false
	}
	from, err := strconv.ParseInt(a, 10, 64)
	if err != nil || from < 0 {
		return 0, 0, false
	}
	if b == "" {
		return from, 1<<62 - 1, true
	}
	to, err = strconv.ParseInt(b, 10, 64)
	if err != nil || to < from {
		return 0, 0, false
	}
	return from, to, true
}
