//go:build unix

package mcpserver_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp/mcpserver"
)

func TestTokenFileCreates(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp-token")
	token, err := mcpserver.TokenFile(path)
	if err != nil {
		t.Fatalf("TokenFile(new) = %v", err)
	}
	if len(token) < mcpserver.MinTokenLength || strings.Trim(token, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
		t.Errorf("TokenFile(new) = %q, want %d or more base64url characters", token, mcpserver.MinTokenLength)
	}
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode() != 0o600 {
		t.Errorf("token file mode = %v under umask 0, want -rw-------", fi.Mode())
	}
	if data, _ := os.ReadFile(path); string(data) != token+"\n" {
		t.Errorf("token file holds %q, want %q", data, token+"\n")
	}
	again, err := mcpserver.TokenFile(path)
	if err != nil || again != token {
		t.Errorf("TokenFile(existing) = %q, %v; want the same token %q", again, err, token)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("the folder holds %q, want only mcp-token", names)
	}
	other, err := mcpserver.TokenFile(filepath.Join(dir, "other-token"))
	if err != nil || other == token {
		t.Errorf("TokenFile(another new file) = %q, %v; want a new token", other, err)
	}
}

// Servers that start at once share one token: the file is never
// replaced once made.
func TestTokenFileAtOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp-token")
	tokens := make([]string, 8)
	var wg sync.WaitGroup
	for i := range tokens {
		wg.Go(func() {
			tok, err := mcpserver.TokenFile(path)
			if err != nil {
				t.Errorf("TokenFile: %v", err)
			}
			tokens[i] = tok
		})
	}
	wg.Wait()
	for _, tok := range tokens {
		if tok != tokens[0] {
			t.Fatalf("servers starting at once got tokens %q; want one token", tokens)
		}
	}
}

func TestTokenFileTakesYours(t *testing.T) {
	const token = "abcdefghijklmnopqrstuvwxyz0123456789+/=="
	for _, content := range []string{token, token + "\n", token + "\r\n"} {
		path := filepath.Join(t.TempDir(), "mcp-token")
		if err := os.WriteFile(path, []byte(content), 0o400); err != nil {
			t.Fatal(err)
		}
		if got, err := mcpserver.TokenFile(path); err != nil || got != token {
			t.Errorf("TokenFile(%q) = %q, %v; want %q", content, got, err, token)
		}
	}
}

func TestTokenFileRefuses(t *testing.T) {
	good := strings.Repeat("k", 40) + "\n"
	tests := []struct {
		name  string
		root  bool // needs root
		setup func(t *testing.T, path string)
		want  string // the error, with PATH for the file's path
	}{
		{name: "readable by group", setup: writeToken(good, 0o640),
			want: "token file PATH can be read or written by others (mode 0640), so others may know its token; remove it (rm PATH) and wisp mcp makes a new one, or write a new token into it and run chmod 600 PATH"},
		{name: "readable by others", setup: writeToken(good, 0o604),
			want: "token file PATH can be read or written by others (mode 0604), so others may know its token; remove it (rm PATH) and wisp mcp makes a new one, or write a new token into it and run chmod 600 PATH"},
		{name: "writable by group", setup: writeToken(good, 0o620),
			want: "token file PATH can be read or written by others (mode 0620), so others may know its token; remove it (rm PATH) and wisp mcp makes a new one, or write a new token into it and run chmod 600 PATH"},
		{name: "another user's", root: true, setup: func(t *testing.T, path string) {
			writeToken(good, 0o600)(t, path)
			if err := os.Chown(path, 4242, 4242); err != nil {
				t.Fatal(err)
			}
		}, want: "token file PATH belongs to uid 4242, not to you (uid 0); remove it (rm PATH) and wisp mcp makes a new one"},
		{name: "a link", setup: func(t *testing.T, path string) {
			target := filepath.Join(filepath.Dir(path), "elsewhere")
			writeToken(good, 0o600)(t, target)
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
		}, want: "token file PATH is not a regular file (a link, a folder or a device); remove it (rm PATH) and wisp mcp makes a new one"},
		{name: "a folder", setup: func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
		}, want: "token file PATH is not a regular file; remove it (rm PATH) and wisp mcp makes a new one"},
		{name: "empty", setup: writeToken("", 0o600),
			want: "token file PATH holds no token (one line of 32 or more letters, digits and -._~+/=); remove it (rm PATH) and wisp mcp makes a new one"},
		{name: "short", setup: writeToken("hunter2\n", 0o600),
			want: "token file PATH holds no token (one line of 32 or more letters, digits and -._~+/=); remove it (rm PATH) and wisp mcp makes a new one"},
		{name: "two lines", setup: writeToken(good+good, 0o600),
			want: "token file PATH holds no token (one line of 32 or more letters, digits and -._~+/=); remove it (rm PATH) and wisp mcp makes a new one"},
		{name: "a space", setup: writeToken(strings.Repeat("k", 20)+" "+strings.Repeat("k", 20), 0o600),
			want: "token file PATH holds no token (one line of 32 or more letters, digits and -._~+/=); remove it (rm PATH) and wisp mcp makes a new one"},
		{name: "too long", setup: writeToken(strings.Repeat("k", 5000), 0o600),
			want: "token file PATH holds no token (one line of 32 or more letters, digits and -._~+/=); remove it (rm PATH) and wisp mcp makes a new one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.root && os.Geteuid() != 0 {
				t.Skip("changing a file's owner needs root")
			}
			path := filepath.Join(t.TempDir(), "mcp-token")
			tt.setup(t, path)
			got, err := mcpserver.TokenFile(path)
			if !errors.Is(err, mcpserver.ErrBadTokenFile) {
				t.Fatalf("TokenFile = %q, %v; want ErrBadTokenFile", got, err)
			}
			if diff := cmp.Diff(strings.ReplaceAll(tt.want, "PATH", path), err.Error()); diff != "" {
				t.Errorf("TokenFile error (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTokenFileMissingFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "missing")
	if _, err := mcpserver.TokenFile(filepath.Join(dir, "mcp-token")); err == nil {
		t.Errorf("TokenFile in a missing folder = nil error, want one")
	}
	if _, err := os.Lstat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("TokenFile made the folder %s (%v)", dir, err)
	}
}

// writeToken writes content to the path with mode perm.
func writeToken(content string, perm os.FileMode) func(t *testing.T, path string) {
	return func(t *testing.T, path string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(content), perm); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, perm); err != nil {
			t.Fatal(err)
		}
	}
}
