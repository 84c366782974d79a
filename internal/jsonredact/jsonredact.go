// Package jsonredact applies a redactor to JSON: to every string in a
// document, object keys included, and to each string value in the light
// of its key, so that {"password": "hunter2"} is seen as the assignment it
// is, not as a key and a word apart.
//
// The redactor is a func(string) string, such as a secrets.Redactor's
// Redact; it must leave what it returns unchanged when given it again.
// The package reads nothing and prints nothing.
package jsonredact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Member returns value, the string value of the object key key, with
// redact applied to it both on its own and as the member `"key": "value"`,
// so that a value only a name shows to be secret is replaced too. Pass the
// key as it will be written, redacted already. In the rare case where what
// redact finds in the member cannot be told apart from the key, Member
// returns the whole redacted member as the value: it holds nothing redact
// would replace.
func Member(key, value string, redact func(string) string) string {
	v := redact(value)
	prefix := quote(key) + ": "
	member := prefix + quote(v)
	out := redact(member)
	if out == member {
		return v
	}
	if rest, ok := strings.CutPrefix(out, prefix); ok {
		var s string
		if json.Unmarshal([]byte(rest), &s) == nil {
			return s
		}
	}
	return out
}

// Keys keeps the keys of one JSON object unique once they are redacted:
// two credentials redacted to markers must not become one key, and a
// marker must not take the place of a key the object already has.
type Keys map[string]bool

// Unique returns key, or when the object has it already, key followed by
// " (2)", " (3)" and so on, the first that it has not; and notes it.
func (k Keys) Unique(key string) string {
	u := key
	for n := 2; k[u]; n++ {
		u = fmt.Sprintf("%s (%d)", key, n)
	}
	k[u] = true
	return u
}

// Redact returns the JSON document doc, compacted, with redact applied to
// every string in it: object keys (kept unique by [Keys]), string values
// of object keys (by [Member]) and the strings of arrays. Key order,
// numbers as written, and the other values are kept. A doc that is not
// one JSON value gives an error.
func Redact(doc []byte, redact func(string) string) ([]byte, error) {
	return walk(doc, redact, true)
}

// Strings is Redact without [Member]: each string, key or value, is
// passed through redact on its own.
func Strings(doc []byte, redact func(string) string) ([]byte, error) {
	return walk(doc, redact, false)
}

// walk is Redact's and Strings' work; members says whether a string value
// is redacted together with its key.
func walk(doc []byte, redact func(string) string, members bool) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	out, err := value(dec, make([]byte, 0, len(doc)), "", members, false, redact)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, fmt.Errorf("jsonredact: data after the JSON value")
	}
	return out, nil
}

// value copies the next JSON value from dec to dst with redact applied;
// when inObject, it is the value of key, redacted with it when members is
// set.
func value(dec *json.Decoder, dst []byte, key string, members, inObject bool, redact func(string) string) ([]byte, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			dst = append(dst, '[')
			for first := true; dec.More(); first = false {
				if !first {
					dst = append(dst, ',')
				}
				if dst, err = value(dec, dst, "", members, false, redact); err != nil {
					return nil, err
				}
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return append(dst, ']'), nil
		}
		dst = append(dst, '{')
		keys := Keys{}
		for first := true; dec.More(); first = false {
			if !first {
				dst = append(dst, ',')
			}
			tok, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k, ok := tok.(string)
			if !ok {
				return nil, fmt.Errorf("jsonredact: object key is %T", tok)
			}
			k = redact(k)
			dst = appendString(dst, keys.Unique(k))
			dst = append(dst, ':')
			if dst, err = value(dec, dst, k, members, true, redact); err != nil {
				return nil, err
			}
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		return append(dst, '}'), nil
	case string:
		if members && inObject {
			return appendString(dst, Member(key, t, redact)), nil
		}
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
	return nil, fmt.Errorf("jsonredact: unexpected token %T", tok)
}

// quote writes s as a JSON string, leaving <, > and & as they are.
func quote(s string) string { return string(appendString(nil, s)) }

// appendString appends s to dst as a JSON string, leaving <, > and & as
// they are.
func appendString(dst []byte, s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	return append(dst, bytes.TrimSuffix(b.Bytes(), []byte("\n"))...)
}
