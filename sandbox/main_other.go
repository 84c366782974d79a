//go:build !unix

package sandbox

import (
	"context"
	"errors"
)

// Main does nothing here: commands do not run on this system.
func Main() {}

// Probe reports that this system has no sandbox.
func Probe(ctx context.Context) Support {
	return Support{Reason: "commands run only on Linux and macOS"}
}

// Run refuses: commands run only on Unix systems.
func (r *Runner) Run(ctx context.Context, c Command) (*Result, error) {
	return nil, errors.New("running commands needs a Unix system")
}
