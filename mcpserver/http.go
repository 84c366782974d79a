package mcpserver

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// loopbackOnly refuses, with 403, a request whose Host header, or Origin
// header when it has one, is not a loopback name or address. A page on
// another site that rebinds its name to 127.0.0.1 still sends its own name
// in both, so it cannot drive the server from a browser. Clients that are
// not browsers send no Origin.
func loopbackOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !loopbackHost(r.Host) {
			http.Error(w, "forbidden: wisp mcp answers only requests addressed to a loopback host", http.StatusForbidden)
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" && !loopbackOrigin(origin) {
			http.Error(w, "forbidden: wisp mcp answers only requests from a loopback origin", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// loopbackHost reports whether hostport ("localhost:8765", "[::1]",
// "127.0.0.1") names a loopback host.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// loopbackOrigin reports whether origin ("http://localhost:3000") is an
// http or https origin on a loopback host. "null" is not.
func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return loopbackHost(u.Host)
}

// requireToken refuses, with 401, a request whose Authorization header is
// not "Bearer " and token. The comparison takes the same time whatever
// the header holds. An empty token lets no request in.
func requireToken(token string, next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, given := bearer(r.Header.Values("Authorization"))
		sum := sha256.Sum256([]byte(got))
		if token == "" || !given || subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
			challenge := `Bearer realm="wisp mcp"`
			if given {
				challenge += `, error="invalid_token"`
			}
			w.Header().Set("WWW-Authenticate", challenge)
			writeRPCError(w, http.StatusUnauthorized, nil, mcp.INVALID_REQUEST,
				"unauthorized: send the header Authorization: Bearer TOKEN, with the token from "+
					"wisp mcp's token file ($WISP_HOME/mcp-token unless --token-file names another)")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// bearer returns the token of the one Authorization header in values;
// given is false when there is none, or more than one, or it is not a
// bearer token.
func bearer(values []string) (token string, given bool) {
	if len(values) != 1 {
		return "", false
	}
	scheme, token, ok := strings.Cut(values[0], " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// limitRequests refuses, with 503 and Retry-After, a request beyond the
// max served at once. A refused request has had nothing of its body read.
func limitRequests(max int, next http.Handler) http.Handler {
	slots := make(chan struct{}, max)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case slots <- struct{}{}:
			defer func() { <-slots }()
			next.ServeHTTP(w, r)
		default:
			w.Header().Set("Retry-After", "1")
			writeRPCError(w, http.StatusServiceUnavailable, nil, mcp.INVALID_REQUEST,
				fmt.Sprintf("busy: wisp mcp serves at most %d requests at once; try again when one of yours has ended", max))
		}
	})
}

// limitBody reads a POST's body, at most max bytes of it, before next
// sees it, and refuses a longer one with 413 and the error message
// tooLarge, answering the request id found at the body's start.
// net/http closes the connection after the refusal rather than read the
// rest.
func limitBody(max int64, tooLarge string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
		if tooLong := (*http.MaxBytesError)(nil); errors.As(err, &tooLong) {
			writeRPCError(w, http.StatusRequestEntityTooLarge, requestID(body), mcp.INVALID_REQUEST, tooLarge)
			return
		}
		if err != nil {
			writeRPCError(w, http.StatusBadRequest, nil, mcp.PARSE_ERROR, "the request body could not be read: "+err.Error())
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		next.ServeHTTP(w, r)
	})
}

// tooLarge is the error message for a message longer than the bound.
func (s *Server) tooLarge() string {
	return fmt.Sprintf("request too large: wisp mcp reads messages of at most %d bytes; "+
		"a respond prompt may have up to %d characters", s.opts.MaxRequestBytes, MaxPrompt)
}

// writeRPCError answers with status and a JSON-RPC error response for
// the request id (nil: null).
func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, code int, message string) {
	body, err := json.Marshal(rpcError(id, code, message))
	if err != nil {
		http.Error(w, message, status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}

// rpcError is a JSON-RPC error response for the request id (nil: null).
func rpcError(id json.RawMessage, code int, message string) mcp.JSONRPCError {
	var v any
	if id != nil {
		v = id
	}
	return mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(v), Error: mcp.NewJSONRPCErrorDetails(code, message, nil)}
}
