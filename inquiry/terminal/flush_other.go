//go:build !linux

package terminal

import "os"

// flushQueue drops what was typed at the terminal f but not yet read.
// Here it does nothing: only the line the Input holds is dropped (see
// Input.Discard).
func flushQueue(*os.File) {}
