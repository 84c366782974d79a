//go:build !unix

package fsx

import "io/fs"

// openNoFollow is empty where open(2) has no such flags.
const openNoFollow = 0

// syncDir is a no-op where folders cannot be opened to be synced.
func syncDir(string) error { return nil }

// ownerOf reports that the owner is unknown where there are no user ids.
func ownerOf(fs.FileInfo) (uid int, ok bool) { return 0, false }

// currentUID reports that there is no user id to compare with.
func currentUID() (int, bool) { return 0, false }
