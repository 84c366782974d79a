//go:build !(aix || darwin || dragonfly || freebsd || linux || netbsd || openbsd || solaris || zos)

package terminal

import (
	"errors"
	"os"
)

// hideEcho is not supported here: the face does not read secrets unless
// Options.HideEcho says how.
func hideEcho(*os.File) (restore func(), err error) { return nil, errors.ErrUnsupported }
