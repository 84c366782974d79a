package audit

import (
	"bufio"
	"fmt"
	"strings"
)

// A Report is what Verify found.
type Report struct {
	// Records is the number of complete lines in the file, after a break
	// as well as before it.
	Records int
	// Head is the hash of the last complete line ("" when there is none):
	// the prev the next record will carry. Keep it elsewhere and compare it
	// later to detect a rewritten or shortened log.
	Head string
	// Torn is set when the file ends with an incomplete line.
	Torn *Torn
	// Break is set when a complete line breaks the chain.
	Break *Break
}

// Torn describes an incomplete last line, as a crash while writing leaves
// one. It is not tampering; the next Append cuts it off and records that
// it did.
type Torn struct {
	// Line is the line's number, counting from 1.
	Line int
	// Bytes is how many bytes of it the file holds.
	Bytes int
}

// Break describes the first complete line that breaks the chain: one that
// is not a record of the log's format, whose seq is not one more than the
// line before, or whose prev is not the hash of the line before. It means
// the file was edited, cut or corrupted.
type Break struct {
	// Line is the line's number, counting from 1.
	Line int
	// Reason says what is wrong, in words for a person.
	Reason string
}

// Verify reads the whole log in dir and checks its chain. It returns an
// error only when the log cannot be read (a missing log wraps
// fs.ErrNotExist); what it finds in the file is in the Report.
func Verify(dir string) (Report, error) {
	var rep Report
	err := readLog(dir, func(br *bufio.Reader) error {
		var err error
		rep, err = verify(br)
		return err
	})
	return rep, err
}

// verify is Verify on a stream of the log's bytes.
func verify(br *bufio.Reader) (Report, error) {
	var v verifier
	torn, err := scanLines(br, v.line)
	if err != nil {
		return Report{}, err
	}
	return v.report(torn), nil
}

// A verifier checks a log line by line. Its state after n lines depends
// on those lines only, so a copy made after a prefix of a file (while the
// chain holds) goes on exactly as a verifier that read the prefix itself.
type verifier struct {
	records int
	seq     int64  // seq of the last line, while the chain holds
	prev    string // hash of the last line, while the chain holds
	last    []byte // after a break: the last line, hashed only for the report
	brk     *Break
}

// line takes the next complete line, without its newline. It never fails:
// the first line that breaks the chain is recorded as the break, and later
// lines are only counted.
func (v *verifier) line(b []byte) error {
	v.records++
	if v.brk == nil {
		prev := v.prev
		if prev == "" {
			prev = genesis
		}
		reason := check(b, v.records, v.seq, prev)
		if reason == "" {
			v.seq++
			v.prev = hashLine(b)
			return nil
		}
		v.brk = &Break{Line: v.records, Reason: reason}
	}
	v.last = append(v.last[:0:0], b...)
	return nil
}

// report is the Report on the lines taken, with torn bytes after them.
func (v *verifier) report(torn int64) Report {
	rep := Report{Records: v.records, Head: v.prev, Break: v.brk}
	if v.brk != nil {
		rep.Head = hashLine(v.last)
	}
	if torn > 0 {
		rep.Torn = &Torn{Line: v.records + 1, Bytes: int(torn)}
	}
	return rep
}

// check returns why line n breaks the chain after a line with the given
// seq and hash, or "" if it does not.
func check(line []byte, n int, seq int64, prev string) string {
	rec, err := parseLine(line)
	switch {
	case err != nil:
		return fmt.Sprintf("not a well-formed record (%v)", err)
	case rec.Seq != seq+1:
		return fmt.Sprintf("seq is %d where %d should follow %d (a line was removed, inserted or renumbered)", rec.Seq, seq+1, seq)
	case rec.Prev != prev && n == 1:
		return "prev of the first line is not 64 zeros (the start of the log was cut)"
	case rec.Prev != prev:
		return fmt.Sprintf("prev does not match the hash of line %d (a line was edited, removed or inserted)", n-1)
	}
	return ""
}

// headShown is how many hex digits of the head String shows.
const headShown = 12

// String says in one line what the report found, for a person.
func (r Report) String() string {
	var b strings.Builder
	switch {
	case r.Break != nil:
		fmt.Fprintf(&b, "audit: line %d breaks the chain: %s", r.Break.Line, r.Break.Reason)
	case r.Torn != nil:
		fmt.Fprintf(&b, "audit: %s intact", records(r.Records))
	case r.Records == 0:
		b.WriteString("audit: 0 records, chain intact (empty log)")
	default:
		fmt.Fprintf(&b, "audit: %s, chain intact (head %.*s…)", records(r.Records), headShown, r.Head)
	}
	if r.Torn != nil {
		fmt.Fprintf(&b, "; line %d is torn (an incomplete last line, as a crash while writing leaves); "+
			"the next append will cut it off and record its size and hash", r.Torn.Line)
	}
	return b.String()
}

// records says "1 record" or "n records".
func records(n int) string {
	if n == 1 {
		return "1 record"
	}
	return fmt.Sprintf("%d records", n)
}
