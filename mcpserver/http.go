package mcpserver

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
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
