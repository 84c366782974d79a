package fsx

// Test-only access to internals.
var (
	WriteFileWith = writeFile
	LookupDirs    = lookupDirs
)
