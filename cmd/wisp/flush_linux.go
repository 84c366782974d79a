package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// flushInput drops what was typed at the terminal but not yet read, so keys
// pressed before an approval prompt appeared cannot answer it.
func flushInput(f *os.File) {
	_ = unix.IoctlSetInt(int(f.Fd()), unix.TCFLSH, unix.TCIFLUSH)
}
