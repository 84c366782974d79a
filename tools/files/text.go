package files

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"unicode/utf8"
)

// readAll reads r to its end, failing past limit bytes.
func readAll(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err == nil && int64(len(data)) > limit {
		err = errTooLarge
	}
	return data, err
}

var errTooLarge = errors.New("too large")

// readLine reads one line from br, without its "\n", keeping at most
// keep bytes of it; long reports that it had more. ok is false at the
// end of the input.
func readLine(br *bufio.Reader, keep int) (line string, long, ok bool, err error) {
	var b []byte
	total := 0
	for {
		chunk, err := br.ReadSlice('\n')
		total += len(chunk)
		if room := keep - len(b); room > 0 {
			b = append(b, chunk[:min(len(chunk), room)]...)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil && !errors.Is(err, io.EOF):
			return "", false, false, err
		case total == 0:
			return "", false, false, nil
		}
		content := total
		if err == nil { // ended by "\n"
			content--
		}
		b = b[:min(len(b), content)]
		return string(b), content > len(b), true, nil
	}
}

// cutLine cuts a line the model reads to at most max bytes, never inside
// a redaction marker or a UTF-8 sequence; cut reports whether anything
// was left out.
func cutLine(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	at := max
	if i := strings.LastIndex(s[:at], markerPrefix); i >= 0 {
		if j := strings.IndexByte(s[i:], ']'); j >= 0 && i+j+1 > at {
			at = i + j + 1
		}
	}
	for at < len(s) && at > 0 && !utf8.RuneStart(s[at]) {
		at--
	}
	return s[:at], at < len(s)
}

// markerPrefix starts every redaction marker ("[REDACTED:github-pat#1]").
const markerPrefix = "[REDACTED:"
