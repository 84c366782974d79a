//go:build !linux

package main

import "os"

// flushInput drops what was typed at the terminal but not yet read. Here
// only the line wisp holds is dropped (see terminal.Input.Discard).
func flushInput(f *os.File) {}
