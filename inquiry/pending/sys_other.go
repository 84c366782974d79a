//go:build !unix

package pending

import "io/fs"

// openNoFollow is empty where open(2) has no such flags; Lstat checks
// stand in for it.
const openNoFollow = 0

// syncDir is a no-op where folders cannot be opened to be synced.
func syncDir(string) error { return nil }

// owner reports that owners are unknown where there are no user ids.
func owner(fs.FileInfo) (uid, me int, ok bool) { return 0, 0, false }
