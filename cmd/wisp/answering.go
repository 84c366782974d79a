package main

import (
	"errors"

	"github.com/wisp-agent/wisp/audit"
	"github.com/wisp-agent/wisp/home"
	"github.com/wisp-agent/wisp/inquiry/terminal"
)

// What wisp questions and wisp approvals share: each lists what wisp mcp
// filed for a person, and lets that person, and only a person at a
// terminal, answer one.

// openAnswerLog opens the audit log of h for a process that files a
// person's answer: credentials in a record are redacted, and the answer
// waits for the disk, as it does in a conversation.
func openAnswerLog(h *home.Home) (*audit.Log, error) {
	return h.OpenAudit(&audit.Options{Sync: audit.SyncDecisions})
}

// answerErr returns err, as a usage error when it refuses an answer
// where no person sits at a terminal.
func answerErr(err error) error {
	var nt *terminal.NoTerminalError
	if errors.As(err, &nt) {
		return usageError{err}
	}
	return err
}
