package pending

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/internal/fsx"
	"github.com/wisp-agent/wisp/internal/spool"
)

// pollInterval is how often Wait looks for an answer.
const pollInterval = spool.WaitInterval

// maxIDTries bounds how many IDs File draws before it gives up.
const maxIDTries = 100

// The kinds of file a question has, as their names spell them.
const (
	kindQuestion  = "question"
	kindAnswer    = "answer"
	kindWithdrawn = spool.KindWithdrawn
)

// ledger is what the pending folder keeps, a kind of spool.Store. The
// life of a question's files (filed, answered first or withdrawn, vouched
// for, settled) and every check of the folder and its files are
// internal/spool's; the formats of the files, the rules, the records of
// who answered and the lines that refuse are this package's.
var ledger = spool.Kind[Question, Answer]{
	Ledger: spool.Ledger[Question, Answer]{
		Spool: spool.Spool{
			Folder:       "pending folder",
			File:         "pending file",
			Keeps:        "questions",
			MaxFileBytes: MaxFileBytes,
			ErrUnsafe:    ErrUnsafe,
			ErrMalformed: ErrMalformed,
		},
		RecordKind:      kindQuestion,
		AnswerKind:      kindAnswer,
		Version:         formatVersion,
		ParseRecord:     parseQuestionOf,
		ParseAnswer:     parseAnswer,
		ParseWithdrawal: parseWithdrawn,
		Bind:            bindAnswer,
		NotFiled:        noQuestion,
		Answered:        answeredErr,
		Withdrawn:       withdrawnErr,
	},
	CheckID: checkID,
	Given:   wisp.KindInquiryAnswered,
	Record:  answerEvent,
	Unrecorded: func(id string, err error) error {
		return spool.Line(ErrUnrecorded, fmt.Sprintf("cannot file the answer to question %s: the record of who answers could not be written (%v)", id, err))
	},
	BadWhy: func(id string, err error) error {
		return spool.Line(ErrInvalid, fmt.Sprintf("cannot withdraw question %s: %v", id, err))
	},
}

// A Store keeps parked questions and their answers in one folder. A zero
// Now and NewID are the defaults; the other fields are required.
//
// A Store is a value with no state of its own: any number of them, in any
// number of processes, may use one folder at once. Every change (File,
// Answer, Withdraw, Settle, Sweep) holds the folder's lock file while it
// runs; readers take no lock, because every file appears whole or not at
// all. Locks are advisory and not dependable on network file systems, so
// the folder belongs on a local disk.
type Store struct {
	// Dir is the pending folder, $WISP_HOME/pending. File creates it,
	// mode 0700; every method refuses it when it is a symbolic link,
	// belongs to another user, or others can write to it.
	Dir string
	// Now tells the time; nil means time.Now.
	Now func() time.Time
	// NewID draws a question ID; nil means IDLen random hex characters
	// from crypto/rand. File refuses an ID that is not valid and draws
	// again on one already in use.
	NewID func() string
	// Witness keeps the record of who answers (wisp's faces give the
	// audit log). With one, Answer records inquiry.answered before the
	// answer's file appears, and an answer is taken (Answered, Wait,
	// Filed) only when the Witness vouches for it: any other, such as a
	// file written into the folder by hand, is refused, recorded as
	// inquiry.refused, and removed, and the question waits again. nil:
	// answers are filed unrecorded and taken as they are.
	Witness wisp.Witness
	// Redact replaces credentials in a question's text and options before
	// File writes them, and in an answer's text before Answer writes it,
	// so no file in the folder holds one raw; nil: a secrets.Redactor of
	// each call's own. A text a marker makes longer than its bound is cut
	// to fit.
	Redact func(string) string
}

// store is the folder as a spool.Store.
func (s Store) store() spool.Store[Question, Answer] {
	return spool.Store[Question, Answer]{Kind: &ledger, Dir: s.Dir, Now: s.Now, Witness: s.Witness, Redact: s.Redact}
}

func (s Store) now() time.Time { return s.store().Time() }

func (s Store) newID() string {
	if s.NewID != nil {
		return s.NewID()
	}
	return randomID()
}

// ReasonUnvouched is why an answer on file is refused when no record of
// who answered vouches for it.
const ReasonUnvouched = "no inquiry.answered record vouches for the answer on file"

// answerEvent is the record of the answer a to q, whose file's SHA-256
// is sum: inquiry.answered, the person's, when given, with the face
// (from) and terminal and this process's uid and pid; inquiry.refused,
// wisp's, when no record vouches for it.
func answerEvent(q Question, a Answer, sum string, given bool) wisp.Event {
	e := wisp.Event{Session: q.Session, Thread: q.Thread, Turn: q.Turn, Source: wisp.SourceWisp,
		Data: wisp.InquiryRefusedData{ID: q.ID, Question: q.Text, Outcome: a.Outcome.String(), From: a.From,
			Answer: a.Text, FileSHA256: sum, Reason: ReasonUnvouched}}
	if !given {
		return e
	}
	data := wisp.InquiryAnsweredData{ID: q.ID, Question: q.Text, Outcome: a.Outcome.String(), From: a.From,
		Answer: a.Text, FileSHA256: sum, Terminal: a.Terminal, PID: os.Getpid()}
	if uid, ok := fsx.CurrentUID(); ok {
		data.UID = &uid
	}
	e.Source, e.Data = wisp.SourcePerson, data
	return e
}

// path names the file of kind for the question id, which must be valid.
func (s Store) path(id, kind string) string { return spool.Path(s.Dir, id, kind) }

// File files q as a parked question and returns it as filed: with a new
// ID, the time asked, and its Digest. q.ID is ignored; Session, Thread,
// Turn, Text, Options and Deadline are kept. The question must be within
// the desk's bounds (text of 1 to 300 characters; none or 2 to 6
// different options of 1 to 80), or File refuses it with ErrInvalid.
//
// File creates the pending folder when it is missing and writes
// <id>.question.json, mode 0600, atomically and durably. It waits for the
// folder's lock, giving up when ctx is done.
func (s Store) File(ctx context.Context, q wisp.Question) (Question, error) {
	pq := Question{
		Session: q.Session,
		Thread:  q.Thread,
		Turn:    q.Turn,
		Text:    q.Text,
		Asked:   s.now(),
	}
	if len(q.Options) > 0 {
		pq.Options = slices.Clone(q.Options)
	}
	if !q.Deadline.IsZero() {
		pq.Deadline = q.Deadline.UTC().Round(0)
	}
	if err := checkQuestion(pq); err != nil {
		return Question{}, spool.Line(ErrInvalid, "cannot file the question: "+err.Error())
	}
	// Checked before (so what is too long is refused, not cut) and after.
	redact := s.store().Redactor()
	pq.Text = cutRunes(redact(pq.Text), maxQuestionChars)
	for i, o := range pq.Options {
		pq.Options[i] = cutRunes(redact(o), maxOptionChars)
	}
	if err := checkQuestion(pq); err != nil {
		return Question{}, spool.Line(ErrInvalid, "cannot file the question once its credentials are redacted: "+err.Error())
	}
	err := s.store().File(ctx, func(used map[string]bool) (string, []byte, error) {
		for range maxIDTries {
			id := s.newID()
			if !ValidID(id) {
				return "", nil, fmt.Errorf("cannot file the question: %w", checkID(id))
			}
			if !used[id] {
				pq.ID = id
				break
			}
		}
		if pq.ID == "" {
			return "", nil, fmt.Errorf("cannot file the question: %d IDs drawn were all in use in %s", maxIDTries, fsx.QuotePath(s.Dir))
		}
		pq.Digest = digestOf(pq)
		data, err := encodeQuestion(pq)
		return pq.ID, data, err
	})
	if err != nil {
		return Question{}, err
	}
	return pq, nil
}

// List returns the questions waiting for an answer: filed, neither
// answered nor withdrawn, oldest first (by Asked, then ID). It returns no
// error and no questions when the folder does not exist.
//
// List skips files that are not questions wisp wrote (they do not parse,
// or their digest does not match), so one broken file never hides the
// others; Get names what is wrong with one. It fails, naming the file, on
// a file it must not trust: a symbolic link, another user's, or one
// others can write to.
func (s Store) List() ([]Question, error) {
	var qs []Question
	st := s.store()
	for q, err := range st.Records() {
		if err != nil {
			return nil, err
		}
		waiting, err := st.Waiting(q.ID)
		if err != nil {
			return nil, err
		}
		if waiting {
			qs = append(qs, q)
		}
	}
	slices.SortFunc(qs, byAsked)
	return qs, nil
}

// byAsked orders questions oldest first: by Asked, then by ID.
func byAsked(a, b Question) int {
	return cmp.Or(a.Asked.Compare(b.Asked), strings.Compare(a.ID, b.ID))
}

// Get returns the question id while it waits for an answer. It returns an
// error that wraps ErrBadID for an id that is not a question ID,
// ErrNoQuestion when no question id is filed, ErrAnswered or ErrWithdrawn
// when it is but takes no answer any more, and ErrUnsafe or ErrMalformed
// when its files cannot be trusted.
func (s Store) Get(id string) (Question, error) {
	if err := checkID(id); err != nil {
		return Question{}, err
	}
	q, err := s.store().Read(id)
	if err != nil {
		return Question{}, err
	}
	if err := s.store().Ended(id); err != nil {
		return Question{}, err
	}
	return q, nil
}

// Answer records a as the answer to question a.ID, if it is the first.
//
// a.Digest must be the question's Digest as filed: an answer given to
// another question, to an earlier question filed under the same ID, or to
// a question whose file has changed since it was shown is refused with
// ErrStale. An answer that breaks the rules of Answer's fields, or a
// choice that is not among the question's options, is refused with
// ErrInvalid; a question that is not filed with ErrNoQuestion, one
// already answered with ErrAnswered (naming the face that answered it),
// and one withdrawn with ErrWithdrawn.
//
// Credentials in the answer's text are replaced by markers (see Redact)
// before anything is checked or written, so the answer file never holds
// one raw.
//
// The first answer wins, across goroutines and processes: it is written to
// <id>.answer.json, mode 0600, whole, synced, and made to appear with
// link(2), which fails when the name exists, so at most one answer is ever
// filed for a question; the folder is synced after. Answer waits for the
// folder's lock, giving up when ctx is done.
//
// With a Witness, once every check has passed and before the file
// appears, Answer records inquiry.answered, the person's, on the
// question's thread: the question's id and text, the outcome and the
// answer, the face (from) and terminal, this process's uid and pid, and
// the SHA-256 of the answer's file (fileSHA256). When that cannot be
// recorded, nothing is filed: ErrUnrecorded.
func (s Store) Answer(ctx context.Context, a Answer) error {
	if err := checkID(a.ID); err != nil {
		return err
	}
	if a.At.IsZero() {
		a.At = s.now()
	}
	a.At = a.At.UTC().Round(0)
	if a.Text != "" && utf8.ValidString(a.Text) && len(a.Text) <= MaxAnswerBytes {
		a.Text = cutBytes(s.store().Redactor()(a.Text), MaxAnswerBytes)
	}
	if err := checkAnswer(a); err != nil {
		return spool.Line(ErrInvalid, fmt.Sprintf("cannot file the answer to question %s: %v", a.ID, err))
	}
	data, err := encodeAnswer(a)
	if err != nil {
		return err
	}
	return s.store().Give(ctx, a.ID, a, data, func(q Question) error {
		if a.Digest != q.Digest {
			return staleErr(a.ID)
		}
		if err := fits(a, q); err != nil {
			return spool.Line(ErrInvalid, fmt.Sprintf("cannot file the answer to question %s: %v", a.ID, err))
		}
		return nil
	})
}

// Answered returns the answer filed for question id; ok is false while
// there is none. It returns an error that wraps ErrNoQuestion when the
// question is not filed (an answer left behind by an interrupted Settle
// counts for nothing), and ErrStale when the answer on file carries a
// digest other than the question's.
func (s Store) Answered(id string) (a Answer, ok bool, err error) {
	return s.store().Taken(id)
}

// Wait waits for the answer to question id and returns it.
//
// Wait looks at the folder every 100 ms and returns
//
//   - the answer, once one is filed;
//   - an error that wraps ErrWithdrawn once the question is withdrawn;
//   - an error that wraps ErrNoQuestion when the question is not filed, or
//     is settled while Wait waits;
//   - context.Cause(ctx) once ctx is done;
//   - any error reading the folder or the question's files (ErrUnsafe,
//     ErrMalformed, ErrStale).
//
// It starts no goroutine.
func (s Store) Wait(ctx context.Context, id string) (Answer, error) {
	return s.store().Wait(ctx, id)
}

// Withdraw marks question id as taking no answer, saying why (one line of
// up to 200 bytes: "the thread ended", "answered in the client's dialog").
// Later answers are refused with ErrWithdrawn, which quotes why; List no
// longer shows the question. Withdrawing a withdrawn question does
// nothing and keeps the first reason. Withdraw returns an error that
// wraps ErrAnswered when an answer won first (the thread should take it),
// and ErrNoQuestion when no question id is filed.
//
// The withdrawal is <id>.withdrawn.json, mode 0600, written atomically
// and durably. Withdraw waits for the folder's lock, giving up when ctx
// is done.
func (s Store) Withdraw(ctx context.Context, id, why string) error {
	return s.store().Withdraw(ctx, id, why)
}

// Settle removes question id and everything filed with it, once the
// thread has taken its answer (and recorded inquiry.settled) or given up
// on it. Settling a question that is not filed does nothing, so Settle
// can be run again after a crash.
//
// The order makes every crash safe. Settle first removes
// <id>.question.json and syncs the folder: from then on the question is
// gone for every method, and an answer or withdrawal still on disk counts
// for nothing, so no one can answer the question again or take its answer
// twice. It then removes the answer, the withdrawal and any temp files of
// the question, and syncs the folder again. A crash between the steps
// leaves only such leftovers, which List and Get ignore, File never
// reuses the ID of, and the next Settle of the question or Sweep removes.
// Settle waits for the folder's lock, giving up when ctx is done.
func (s Store) Settle(ctx context.Context, id string) error {
	return s.store().Settle(ctx, id)
}

// Sweep removes what crashes leave in the folder: the answers,
// withdrawals and temp files of questions no longer filed, and the temp
// files of every question (no change is running while Sweep holds the
// lock, so every temp file is a leftover). It leaves other files alone.
// Run it when a process that files questions starts. Sweep waits for the
// folder's lock, giving up when ctx is done.
func (s Store) Sweep(ctx context.Context) error {
	return s.store().Sweep(ctx, nil)
}

// bindAnswer refuses the answer a on file at path when it was given to
// another question than q as filed.
func bindAnswer(q Question, a Answer, path string) error {
	if a.ID != q.ID || a.Digest != q.Digest {
		return spool.Line(ErrStale, fmt.Sprintf("the answer on file for question %s was given to another question; remove it (rm %s) and answer again", q.ID, fsx.QuotePath(path)))
	}
	return nil
}

// answeredErr says that question id was answered, and from where when
// its answer a can be read (ok).
func answeredErr(id string, a Answer, ok bool) error {
	msg := fmt.Sprintf("question %s was already answered", id)
	if ok {
		msg += " from " + a.From
	}
	return spool.Line(ErrAnswered, msg)
}

// withdrawnErr says that question id was withdrawn, and why when its
// withdrawal w can be read (ok).
func withdrawnErr(id string, w spool.Withdrawal, ok bool) error {
	msg := fmt.Sprintf("question %s was withdrawn and takes no answer", id)
	if ok {
		msg = fmt.Sprintf("question %s was withdrawn (%s) and takes no answer", id, w.Why)
	}
	return spool.Line(ErrWithdrawn, msg)
}

// noQuestion says that no question id is waiting.
func noQuestion(id string) error {
	return spool.Line(ErrNoQuestion, fmt.Sprintf("no question %s is waiting; wisp questions list shows those that are", id))
}

// staleErr refuses an answer given to another question than the one
// filed as id.
func staleErr(id string) error {
	return spool.Line(ErrStale, fmt.Sprintf("the answer was given to another question than question %s as it is now; show the question again and answer that", id))
}

// cutRunes cuts s to at most n characters.
func cutRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// cutBytes cuts s to at most n bytes on a character boundary.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
