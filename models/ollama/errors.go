package ollama

import (
	"errors"
	"fmt"
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
