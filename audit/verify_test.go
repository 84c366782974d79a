package audit

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// hundred builds a log of 100 records of varied shape through Append and
// returns its bytes and records.
func hundred(t testing.TB) ([]byte, []Record) {
	t.Helper()
	l, dir := openTest(t, nil)
	kinds := []string{"turn.started", "inquiry.requested", "inquiry.settled", "tool.call", "tool.result"}
	sources := []string{SourceWisp, SourceModel, SourcePerson, SourceModel, SourceTool}
	var recs []Record
	for i := range 100 {
		e := Entry{Kind: kinds[i%5], Session: "s1", Thread: fmt.Sprintf("t%d", i%3), Turn: i / 5, Source: sources[i%5]}
		if i%7 == 0 {
			e.Thread, e.Turn = "", 0
		}
		if i%5 == 2 {
			e.Approval = fmt.Sprintf("a%d", i)
		}
		if i%4 != 0 {
			e.Data = map[string]any{"n": i, "text": "é <&> \"q\"", "list": []any{i, true, nil}}
		}
		recs = append(recs, mustAppend(t, l, e))
	}
	return logBytes(t, dir), recs
}

// chainOf describes a 100-record log: where its lines start, its heads,
// and a verifier saved after each complete prefix.
type chainOf struct {
	b      []byte
	starts []int      // starts[i] is where line i+1 starts; starts[100] == len(b)
	heads  []string   // heads[c] is the Head of the first c lines
	snaps  []verifier // snaps[c] has read the first c lines
	br     *bufio.Reader
}

// reader returns the chain's one reader, reset to read b: the checks run
// tens of thousands of times, and a fresh 64 KiB buffer for each would
// take most of their time.
func (c chainOf) reader(b []byte) *bufio.Reader {
	c.br.Reset(bytes.NewReader(b))
	return c.br
}

func newChain(b []byte) chainOf {
	c := chainOf{b: b, starts: lineStarts(b), heads: []string{""}, br: bufio.NewReaderSize(nil, readBuffer)}
	var v verifier
	for i := 0; i+1 < len(c.starts); i++ {
		c.snaps = append(c.snaps, v)
		line := b[c.starts[i] : c.starts[i+1]-1]
		v.line(line)
		c.heads = append(c.heads, hashLine(line))
	}
	c.snaps = append(c.snaps, v)
	return c
}

// fold verifies rest after the first c lines, from the verifier saved
// there. Since a verifier's state depends only on the lines it has read
// and the first c lines end with a newline, this is exactly what Verify
// gives for b[:starts[c]] followed by rest, without reading the prefix
// again; TestTruncateEveryOffset and TestFlipEveryByte check that on a
// sample of offsets.
func (c chainOf) fold(t testing.TB, n int, rest []byte) Report {
	v := c.snaps[n]
	torn, err := scanLines(c.reader(rest), v.line)
	if err != nil {
		t.Fatal(err)
	}
	return v.report(torn)
}

// sameReport compares reports quickly, leaving cmp.Diff for failures.
func sameReport(a, b Report) bool {
	return a.Records == b.Records && a.Head == b.Head &&
		(a.Torn == nil) == (b.Torn == nil) && (a.Torn == nil || *a.Torn == *b.Torn) &&
		(a.Break == nil) == (b.Break == nil) && (a.Break == nil || *a.Break == *b.Break)
}

// sameRecords compares records quickly, leaving cmp.Diff for failures.
func sameRecords(a, b []Record) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Seq != y.Seq || !x.Time.Equal(y.Time) || x.Kind != y.Kind || x.Session != y.Session ||
			x.Thread != y.Thread || x.Turn != y.Turn || x.Source != y.Source || x.Approval != y.Approval ||
			!bytes.Equal(x.Data, y.Data) || x.Prev != y.Prev {
			return false
		}
	}
	return true
}

// TestTruncateEveryOffset cuts a 100-record log at every byte offset. At
// each, Verify must report the complete lines with no break (and a torn
// line when the cut is inside one), Read must give exactly the records of
// the complete lines, and an append must recover: an audit.recovered
// record for the torn bytes, then the new record, with the chain intact.
func TestTruncateEveryOffset(t *testing.T) {
	t.Parallel()
	b, all := hundred(t)
	ch := newChain(b)
	now := clock(t0.Add(time.Hour), time.Second)
	entry := Entry{Kind: "after.crash", Session: "s2", Source: SourceWisp}
	data, err := encodeData(map[string]int{"k": 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := 0 // complete lines in b[:k]
	var fileChecks []int
	for k := 0; k <= len(b); k++ {
		for c < 100 && ch.starts[c+1] <= k {
			c++
		}
		tornLen := k - ch.starts[c]
		want := Report{Records: c, Head: ch.heads[c]}
		if tornLen > 0 {
			want.Torn = &Torn{Line: c + 1, Bytes: tornLen}
		}
		got := ch.fold(t, c, b[ch.starts[c]:k])
		if !sameReport(want, got) {
			t.Fatalf("verify(log cut at %d) (-want +got):\n%s", k, cmp.Diff(want, got))
		}
		if recs, err := readRecords(ch.reader(b[ch.starts[c]:k]), Filter{}); err != nil || len(recs) != 0 {
			t.Fatalf("Read(log cut at %d): the torn bytes gave %d records, %v; want none and no error", k, len(recs), err)
		}
		boundary := tornLen <= 1 || k+1 == ch.starts[min(c+1, 100)]
		if k%101 == 0 || tornLen <= 1 {
			full, err := verify(ch.reader(b[:k]))
			if err != nil || !sameReport(full, got) {
				t.Fatalf("verify(log cut at %d) = %v, %v; the fold from line %d gave %v", k, full, err, c, got)
			}
			recs, err := readRecords(ch.reader(b[:k]), Filter{})
			if err != nil {
				t.Fatalf("Read(log cut at %d) = %v", k, err)
			}
			if !sameRecords(all[:c], recs) {
				t.Fatalf("Read(log cut at %d) (-want +got):\n%s", k, cmp.Diff(all[:c], recs))
			}
		}
		if boundary && (c < 2 || c > 97) || k%997 == 0 {
			fileChecks = append(fileChecks, k)
		}

		// Recovery, as Append does it, on the bytes.
		tl, err := readTail(bytes.NewReader(b[:k]), int64(k))
		if err != nil {
			t.Fatal(err)
		}
		wantTail := tail{end: int64(ch.starts[c]), seq: int64(c), hash: genesis, torn: int64(tornLen)}
		if c > 0 {
			wantTail.hash = ch.heads[c]
		}
		if tornLen > 0 {
			sum := sha256.Sum256(b[ch.starts[c]:k])
			wantTail.tornSum = hex.EncodeToString(sum[:])
		}
		if tl != wantTail {
			t.Fatalf("readTail(log cut at %d) = %+v, want %+v", k, tl, wantTail)
		}
		out, rec, err := tl.lines(now, entry, data)
		if err != nil {
			t.Fatal(err)
		}
		n := c + 1
		if tornLen > 0 {
			n++
			wantRecovered := fmt.Sprintf(`"kind":"audit.recovered","session":"","thread":"","turn":0,"source":"wisp","data":{"droppedBytes":%d,"droppedSHA256":"%s"}`, tornLen, wantTail.tornSum)
			if first, _, _ := bytes.Cut(out, []byte("\n")); !bytes.Contains(first, []byte(wantRecovered)) {
				t.Fatalf("recovery at %d wrote %s, want it to hold %s", k, first, wantRecovered)
			}
		}
		if rep := ch.fold(t, c, out); rep.Break != nil || rep.Torn != nil || rep.Records != n || rec.Seq != int64(n) {
			t.Fatalf("after recovery at %d: %v, new seq %d; want %d records intact", k, rep, rec.Seq, n)
		}
	}

	// The same through the files and the exported API, at a few offsets.
	for _, k := range fileChecks {
		dir := filepath.Join(t.TempDir(), "audit")
		l, err := Open(dir, &Options{Now: now})
		if err != nil {
			t.Fatal(err)
		}
		writeLog(t, dir, b[:k])
		rec := mustAppend(t, l, entry)
		l.Close()
		c := bytes.Count(b[:k], []byte("\n"))
		torn := k != ch.starts[c]
		want := c + 1
		if torn {
			want++
		}
		mustIntact(t, dir, want)
		recs, err := Read(dir, Filter{})
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case len(recs) != want || rec.Seq != int64(want):
			t.Errorf("Append to a log cut at %d: %d records, new seq %d; want %d", k, len(recs), rec.Seq, want)
		case !sameRecords(all[:c], recs[:c]):
			t.Errorf("Append to a log cut at %d changed the complete records (-want +got):\n%s", k, cmp.Diff(all[:c], recs[:c]))
		case torn != (recs[c].Kind == KindRecovered) || recs[want-1].Kind != entry.Kind:
			t.Errorf("Append to a log cut at %d (torn %v) wrote %+v", k, torn, recs[c:])
		}
	}
}

// TestFlipEveryByte flips one bit of each byte of a 100-record log, one
// flip a run, the bit moving with the offset, and checks the verdict:
//
//   - in lines 1 to 99 every flip is a break: at the line itself when it
//     no longer parses or its seq or prev is wrong (always so for a flip in
//     the seq or prev), else at the next line, whose prev no longer
//     matches. A flipped newline joins two lines, which then do not parse.
//   - the final newline turns the last line into a torn one: no break, and
//     no way to tell from a crash mid-write.
//   - in line 100, nothing later holds its hash. A flip is a break when it
//     spoils the line's form, seq or prev; otherwise the chain checks out
//     and only the head differs from one kept elsewhere (the anchor).
func TestFlipEveryByte(t *testing.T) {
	t.Parallel()
	b, _ := hundred(t)
	ch := newChain(b)
	anchor := ch.heads[100]
	buf := make([]byte, len(b))
	var atLine, atNext, last, anchorOnly int
	for p, i := 0, 1; p < len(b); p++ {
		for ch.starts[i] <= p {
			i++
		}
		start := ch.starts[i-1]
		rest := append(buf[:0], b[start:]...)
		rest[p-start] ^= 1 << (p % 8)
		got := ch.fold(t, i-1, rest)
		if p%41 == 0 {
			whole := append([]byte(nil), b...)
			whole[p] ^= 1 << (p % 8)
			if full := mustVerify(t, whole); !sameReport(full, got) {
				t.Fatalf("flip at %d: verify = %v; the fold from line %d gave %v", p, full, i-1, got)
			}
		}
		line := b[start : ch.starts[i]-1]
		off := p - start
		inSeq := off >= len(`{"seq":`) && off < bytes.IndexByte(line, ',')
		inPrev := off >= bytes.LastIndex(line, []byte(`"prev":"`))+len(`"prev":"`) && off < len(line)-2
		newline := p == ch.starts[i]-1
		switch {
		case p == len(b)-1:
			want := Report{Records: 99, Head: ch.heads[99], Torn: &Torn{Line: 100, Bytes: len(line) + 1}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("flip of the final newline (-want +got):\n%s", diff)
			}
		case i < 100:
			wantRecords := 100
			if newline {
				wantRecords = 99
			}
			switch {
			case got.Break == nil || got.Records != wantRecords:
				t.Fatalf("flip at %d (line %d): %v, want a break and %d records", p, i, got, wantRecords)
			case got.Break.Line == i:
				atLine++
			case got.Break.Line == i+1 && !inSeq && !inPrev && !newline &&
				strings.HasPrefix(got.Break.Reason, fmt.Sprintf("prev does not match the hash of line %d", i)):
				atNext++
			default:
				t.Fatalf("flip at %d (line %d, seq %v, prev %v, newline %v): break %+v, want it at line %d, or at line %d for a prev mismatch",
					p, i, inSeq, inPrev, newline, *got.Break, i, i+1)
			}
		default:
			switch {
			case got.Break != nil && got.Break.Line == 100 && got.Records == 100:
				last++
			case got.Break == nil && got.Torn == nil && got.Records == 100 && got.Head != anchor && !inSeq && !inPrev:
				anchorOnly++
			default:
				t.Fatalf("flip at %d (last line, seq %v, prev %v): %v, want a break at line 100, or an intact chain whose head differs from the anchor",
					p, inSeq, inPrev, got)
			}
		}
	}
	t.Logf("%d flips: lines 1-99: %d breaks at the flipped line, %d at the next; line 100: %d breaks, %d seen only by the anchored head; 1 final newline read as torn",
		len(b), atLine, atNext, last, anchorOnly)
}

// TestVerifyBreaks covers edits Verify must name, and the one it cannot.
func TestVerifyBreaks(t *testing.T) {
	l, dir := openTest(t, nil)
	for i := range 5 {
		mustAppend(t, l, Entry{Kind: "k", Turn: i, Source: SourceWisp, Data: map[string]string{"v": "abc"}})
	}
	b := logBytes(t, dir)
	lines := bytes.SplitAfter(b, []byte("\n"))[:5]
	join := func(ls ...[]byte) []byte { return bytes.Join(ls, nil) }
	edit := func(l []byte) []byte { return bytes.Replace(l, []byte("abc"), []byte("abd"), 1) }
	otherPrev := bytes.Replace(lines[0], []byte(genesis), []byte(strings.Repeat("1", 64)), 1)
	tests := []struct {
		name  string
		b     []byte
		want  *Break
		torn  *Torn
		count int
	}{
		{"intact", b, nil, nil, 5},
		{"edited line", join(lines[0], edit(lines[1]), lines[2], lines[3], lines[4]),
			&Break{3, "prev does not match the hash of line 2 (a line was edited, removed or inserted)"}, nil, 5},
		{"removed line", join(lines[0], lines[1], lines[3], lines[4]),
			&Break{3, "seq is 4 where 3 should follow 2 (a line was removed, inserted or renumbered)"}, nil, 4},
		{"duplicated line", join(lines[0], lines[1], lines[1], lines[2], lines[3], lines[4]),
			&Break{3, "seq is 2 where 3 should follow 2 (a line was removed, inserted or renumbered)"}, nil, 6},
		{"swapped lines", join(lines[0], lines[2], lines[1], lines[3], lines[4]),
			&Break{2, "seq is 3 where 2 should follow 1 (a line was removed, inserted or renumbered)"}, nil, 5},
		{"first line removed", join(lines[1], lines[2], lines[3], lines[4]),
			&Break{1, "seq is 2 where 1 should follow 0 (a line was removed, inserted or renumbered)"}, nil, 4},
		{"first prev not zeros", join(otherPrev, lines[1], lines[2], lines[3], lines[4]),
			&Break{1, "prev of the first line is not 64 zeros (the start of the log was cut)"}, nil, 5},
		{"empty line", join(lines[0], []byte("\n"), lines[1]),
			&Break{2, "not a well-formed record (at byte 0: want {\"seq\":)"}, nil, 3},
		{"break and torn", join(lines[0], edit(lines[1]), lines[2], lines[3][:10]),
			&Break{3, "prev does not match the hash of line 2 (a line was edited, removed or inserted)"}, &Torn{4, 10}, 3},
		// The honest limit: an edit of the last line keeps the chain; only
		// an anchored head shows it.
		{"edited last line", join(lines[0], lines[1], lines[2], lines[3], edit(lines[4])), nil, nil, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mustVerify(t, tt.b)
			last := bytes.SplitAfter(tt.b, []byte("\n"))
			head := hashLine(bytes.TrimSuffix(last[len(last)-2], []byte("\n")))
			want := Report{Records: tt.count, Head: head, Torn: tt.torn, Break: tt.want}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("verify (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReportString(t *testing.T) {
	head := "3f2a" + strings.Repeat("0", 60)
	tests := []struct {
		rep  Report
		want string
	}{
		{Report{}, "audit: 0 records, chain intact (empty log)"},
		{Report{Records: 1, Head: head}, "audit: 1 record, chain intact (head " + head + ")"},
		{Report{Records: 124, Head: head}, "audit: 124 records, chain intact (head " + head + ")"},
		{Report{Records: 124, Head: head, Anchor: head, AnchorLine: 124}, "audit: 124 records, chain intact (head " + head + "); the head is the one expected"},
		{Report{Records: 124, Head: head, Anchor: "ab" + head[2:], AnchorLine: 123},
			"audit: 124 records, chain intact (head " + head + "); the head is not the one expected: the expected head is line 123's, and 1 record follows it; look at them, and if each is yours, keep the new head instead"},
		{Report{Records: 124, Head: head, Anchor: "ab" + head[2:], AnchorLine: 100},
			"audit: 124 records, chain intact (head " + head + "); the head is not the one expected: the expected head is line 100's, and 24 records follow it; look at them, and if each is yours, keep the new head instead"},
		{Report{Records: 124, Head: head, Anchor: "ab" + head[2:]},
			"audit: no line of the chain has the expected head ab" + head[2:] + ": the line it was taken from, or one before it, was edited or removed, or the log was rewritten"},
		{Report{Records: 56, Head: head, Anchor: head, AnchorLine: 56, Torn: &Torn{57, 12}},
			"audit: 56 records intact (head " + head + "); the head is the one expected; line 57 is torn (an incomplete last line, as a crash while writing leaves); the next append will cut it off and record its size and hash"},
		{Report{Records: 56, Head: head, Anchor: "ab" + head[2:], AnchorLine: 50, Torn: &Torn{57, 12}},
			"audit: 56 records intact (head " + head + "); line 57 is torn (an incomplete last line, as a crash while writing leaves); the next append will cut it off and record its size and hash; " +
				"the head is not the one expected: the expected head is line 50's, and 6 records follow it; look at them, and if each is yours, keep the new head instead"},
		{Report{Records: 9, Head: head, Anchor: "ab" + head[2:], AnchorLine: 8, Unvouched: []Unvouched{{9, "approval.decided", "7f3a2c1d"}}},
			"audit: line 9 (approval.decided of 7f3a2c1d) takes an answer that no approval.answered record gave before it; the head is not the one expected: the expected head is line 8's, and 1 record follows it; look at them, and if each is yours, keep the new head instead"},
		{Report{Records: 0, Torn: &Torn{1, 5}},
			"audit: 0 records intact; line 1 is torn (an incomplete last line, as a crash while writing leaves); the next append will cut it off and record its size and hash"},
		{Report{Records: 9, Head: head, Unvouched: []Unvouched{{7, "approval.decided", "7f3a2c1d"}}},
			"audit: line 7 (approval.decided of 7f3a2c1d) takes an answer that no approval.answered record gave before it"},
		{Report{Records: 9, Head: head, Unvouched: []Unvouched{{7, "inquiry.settled", ""}, {8, "inquiry.settled", "a1b2c3d4"}, {9, "x.y", ""}}},
			"audit: line 7 (inquiry.settled) takes an answer that no inquiry.answered record gave before it, and 2 more do"},
		{Report{Records: 80, Head: head, Break: &Break{57, "prev does not match the hash of line 56 (a line was edited, removed or inserted)"}},
			"audit: line 57 breaks the chain: prev does not match the hash of line 56 (a line was edited, removed or inserted)"},
		{Report{Records: 56, Head: head, Torn: &Torn{57, 12}},
			"audit: 56 records intact (head " + head + "); line 57 is torn (an incomplete last line, as a crash while writing leaves); the next append will cut it off and record its size and hash"},
		{Report{Records: 60, Head: head, Break: &Break{3, "x"}, Torn: &Torn{61, 1}},
			"audit: line 3 breaks the chain: x; line 61 is torn (an incomplete last line, as a crash while writing leaves); the next append will cut it off and record its size and hash"},
	}
	for _, tt := range tests {
		if got := tt.rep.String(); got != tt.want {
			t.Errorf("%+v.String() =\n%s\nwant\n%s", tt.rep, got, tt.want)
		}
	}
}

// FuzzVerify feeds arbitrary bytes to Verify and Read: they must not
// panic, and what they say must agree with the bytes.
func FuzzVerify(f *testing.F) {
	good, err := os.ReadFile(filepath.Join("testdata", "golden.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	rec, err := os.ReadFile(filepath.Join("testdata", "recovered.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(rec)
	f.Add(good[:len(good)/2])
	f.Add([]byte{})
	f.Add([]byte("\n"))
	f.Add([]byte("\n\n{}"))
	f.Add([]byte(`{"seq":1}` + "\n"))
	f.Add(bytes.Replace(good, []byte(`"turn":1`), []byte(`"turn":2`), 1))
	f.Add(bytes.Replace(good, []byte(`{}`), []byte(`{"a":{"b":[[[{"c":"\u00e9\ud800"}]]]}}`), 1))
	f.Add(bytes.Replace(good, []byte(`{}`), []byte(`{"id":"a1b2c3d4","fileSHA256":"aa"}`), 1))
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, err := verify(newReader(data))
		if err != nil {
			t.Fatalf("verify = %v; reading bytes cannot fail", err)
		}
		nl := bytes.LastIndexByte(data, '\n')
		if want := bytes.Count(data, []byte("\n")); rep.Records != want {
			t.Errorf("Records = %d, want %d (the newlines)", rep.Records, want)
		}
		if torn := len(data) - nl - 1; (rep.Torn != nil) != (torn > 0) || rep.Torn != nil && (rep.Torn.Bytes != torn || rep.Torn.Line != rep.Records+1) {
			t.Errorf("Torn = %+v, want %d bytes on line %d", rep.Torn, torn, rep.Records+1)
		}
		if rep.Break != nil && (rep.Break.Line < 1 || rep.Break.Line > rep.Records || rep.Break.Reason == "") {
			t.Errorf("Break = %+v outside lines 1..%d", rep.Break, rep.Records)
		}
		if s := rep.String(); strings.Contains(s, "\n") {
			t.Errorf("String() = %q spans lines", s)
		}
		for _, u := range rep.Unvouched {
			if u.Line < 1 || u.Line > rep.Records || rep.Break != nil && u.Line >= rep.Break.Line {
				t.Errorf("Unvouched %+v outside the intact lines 1..%d (break %+v)", u, rep.Records, rep.Break)
			}
		}
		tl, err := readTail(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		if tl.end != int64(nl+1) || (rep.Records > 0 && tl.hash != rep.Head) {
			t.Errorf("readTail = %+v; want end %d, hash %s", tl, nl+1, rep.Head)
		}
		recs, err := readRecords(newReader(data), Filter{})
		if rep.Break == nil {
			if err != nil || len(recs) != rep.Records || tl.seq != int64(rep.Records) {
				t.Errorf("intact log: Read gave %d records, %v, and the tail seq %d; want %d, nil, %d",
					len(recs), err, tl.seq, rep.Records, rep.Records)
			}
			for i, r := range recs {
				if r.Seq != int64(i+1) {
					t.Fatalf("intact log: record %d has seq %d", i+1, r.Seq)
				}
			}
		}
	})
}
