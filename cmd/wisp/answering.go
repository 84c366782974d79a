package main

import (
	"errors"

	"github.com/wisp-agent/wisp/inquiry/terminal"
	"github.com/wisp-agent/wisp/internal/cmdline"
)

// answerErr returns err, as a usage error when it refuses an answer
// where no person sits at a terminal.
func answerErr(err error) error {
	var nt *terminal.NoTerminalError
	if errors.As(err, &nt) {
		return &cmdline.UsageError{Err: err}
	}
	return err
}
