package config

// Test-only access to the file's encoding without touching the disk.
var (
	Encode = encode
	Decode = decode
)
