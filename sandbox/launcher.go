//go:build unix

package sandbox

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Main makes the program a sandbox launcher when [Runner.Run] started it
// as one, and returns at once otherwise. Every program that runs commands
// through this package calls it first thing in main (and a test binary in
// TestMain): the launcher sets up the sandbox and replaces itself with the
// command, so when Main does not return the program never runs its own
// code.
func Main() {
	if !isLauncher() {
		return
	}
	// Straight out: nothing of the program's own runs at exit.
	syscall.Exit(launch())
}

// isLauncher reports whether this process was started as a launcher.
func isLauncher() bool {
	return len(os.Args) == 2 && os.Args[1] == launcherArg
}

// launch reads the spec, confines the process and execs the command. It
// returns only on failure, or after a probe, with the exit status.
func launch() int {
	status := os.NewFile(4, "status")
	if status == nil {
		return 127
	}
	// The status pipe closes at exec: nothing after "R" means it ran.
	unix.CloseOnExec(4)
	fail := func(err error) int {
		msg := strings.ReplaceAll(err.Error(), "\n", " ")
		status.Write([]byte(string(statusError) + msg))
		return 127
	}
	in := os.NewFile(3, "spec")
	if in == nil {
		return fail(fmt.Errorf("no spec on fd 3"))
	}
	raw, err := io.ReadAll(io.LimitReader(in, 4<<20))
	in.Close()
	if err != nil {
		return fail(fmt.Errorf("reading the spec: %w", err))
	}
	var sp spec
	if err := json.Unmarshal(raw, &sp); err != nil {
		return fail(fmt.Errorf("reading the spec: %w", err))
	}
	if _, err := status.Write([]byte{statusReady}); err != nil {
		return 127
	}
	rep, err := confine(&sp)
	if err != nil {
		return fail(err)
	}
	if sp.Probe {
		b, _ := json.Marshal(rep)
		status.Write(append([]byte{statusProbe}, b...))
		return 0
	}
	if err := finish(&sp); err != nil {
		return fail(err)
	}
	err = syscall.Exec(sp.Argv[0], sp.Argv, sp.Env)
	return fail(fmt.Errorf("starting %s: %w", sp.Argv[0], err))
}

// setLimits sets the resource limits every command runs under, but the
// process count, which finish sets last.
func setLimits(sp *spec) error {
	for _, l := range []struct {
		name     string
		resource int
		value    uint64
	}{
		{"core dump size", unix.RLIMIT_CORE, 0},
		{"file size", unix.RLIMIT_FSIZE, uint64(sp.FileSize)},
		{"open files", unix.RLIMIT_NOFILE, uint64(sp.OpenFiles)},
	} {
		var cur unix.Rlimit
		if err := unix.Getrlimit(l.resource, &cur); err != nil {
			return fmt.Errorf("reading the %s limit: %w", l.name, err)
		}
		cur.Cur, cur.Max = lower(cur.Max, l.value), lower(cur.Max, l.value)
		if err := unix.Setrlimit(l.resource, &cur); err != nil {
			return fmt.Errorf("setting the %s limit: %w", l.name, err)
		}
	}
	return nil
}

// lower returns the smaller of a limit as the system types it (uint64 on
// some systems, int64 on others) and v.
func lower[T uint64 | int64](limit T, v uint64) T {
	if T(v) < limit || limit < 0 {
		return T(v)
	}
	return limit
}
