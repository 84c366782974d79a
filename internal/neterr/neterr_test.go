package neterr_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"
	"testing"

	"github.com/wisp-agent/wisp/internal/neterr"
)

type timeout struct{}

func (timeout) Error() string   { return "i/o timeout" }
func (timeout) Timeout() bool   { return true }
func (timeout) Temporary() bool { return true }

func TestReason(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{&url.Error{Op: "Get", URL: "http://x", Err: &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}}, "connection refused"},
		{fmt.Errorf("read: %w", syscall.ECONNRESET), "connection closed"},
		{io.ErrUnexpectedEOF, "connection closed"},
		{&net.DNSError{Name: "nowhere.invalid", IsNotFound: true}, "no such host nowhere.invalid"},
		{&net.DNSError{Name: "flaky.invalid"}, "cannot look up flaky.invalid"},
		{&url.Error{Op: "Get", URL: "http://x", Err: timeout{}}, "timed out"},
		{&url.Error{Op: "Get", URL: "http://x", Err: errors.New("tls:\nbad  certificate")}, "tls: bad certificate"},
		{context.Canceled, "context canceled"},
	}
	for _, tc := range tests {
		if got := neterr.Reason(tc.err); got != tc.want {
			t.Errorf("Reason(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

func TestOneLine(t *testing.T) {
	if got := neterr.OneLine("a\n b\tc", 10); got != "a b c" {
		t.Errorf("OneLine = %q", got)
	}
	if got := neterr.OneLine(strings.Repeat("é", 20), 5); got != "éééé…" {
		t.Errorf("OneLine cut = %q", got)
	}
}
