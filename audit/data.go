package audit

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/wisp-agent/wisp/internal/jsonredact"
)

// encodeData marshals v as the data of a record: a JSON object on one line,
// with HTML escaping off, and every string in it passed through redact when
// redact is not nil: object keys, object values and array items. Keys that
// redaction makes equal are kept apart (jsonredact.Keys). nil, and values
// that marshal to null, give {}.
func encodeData(v any, redact func(string) string) (json.RawMessage, error) {
	if v == nil {
		return json.RawMessage("{}"), nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("%w: data: %v", ErrInvalidEntry, err)
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	switch {
	case string(b) == "null":
		return json.RawMessage("{}"), nil
	case len(b) == 0 || b[0] != '{':
		return nil, fmt.Errorf("%w: data must be a JSON object, not %.20s", ErrInvalidEntry, b)
	case redact == nil:
		return json.RawMessage(b), nil
	}
	out, err := jsonredact.Strings(b, redact)
	if err != nil {
		// encoding/json wrote b, so it parses; this is a bug, not bad input.
		return nil, fmt.Errorf("audit: re-reading data for redaction: %w", err)
	}
	return json.RawMessage(out), nil
}
