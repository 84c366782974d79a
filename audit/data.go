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
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	out, err := redactValue(dec, make([]byte, 0, len(b)), redact)
	if err != nil {
		// encoding/json wrote b, so it parses; this is a bug, not bad input.
		return nil, fmt.Errorf("audit: re-reading data for redaction: %w", err)
	}
	return json.RawMessage(out), nil
}

// redactValue copies the next JSON value from dec to dst, compactly, with
// redact applied to each string, object keys included.
func redactValue(dec *json.Decoder, dst []byte, redact func(string) string) ([]byte, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		open, close := byte(t), byte('}')
		if t == '[' {
			close = ']'
		}
		dst = append(dst, open)
		var keys jsonredact.Keys
		if open == '{' {
			keys = jsonredact.Keys{}
		}
		for first := true; dec.More(); first = false {
			if !first {
				dst = append(dst, ',')
			}
			if open == '{' {
				key, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := key.(string)
				if !ok {
					return nil, fmt.Errorf("object key is %T", key)
				}
				dst = appendString(dst, keys.Unique(redact(k)))
				dst = append(dst, ':')
			}
			if dst, err = redactValue(dec, dst, redact); err != nil {
				return nil, err
			}
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		return append(dst, close), nil
	case string:
		return appendString(dst, redact(t)), nil
	case json.Number:
		return append(dst, t...), nil
	case bool:
		if t {
			return append(dst, "true"...), nil
		}
		return append(dst, "false"...), nil
	case nil:
		return append(dst, "null"...), nil
	}
	return nil, fmt.Errorf("unexpected token %T", tok)
}
