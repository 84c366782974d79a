//go:build !(aix || darwin || dragonfly || freebsd || linux || netbsd || openbsd || solaris || zos)

package terminal

import "io"

// newSource reads r through a goroutine: here no read can be stopped.
func newSource(r io.Reader) source { return newReaderSource(r) }
