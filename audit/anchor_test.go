package audit

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fiveLines appends five records to a new log and returns its folder, its
// bytes, and the hash of each line.
func fiveLines(t *testing.T) (string, []byte, []string) {
	t.Helper()
	l, dir := openTest(t, nil)
	for i := range 5 {
		mustAppend(t, l, Entry{Kind: "k", Turn: i, Source: SourceWisp, Data: map[string]any{"steps": 1}})
	}
	b := logBytes(t, dir)
	var hashes []string
	for _, line := range bytes.SplitAfter(b, []byte("\n"))[:5] {
		hashes = append(hashes, hashLine(bytes.TrimSuffix(line, []byte("\n"))))
	}
	return dir, b, hashes
}

// An anchored head finds what the chain alone cannot: an edited or removed
// last line, a whole chain forged anew, and records appended after the
// anchor was taken, which chain like any other (a made-up answer among
// them). Only a log whose head is the anchor passes.
func TestVerifyAnchor(t *testing.T) {
	dir, b, hashes := fiveLines(t)
	lines := bytes.SplitAfter(b, []byte("\n"))[:5]

	// A forged chain: the same kinds, rewritten from the start with
	// another value, each line chained to the one before.
	forger, fdir := openTest(t, nil)
	for i := range 5 {
		mustAppend(t, forger, Entry{Kind: "k", Turn: i, Source: SourceWisp, Data: map[string]any{"steps": 7}})
	}
	forged := logBytes(t, fdir)

	tests := []struct {
		name   string
		b      []byte
		anchor string
		line   int // the anchor's line; 0: not found
		after  int // records after it
	}{
		{"the head", b, hashes[4], 5, 0},
		{"the head, a torn line after it", append(bytes.Clone(b), `{"seq":6,"ti`...), hashes[4], 5, 0},
		{"an earlier head", b, hashes[2], 3, 2},
		{"the line before the head", b, hashes[3], 4, 1},
		{"the first line", b, hashes[0], 1, 4},
		{"last line edited", bytes.Join([][]byte{lines[0], lines[1], lines[2], lines[3], bytes.Replace(lines[4], []byte(`"steps":1`), []byte(`"steps":7`), 1)}, nil), hashes[4], 0, 0},
		{"last line deleted", bytes.Join(lines[:4], nil), hashes[4], 0, 0},
		{"forged chain", forged, hashes[4], 0, 0},
		{"forged chain, earlier head", forged, hashes[1], 0, 0},
		{"after a break", bytes.Join([][]byte{lines[0], lines[2], lines[3], lines[4]}, nil), hashes[4], 0, 0},
		{"empty log", nil, hashes[0], 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			writeLog(t, dir, tt.b)
			rep, err := VerifyWith(dir, &VerifyOptions{Anchor: tt.anchor})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Anchor != tt.anchor || rep.AnchorLine != tt.line {
				t.Errorf("VerifyWith(anchor %.12s…) = anchor line %d, want %d (%s)", tt.anchor, rep.AnchorLine, tt.line, rep)
			}
			if rep.Following() != tt.after {
				t.Errorf("Following() = %d, want %d (%s)", rep.Following(), tt.after, rep)
			}
			if failed := tt.line == 0 || tt.after > 0; rep.Failed() != failed {
				t.Errorf("Failed() = %v, want %v (%s)", rep.Failed(), failed, rep)
			}
			s := rep.String()
			switch {
			case tt.line == 0 && rep.Break == nil && !strings.Contains(s, "no line of the chain has the expected head "+tt.anchor):
				t.Errorf("String() = %q; want it to name the missing head in full", s)
			case tt.after > 0 && !strings.Contains(s, "the head is not the one expected"):
				t.Errorf("String() = %q; want it to say the head is not the one expected", s)
			case tt.line > 0 && tt.after == 0 && !strings.Contains(s, "the head is the one expected"):
				t.Errorf("String() = %q; want it to say the head is the one expected", s)
			}
		})
	}
	// No anchor: nothing is looked for, and an intact chain passes.
	writeLog(t, dir, b)
	rep, err := Verify(dir)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed() || rep.Anchor != "" || rep.AnchorLine != 0 || !strings.Contains(rep.String(), "(head "+hashes[4]+")") {
		t.Errorf("Verify = %+v, %q; want an intact chain with its full head and no anchor", rep, rep)
	}
}

// A record that takes an answer filed by another process must follow the
// record that gave it: same first word of the kind, same file SHA-256.
func TestVerifyUnvouched(t *testing.T) {
	sum := func(c string) string { return strings.Repeat(c, 64) }
	entries := []Entry{
		{Kind: "inquiry.answered", Source: SourcePerson, Data: map[string]any{"id": "a1b2c3d4", "fileSHA256": sum("a")}},
		{Kind: "inquiry.settled", Source: SourcePerson, Data: map[string]any{"id": "a1b2c3d4", "fileSHA256": sum("a")}},                                // given before: vouched
		{Kind: "approval.decided", Source: SourcePerson, Approval: "7f3a2c1d", Data: map[string]any{"approvalID": "7f3a2c1d", "fileSHA256": sum("b")}}, // 3: nobody gave it
		{Kind: "approval.refused", Source: SourceWisp, Data: map[string]any{"id": "7f3a2c1d", "fileSHA256": sum("c")}},                                 // a refusal takes nothing
		{Kind: "approval.answered", Source: SourcePerson, Data: map[string]any{"id": "7f3a2c1d", "fileSHA256": sum("d")}},
		{Kind: "inquiry.settled", Source: SourcePerson, Data: map[string]any{"id": "0badf00d", "fileSHA256": sum("d")}}, // 6: given to an approval, not a question
		{Kind: "approval.decided", Source: SourcePerson, Data: map[string]any{"approvalID": "7f3a2c1d", "fileSHA256": sum("d")}},
		{Kind: "inquiry.settled", Source: SourcePerson, Data: map[string]any{"id": "a1b2c3d4", "answer": "in the face itself"}}, // no file: nothing to vouch
		{Kind: "inquiry.settled", Source: SourcePerson, Data: map[string]any{"id": "feedf00d", "fileSHA256": sum("e")}},         // 9: given only after
		{Kind: "inquiry.answered", Source: SourcePerson, Data: map[string]any{"id": "feedf00d", "fileSHA256": sum("e")}},
	}
	l, dir := openTest(t, nil)
	for _, e := range entries {
		mustAppend(t, l, e)
	}
	rep, err := Verify(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []Unvouched{{3, "approval.decided", "7f3a2c1d"}, {6, "inquiry.settled", "0badf00d"}, {9, "inquiry.settled", "feedf00d"}}
	if diff := cmp.Diff(want, rep.Unvouched); diff != "" {
		t.Errorf("Unvouched (-want +got):\n%s", diff)
	}
	if !rep.Failed() || !strings.HasPrefix(rep.String(), "audit: line 3 (approval.decided of 7f3a2c1d) takes an answer that no approval.answered record gave before it, and 2 more do") {
		t.Errorf("Failed() = %v, String() = %q; want a failure naming line 3", rep.Failed(), rep)
	}

	// A verifier copied after a prefix goes on as one that read the
	// prefix itself: what one copy sees later never vouches for another.
	b := logBytes(t, dir)
	ch := newChain(b)
	for c := range len(entries) {
		if got := ch.fold(t, c, b[ch.starts[c]:]); !cmp.Equal(want, got.Unvouched) {
			t.Fatalf("fold from line %d: Unvouched %+v, want %+v", c, got.Unvouched, want)
		}
	}
}

func TestFind(t *testing.T) {
	l, dir := openTest(t, nil)
	if _, ok, err := Find(dir, "inquiry.answered", map[string]string{"id": "a1b2c3d4"}); ok || err != nil {
		t.Fatalf("Find on an empty log = %v, %v; want nothing", ok, err)
	}
	for _, e := range []Entry{
		{Kind: "inquiry.answered", Source: SourcePerson, Data: map[string]any{"id": "a1b2c3d4", "fileSHA256": "s1"}},
		{Kind: "inquiry.settled", Source: SourcePerson, Data: map[string]any{"id": "a1b2c3d4", "fileSHA256": "s2"}},
		{Kind: "inquiry.answered", Source: SourcePerson, Data: map[string]any{"id": "a1b2c3d4", "fileSHA256": "s2", "note": "the id a1b2c3d4 again"}},
		{Kind: "inquiry.answered", Source: SourcePerson, Data: map[string]any{"id": "a1b2c3d5", "other": "a1b2c3d4", "fileSHA256": "s3"}},
		{Kind: "inquiry.answered", Source: SourcePerson, Data: map[string]any{"id": 7, "fileSHA256": "s4"}},
	} {
		mustAppend(t, l, e)
	}
	// A line that is not a record, though it holds what is sought.
	writeLog(t, dir, append(logBytes(t, dir), `{"kind":"inquiry.answered","data":{"id":"a1b2c3d4","fileSHA256":"s5"}}`+"\n"...))
	tests := []struct {
		kind string
		want map[string]string
		seq  int64 // 0: none found
	}{
		{"inquiry.answered", map[string]string{"id": "a1b2c3d4", "fileSHA256": "s1"}, 1},
		{"inquiry.answered", map[string]string{"id": "a1b2c3d4", "fileSHA256": "s2"}, 3},
		{"inquiry.answered", map[string]string{"id": "a1b2c3d4"}, 3},
		{"inquiry.answered", map[string]string{"id": "a1b2c3d4", "fileSHA256": "s3"}, 0},
		{"inquiry.answered", map[string]string{"id": "7", "fileSHA256": "s4"}, 0},
		{"inquiry.answered", map[string]string{"fileSHA256": "s5"}, 0},
		{"inquiry.settled", map[string]string{"fileSHA256": "s1"}, 0},
		{"inquiry.settled", map[string]string{"fileSHA256": "s2"}, 2},
		{"inquiry", map[string]string{"fileSHA256": "s2"}, 0},
	}
	for _, tt := range tests {
		rec, ok, err := Find(dir, tt.kind, tt.want)
		if err != nil {
			t.Fatalf("Find(%q, %v) = %v", tt.kind, tt.want, err)
		}
		if got := map[bool]int64{true: rec.Seq}[ok]; got != tt.seq {
			t.Errorf("Find(%q, %v) = seq %d, %v; want seq %d", tt.kind, tt.want, rec.Seq, ok, tt.seq)
		}
	}
}

// A record appended after the anchor chains like any other, a made-up
// approval.answered among them: the anchored check fails on it until the
// person has looked and anchored the new head.
func TestVerifyAnchorAppended(t *testing.T) {
	l, dir := openTest(t, nil)
	mustAppend(t, l, Entry{Kind: "turn.started", Thread: "t1", Turn: 1, Source: SourcePerson, Data: map[string]any{"input": "hi"}})
	rep, err := Verify(dir)
	if err != nil {
		t.Fatal(err)
	}
	anchor := rep.Head
	mustAppend(t, l, Entry{Kind: "approval.answered", Source: SourcePerson, Data: map[string]any{"id": "7f3a2c1d", "scope": "once", "fileSHA256": strings.Repeat("a", 64)}})

	rep, err = VerifyWith(dir, &VerifyOptions{Anchor: anchor})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Failed() || rep.AnchorLine != 1 || rep.Following() != 1 {
		t.Errorf("VerifyWith(anchor before a forged approval.answered) = failed %v, line %d, following %d; want failed, line 1, following 1 (%s)",
			rep.Failed(), rep.AnchorLine, rep.Following(), rep)
	}
	// Re-anchored at the new head, it passes.
	rep, err = VerifyWith(dir, &VerifyOptions{Anchor: rep.Head})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed() || rep.AnchorLine != 2 {
		t.Errorf("VerifyWith(the new head) = failed %v, line %d; want it to pass at line 2 (%s)", rep.Failed(), rep.AnchorLine, rep)
	}
}
