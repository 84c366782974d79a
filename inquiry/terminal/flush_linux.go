package terminal

import (
	"os"

	"golang.org/x/sys/unix"
)

// flushQueue drops what was typed at the terminal f but not yet read.
func flushQueue(f *os.File) {
	_ = unix.IoctlSetInt(int(f.Fd()), unix.TCFLSH, unix.TCIFLUSH)
}
