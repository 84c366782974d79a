package hf

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// DefaultEndpoint is the Hugging Face Hub, the endpoint of a client whose
// options name none.
const DefaultEndpoint = "https://huggingface.co"

const (
	// maxListing bounds the Hub's answer for a repository's listing; one
	// of ten thousand files is about 3 MB.
	maxListing = 64 << 20
	// userAgent names the client to the Hub.
	userAgent = "wisp"
	// maxRedirects bounds the redirects of one request, as net/http does.
	maxRedirects = 10
)

// ClientOptions configure a Client. A nil *ClientOptions, or a zero field,
// means the default given beside the field.
type ClientOptions struct {
	// Endpoint is the Hub's base URL, http or https, such as
	// "https://huggingface.co" (the default). The caller passes
	// HF_ENDPOINT here; the client reads no environment.
	Endpoint string
	// Token is a Hugging Face access token, for private and gated
	// repositories; "" sends none. The caller passes HF_TOKEN here. It is
	// sent only to the endpoint's own scheme, host and port, never to the
	// host a redirect leads to (the CDN that serves LFS files).
	Token string
	// HTTPClient makes the requests. Nil means a client with connect,
	// TLS handshake and response header timeouts and no overall timeout,
	// so a large file can take as long as it needs, and no proxy. The
	// client's transport and redirect policy are wrapped, not changed.
	HTTPClient *http.Client
	// Retries is how many times a request is sent again after a 429, a
	// 5xx other than 501, a 408 or a failure to connect, before any of
	// its body is read; 0 means 4, and a negative number none. A body
	// cut short is never retried here: its reader resumes it with Open.
	Retries int
	// RetryWaitMin and RetryWaitMax bound the wait before a retry: it
	// doubles from RetryWaitMin (default 1s) up to RetryWaitMax (default
	// 30s). A Retry-After header of a 429 or 503 sets the wait instead,
	// up to RetryWaitMax.
	RetryWaitMin, RetryWaitMax time.Duration
}

// Client asks the Hugging Face Hub for a repository's plan and fetches its
// files' bytes. It is safe for concurrent use.
type Client struct {
	base    string // the endpoint, without a trailing slash
	page    string // the endpoint as https://huggingface.co/ORG/NAME is built on
	origin  string // the endpoint's scheme://host:port, where the token goes
	hub     string // how errors name the Hub: "Hugging Face [at URL]"
	mend    string // how to mend an answer that is not the Hub's
	token   bool
	retries int
	rc      *retryablehttp.Client
}

// NewClient returns a client for the Hub at opts.Endpoint. A bad endpoint
// or token is a one-line error that says how to mend it.
func NewClient(opts *ClientOptions) (*Client, error) {
	var o ClientOptions
	if opts != nil {
		o = *opts
	}
	endpoint := cmp.Or(o.Endpoint, DefaultEndpoint)
	u, err := url.Parse(endpoint)
	var why string
	switch {
	case err != nil:
		why = "it does not parse"
	case u.Scheme != "http" && u.Scheme != "https":
		why = "it is not http or https"
	case u.Host == "" || u.Opaque != "":
		why = "it has no host"
	case u.User != nil:
		why = "it holds a user name or password; pass a token as HF_TOKEN instead"
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		why = "it has a query or fragment"
	}
	if why != "" {
		return nil, fmt.Errorf("the Hugging Face endpoint %s is not a URL such as %s (%s); set HF_ENDPOINT to one, or unset it", quote(endpoint), DefaultEndpoint, why)
	}
	if strings.ContainsFunc(o.Token, func(r rune) bool { return r <= ' ' || r >= 0x7f }) {
		return nil, errors.New("HF_TOKEN holds a space, line break or other character no token has; set it to the token alone")
	}

	base := strings.TrimRight(u.String(), "/")
	c := &Client{
		base:    base,
		page:    base,
		origin:  originOf(u),
		hub:     "Hugging Face",
		mend:    "try again later",
		token:   o.Token != "",
		retries: o.Retries,
	}
	if base != DefaultEndpoint {
		c.hub = "Hugging Face at " + base
		c.mend = "check that HF_ENDPOINT is a Hugging Face Hub"
	}
	switch {
	case c.retries == 0:
		c.retries = 4
	case c.retries < 0:
		c.retries = 0
	}
	lo := cmp.Or(o.RetryWaitMin, time.Second)
	hi := max(cmp.Or(o.RetryWaitMax, 30*time.Second), lo)

	hc := o.HTTPClient
	if hc == nil {
		hc = defaultHTTPClient()
	}
	own := *hc
	transport := hc.Transport
	if transport == nil {
		transport = http.DefaultTransport
	}
	at := &authTransport{base: transport, origin: c.origin}
	if o.Token != "" {
		at.header = "Bearer " + o.Token
	}
	own.Transport = at
	own.CheckRedirect = checkRedirect(hc.CheckRedirect)

	c.rc = &retryablehttp.Client{
		HTTPClient:     &own,
		Logger:         nil, // the library's default logger prints every request
		RetryWaitMin:   lo,
		RetryWaitMax:   hi,
		RetryMax:       c.retries,
		RequestLogHook: countAttempt,
		CheckRetry:     checkRetry,
		Backoff:        backoff,
		ErrorHandler:   retryablehttp.PassthroughErrorHandler,
	}
	return c, nil
}

// defaultHTTPClient is the client of options that name none: timeouts on
// connecting and on the answer's headers, none on its body; one HTTP/1.1
// connection a stream, which moves large files faster than streams
// sharing an HTTP/2 connection.
func defaultHTTPClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   15 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
		ExpectContinueTimeout: time.Second,
		IdleConnTimeout:       90 * time.Second,
		MaxIdleConnsPerHost:   16,
	}}
}

// Plan asks the Hub for the repository repo, "organisation/name", at its
// default branch (main), in one call:
// GET {endpoint}/api/models/{org}/{name}/revision/main?blobs=true. It
// returns a plan pinned to the commit main points at, so that a push
// during the pull cannot mix revisions.
//
// The plan holds only the files an MLX model needs, by the patterns
// mlx_lm.load downloads (whose * also matches "/"): *.json,
// model*.safetensors, tokenizer.model, *.tiktoken, tiktoken.model, *.txt,
// *.jsonl and *.jinja, sorted by path. mlx_lm also downloads *.py; a plan
// never does, as code is never needed to run an MLX model (it would run
// only with trust_remote_code). Nor does it fetch README.md, LICENSE,
// .gitattributes or weights in other formats. Repo is the Hub's spelling
// of the name; Licence is the card's license, or its license_name when
// the licence is "other"; Publisher is the repository's author, or else
// its organisation.
//
// Plan refuses, with a one-line error that says what is wrong and how to
// mend it: a name that is not a repository's ([ErrBadRepo]); a
// repository the Hub does not have or has disabled ([ErrNotFound]); one
// that is private or needs a token ([ErrPrivate]); one that is gated,
// when the client has no token ([ErrGated]); a token the Hub refuses
// ([ErrBadToken]); a repository without model*.safetensors and
// config.json at its top ([ErrNotMLX]); a repository that lists any file
// at a path that is empty, absolute, or has a backslash, a control
// character, or an empty, "." or ".." element, or lists a path twice, or
// two wanted files that differ only in case ([ErrUnsafePath]); and a listing whose commit is
// not 40 hex digits, or any of whose files lacks a size, has a negative
// one, a blobId that is not 40 hex digits or an lfs.sha256 that is not 64
// ([ErrBadListing]). Other failures are one line too, after the retries
// ClientOptions allow; once ctx is done, the error wraps ctx.Err().
func (c *Client) Plan(ctx context.Context, repo string) (Plan, error) {
	if why := badRepo(repo); why != "" {
		return Plan{}, refuse(ErrBadRepo, "%s is not a repository name (%s): name one as ORGANISATION/NAME, such as mlx-community/Qwen3-4B-4bit", quote(repo), why)
	}
	what := "the listing of " + repo
	req, err := retryablehttp.NewRequestWithContext(ctx, http.MethodGet, c.base+"/api/models/"+repo+"/revision/main?blobs=true", nil)
	if err != nil {
		return Plan{}, fmt.Errorf("hf: making the request for %s: %w", what, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", userAgent)
	var body []byte
	// Reading the body inside Do retries an answer cut short.
	req.SetResponseHandler(func(resp *http.Response) error {
		if resp.StatusCode != http.StatusOK {
			return nil
		}
		b, err := io.ReadAll(io.LimitReader(resp.Body, maxListing+1))
		body = b
		return err
	})
	resp, err := c.do(ctx, req, what)
	if err != nil {
		return Plan{}, err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Plan{}, c.statusError(resp, repo, what, "", "")
	}
	if len(body) > maxListing {
		return Plan{}, c.malformed(repo, "it is larger than %d MB", maxListing>>20)
	}
	info, err := c.decodeListing(repo, body)
	if err != nil {
		return Plan{}, err
	}
	return c.plan(repo, info)
}

// A Body is the bytes of a file, from Offset to its end. Its reader is
// bound to the ctx Open was given: cancelling it ends a read. The caller
// closes it, and checks its length and digest, which Open cannot.
type Body struct {
	io.ReadCloser
	// Offset is where the bytes start in the file: the offset Open was
	// asked for when the server honoured the Range request (206), or 0
	// when it answered with the whole file (200), in which case the
	// caller starts the file again.
	Offset int64
}

// Open starts the bytes of f, a file of plan p, from offset, at the
// plan's commit: GET {endpoint}/{org}/{name}/resolve/{commit}/{path},
// with Accept-Encoding: identity (so the bytes are the file's own), and
// Range: bytes=offset- when offset > 0. It follows redirects, sending the
// token to none but the endpoint's host, so an LFS file's CDN never sees
// it; and it retries, as ClientOptions allow, until the answer's headers
// arrive. A body cut short is the caller's to resume, with Open again.
//
// When the server answers a Range request with 416 and offset is f.Size,
// nothing is left: the Body is empty, at Offset f.Size. An answer whose
// Content-Range, length or commit is not what the plan says is an error
// wrapping [ErrBadListing]; a gated, private, missing or refused file one
// wrapping [ErrGated], [ErrPrivate], [ErrNotFound] or [ErrBadToken]; any
// other status a one-line error. Once ctx is done, the error wraps
// ctx.Err().
func (c *Client) Open(ctx context.Context, p Plan, f File, offset int64) (Body, error) {
	switch {
	case badRepo(p.Repo) != "" || !isHex(p.Commit, 40):
		return Body{}, fmt.Errorf("hf: the plan of %s names no repository and commit; make it with Client.Plan", quote(p.Repo))
	case unsafePath(f.Path) != "":
		return Body{}, c.unsafe(p.Repo, f.Path, unsafePath(f.Path))
	case offset < 0 || offset > f.Size:
		return Body{}, fmt.Errorf("hf: offset %d is outside %s of %s, which has %d bytes", offset, f.Path, p.Repo, f.Size)
	}
	what := f.Path + " of " + p.Repo
	req, err := retryablehttp.NewRequestWithContext(ctx, http.MethodGet, c.base+"/"+p.Repo+"/resolve/"+p.Commit+"/"+escapePath(f.Path), nil)
	if err != nil {
		return Body{}, fmt.Errorf("hf: making the request for %s: %w", what, err)
	}
	req.Header.Set("Accept-Encoding", "identity")
	req.Header.Set("User-Agent", userAgent)
	if offset > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", offset))
	}
	resp, err := c.do(ctx, req, what)
	if err != nil {
		return Body{}, err
	}
	body, err := c.body(resp, p, f, offset, what)
	if err != nil {
		resp.Body.Close()
		return Body{}, err
	}
	return body, nil
}

// body checks the answer resp to a request of f from offset and returns
// its bytes.
func (c *Client) body(resp *http.Response, p Plan, f File, offset int64, what string) (Body, error) {
	switch resp.StatusCode {
	case http.StatusOK:
		offset = 0
	case http.StatusPartialContent:
		start, total, ok := contentRange(resp.Header.Get("Content-Range"))
		if !ok || start != offset || total >= 0 && total != f.Size {
			return Body{}, c.badAnswer(resp, what, "it sent the range %s, not bytes %d-%d/%d", quote(resp.Header.Get("Content-Range")), offset, f.Size-1, f.Size)
		}
	case http.StatusRequestedRangeNotSatisfiable:
		if offset == f.Size {
			resp.Body.Close()
			return Body{ReadCloser: http.NoBody, Offset: f.Size}, nil
		}
		return Body{}, c.badAnswer(resp, what, "it has no byte %d, though the plan says it has %d", offset, f.Size)
	default:
		return Body{}, c.statusError(resp, p.Repo, what, f.Path, p.Commit)
	}
	if enc := resp.Header.Get("Content-Encoding"); enc != "" && enc != "identity" {
		return Body{}, c.badAnswer(resp, what, "it came encoded as %s", quote(enc))
	}
	if commit := resp.Header.Get("X-Repo-Commit"); commit != "" && commit != p.Commit {
		return Body{}, c.badAnswer(resp, what, "it came from commit %s, not %s", quote(commit), p.Commit)
	}
	if n := resp.ContentLength; n >= 0 && n != f.Size-offset {
		return Body{}, c.badAnswer(resp, what, "it is %d bytes from byte %d, though the plan says %d", n, offset, f.Size-offset)
	}
	return Body{ReadCloser: resp.Body, Offset: offset}, nil
}

// badAnswer refuses the answer resp for what, for the reason format makes
// of args.
func (c *Client) badAnswer(resp *http.Response, what, format string, args ...any) error {
	return refuse(ErrBadListing, "%s answered for %s with what the plan does not expect: %s; pull it again later",
		c.host(resp), what, fmt.Sprintf(format, args...))
}

// attemptsKey keys the count of a request's attempts in its context.
type attemptsKey struct{}

// countAttempt notes, before each attempt, how many there have been.
func countAttempt(_ retryablehttp.Logger, r *http.Request, retry int) {
	if n, ok := r.Context().Value(attemptsKey{}).(*int); ok {
		*n = retry + 1
	}
}

// do sends req, with the retries the client allows, and returns the
// answer, whose body the caller closes, or a one-line error for what.
func (c *Client) do(ctx context.Context, req *retryablehttp.Request, what string) (*http.Response, error) {
	attempts := 0
	req = req.WithContext(context.WithValue(ctx, attemptsKey{}, &attempts))
	resp, err := c.rc.Do(req)
	if ctx.Err() != nil {
		if resp != nil {
			resp.Body.Close()
		}
		return nil, fmt.Errorf("asking %s for %s: %w", c.hub, what, ctx.Err())
	}
	if err == nil {
		return resp, nil
	}
	tries := "once"
	if attempts > 1 {
		tries = fmt.Sprintf("%d times", attempts)
	}
	if resp != nil {
		resp.Body.Close()
	}
	switch {
	case errors.Is(err, errDowngrade):
		return nil, explain(err, "%s redirected %s from https to http; check HF_ENDPOINT and the network", c.hub, what)
	case resp != nil && resp.StatusCode == http.StatusOK:
		// The listing's body, read inside Do, broke off.
		return nil, explain(err, "%s broke off %s (%s), asked %s; try again later", c.hub, what, reason(err), tries)
	case resp != nil && (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusRequestTimeout || resp.StatusCode >= 500):
		return nil, fmt.Errorf("%s answered %s for %s, asked %s; try again later", c.host(resp), status(resp.StatusCode), what, tries)
	}
	return nil, explain(err, "cannot reach %s for %s (%s), asked %s; check the network and HF_ENDPOINT", c.hub, what, reason(err), tries)
}

// statusError is the one-line error for an answer resp about repo with a
// status the caller does not take: for the listing when path is "", or
// else for the file at path at commit.
func (c *Client) statusError(resp *http.Response, repo, what, path, commit string) error {
	code := resp.Header.Get("X-Error-Code")
	msg := resp.Header.Get("X-Error-Message")
	if c.host(resp) != c.hub {
		// The CDN: its refusals are no verdict on the repository.
		return fmt.Errorf("%s answered %s for %s; try again later", c.host(resp), status(resp.StatusCode), what)
	}
	switch {
	case code == "GatedRepo":
		return c.gated(repo)
	case msg == "Access to this resource is disabled.":
		return refuse(ErrNotFound, "%s is disabled on %s; pick another model", repo, c.hub)
	case resp.StatusCode == http.StatusUnauthorized && c.token && msg == "Invalid credentials in Authorization header":
		return refuse(ErrBadToken, "%s refused HF_TOKEN as invalid; set it to a token from %s/settings/tokens, or unset it", c.hub, c.page)
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		if c.token {
			return refuse(ErrPrivate, "%s on %s is private and HF_TOKEN cannot read it; check the name, or set HF_TOKEN to a token that can", repo, c.hub)
		}
		return refuse(ErrPrivate, "%s on %s is private or needs HF_TOKEN; check the name, or set HF_TOKEN to a token that can read it", repo, c.hub)
	case resp.StatusCode == http.StatusNotFound && path != "" && code != "RepoNotFound":
		return refuse(ErrNotFound, "%s has no file %s at commit %s on %s; pull it again", repo, quote(path), commit, c.hub)
	case resp.StatusCode == http.StatusNotFound && code == "RevisionNotFound":
		return refuse(ErrNotFound, "%s on %s has no branch main; pick another model", repo, c.hub)
	case resp.StatusCode == http.StatusNotFound:
		return refuse(ErrNotFound, "no repository %s on %s; check the name", repo, c.hub)
	}
	return fmt.Errorf("%s answered %s for %s; try again later", c.hub, status(resp.StatusCode), what)
}

// gated refuses the gated repository repo.
func (c *Client) gated(repo string) error {
	if c.token {
		return refuse(ErrGated, "%s is gated and HF_TOKEN's account has no access to it yet; accept its terms at %s/%s, and wait for its authors if they grant access by hand", repo, c.page, repo)
	}
	return refuse(ErrGated, "%s is gated: accept its terms at %s/%s and set HF_TOKEN", repo, c.page, repo)
}

// host is how errors name the host that gave resp: the Hub, or the host
// a redirect led to.
func (c *Client) host(resp *http.Response) string {
	if resp.Request == nil || originOf(resp.Request.URL) == c.origin {
		return c.hub
	}
	return "the download host " + resp.Request.URL.Host
}

// errDowngrade refuses a redirect from https to http.
var errDowngrade = errors.New("redirect from https to http")

// checkRedirect is the client's redirect policy: at most ten redirects,
// none from https to http, then theirs when there is one.
func checkRedirect(theirs func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if len(via) >= maxRedirects {
			// Worded as net/http words it, which retryablehttp does not retry.
			return fmt.Errorf("stopped after %d redirects", maxRedirects)
		}
		if via[0].URL.Scheme == "https" && req.URL.Scheme != "https" {
			return errDowngrade
		}
		if theirs != nil {
			return theirs(req, via)
		}
		return nil
	}
}

// checkRetry retries what retryablehttp.ErrorPropagatedRetryPolicy does
// (connection failures, 429, 5xx but 501) and 408, but not a refused
// redirect, and nothing once ctx is done.
func checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	switch {
	case ctx.Err() != nil:
		return false, ctx.Err()
	case errors.Is(err, errDowngrade):
		return false, err
	case err == nil && resp.StatusCode == http.StatusRequestTimeout:
		return true, errors.New("unexpected HTTP status 408")
	}
	return retryablehttp.ErrorPropagatedRetryPolicy(ctx, resp, err)
}

// backoff waits as retryablehttp.DefaultBackoff does, doubling from lo,
// or as a 429's or 503's Retry-After says, but never longer than hi.
func backoff(lo, hi time.Duration, attempt int, resp *http.Response) time.Duration {
	return min(retryablehttp.DefaultBackoff(lo, hi, attempt, resp), hi)
}

// authTransport sends the token to the endpoint's origin and to no other:
// net/http's own rule would also send it to a subdomain after a redirect,
// and to any port of the same host.
type authTransport struct {
	base   http.RoundTripper
	origin string
	header string // "Bearer <token>", or "" for none
}

// RoundTrip sends r with the Authorization header when it goes to the
// endpoint's origin and without one otherwise.
func (t *authTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	mine := originOf(r.URL) == t.origin
	switch {
	case mine && t.header != "":
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", t.header)
	case !mine && r.Header.Get("Authorization") != "":
		r = r.Clone(r.Context())
		r.Header.Del("Authorization")
	}
	return t.base.RoundTrip(r)
}

// originOf is u's scheme://host:port, lower-case, with the scheme's
// default port made explicit.
func originOf(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	return strings.ToLower(u.Scheme + "://" + net.JoinHostPort(u.Hostname(), port))
}

// escapePath escapes each element of a file's slash-separated path.
func escapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, e := range parts {
		parts[i] = url.PathEscape(e)
	}
	return strings.Join(parts, "/")
}

// contentRange reads "bytes START-END/TOTAL"; total is -1 for "*".
func contentRange(h string) (start, total int64, ok bool) {
	spec, found := strings.CutPrefix(h, "bytes ")
	if !found {
		return 0, 0, false
	}
	rng, size, found := strings.Cut(spec, "/")
	if !found {
		return 0, 0, false
	}
	from, _, found := strings.Cut(rng, "-")
	if !found {
		return 0, 0, false
	}
	start, err := strconv.ParseInt(from, 10, 64)
	if err != nil || start < 0 {
		return 0, 0, false
	}
	if size == "*" {
		return start, -1, true
	}
	total, err = strconv.ParseInt(size, 10, 64)
	if err != nil {
		return 0, 0, false
	}
	return start, total, true
}
