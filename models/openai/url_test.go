package openai_test

import (
	"testing"

	"github.com/wisp-agent/wisp/models/openai"
)

func TestNewURL(t *testing.T) {
	const form = `; WISP_MLX_URL looks like "http://127.0.0.1:8080", "127.0.0.1:8080" or "https://example.org/v1"`
	tests := []struct {
		in, want, wantErr string
	}{
		{in: "", want: "http://127.0.0.1:8080"},
		{in: "127.0.0.1:8080", want: "http://127.0.0.1:8080"},
		{in: "localhost", want: "http://localhost:8080"},
		{in: ":9000", want: "http://127.0.0.1:9000"},
		{in: " 'mac-studio.local:8081' ", want: "http://mac-studio.local:8081"},
		{in: "[::1]:8080", want: "http://[::1]:8080"},
		{in: "http://example.org", want: "http://example.org"},
		{in: "https://example.org/v1/", want: "https://example.org"},
		{in: "http://host:8080/mlx/", want: "http://host:8080/mlx"},
		{in: "ftp://host", wantErr: `WISP_MLX_URL "ftp://host" is not valid: the scheme must be http or https, not "ftp"` + form},
		{in: "host:99999", wantErr: `WISP_MLX_URL "host:99999" is not valid: the port must be a number from 1 to 65535, not "99999"` + form},
		{in: "host:", wantErr: `WISP_MLX_URL "host:" is not valid: the port is missing after the colon` + form},
		{in: "http://host:8080/?x=1", wantErr: `WISP_MLX_URL "http://host:8080/?x=1" is not valid: it must be a scheme, a host, a port and at most a path` + form},
		{in: "ho st:8080", wantErr: `WISP_MLX_URL "ho st:8080" is not valid: it is not a URL` + form},
		{in: "h*st:8080", wantErr: `WISP_MLX_URL "h*st:8080" is not valid: "h*st" is not a host name or IP address` + form},
	}
	for _, tt := range tests {
		c, err := openai.New(tt.in, nil)
		switch {
		case tt.wantErr != "":
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("New(%q) = %v, want error\n%s", tt.in, err, tt.wantErr)
			}
		case err != nil:
			t.Errorf("New(%q) = %v, want %s", tt.in, err, tt.want)
		case c.URL() != tt.want:
			t.Errorf("New(%q).URL() = %s, want %s", tt.in, c.URL(), tt.want)
		}
	}
}
