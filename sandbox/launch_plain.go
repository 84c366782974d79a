//go:build unix && !linux

package sandbox

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// launchAttr starts the launcher in a session of its own.
func launchAttr(sp *spec) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}

// selfExe is the launcher's binary: this one.
func selfExe() (string, error) { return os.Executable() }

// confine sets the limits and the working folder; the confinement itself,
// if any, is in the argv commandArgv built.
func confine(sp *spec) (probeReport, error) {
	if err := setLimits(sp); err != nil {
		return probeReport{}, err
	}
	if err := unix.Chdir(sp.Dir); err != nil {
		return probeReport{}, fmt.Errorf("entering %s: %w", sp.Dir, err)
	}
	return probeReport{}, nil
}

// finish has nothing left to do before exec.
func finish(sp *spec) error { return nil }

// newProcLimit has no cgroup to offer.
func newProcLimit(sp *spec) procLimit { return noLimit{} }
