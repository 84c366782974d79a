package mcpserver

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/wisp-agent/wisp/internal/fsx"
)

// ErrBadTokenFile reports a token file TokenFile refuses: another user's,
// readable or writable by others, not a regular file, or holding no
// usable token.
var ErrBadTokenFile = errors.New("bad token file")

// Bounds of a token in a token file.
const (
	// MinTokenLength is the fewest characters a token may have.
	MinTokenLength = 32
	// maxTokenFileBytes bounds what TokenFile reads.
	maxTokenFileBytes = 4096
)

// TokenFile returns the bearer token kept in the file at path, for
// Options.Token. When there is no file, it makes one: a new random token
// (256 bits, base64url) written to a temp file of mode 0600 beside path,
// synced, and then linked to path only if path is still free, so a crash
// never leaves a partial token file and two servers starting at once
// share one token.
//
// The file must be a regular file (never followed as a link), belong to
// the current user, and be neither readable nor writable by group or
// others; it must hold one token of at least MinTokenLength characters
// from the base64 and base64url alphabets (and -._~), a trailing newline
// aside. Anything else is refused with one line that says how to mend it
// and wraps ErrBadTokenFile. The folder must exist.
func TokenFile(path string) (string, error) {
	token, err := readToken(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return token, err
	}
	token, err = newToken()
	if err != nil {
		return "", err
	}
	if err := createToken(path, token); errors.Is(err, fs.ErrExist) {
		return readToken(path)
	} else if err != nil {
		return "", fmt.Errorf("cannot create the token file %s: %w", fsx.QuotePath(path), err)
	}
	return token, nil
}

// readToken reads and checks the token file at path; a missing file
// gives an error that matches fs.ErrNotExist.
func readToken(path string) (string, error) {
	q := fsx.QuotePath(path)
	f, err := os.OpenFile(path, os.O_RDONLY|fsx.OpenNoFollow, 0)
	if err != nil {
		if fi, lerr := os.Lstat(path); lerr == nil && !fi.Mode().IsRegular() {
			return "", badToken("token file %s is not a regular file (a link, a folder or a device); remove it (rm %s) and wisp mcp makes a new one", q, q)
		}
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", badToken("token file %s is not a regular file; remove it (rm %s) and wisp mcp makes a new one", q, q)
	}
	if uid, ok := fsx.Owner(fi); ok {
		if me, _ := fsx.CurrentUID(); uid != me {
			return "", badToken("token file %s belongs to uid %d, not to you (uid %d); remove it (rm %s) and wisp mcp makes a new one", q, uid, me, q)
		}
		if fi.Mode().Perm()&0o077 != 0 {
			return "", badToken("token file %s can be read or written by others (mode %04o), so others may know its token; remove it (rm %s) and wisp mcp makes a new one, or write a new token into it and run chmod 600 %s", q, fi.Mode().Perm(), q, q)
		}
	}
	data, err := io.ReadAll(io.LimitReader(f, maxTokenFileBytes+1))
	if err != nil {
		return "", err
	}
	token := strings.TrimRight(string(data), "\r\n")
	if len(data) > maxTokenFileBytes || !validToken(token) {
		return "", badToken("token file %s holds no token (one line of %d or more letters, digits and -._~+/=); remove it (rm %s) and wisp mcp makes a new one", q, MinTokenLength, q)
	}
	return token, nil
}

// validToken reports whether t is a token TokenFile takes: a bearer
// token's characters (RFC 6750's b64token) and no fewer than
// MinTokenLength of them.
func validToken(t string) bool {
	if len(t) < MinTokenLength {
		return false
	}
	body := strings.TrimRight(t, "=")
	if body == "" {
		return false
	}
	for _, c := range body {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9',
			c == '-', c == '.', c == '_', c == '~', c == '+', c == '/':
		default:
			return false
		}
	}
	return true
}

// newToken returns 256 random bits, base64url without padding.
func newToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// createToken writes token to a new file at path, whole or not at all;
// an error that matches fs.ErrExist means path is taken.
func createToken(path, token string) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := io.WriteString(f, token+"\n"); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Link(tmp, path); err != nil {
		return err
	}
	return fsx.SyncDir(dir)
}

// badToken is a refusal of a token file: one line for the person, which
// wraps ErrBadTokenFile.
func badToken(format string, a ...any) error {
	return &tokenFileError{fmt.Sprintf(format, a...)}
}

type tokenFileError struct{ msg string }

func (e *tokenFileError) Error() string { return e.msg }
func (e *tokenFileError) Unwrap() error { return ErrBadTokenFile }
