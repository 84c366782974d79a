package ollama_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/models/ollama"
)

// New reads every spelling of OLLAMA_HOST as Ollama's own client does.
func TestNewHost(t *testing.T) {
	tests := []struct {
		host, want string
	}{
		{"", "http://127.0.0.1:11434"},
		{"   ", "http://127.0.0.1:11434"},
		{"0.0.0.0", "http://0.0.0.0:11434"},
		{"127.0.0.1:11434", "http://127.0.0.1:11434"},
		{"localhost", "http://localhost:11434"},
		{"example.org:8080", "http://example.org:8080"},
		{"example.org", "http://example.org:11434"},
		{":8080", "http://127.0.0.1:8080"},
		{"http://example.org", "http://example.org:80"},
		{"https://example.org", "https://example.org:443"},
		{"http://example.org:8080", "http://example.org:8080"},
		{"https://x", "https://x:443"},
		{"ollama.com", "https://ollama.com:443"},
		{"::1", "http://[::1]:11434"},
		{"[::1]", "http://[::1]:11434"},
		{"[::1]:9999", "http://[::1]:9999"},
		{"http://[fe80::1]", "http://[fe80::1]:80"},
		{"example.org/ollama", "http://example.org:11434/ollama"},
		{"https://example.org:8443/ollama/", "https://example.org:8443/ollama"},
		{`"0.0.0.0:11434"`, "http://0.0.0.0:11434"},
		{"'example.org'", "http://example.org:11434"},
		{" my-box.local:11434 ", "http://my-box.local:11434"},
	}
	for _, tt := range tests {
		b, err := ollama.New(tt.host, nil)
		if err != nil {
			t.Errorf("New(%q) = %v, want %s", tt.host, err, tt.want)
			continue
		}
		if got := b.URL(); got != tt.want {
			t.Errorf("New(%q).URL() = %s, want %s", tt.host, got, tt.want)
		}
	}
}

// A value Ollama would quietly replace by its default is refused, in one
// line that says what OLLAMA_HOST must look like.
func TestNewBadHost(t *testing.T) {
	tests := []struct {
		host, why string
	}{
		{"ftp://example.org", `the scheme must be http or https, not "ftp"`},
		{"example.org:http", `the port must be a number from 1 to 65535, not "http"`},
		{"example.org:99999", `the port must be a number from 1 to 65535, not "99999"`},
		{"example.org:0", `the port must be a number from 1 to 65535, not "0"`},
		{"example.org:-1", `the port must be a number from 1 to 65535, not "-1"`},
		{"example.org:", `the port must be a number from 1 to 65535, not ""`},
		{"localhost:11434?x=1", `the port must be a number from 1 to 65535, not "11434?x=1"`},
		{"exa mple.org", `"exa mple.org" is not a host name or IP address`},
		{"user@example.org", `"user@example.org" is not a host name or IP address`},
	}
	for _, tt := range tests {
		_, err := ollama.New(tt.host, nil)
		if err == nil {
			t.Errorf("New(%q) = nil error, want one", tt.host)
			continue
		}
		want := "OLLAMA_HOST " + strconv.Quote(tt.host) + " is not valid: " + tt.why +
			`; OLLAMA_HOST looks like "127.0.0.1:11434", "0.0.0.0", "example.org:8080" or "https://example.org"`
		if got := err.Error(); got != want {
			t.Errorf("New(%q) error\n got %s\nwant %s", tt.host, got, want)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("New(%q) error has more than one line", tt.host)
		}
	}
}
