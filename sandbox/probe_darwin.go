package sandbox

import (
	"context"
	"os"
	"path/filepath"
)

// commandArgv sets what the launcher execs: the shell, under sandbox-exec
// with the policy's profile when confined.
func commandArgv(sp *spec, line string, env []string) error {
	if real, err := filepath.EvalSymlinks(sp.Temp); err == nil {
		sp.Temp = real
	}
	sp.Env = withEnv(env, "TMPDIR", sp.Temp)
	shell := []string{"/bin/sh", "-c", line}
	if !sp.Confine {
		sp.Argv = shell
		return nil
	}
	text, params := profile(sp)
	sp.Argv = []string{sandboxExec, "-p", text}
	for _, p := range params {
		sp.Argv = append(sp.Argv, "-D", p)
	}
	sp.Argv = append(sp.Argv, shell...)
	return nil
}

// Probe reports whether sandbox-exec is there to confine commands.
func Probe(ctx context.Context) Support {
	if _, err := os.Stat(sandboxExec); err != nil {
		return Support{Reason: "no macOS sandbox: " + sandboxExec + " is missing"}
	}
	return Support{
		Confined: true,
		Method:   "sandbox-exec",
		Weaknesses: []string{
			"no PID namespace: a process that leaves the command's group (setsid) can outlive it",
			"no process limit: the timeout is the only bound on a fork bomb",
		},
	}
}
