//go:build unix

package standing

import (
	"os"
	"syscall"
)

// identity returns the device and inode of the folder at path, following
// links; ok is false when it cannot be had.
func identity(path string) (dev, ino uint64, ok bool) {
	fi, err := os.Stat(path)
	if err != nil || !fi.IsDir() {
		return 0, 0, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return uint64(st.Dev), uint64(st.Ino), true //nolint:unconvert // the field types differ across systems
}
