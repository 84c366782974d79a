package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// selfExe is the launcher's binary: this one, even if it has been replaced
// on disk since it started.
func selfExe() (string, error) { return "/proc/self/exe", nil }

// commandArgv sets what the launcher execs: the shell, with TMPDIR set to
// the private temp folder (mounted on /tmp when confined).
func commandArgv(sp *spec, line string, env []string) error {
	sp.Argv = []string{"/bin/sh", "-c", line}
	tmp := sp.Temp
	if sp.Confine {
		tmp = "/tmp"
	}
	sp.Env = withEnv(env, "TMPDIR", tmp)
	return nil
}

// Probe reports what confinement this machine gives, by starting a
// launcher that sets up the whole sandbox (namespaces, mounts, Landlock)
// and exits. It takes a few milliseconds; a [Runner] probes once.
func Probe(ctx context.Context) Support {
	if isLauncher() {
		return Support{Reason: "this program was started as a sandbox launcher but did not call sandbox.Main"}
	}
	dir, err := os.MkdirTemp("", "wisp-probe-")
	if err != nil {
		return Support{Reason: fmt.Sprintf("making a temp folder to probe in: %v", err)}
	}
	defer removeAll(dir)
	paths := map[string]string{}
	for _, n := range []string{"workspace", "home", "tmp"} {
		paths[n] = dir + "/" + n
		if err := os.Mkdir(paths[n], 0o700); err != nil {
			return Support{Reason: fmt.Sprintf("making a temp folder to probe in: %v", err)}
		}
	}
	sp := &spec{
		Probe:     true,
		Confine:   true,
		Mode:      WorkspaceWrite,
		Argv:      []string{"/bin/sh"},
		Dir:       paths["workspace"],
		Workspace: paths["workspace"],
		Temp:      paths["tmp"],
		Hide:      []string{paths["home"]},
		Processes: DefaultProcesses,
		FileSize:  DefaultFileSize,
		OpenFiles: DefaultOpenFiles,
	}
	o, err := execute(ctx, sp, runOptions{timeout: 30 * time.Second, grace: time.Second, output: 4 << 10})
	if err != nil {
		return Support{Reason: fmt.Sprintf("no Linux sandbox: %v", err)}
	}
	var rep probeReport
	if err := json.Unmarshal(o.probe, &rep); err != nil || o.exitCode != 0 {
		return Support{Reason: fmt.Sprintf("no Linux sandbox: the probe ended with status %d: %s", o.exitCode, o.stderr.String())}
	}
	s := Support{Confined: true, Method: "landlock+namespaces", LandlockABI: rep.LandlockABI, Weaknesses: rep.Weaknesses}
	if os.Geteuid() == 0 && !pidsCgroupWorks() {
		s.Weaknesses = append(s.Weaknesses, "running as root without a pids cgroup: the number of processes is bounded only by the timeout")
	}
	if rep.LandlockABI < 9 {
		s.Weaknesses = append(s.Weaknesses, fmt.Sprintf("Landlock ABI %d: Unix sockets outside the hidden folders stay reachable", rep.LandlockABI))
	}
	return s
}
