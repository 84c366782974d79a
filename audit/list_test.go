package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// List writes a line a record, every field of it escaped, or the records
// as JSON; a filter picks them, and a log not written yet lists
// nothing.
func TestList(t *testing.T) {
	l, dir := openTest(t, nil)
	mustAppend(t, l, Entry{Kind: "tool.call", Session: "s1", Thread: "t1", Turn: 1, Source: SourceModel,
		Data: map[string]any{"name": "ask", "summary": "a <question>\x1b[2J"}})
	mustAppend(t, l, Entry{Kind: "turn.ended", Session: "s1", Thread: "t\u202e2", Turn: 1, Source: SourceWisp})
	b := logBytes(t, dir)
	lines := strings.SplitAfter(string(b), "\n")
	at := func(i int) string {
		return t0.Add(time.Duration(i) * (time.Second + time.Nanosecond)).Local().Format(time.DateTime)
	}
	tests := []struct {
		name string
		dir  string
		opts *ListOptions
		want string
	}{
		{"text", dir, nil, fmt.Sprintf("1 %s tool.call thread=t1 turn=1 source=model {\"name\":\"ask\",\"summary\":\"a <question>\\\\u001b[2J\"}\n"+
			"2 %s turn.ended thread=t\\u{202E}2 turn=1 source=wisp {}\n", at(0), at(1))},
		{"json", dir, &ListOptions{JSON: true}, lines[0] + lines[1]},
		{"filter", dir, &ListOptions{Filter: Filter{Thread: "t1"}, JSON: true}, lines[0]},
		{"no log yet", filepath.Join(t.TempDir(), "audit"), nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got bytes.Buffer
			if err := List(&got, tc.dir, tc.opts); err != nil {
				t.Fatalf("List = %v", err)
			}
			if tc.opts != nil && tc.opts.JSON {
				// The same records, whatever the digits of their time.
				if diff := cmp.Diff(jsonLines(t, tc.want), jsonLines(t, got.String())); diff != "" {
					t.Errorf("List (-want +got):\n%s", diff)
				}
				return
			}
			if diff := cmp.Diff(tc.want, got.String()); diff != "" {
				t.Errorf("List (-want +got):\n%s", diff)
			}
		})
	}
}

// jsonLines decodes each line of s, a JSON object.
func jsonLines(t *testing.T, s string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for l := range strings.Lines(s) {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		if tm, ok := m["time"].(string); ok {
			parsed, err := time.Parse(time.RFC3339Nano, tm)
			if err != nil {
				t.Fatal(err)
			}
			m["time"] = parsed.UTC().Format(time.RFC3339Nano)
		}
		out = append(out, m)
	}
	return out
}

// A head is 64 hex digits, in any case; VerifyWith refuses an anchor
// that is not one before it reads anything.
func TestParseHead(t *testing.T) {
	head := strings.Repeat("ab", 32)
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{head, head, true},
		{strings.ToUpper(head), head, true},
		{head[:63], "", false},
		{head + "a", "", false},
		{head[:63] + "g", "", false},
		{"", "", false},
	}
	for _, tc := range tests {
		got, err := ParseHead(tc.in)
		if got != tc.want || (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrNotHead)) {
			t.Errorf("ParseHead(%q) = %q, %v; want %q, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
	if _, err := VerifyWith(filepath.Join(t.TempDir(), "none"), &VerifyOptions{Anchor: "abc"}); !errors.Is(err, ErrNotHead) {
		t.Errorf("VerifyWith(anchor abc) = %v, want ErrNotHead", err)
	}
}

// Check says in one line what Verify found, and how to list the records
// that follow an anchored head; it fails as the report does.
func TestCheck(t *testing.T) {
	dir, _, hashes := fiveLines(t)
	none := filepath.Join(t.TempDir(), "audit")
	tests := []struct {
		name    string
		dir     string
		opts    *VerifyOptions
		want    string // a prefix of the line
		wantEnd string // and its end
		wantErr error
	}{
		{"no log yet", none, nil, "audit: no records yet\n", "", nil},
		{"no log yet, a head expected", none, &VerifyOptions{Anchor: strings.ToUpper(hashes[0])},
			"audit: no records yet, so no line has the expected head " + hashes[0] + "\n", "", ErrCheckFailed},
		{"intact", dir, nil, "audit: 5 records, chain intact (head " + hashes[4] + ")\n", "", nil},
		{"the head expected", dir, &VerifyOptions{Anchor: hashes[4]}, "audit: 5 records", "; the head is the one expected\n", nil},
		{"records follow", dir, &VerifyOptions{Anchor: hashes[2]}, "audit: 5 records", "2 records follow it; look at them, and if each is yours, keep the new head instead; wisp audit --after 3 lists them\n", ErrCheckFailed},
		{"not a head", dir, &VerifyOptions{Anchor: "0123"}, "", "", ErrNotHead},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got bytes.Buffer
			err := Check(&got, tc.dir, tc.opts)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Check() = %v, want %v", err, tc.wantErr)
			}
			if !strings.HasPrefix(got.String(), tc.want) || !strings.HasSuffix(got.String(), tc.wantEnd) {
				t.Errorf("Check() wrote %q, want %q…%q", got.String(), tc.want, tc.wantEnd)
			}
		})
	}
}

// A filter after a seq no record has is refused, not read as "every
// record".
func TestListBadFilter(t *testing.T) {
	l, dir := openTest(t, nil)
	mustAppend(t, l, Entry{Kind: "k", Source: SourceWisp})
	var got bytes.Buffer
	if err := List(&got, dir, &ListOptions{Filter: Filter{After: -1}}); !errors.Is(err, ErrBadFilter) {
		t.Fatalf("List(After: -1) = %v, want ErrBadFilter", err)
	}
	if got.Len() != 0 {
		t.Errorf("List(After: -1) wrote %q", got.String())
	}
}
