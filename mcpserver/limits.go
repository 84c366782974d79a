package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync"
)

// boundedLines passes on the lines of r, and reads past a line longer
// than max bytes (its newline aside) without holding more than max+1
// bytes of it, calling tooLong with the request id found at its start.
// Read is for one goroutine at a time.
type boundedLines struct {
	r       *bufio.Reader
	tooLong func(id json.RawMessage)
	line    []byte // what is left of the line being passed on
	err     error  // returned once line is passed on
}

func newBoundedLines(r io.Reader, max int64, tooLong func(id json.RawMessage)) *boundedLines {
	return &boundedLines{r: bufio.NewReaderSize(r, int(max)+1), tooLong: tooLong}
}

func (b *boundedLines) Read(p []byte) (int, error) {
	for len(b.line) == 0 {
		if b.err != nil {
			return 0, b.err
		}
		line, err := b.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			id := requestID(line)
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = b.r.ReadSlice('\n')
			}
			b.tooLong(id)
			b.err = err
			continue
		}
		// line stays valid until the next ReadSlice, which waits until
		// it is passed on.
		b.line, b.err = line, err
	}
	n := copy(p, b.line)
	b.line = b.line[n:]
	return n, nil
}

// wholeWriter writes each message with one Write under a lock, so the
// refusals boundedLines makes never split a message mcp-go writes (it
// writes each with one Write too).
type wholeWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (w *wholeWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

// writeMessage writes v as one JSON line.
func (w *wholeWriter) writeMessage(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// requestID returns the id of the JSON-RPC request that prefix begins,
// when a member "id" holding a string or a number comes whole within
// prefix before any member it cannot read; otherwise nil. Clients put
// the id before the params, so a message cut short still has it.
func requestID(prefix []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil
		}
		if t != "id" {
			continue
		}
		// A number that reaches the end of prefix may have been cut.
		if c := v[0]; c == '"' || ((c == '-' || c >= '0' && c <= '9') && dec.InputOffset() < int64(len(prefix))) {
			return v
		}
		return nil
	}
	return nil
}
