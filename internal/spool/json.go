package spool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
	"unicode/utf8"
)

// EncodeJSON writes v as JSON indented by two spaces with a final
// newline, leaving <, > and & as they are so the files read well.
func EncodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// DecodeJSON reads exactly one JSON value into v, refusing unknown keys
// and anything after the value.
func DecodeJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("not the JSON wisp writes (%v)", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("not the JSON wisp writes (data after the object)")
	}
	return nil
}

// CheckVersion refuses a file whose format version, got, is not want.
func CheckVersion(got, want int) error {
	if got != want {
		return fmt.Errorf("version %d; this wisp reads version %d", got, want)
	}
	return nil
}

// InRange reports whether t falls in the years 1 to 9999 in UTC, which
// RFC 3339 can write.
func InRange(t time.Time) bool {
	y := t.UTC().Year()
	return y >= 1 && y <= 9999
}

// CheckTimes checks a record's times: asked is set, and asked and
// deadline (zero: none) are InRange.
func CheckTimes(asked, deadline time.Time) error {
	if asked.IsZero() || !InRange(asked) {
		return errors.New("no time asked, or one before year 1 or after 9999")
	}
	if !deadline.IsZero() && !InRange(deadline) {
		return errors.New("deadline before year 1 or after 9999")
	}
	return nil
}

// CheckLine checks that s is one line of UTF-8, 1 to max bytes, without
// control characters (C0, DEL, C1, and the line and paragraph
// separators). what names s in the error: "the reason for withdrawing".
func CheckLine(what, s string, max int) error {
	if s == "" || len(s) > max || !utf8.ValidString(s) {
		return fmt.Errorf("%s must be 1 to %d bytes of UTF-8", what, max)
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == 0x2028 || r == 0x2029 {
			return fmt.Errorf("%s must be one line without control characters", what)
		}
	}
	return nil
}
