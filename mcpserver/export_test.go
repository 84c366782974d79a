package mcpserver

import (
	"encoding/json"
	"io"
	"time"
)

// SetRetryKeep sets how long an ended turn waits for a retry it is owed.
func SetRetryKeep(s *Server, d time.Duration) { s.retryKeep = d }

// Runs counts the runs the server keeps.
func Runs(s *Server) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.runs)
}

// OpenDialogs counts the 2025-era dialogs the server holds open.
func OpenDialogs(s *Server) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.dialogs)
}

// RequestID is requestID.
var RequestID = requestID

// BoundedLines reads r as ServeStdio does, with lines of at most max
// bytes; tooLong gets the id of each line read past.
func BoundedLines(r io.Reader, max int64, tooLong func(id json.RawMessage)) io.Reader {
	return newBoundedLines(r, max, tooLong)
}
