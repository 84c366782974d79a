package ollama

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"
)

// ErrUnreachable: nothing answered at the backend's URL. Ollama is not
// running there, or OLLAMA_HOST points somewhere else. The error that
// wraps it says which URL and why, on one line.
var ErrUnreachable = errors.New("ollama is not answering")

// errIncomplete: a chat answer ended without a message marked done.
var errIncomplete = errors.New("no message marked done")

// unreachableError is ErrUnreachable with the URL, a short reason and the
// transport's error.
type unreachableError struct {
	base   string
	reason string
	err    error
}

func (e *unreachableError) Error() string {
	return fmt.Sprintf(`ollama is not answering at %s (%s); start it with "ollama serve", or set OLLAMA_HOST`, e.base, e.reason)
}

func (e *unreachableError) Unwrap() []error { return []error{ErrUnreachable, e.err} }

// reason names, in a few words, why a request got no answer.
func reason(err error) string {
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed"
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		if dns.IsNotFound {
			return "no such host " + dns.Name
		}
		return "cannot look up " + dns.Name
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "timed out"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return oneLine(err.Error(), 200)
}

// oneLine folds s onto one line of at most n runes, ending in "…" when cut.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}
