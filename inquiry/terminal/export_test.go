package terminal

// Test-only access to the rough times of lists and headings.
var (
	Ago     = ago
	FromNow = fromNow
)
