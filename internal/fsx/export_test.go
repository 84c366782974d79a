package fsx

// Test-only access to internals.
var (
	WriteFileWith   = writeFile
	WriteFileInWith = writeFileIn
	LookupDirs      = lookupDirs
)
