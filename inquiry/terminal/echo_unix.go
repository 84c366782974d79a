//go:build aix || darwin || dragonfly || freebsd || linux || netbsd || openbsd || solaris || zos

package terminal

import (
	"os"

	"golang.org/x/sys/unix"
)

// hideEcho turns the echo of the terminal f off, as term.ReadPassword does
// (echo off; lines, signals and CR-to-NL on), dropping input typed but not
// yet read, and returns the function that restores the terminal's state,
// dropping what was typed with the echo off and not read.
//
// It does not read: the Input reads the secret, and holds the terminal
// from before the echo goes off until after it is back on, so nothing
// else reads meanwhile. The line discipline echoes when keys arrive, not
// when they are read, so turning echo off here hides the line read next.
func hideEcho(f *os.File) (restore func(), err error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var old *unix.Termios
	cerr := rc.Control(func(fd uintptr) {
		old, err = unix.IoctlGetTermios(int(fd), ioctlReadTermios)
		if err != nil {
			return
		}
		t := *old
		t.Lflag &^= unix.ECHO
		t.Lflag |= unix.ICANON | unix.ISIG
		t.Iflag |= unix.ICRNL
		// The flushing variant (tcsetattr TCSAFLUSH) also drops keys typed
		// before: they were echoed, and must not become the secret.
		err = unix.IoctlSetTermios(int(fd), ioctlWriteTermiosFlush, &t)
	})
	if cerr != nil {
		return nil, cerr
	}
	if err != nil {
		return nil, err
	}
	return func() {
		_ = rc.Control(func(fd uintptr) {
			// Flushing again drops what was typed with the echo off and not
			// read as the secret (the rest of a pasted key, keys typed as
			// the deadline passed): it must not become the next message.
			_ = unix.IoctlSetTermios(int(fd), ioctlWriteTermiosFlush, old)
		})
	}, nil
}
