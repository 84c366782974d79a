//go:build !linux

package terminal

import "os"

// ttyName names the terminal f is, as far as this system tells: the name
// it was opened by.
func ttyName(f *os.File) string { return f.Name() }
