package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// ErrNotLoopback: an address to serve HTTP on that is not a loopback
// host and a port (CheckAddr).
var ErrNotLoopback = errors.New("not a loopback address and port")

// ReadHeaderTimeout bounds how long ServeHTTP waits for a request's
// headers, so a connection that sends none does not hold on.
const ReadHeaderTimeout = 10 * time.Second

// CheckAddr returns nil when addr is a loopback host (localhost, or an
// address such as 127.0.0.1 or ::1) and a port, and otherwise an error
// wrapping ErrNotLoopback that says how to mend it: wisp serves MCP on
// a loopback address only.
func CheckAddr(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	switch {
	case err != nil:
		return &addrError{fmt.Sprintf("%q: give a loopback address and port, such as 127.0.0.1:8765", addr)}
	case !loopbackHost(host):
		return &addrError{fmt.Sprintf("%q: wisp serves MCP on a loopback address only, such as 127.0.0.1:8765", addr)}
	}
	return nil
}

// ListenHTTP listens on addr for ServeHTTP; an address that is not a
// loopback host and a port is refused (CheckAddr).
func ListenHTTP(addr string) (net.Listener, error) {
	if err := CheckAddr(addr); err != nil {
		return nil, err
	}
	return net.Listen("tcp", addr)
}

// ServeHTTP serves HTTPHandler on ln, with ReadHeaderTimeout, until ctx
// is done, and closes ln. It returns nil once ctx is done, and the error
// that stopped it otherwise.
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{Handler: s.HTTPHandler(), ReadHeaderTimeout: ReadHeaderTimeout}
	stop := context.AfterFunc(ctx, func() { hs.Close() })
	defer stop()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// addrError is CheckAddr's error.
type addrError struct{ msg string }

func (e *addrError) Error() string { return e.msg }
func (e *addrError) Unwrap() error { return ErrNotLoopback }
