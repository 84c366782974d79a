package audit

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/wisp-agent/wisp/inquiry/escape"
)

// ListOptions configure List. A nil *ListOptions is the zero value: every
// record, a line each.
type ListOptions struct {
	// Filter picks the records.
	Filter Filter
	// JSON writes each record as a JSON object a line (Record's JSON
	// form), instead of a line for a person.
	JSON bool
}

// List writes the records of the log in dir that opts.Filter picks to w,
// in the order of the file: a line each for a person to read, every
// field of it escaped for a terminal (escape.Terminal), or, with
// opts.JSON, a JSON object each with <, > and & as they are. A log not
// written yet lists nothing. An error is Read's, or w's.
func List(w io.Writer, dir string, opts *ListOptions) error {
	var o ListOptions
	if opts != nil {
		o = *opts
	}
	records, err := Read(dir, o.Filter)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, r := range records {
		if o.JSON {
			if err := enc.Encode(r); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(&b, "%d %s %s thread=%s turn=%d source=%s %s\n", r.Seq,
			r.Time.Local().Format(time.DateTime), escape.Terminal(r.Kind), escape.Terminal(r.Thread),
			r.Turn, escape.Terminal(r.Source), escape.Terminal(string(r.Data)))
	}
	_, err = io.WriteString(w, b.String())
	return err
}

// ErrNotHead: what was given as a head is not one (VerifyOptions.Anchor,
// ParseHead).
var ErrNotHead = errors.New("not a head: a head is the 64 hex digits of a line's SHA-256")

// ParseHead returns s as a head (Report.Head, VerifyOptions.Anchor): 64
// hex digits, in lower case. Anything else is an error wrapping
// ErrNotHead.
func ParseHead(s string) (string, error) {
	h := strings.ToLower(s)
	if len(h) != 64 || strings.Trim(h, "0123456789abcdef") != "" {
		return "", fmt.Errorf("%q is %w", s, ErrNotHead)
	}
	return h, nil
}

// Check verifies the log in dir (VerifyWith, with opts) and writes to w
// one line that says what it found, as wisp audit --verify prints it:
// Report.String, and when records follow the anchor's line, how to list
// them (wisp audit --after LINE). A log not written yet is "audit: no
// records yet", which fails only when an anchor was expected of it. It
// returns ErrCheckFailed when the log fails the check (Report.Failed); an
// anchor that is not a head wraps ErrNotHead, and nothing is written.
func Check(w io.Writer, dir string, opts *VerifyOptions) error {
	var o VerifyOptions
	if opts != nil {
		o = *opts
	}
	if o.Anchor != "" {
		var err error
		if o.Anchor, err = ParseHead(o.Anchor); err != nil {
			return err
		}
	}
	r, err := VerifyWith(dir, &o)
	if errors.Is(err, fs.ErrNotExist) {
		if o.Anchor != "" {
			fmt.Fprintf(w, "audit: no records yet, so no line has the expected head %s\n", o.Anchor)
			return ErrCheckFailed
		}
		fmt.Fprintln(w, "audit: no records yet")
		return nil
	}
	if err != nil {
		return err
	}
	line := r.String()
	if r.Following() > 0 {
		line += fmt.Sprintf("; wisp audit --after %d lists them", r.AnchorLine)
	}
	if _, err := fmt.Fprintln(w, line); err != nil {
		return err
	}
	if r.Failed() {
		return ErrCheckFailed
	}
	return nil
}
