package threadfile

import "testing"

// SetMaxFile lowers the most a thread file holds for the length of t.
func SetMaxFile(t testing.TB, n int) {
	old := maxFile
	maxFile = n
	t.Cleanup(func() { maxFile = old })
}
