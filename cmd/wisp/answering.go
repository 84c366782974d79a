package main

import (
	"errors"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/audit"
	"github.com/wisp-agent/wisp/home"
	"github.com/wisp-agent/wisp/inquiry/terminal"
)

// What wisp questions and wisp approvals share: each lists what wisp mcp
// filed for a person, and lets that person, and only a person at a
// terminal, answer one.

// answerWitness returns what records the answer a person gives at the
// terminal that stdin and stdout are, before it is filed: the audit log
// (credentials redacted, the answer waiting for the disk, as in a
// conversation), in a session of its own; and what closes it. Away from
// a terminal, where every answer is refused, it opens nothing.
func answerWitness(h *home.Home, stdin, stdout any) (wisp.Witness, func() error, error) {
	if terminal.AtTerminal("", "", stdin, stdout) != nil {
		return nil, func() error { return nil }, nil
	}
	log, err := h.OpenAudit(&audit.Options{Sync: audit.SyncDecisions})
	if err != nil {
		return nil, nil, err
	}
	return audit.Witness{Log: log, Session: newID()}, log.Close, nil
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
