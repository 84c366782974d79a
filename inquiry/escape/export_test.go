package escape

// EscapedLen exposes escapedLen, which sizes Terminal's single allocation,
// so that tests can check it is exact.
func EscapedLen(s string) int { return escapedLen(s) }
