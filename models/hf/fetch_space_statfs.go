//go:build linux || darwin || freebsd

package hf

import "golang.org/x/sys/unix"

// freeSpace returns the bytes available to this user on the file system
// holding dir; ok is false when the system does not say.
func freeSpace(dir string) (free int64, ok bool) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, false
	}
	avail, bsize := int64(st.Bavail), int64(st.Bsize)
	if avail < 0 || bsize <= 0 {
		return 0, false
	}
	if avail > (1<<63-1)/bsize {
		return 1<<63 - 1, true
	}
	return avail * bsize, true
}
