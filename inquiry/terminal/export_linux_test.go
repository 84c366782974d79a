package terminal_test

import (
	"os"

	"golang.org/x/sys/unix"
)

// inputWaiting returns how many bytes the terminal f holds unread.
func inputWaiting(f *os.File) (int, error) {
	return unix.IoctlGetInt(int(f.Fd()), unix.TIOCINQ)
}
