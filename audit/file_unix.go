//go:build unix

package audit

import "golang.org/x/sys/unix"

// noFollow makes open(2) refuse a symbolic link as the last path element.
const noFollow = unix.O_NOFOLLOW
