//go:build unix && !linux && !darwin

package sandbox

import "context"

// commandArgv sets what the launcher execs: the shell, unconfined.
func commandArgv(sp *spec, line string, env []string) error {
	sp.Argv = []string{"/bin/sh", "-c", line}
	sp.Env = withEnv(env, "TMPDIR", sp.Temp)
	return nil
}

// Probe reports that this system has no sandbox: commands run only in mode
// off.
func Probe(ctx context.Context) Support {
	return Support{Reason: "wisp has no sandbox for this system (only Linux and macOS)"}
}
