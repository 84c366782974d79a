package hf

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/wisp-agent/wisp/internal/neterr"
)

// Errors the client's refusals wrap, for callers to branch on with
// errors.Is. The error that wraps one is a single line that says what is
// wrong and how to mend it; the sentinel's own text is not part of it.
var (
	// ErrBadRepo: the name given is not a repository name,
	// ORGANISATION/NAME.
	ErrBadRepo = errors.New("not a repository name")
	// ErrNotFound: the Hub has no such repository, no such file at the
	// commit, or has disabled the repository.
	ErrNotFound = errors.New("no such repository")
	// ErrPrivate: the repository is private, or does not exist, and the
	// token (or the lack of one) cannot read it.
	ErrPrivate = errors.New("private repository")
	// ErrGated: the repository is gated and its files need a token whose
	// account has accepted its terms.
	ErrGated = errors.New("gated repository")
	// ErrBadToken: the Hub refused the token as invalid.
	ErrBadToken = errors.New("invalid token")
	// ErrNotMLX: the repository has no MLX weights, model*.safetensors
	// with config.json.
	ErrNotMLX = errors.New("no MLX weights")
	// ErrUnsafePath: the repository lists a file whose path could leave
	// the snapshot folder or collide with another; the whole repository
	// is refused.
	ErrUnsafePath = errors.New("unsafe file path")
	// ErrBadListing: the Hub's listing of the repository, or its answer
	// for a file, is malformed: a commit, digest or size that is not one.
	ErrBadListing = errors.New("malformed listing")
)

// refusal is an error with its own one-line text that wraps a sentinel
// and, when there is one, the error behind it.
type refusal struct {
	msg  string
	kind error
	err  error
}

func (e *refusal) Error() string { return e.msg }

func (e *refusal) Unwrap() []error {
	if e.err == nil {
		return []error{e.kind}
	}
	return []error{e.kind, e.err}
}

// refuse returns a refusal of kind with the text format makes of args.
func refuse(kind error, format string, args ...any) error {
	return &refusal{msg: fmt.Sprintf(format, args...), kind: kind}
}

// explain returns err with the one-line text format makes of args in
// place of its own, which names URLs and layers a person need not read.
func explain(err error, format string, args ...any) error {
	return &refusal{msg: fmt.Sprintf(format, args...), kind: err}
}

// reason names, in a few words, why a request got no answer.
func reason(err error) string { return clean(neterr.Reason(err), 200) }

// status names an HTTP status by its code and standard text, never the
// server's own words.
func status(code int) string {
	if t := http.StatusText(code); t != "" {
		return fmt.Sprintf("%d %s", code, t)
	}
	return fmt.Sprint(code)
}

// clean makes text from the Hub safe to show a person on one line: it
// drops control and formatting characters (which could move a terminal's
// cursor or reorder what it shows, such as bidirectional overrides; the
// zero-width joiner of emoji stays) and invalid UTF-8, folds
// runs of spaces to one, and cuts it to at most n runes, ending in "…"
// when cut.
func clean(s string, n int) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case r == utf8.RuneError, unicode.Is(unicode.Cf, r) && r != '\u200d':
			continue
		case unicode.IsSpace(r) || unicode.IsControl(r):
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	s = b.String()
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}
