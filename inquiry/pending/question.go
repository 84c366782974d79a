package pending

import (
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/wisp-agent/wisp/internal/spool"
)

// Limits of what the Store files and reads.
const (
	// MaxFileBytes is the most the Store reads of any pending file; a
	// longer file is malformed.
	MaxFileBytes = 64 << 10
	// MaxAnswerBytes is the longest answer text the Store files. The desk
	// passes on at most 2,000 bytes of it; the rest is kept so the audit
	// can say what was cut. At worst JSON writes a byte as six, so an
	// answer file always fits in MaxFileBytes.
	MaxAnswerBytes = 8 << 10
	// maxQuestionChars, maxOptions and maxOptionChars bound a question
	// the way the desk does; the Store checks only bounds, not the desk's
	// other rules.
	maxQuestionChars = 300
	minOptions       = 2
	maxOptions       = 6
	maxOptionChars   = 80
	// maxLabelBytes bounds Session and Thread.
	maxLabelBytes = 256
)

// formatVersion is the version every pending file carries.
const formatVersion = 1

// A Question is a parked question as filed in the pending folder.
type Question struct {
	// ID names the question: IDLen hex characters, unique in the folder.
	ID string
	// Session, Thread and Turn say where the question was asked.
	Session string
	Thread  string
	Turn    int
	// Text and Options are the model's words, unescaped, as filed; nil
	// Options means free text.
	Text    string
	Options []string
	// Asked is when the question was filed, in UTC.
	Asked time.Time
	// Deadline is when the asking thread gives up on the question; zero
	// means never. The Store does not enforce it: the thread withdraws the
	// question when the deadline passes.
	Deadline time.Time
	// Digest is the SHA-256, in lower-case hex, of the question's ID,
	// Asked, Text and Options (see the package documentation). An answer
	// must carry it.
	Digest string
}

// FreeText reports whether the question takes free text rather than a
// choice.
func (q Question) FreeText() bool { return len(q.Options) == 0 }

// questionFile is the JSON form of a Question: <id>.question.json.
type questionFile struct {
	Version  int       `json:"version"`
	ID       string    `json:"id"`
	Session  string    `json:"session"`
	Thread   string    `json:"thread"`
	Turn     int       `json:"turn"`
	Text     string    `json:"text"`
	Options  []string  `json:"options,omitempty"`
	Asked    time.Time `json:"asked"`
	Deadline time.Time `json:"deadline,omitzero"`
	Digest   string    `json:"digest"`
}

// digestTag starts the digest's input so it can never be mistaken for
// the digest of anything else.
const digestTag = "wisp pending question v1\x00"

// digestOf computes q's digest from its ID, Asked, Text and Options: the
// tag, then each as a uvarint byte length and the bytes (Asked as UTC
// RFC 3339 with nanoseconds), then the number of options and each option
// the same way.
func digestOf(q Question) string {
	d := spool.NewDigest(digestTag)
	d.Field(q.ID)
	d.Time(q.Asked)
	d.Field(q.Text)
	d.Count(len(q.Options))
	for _, o := range q.Options {
		d.Field(o)
	}
	return d.Sum()
}

// checkQuestion applies the bounds to q's content, not to its ID or
// Digest.
func checkQuestion(q Question) error {
	if err := checkText("question", q.Text, maxQuestionChars); err != nil {
		return err
	}
	if q.Options != nil && (len(q.Options) < minOptions || len(q.Options) > maxOptions) {
		return fmt.Errorf("%d options; a choice has %d to %d", len(q.Options), minOptions, maxOptions)
	}
	for i, o := range q.Options {
		if err := checkText(fmt.Sprintf("option %d", i+1), o, maxOptionChars); err != nil {
			return err
		}
		for j := range i {
			if q.Options[j] == o {
				return fmt.Errorf("options %d and %d are the same", j+1, i+1)
			}
		}
	}
	if err := checkLabel("session", q.Session); err != nil {
		return err
	}
	if err := checkLabel("thread", q.Thread); err != nil {
		return err
	}
	if q.Turn < 0 {
		return fmt.Errorf("turn %d is negative", q.Turn)
	}
	return spool.CheckTimes(q.Asked, q.Deadline)
}

// checkText checks that s is valid UTF-8 of 1 to max code points.
func checkText(what, s string, max int) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("%s is not valid UTF-8", what)
	}
	if n := utf8.RuneCountInString(s); n == 0 || n > max {
		return fmt.Errorf("%s is %d characters; it must be 1 to %d", what, n, max)
	}
	return nil
}

// checkLabel checks a session or thread name: valid UTF-8, at most
// maxLabelBytes.
func checkLabel(what, s string) error {
	if !utf8.ValidString(s) || len(s) > maxLabelBytes {
		return fmt.Errorf("%s name is not valid UTF-8 of at most %d bytes", what, maxLabelBytes)
	}
	return nil
}

// encodeQuestion writes q's file: indented JSON and a final newline.
func encodeQuestion(q Question) ([]byte, error) {
	return spool.EncodeJSON(questionFile{
		Version:  formatVersion,
		ID:       q.ID,
		Session:  q.Session,
		Thread:   q.Thread,
		Turn:     q.Turn,
		Text:     q.Text,
		Options:  q.Options,
		Asked:    q.Asked,
		Deadline: q.Deadline,
		Digest:   q.Digest,
	})
}

// parseQuestion reads a question file, refusing anything encodeQuestion
// could not have written for a valid question: unknown keys, another
// version, a bad ID, broken bounds, or a digest that does not match.
func parseQuestion(data []byte) (Question, error) {
	var f questionFile
	if err := spool.DecodeJSON(data, &f); err != nil {
		return Question{}, err
	}
	if err := spool.CheckVersion(f.Version, formatVersion); err != nil {
		return Question{}, err
	}
	if !ValidID(f.ID) {
		return Question{}, errors.New("bad question ID")
	}
	q := Question{
		ID:       f.ID,
		Session:  f.Session,
		Thread:   f.Thread,
		Turn:     f.Turn,
		Text:     f.Text,
		Options:  f.Options,
		Asked:    f.Asked.UTC(),
		Deadline: f.Deadline,
		Digest:   f.Digest,
	}
	if !q.Deadline.IsZero() {
		q.Deadline = q.Deadline.UTC()
	}
	if err := checkQuestion(q); err != nil {
		return Question{}, err
	}
	if q.Digest != digestOf(q) {
		return Question{}, errors.New("digest does not match the question")
	}
	return q, nil
}

// parseQuestionOf reads the question file of id: parseQuestion, and the
// question must be id.
func parseQuestionOf(id string, data []byte) (Question, error) {
	q, err := parseQuestion(data)
	if err == nil && q.ID != id {
		return Question{}, fmt.Errorf("it names question %s", q.ID)
	}
	return q, err
}
