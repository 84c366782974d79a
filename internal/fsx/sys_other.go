//go:build !unix

package fsx

import (
	"io/fs"
	"os"
)

// OpenNoFollow is empty where open(2) has no such flags.
const OpenNoFollow = 0

// SyncDir is a no-op where folders cannot be opened to be synced.
func SyncDir(string) error { return nil }

// syncDirIn is a no-op where folders cannot be opened to be synced.
func syncDirIn(*os.Root, string) error { return nil }

// Owner reports that the owner is unknown where there are no user ids.
func Owner(fs.FileInfo) (uid int, ok bool) { return 0, false }

// CurrentUID reports that there is no user id to compare with.
func CurrentUID() (int, bool) { return 0, false }
