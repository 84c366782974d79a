// Package neterr names, in a few words, why a request to a local server
// (Ollama, an OpenAI-compatible server, the Hugging Face Hub) got no
// answer, for the one-line errors wisp shows.
package neterr

import (
	"errors"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"
)

// Reason says why a request got no answer: "connection refused",
// "connection closed", "no such host example.org", "timed out", or the
// error's own words on one line.
func Reason(err error) string {
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
	return OneLine(err.Error(), 200)
}

// OneLine folds s onto one line of at most n runes, ending in "…" when
// cut.
func OneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}
