//go:build !unix

package hf

// syncFolder does nothing where folders cannot be opened to be synced.
func syncFolder(string) error { return nil }

// noFollow is empty where open(2) has no such flags.
const noFollow = 0
