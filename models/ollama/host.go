package ollama

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// hostForm is the end of every host error: what a good value looks like.
const hostForm = `OLLAMA_HOST looks like "127.0.0.1:11434", "0.0.0.0", "example.org:8080" or "https://example.org"`

// parseHost reads a host as OLLAMA_HOST spells it, the way Ollama's own
// client does: an empty value is http://127.0.0.1:11434, a value without a
// scheme is http on port 11434, "http://" defaults to port 80 and
// "https://" to 443, and "ollama.com" alone is https://ollama.com:443. A
// path after the host is kept, for an Ollama behind a reverse proxy.
//
// Where Ollama quietly falls back to the default port, parseHost refuses:
// an unknown scheme, a port that is not a number from 1 to 65535, or a
// host that is not a host name or IP address is an error.
func parseHost(s string) (*url.URL, error) {
	raw := s
	s = strings.Trim(strings.TrimSpace(s), `"'`)
	bad := func(why string) error {
		return fmt.Errorf("OLLAMA_HOST %q is not valid: %s; %s", raw, why, hostForm)
	}

	defaultPort := "11434"
	scheme, hostport, ok := strings.Cut(s, "://")
	switch {
	case !ok:
		scheme, hostport = "http", s
		if s == "ollama.com" {
			scheme, hostport = "https", "ollama.com:443"
		}
	case scheme == "http":
		defaultPort = "80"
	case scheme == "https":
		defaultPort = "443"
	default:
		return nil, bad(fmt.Sprintf("the scheme must be http or https, not %q", scheme))
	}

	hostport, path, _ := strings.Cut(hostport, "/")
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = "127.0.0.1", defaultPort
		if ip := net.ParseIP(strings.Trim(hostport, "[]")); ip != nil {
			host = ip.String()
		} else if hostport != "" {
			host = hostport
		}
	} else if host == "" {
		host = "127.0.0.1"
	}

	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil || n == 0 {
		return nil, bad(fmt.Sprintf("the port must be a number from 1 to 65535, not %q", port))
	}
	if ip := net.ParseIP(host); ip != nil {
		host = ip.String()
	} else if !validHostName(host) {
		return nil, bad(fmt.Sprintf("%q is not a host name or IP address", host))
	}

	u := &url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port)}
	if path != "" {
		u.Path = "/" + strings.TrimSuffix(path, "/")
	}
	return u, nil
}

// validHostName reports whether s is made of the letters, digits, dots,
// hyphens and underscores a DNS or mDNS host name uses.
func validHostName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case r == '.', r == '-', r == '_':
		default:
			return false
		}
	}
	return true
}
