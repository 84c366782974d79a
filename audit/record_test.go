package audit

import (
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/name, or rewrites the file with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

// goldenEntries cover each rule of the format: an empty thread and turn,
// approval present and absent, nil data, nested data, strings that need
// escaping and strings that must not be escaped.
var goldenEntries = []Entry{
	{Kind: "session.started", Session: "s1", Source: SourceWisp},
	{Kind: "turn.started", Session: "s1", Thread: "t1", Turn: 1, Source: SourcePerson, Data: map[string]any{"text": "is a < b && b > c?"}},
	{Kind: "inquiry.requested", Session: "s1", Thread: "t1", Turn: 1, Source: SourceModel, Approval: "a1",
		Data: struct {
			Question string   `json:"question"`
			Options  []string `json:"options"`
		}{"Delete \"build/\"?\n(\\ and \t too)", []string{"yes", "no"}}},
	{Kind: "inquiry.settled", Session: "s1", Thread: "t1", Turn: 1, Source: SourcePerson, Approval: "a1",
		Data: map[string]any{"answer": "yes", "nested": map[string]any{"n": 1.5, "ok": true, "none": nil, "list": []any{"é", "☃", "\u2028", "\x01"}}}},
	{Kind: "tool.result", Session: "s1", Thread: "t1", Turn: 2, Source: SourceTool, Data: json.RawMessage(`{ "exit" : 0 }`)},
}

func TestGolden(t *testing.T) {
	l, dir := openTest(t, nil)
	for _, e := range goldenEntries {
		mustAppend(t, l, e)
	}
	got := logBytes(t, dir)
	golden(t, "golden.jsonl", got)
	if rep := mustVerify(t, got); rep.Break != nil || rep.Torn != nil || rep.Records != len(goldenEntries) {
		t.Errorf("verify(golden) = %v, want %d records intact", rep, len(goldenEntries))
	}
}

func TestGoldenRecovered(t *testing.T) {
	l, dir := openTest(t, nil)
	mustAppend(t, l, goldenEntries[0])
	mustAppend(t, l, goldenEntries[1])
	torn := []byte(`{"seq":3,"time":"2026-11-30T10:00:0`)
	f, err := os.OpenFile(filepath.Join(dir, logName), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(torn); err != nil {
		t.Fatal(err)
	}
	f.Close()
	rec := mustAppend(t, l, goldenEntries[2])
	if rec.Seq != 4 {
		t.Errorf("Append after a torn line: seq %d, want 4 (3 is the audit.recovered record)", rec.Seq)
	}
	golden(t, "recovered.jsonl", logBytes(t, dir))
}

// TestLineKeys pins the keys of a line and their order, apart from the
// golden file, so that a change to them is seen as what it is.
func TestLineKeys(t *testing.T) {
	tests := []struct {
		name string
		rec  Record
		want []string
	}{
		{"approval", Record{Seq: 1, Kind: "k", Source: SourceWisp, Approval: "a", Prev: genesis},
			[]string{"seq", "time", "kind", "session", "thread", "turn", "source", "approval", "data", "prev"}},
		{"no approval", Record{Seq: 1, Kind: "k", Source: SourceWisp, Prev: genesis},
			[]string{"seq", "time", "kind", "session", "thread", "turn", "source", "data", "prev"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := appendLine(nil, tt.rec)
			dec := json.NewDecoder(strings.NewReader(string(line)))
			var got []string
			if _, err := dec.Token(); err != nil {
				t.Fatal(err)
			}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, k.(string))
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("keys of %s (-want +got):\n%s", line, diff)
			}
		})
	}
}

func TestAppendString(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"plain", `"plain"`},
		{"<a href=\"x\">&amp;</a>", `"<a href=\"x\">&amp;</a>"`},
		{"tab\tnl\ncr\rbs\\", `"tab\tnl\ncr\rbs\\"`},
		{"\x00\x1f\x7f", `"\u0000\u001f` + "\x7f" + `"`},
		{"é☃𝄞", `"é☃𝄞"`},
		{"\u2028\u2029", `"\u2028\u2029"`},
		{"bad\xffutf8", `"bad\ufffdutf8"`},
	}
	for _, tt := range tests {
		got := string(appendString(nil, tt.in))
		if got != tt.want {
			t.Errorf("appendString(%q) = %s, want %s", tt.in, got, tt.want)
		}
		var back string
		if err := json.Unmarshal([]byte(got), &back); err != nil {
			t.Errorf("appendString(%q) = %s, which does not parse: %v", tt.in, got, err)
		}
		if want := strings.ToValidUTF8(tt.in, "\ufffd"); back != want {
			t.Errorf("appendString(%q) reads back as %q, want %q", tt.in, back, want)
		}
	}
}

func TestParseLineRoundTrip(t *testing.T) {
	rec := Record{
		Seq:      42,
		Time:     time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC),
		Kind:     "inquiry.settled",
		Session:  "s \"1\"",
		Thread:   "t\u2028",
		Turn:     math.MaxInt,
		Source:   SourcePerson,
		Approval: "a1",
		Data:     json.RawMessage(`{"a":[1,{"b":"<c>"}]}`),
		Prev:     strings.Repeat("ab", 32),
	}
	line := appendLine(nil, rec)
	got, err := parseLine(line[:len(line)-1])
	if err != nil {
		t.Fatalf("parseLine(%s) = %v", line, err)
	}
	if diff := cmp.Diff(rec, got); diff != "" {
		t.Errorf("parseLine(appendLine(r)) (-want +got):\n%s", diff)
	}
}

// TestParseLineRejects lists forms that are valid JSON, or nearly, but not
// lines the writer writes.
func TestParseLineRejects(t *testing.T) {
	good := `{"seq":1,"time":"2026-11-30T10:00:00.123456789Z","kind":"k","session":"s","thread":"","turn":0,"source":"wisp","data":{},"prev":"` + genesis + `"}`
	if _, err := parseLine([]byte(good)); err != nil {
		t.Fatalf("parseLine(%s) = %v, want no error", good, err)
	}
	tests := []struct {
		name, old, new string
	}{
		{"space after a colon", `"seq":1`, `"seq": 1`},
		{"keys out of order", `"kind":"k","session":"s"`, `"session":"s","kind":"k"`},
		{"key in upper case", `"seq"`, `"Seq"`},
		{"unknown key", `"thread"`, `"threat"`},
		{"seq 0", `"seq":1`, `"seq":0`},
		{"seq with a leading zero", `"seq":1`, `"seq":01`},
		{"seq beyond int64", `"seq":1`, `"seq":9223372036854775808`},
		{"seq with a fraction", `"seq":1`, `"seq":1.0`},
		{"negative turn", `"turn":0`, `"turn":-1`},
		{"seq as a string", `"seq":1`, `"seq":"1"`},
		{"time without nanoseconds", `.123456789Z`, `Z`},
		{"time with a zone", `.123456789Z`, `.123456789+01:00`},
		{"time out of range", `T10:`, `T25:`},
		{"empty kind", `"kind":"k"`, `"kind":""`},
		{"unknown source", `"wisp"`, `"wasp"`},
		{"empty approval", `"data"`, `"approval":"","data"`},
		{"data not an object", `"data":{}`, `"data":[]`},
		{"data not JSON", `"data":{}`, `"data":{,}`},
		{"data unterminated", `"data":{}`, `"data":{"a":"}`},
		{"prev in upper case", genesis[:2], "AA"},
		{"prev too short", genesis, genesis[1:]},
		{"bytes after the object", `"}`, `"} `},
		{"control character", `"kind":"k"`, "\"kind\":\"k\x01\""},
		{"invalid UTF-8", `"kind":"k"`, "\"kind\":\"k\xff\""},
		{"bad escape", `"kind":"k"`, `"kind":"k\q"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := strings.Replace(good, tt.old, tt.new, 1)
			if line == good {
				t.Fatalf("replacing %q changed nothing", tt.old)
			}
			if r, err := parseLine([]byte(line)); err == nil {
				t.Errorf("parseLine(%s) = %+v, want an error", line, r)
			}
		})
	}
}
