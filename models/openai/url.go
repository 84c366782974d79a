package openai

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// defaultURL is where mlx_lm.server listens unless told otherwise.
const defaultURL = "http://127.0.0.1:8080"

// parseURL reads a server address as WISP_MLX_URL spells it; New
// documents the forms.
func parseURL(s string) (*url.URL, error) {
	raw := s
	s = strings.Trim(strings.TrimSpace(s), `"'`)
	bad := func(why string) error {
		return fmt.Errorf("WISP_MLX_URL %q is not valid: %s; %s", raw, why, urlForm)
	}
	if s == "" {
		s = defaultURL
	}
	bare := !strings.Contains(s, "://")
	if bare {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, bad("it is not a URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, bad(fmt.Sprintf("the scheme must be http or https, not %q", u.Scheme))
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return nil, bad("it must be a scheme, a host, a port and at most a path")
	}
	host, port := u.Hostname(), u.Port()
	if strings.HasSuffix(u.Host, ":") {
		return nil, bad("the port is missing after the colon")
	}
	if port != "" {
		if n, err := strconv.ParseUint(port, 10, 16); err != nil || n == 0 {
			return nil, bad(fmt.Sprintf("the port must be a number from 1 to 65535, not %q", port))
		}
	} else if bare {
		port = "8080"
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if !validHost(host) {
		return nil, bad(fmt.Sprintf("%q is not a host name or IP address", host))
	}
	out := &url.URL{Scheme: u.Scheme, Host: host}
	if port != "" {
		out.Host = net.JoinHostPort(host, port)
	} else if strings.Contains(host, ":") {
		out.Host = "[" + host + "]"
	}
	path := strings.TrimSuffix(strings.TrimRight(u.Path, "/"), "/v1")
	if path != "" {
		out.Path = path
	}
	return out, nil
}

// validHost reports whether s is an IP address or made of the letters,
// digits, dots, hyphens and underscores of a host name.
func validHost(s string) bool {
	if net.ParseIP(s) != nil {
		return true
	}
	if len(s) > 253 {
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
