package openai

import (
	"errors"
	"fmt"
	"io"
)

// The fixed endings of this package's error lines: what to do next.
const (
	mendStart  = `start it with "mlx_lm.server --model PATH", or set WISP_MLX_URL`
	mendLog    = "see the mlx_lm.server log"
	mendURL    = "check that WISP_MLX_URL points at mlx_lm.server"
	mendKey    = "check the API key the server expects"
	mendTokens = "raise Options.MaxTokens (mlx_lm.server's own default is 512 tokens)"
	// urlForm is the end of every URL error: what a good value looks like.
	urlForm = `WISP_MLX_URL looks like "http://127.0.0.1:8080", "127.0.0.1:8080" or "https://example.org/v1"`
)

// ErrUnreachable: nothing answered at the server's URL. The server is not
// running there, or WISP_MLX_URL points somewhere else. The error that
// wraps it says which URL and why, on one line.
var ErrUnreachable = errors.New("the MLX server is not answering")

// ErrIncomplete: an answer ended before the server said it was finished
// (a finish_reason or "data: [DONE]"). Chat returns no part of such an
// answer.
var ErrIncomplete = errors.New("the answer ended before it was finished")

// ErrTokenLimit: the model stopped because it reached the token limit
// (finish_reason "length"), so its answer is cut short. Chat returns the
// part it got with this error.
var ErrTokenLimit = errors.New("the answer reached the token limit")

// A StatusError is an HTTP answer of status 400 or above. Errors that
// carry one wrap it, so callers can read it with errors.As.
type StatusError struct {
	StatusCode int
	// Message is the server's error message on one line: the "error"
	// string (mlx_lm.server) or "error.message" (OpenAI) of a JSON body,
	// or the body itself.
	Message string
}

// Error returns "HTTP 500: message".
func (e *StatusError) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("HTTP %d", e.StatusCode)
	}
	return fmt.Sprintf("HTTP %d: %s", e.StatusCode, e.Message)
}

// unreachableError is ErrUnreachable with the URL, a short reason and the
// transport's error.
type unreachableError struct {
	base   string
	reason string
	err    error
}

func (e *unreachableError) Error() string {
	return fmt.Sprintf("the MLX server is not answering at %s (%s); %s", e.base, e.reason, mendStart)
}

func (e *unreachableError) Unwrap() []error { return []error{ErrUnreachable, e.err} }

// closedEarly reports whether err means the server took the connection
// and closed it without an answer, as mlx_lm.server does when a request
// handler raises.
func closedEarly(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}
