package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
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
	// Unvouched lists, in order, the records of the intact chain that take
	// an answer another process filed with no record of that answer being
	// given before them (see the package's "Answers from elsewhere").
	Unvouched []Unvouched
	// Anchor is the hash Verify was asked to find (VerifyOptions.Anchor),
	// and AnchorLine the line of the intact chain whose hash it is; 0 when
	// no line has it: a line up to the one it was taken from was edited or
	// removed, or the log was rewritten.
	Anchor     string
	AnchorLine int
}

// Failed reports whether the log fails the check: a line breaks the
// chain, a record takes an answer nobody is on record as giving, or an
// anchor was asked for and the head is not that anchor (no line of the
// chain has it, or records follow the line that has it). A torn last line
// alone is no failure.
func (r Report) Failed() bool {
	return r.Break != nil || len(r.Unvouched) > 0 || r.Anchor != "" && (r.AnchorLine == 0 || r.Following() > 0)
}

// Following is the number of complete records after the anchor's line,
// when the anchor is a line of the intact chain and no line breaks it; 0
// otherwise. Anyone who can write the log can append records that chain
// correctly, so they fail an anchored check until a person has looked at
// them and anchored the new head.
func (r Report) Following() int {
	if r.Anchor == "" || r.AnchorLine == 0 || r.Break != nil {
		return 0
	}
	return r.Records - r.AnchorLine
}

// An Unvouched record takes an answer that another process filed (its
// data carries the file's SHA-256 as fileSHA256), but no record before it
// gives that answer: none of the kind "<its first word>.answered" with
// the same fileSHA256. Either the answer was not given through wisp, or
// the log was edited.
type Unvouched struct {
	// Line is the record's line, counting from 1.
	Line int
	// Kind is the record's kind, such as inquiry.settled.
	Kind string
	// ID is the question or approval the answer was to (data's id, or
	// approvalID), when the record names one.
	ID string
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

// VerifyOptions configure VerifyWith. A nil *VerifyOptions, and each
// zero field, mean the documented default.
type VerifyOptions struct {
	// Anchor is a head kept elsewhere, 64 hex digits: the hash
	// of a line as a Report's Head gave it earlier. Verify finds the line
	// of the intact chain that has it (Report.AnchorLine), which proves
	// that line and every line before it unchanged, and the report fails
	// unless that line is the last (see Report.Following). "": none.
	Anchor string
}

// Verify reads the whole log in dir and checks its chain. It returns an
// error only when the log cannot be read (a missing log wraps
// fs.ErrNotExist); what it finds in the file is in the Report.
func Verify(dir string) (Report, error) { return VerifyWith(dir, nil) }

// VerifyWith is Verify with options: it also looks for the anchor. An
// anchor that is not a head (ParseHead) is an error wrapping ErrNotHead,
// and nothing is read.
func VerifyWith(dir string, opts *VerifyOptions) (Report, error) {
	var o VerifyOptions
	if opts != nil {
		o = *opts
	}
	if o.Anchor != "" {
		anchor, err := ParseHead(o.Anchor)
		if err != nil {
			return Report{}, err
		}
		o.Anchor = anchor
	}
	var rep Report
	err := readLog(dir, func(br *bufio.Reader) error {
		var err error
		rep, err = verifyAnchor(br, o.Anchor)
		return err
	})
	return rep, err
}

// verify is Verify on a stream of the log's bytes.
func verify(br *bufio.Reader) (Report, error) { return verifyAnchor(br, "") }

// verifyAnchor is VerifyWith on a stream of the log's bytes.
func verifyAnchor(br *bufio.Reader, anchor string) (Report, error) {
	v := verifier{anchor: anchor}
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

	anchor     string // the hash to find; "" for none
	anchorLine int    // the line that has it; 0 while none has

	// given holds the answers recorded as given so far. It is a list that
	// only grows at its head, so a copy of the verifier keeps exactly what
	// it had.
	given     *given
	unvouched []Unvouched // appended to without sharing a backing array
}

// given is one answer recorded as given: its key (see answerKey), and the
// answers given before it.
type given struct {
	key  string
	next *given
}

// has reports whether the list from g holds key.
func (g *given) has(key string) bool {
	for ; g != nil; g = g.next {
		if g.key == key {
			return true
		}
	}
	return false
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
		rec, reason := check(b, v.records, v.seq, prev)
		if reason == "" {
			v.seq++
			v.prev = hashLine(b)
			if v.anchor != "" && v.anchorLine == 0 && v.prev == v.anchor {
				v.anchorLine = v.records
			}
			v.vouch(rec)
			return nil
		}
		v.brk = &Break{Line: v.records, Reason: reason}
	}
	v.last = append(v.last[:0:0], b...)
	return nil
}

// The kinds that give an answer another process files, and that refuse
// one, end so; the kinds that take one carry its file's SHA-256.
const (
	givenSuffix   = ".answered"
	refusedSuffix = ".refused"
	fileSumKey    = "fileSHA256"
)

// vouch checks a record of the intact chain against the answers given
// before it: a record that gives one adds it, and a record that takes one
// without a giver before it is unvouched.
func (v *verifier) vouch(rec Record) {
	if !bytes.Contains(rec.Data, []byte(`"`+fileSumKey+`":`)) {
		return
	}
	var d map[string]json.RawMessage
	if json.Unmarshal(rec.Data, &d) != nil {
		return
	}
	var sum string
	if json.Unmarshal(d[fileSumKey], &sum) != nil || sum == "" {
		return
	}
	key := answerKey(rec.Kind, sum)
	switch {
	case strings.HasSuffix(rec.Kind, givenSuffix):
		v.given = &given{key: key, next: v.given}
	case strings.HasSuffix(rec.Kind, refusedSuffix):
	case !v.given.has(key):
		var id string
		if json.Unmarshal(d["id"], &id) != nil || id == "" {
			_ = json.Unmarshal(d["approvalID"], &id)
		}
		u := Unvouched{Line: v.records, Kind: rec.Kind, ID: id}
		v.unvouched = append(v.unvouched[:len(v.unvouched):len(v.unvouched)], u)
	}
}

// answerKey names an answer by the first word of the kind of a record
// about it ("inquiry", "approval") and its file's SHA-256.
func answerKey(kind, sum string) string {
	word, _, _ := strings.Cut(kind, ".")
	return word + " " + sum
}

// report is the Report on the lines taken, with torn bytes after them.
func (v *verifier) report(torn int64) Report {
	rep := Report{Records: v.records, Head: v.prev, Break: v.brk, Unvouched: v.unvouched, Anchor: v.anchor, AnchorLine: v.anchorLine}
	if v.brk != nil {
		rep.Head = hashLine(v.last)
	}
	if torn > 0 {
		rep.Torn = &Torn{Line: v.records + 1, Bytes: int(torn)}
	}
	return rep
}

// check parses line n and returns it, with why it breaks the chain after
// a line with the given seq and hash, or "" if it does not.
func check(line []byte, n int, seq int64, prev string) (Record, string) {
	rec, err := parseLine(line)
	switch {
	case err != nil:
		return rec, fmt.Sprintf("not a well-formed record (%v)", err)
	case rec.Seq != seq+1:
		return rec, fmt.Sprintf("seq is %d where %d should follow %d (a line was removed, inserted or renumbered)", rec.Seq, seq+1, seq)
	case rec.Prev != prev && n == 1:
		return rec, "prev of the first line is not 64 zeros (the start of the log was cut)"
	case rec.Prev != prev:
		return rec, fmt.Sprintf("prev does not match the hash of line %d (a line was edited, removed or inserted)", n-1)
	}
	return rec, ""
}

// String says in one line what the report found, for a person: the first
// failure (see Failed), or that the chain is intact, with its head in
// full, and how the head compares with the anchor asked for.
func (r Report) String() string {
	var b strings.Builder
	switch {
	case r.Break != nil:
		fmt.Fprintf(&b, "audit: line %d breaks the chain: %s", r.Break.Line, r.Break.Reason)
	case r.Anchor != "" && r.AnchorLine == 0:
		fmt.Fprintf(&b, "audit: no line of the chain has the expected head %s: "+
			"the line it was taken from, or one before it, was edited or removed, or the log was rewritten", r.Anchor)
	case len(r.Unvouched) > 0:
		u := r.Unvouched[0]
		word, _, _ := strings.Cut(u.Kind, ".")
		fmt.Fprintf(&b, "audit: line %d (%s", u.Line, u.Kind)
		if u.ID != "" {
			fmt.Fprintf(&b, " of %s", u.ID)
		}
		fmt.Fprintf(&b, ") takes an answer that no %s%s record gave before it", word, givenSuffix)
		if n := len(r.Unvouched) - 1; n > 0 {
			fmt.Fprintf(&b, ", and %d more do", n)
		}
	case r.Records == 0 && r.Torn == nil:
		b.WriteString("audit: 0 records, chain intact (empty log)")
	case r.Records == 0:
		b.WriteString("audit: 0 records intact")
	case r.Torn != nil:
		fmt.Fprintf(&b, "audit: %s intact (head %s)", records(r.Records), r.Head)
	default:
		fmt.Fprintf(&b, "audit: %s, chain intact (head %s)", records(r.Records), r.Head)
	}
	if !r.Failed() && r.Anchor != "" {
		b.WriteString("; the head is the one expected")
	}
	if r.Torn != nil {
		fmt.Fprintf(&b, "; line %d is torn (an incomplete last line, as a crash while writing leaves); "+
			"the next append will cut it off and record its size and hash", r.Torn.Line)
	}
	if n := r.Following(); n > 0 {
		fmt.Fprintf(&b, "; the head is not the one expected: the expected head is line %d's, and %s it; "+
			"look at them, and if each is yours, keep the new head instead", r.AnchorLine, follow(n))
	}
	return b.String()
}

// follow says "1 record follows" or "n records follow".
func follow(n int) string {
	if n == 1 {
		return "1 record follows"
	}
	return fmt.Sprintf("%d records follow", n)
}

// records says "1 record" or "n records".
func records(n int) string {
	if n == 1 {
		return "1 record"
	}
	return fmt.Sprintf("%d records", n)
}
