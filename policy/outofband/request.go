package outofband

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/internal/spool"
)

// Limits of what the Store files and reads.
const (
	// MaxFileBytes is the most the Store reads of any file in the
	// approvals folder; a longer file is malformed. At worst JSON writes a
	// byte as six, so a request within the limits below always fits.
	MaxFileBytes = 160 << 10
	// MaxCommandBytes bounds Command and Pattern.
	MaxCommandBytes = 1 << 10
	// MaxTextBytes bounds Text.
	MaxTextBytes = 4 << 10
	// MaxDiffBytes bounds Diff.
	MaxDiffBytes = 16 << 10
	// maxKindBytes bounds Kind; maxLabelBytes bounds Session and Thread.
	maxKindBytes  = 64
	maxLabelBytes = 256
)

// formatVersion is the version every file in the approvals folder
// carries.
const formatVersion = 1

// IDLen is the length of an approval ID: 8 characters from 0-9 and a-f,
// such as 7f3a2c1d, as policy.Gate draws them.
const IDLen = 8

// ValidID reports whether id is an approval ID: exactly IDLen characters,
// each a digit or a lower-case letter from a to f. Only such a string is
// ever joined to the approvals folder's path, so an ID can name no other
// file.
func ValidID(id string) bool { return spool.ValidID(id) }

// checkID refuses an id that is not an approval ID.
func checkID(id string) error {
	if ValidID(id) {
		return nil
	}
	return spool.Line(ErrBadID, fmt.Sprintf("%s is not an approval ID; an ID is %d characters from 0-9 and a-f, such as 7f3a2c1d (wisp approvals list shows them)", spool.QuoteID(id), IDLen))
}

// A Request is an approval request as filed in the approvals folder: a
// wisp.ApprovalRequest, when it was asked, and its digest.
type Request struct {
	// ID names the request: the wisp.ApprovalRequest's own ID.
	ID string
	// Session, Thread and Turn say where the request was made.
	Session string
	Thread  string
	Turn    int
	// Kind names what is asked, such as "modelAction".
	Kind string
	// Command is what the classifier judged, such as
	// "models enable ollama:qwen3:4b"; Pattern is what an answer of "this
	// session" covers; Text says what the person needs to know, in lines.
	// Parts of all three may come from the model: escape them before
	// showing them on a terminal.
	Command string
	Pattern string
	Text    string
	// Diff, when set, is the change to a file the request would allow,
	// as a unified diff (wisp.ApprovalRequest.Diff); it comes from the
	// file and the model, so escape it too.
	Diff string
	// Scopes are the answers the request allows, narrowest first, none of
	// them ScopeNone.
	Scopes []wisp.Scope
	// Asked is when the request was filed, in UTC.
	Asked time.Time
	// Deadline is when the request ends refused if unanswered, in UTC;
	// zero means it waits for as long as the person takes. The Store
	// refuses decisions after it; the Approver withdraws the request when
	// it passes.
	Deadline time.Time
	// Digest is the SHA-256, in lower-case hex, of everything above (see
	// the package documentation). A decision must carry it.
	Digest string
}

// Offers reports whether the request allows an answer of scope.
func (r Request) Offers(scope wisp.Scope) bool { return slices.Contains(r.Scopes, scope) }

// Narrows reports whether an answer of scope can be narrowed to a scope
// the request offers: one it offers is no wider. The gate narrows such an
// answer and records the answer as downgradedFrom.
func (r Request) Narrows(scope wisp.Scope) bool {
	return scope > wisp.ScopeNone && scope <= wisp.ScopeAlways &&
		slices.ContainsFunc(r.Scopes, func(s wisp.Scope) bool { return s <= scope })
}

// requestFile is the JSON form of a Request: <id>.request.json.
type requestFile struct {
	Version  int       `json:"version"`
	ID       string    `json:"id"`
	Session  string    `json:"session"`
	Thread   string    `json:"thread"`
	Turn     int       `json:"turn"`
	Kind     string    `json:"kind"`
	Command  string    `json:"command"`
	Pattern  string    `json:"pattern"`
	Text     string    `json:"text"`
	Diff     string    `json:"diff,omitempty"`
	Scopes   []string  `json:"scopes"`
	Asked    time.Time `json:"asked"`
	Deadline time.Time `json:"deadline,omitzero"`
	Digest   string    `json:"digest"`
}

// digestTag starts the digest's input, with the format's version, so it
// can never be mistaken for the digest of anything else.
const digestTag = "wisp approval request v1\x00"

// digestOf computes r's digest: the tag, then ID, Session, Thread, Turn
// (in decimal), Kind, Command, Pattern and Text, each as a uvarint byte
// length and the bytes, then the number of scopes as a uvarint and each
// scope's name the same way, then Asked and Deadline (UTC, RFC 3339 with
// nanoseconds; no deadline is the empty string) the same way, and last,
// for a request with a Diff only, the Diff the same way (so a request
// without one keeps the digest it always had).
func digestOf(r Request) string {
	d := spool.NewDigest(digestTag)
	for _, s := range []string{r.ID, r.Session, r.Thread, strconv.Itoa(r.Turn), r.Kind, r.Command, r.Pattern, r.Text} {
		d.Field(s)
	}
	d.Count(len(r.Scopes))
	for _, s := range r.Scopes {
		d.Field(s.String())
	}
	d.Time(r.Asked)
	if r.Deadline.IsZero() {
		d.Field("")
	} else {
		d.Time(r.Deadline)
	}
	if r.Diff != "" {
		d.Field(r.Diff)
	}
	return d.Sum()
}

// checkRequest applies the limits to r's content, not to its ID or
// Digest.
func checkRequest(r Request) error {
	for _, f := range []struct {
		what     string
		s        string
		min, max int
	}{
		{"the command", r.Command, 1, MaxCommandBytes},
		{"the pattern", r.Pattern, 0, MaxCommandBytes},
		{"the text", r.Text, 0, MaxTextBytes},
		{"the diff", r.Diff, 0, MaxDiffBytes},
		{"the kind", r.Kind, 0, maxKindBytes},
		{"the session name", r.Session, 0, maxLabelBytes},
		{"the thread name", r.Thread, 0, maxLabelBytes},
	} {
		if !utf8.ValidString(f.s) || len(f.s) < f.min || len(f.s) > f.max {
			return fmt.Errorf("%s must be %d to %d bytes of UTF-8", f.what, f.min, f.max)
		}
	}
	if r.Turn < 0 {
		return fmt.Errorf("turn %d is negative", r.Turn)
	}
	if len(r.Scopes) == 0 {
		return errors.New("it offers no scope; offer at least once")
	}
	for i, s := range r.Scopes {
		if s < wisp.ScopeOnce || s > wisp.ScopeAlways {
			return fmt.Errorf("scope %d is %v, not one an answer can give", i+1, s)
		}
		if i > 0 && s <= r.Scopes[i-1] {
			return errors.New("the scopes must be given narrowest first, each once")
		}
	}
	return spool.CheckTimes(r.Asked, r.Deadline)
}

// scopeNames writes scopes by name.
func scopeNames(scopes []wisp.Scope) []string {
	names := make([]string, len(scopes))
	for i, s := range scopes {
		names[i] = s.String()
	}
	return names
}

// parseScope reads a scope's name; ok is false for any other text.
func parseScope(name string) (wisp.Scope, bool) {
	for s := wisp.ScopeNone; s <= wisp.ScopeAlways; s++ {
		if s.String() == name {
			return s, true
		}
	}
	return wisp.ScopeNone, false
}

// encodeRequest writes r's file: indented JSON and a final newline.
func encodeRequest(r Request) ([]byte, error) {
	return spool.EncodeJSON(requestFile{
		Version:  formatVersion,
		ID:       r.ID,
		Session:  r.Session,
		Thread:   r.Thread,
		Turn:     r.Turn,
		Kind:     r.Kind,
		Command:  r.Command,
		Pattern:  r.Pattern,
		Text:     r.Text,
		Diff:     r.Diff,
		Scopes:   scopeNames(r.Scopes),
		Asked:    r.Asked,
		Deadline: r.Deadline,
		Digest:   r.Digest,
	})
}

// parseRequest reads a request file, refusing anything encodeRequest
// could not have written for a valid request: unknown keys, another
// version, a bad ID, broken limits, or a digest that does not match.
func parseRequest(data []byte) (Request, error) {
	var f requestFile
	if err := spool.DecodeJSON(data, &f); err != nil {
		return Request{}, err
	}
	if err := spool.CheckVersion(f.Version, formatVersion); err != nil {
		return Request{}, err
	}
	if !ValidID(f.ID) {
		return Request{}, errors.New("bad approval ID")
	}
	r := Request{
		ID:       f.ID,
		Session:  f.Session,
		Thread:   f.Thread,
		Turn:     f.Turn,
		Kind:     f.Kind,
		Command:  f.Command,
		Pattern:  f.Pattern,
		Text:     f.Text,
		Diff:     f.Diff,
		Asked:    f.Asked.UTC(),
		Deadline: f.Deadline,
		Digest:   f.Digest,
	}
	if !r.Deadline.IsZero() {
		r.Deadline = r.Deadline.UTC()
	}
	for _, name := range f.Scopes {
		s, ok := parseScope(name)
		if !ok {
			return Request{}, fmt.Errorf("unknown scope %q", name)
		}
		r.Scopes = append(r.Scopes, s)
	}
	if err := checkRequest(r); err != nil {
		return Request{}, err
	}
	if r.Digest != digestOf(r) {
		return Request{}, errors.New("digest does not match the request")
	}
	return r, nil
}

// parseRequestOf reads the request file of id: parseRequest, and the
// request must be id.
func parseRequestOf(id string, data []byte) (Request, error) {
	r, err := parseRequest(data)
	if err == nil && r.ID != id {
		return Request{}, fmt.Errorf("it names approval request %s", r.ID)
	}
	return r, err
}
