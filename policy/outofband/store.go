package outofband

import (
	"cmp"
	"context"
	"errors"
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

// pollInterval is how often Wait looks for a decision.
const pollInterval = spool.WaitInterval

// linger is how long Sweep leaves a request that has ended (withdrawn,
// or past its deadline), so that a late answer hears why it came too
// late rather than that there is no such request.
const linger = 10 * time.Minute

// The kinds of file a request has, as their names spell them.
const (
	kindRequest   = "request"
	kindDecision  = "decision"
	kindWithdrawn = spool.KindWithdrawn
)

// ledger is what the approvals folder keeps, a kind of spool.Store. The
// life of a request's files (filed, decided first or withdrawn, vouched
// for, settled) and every check of the folder and its files are
// internal/spool's; the formats of the files, the rules, the records of
// who answered and the lines that refuse are this package's.
var ledger = spool.Kind[Request, Decision]{
	Ledger: spool.Ledger[Request, Decision]{
		Spool: spool.Spool{
			Folder:       "approvals folder",
			File:         "approvals file",
			Keeps:        "approval requests",
			MaxFileBytes: MaxFileBytes,
			ErrUnsafe:    ErrUnsafe,
			ErrMalformed: ErrMalformed,
		},
		RecordKind:      kindRequest,
		AnswerKind:      kindDecision,
		Version:         formatVersion,
		ParseRecord:     parseRequestOf,
		ParseAnswer:     parseDecision,
		ParseWithdrawal: parseWithdrawn,
		Bind:            bindDecision,
		NotFiled:        noRequest,
		Answered:        decidedErr,
		Withdrawn:       withdrawnErr,
	},
	CheckID: checkID,
	Given:   wisp.KindApprovalAnswered,
	Record:  decisionEvent,
	Unrecorded: func(id string, err error) error {
		return spool.Line(ErrUnrecorded, fmt.Sprintf("cannot answer approval request %s: the record of who answers could not be written (%v)", id, err))
	},
	BadWhy: func(id string, err error) error {
		return spool.Line(ErrInvalid, fmt.Sprintf("cannot withdraw approval request %s: %v", id, err))
	},
}

// A Store keeps approval requests and their decisions in one folder. A
// zero Now is the default; Dir is required.
//
// A Store is a value with no state of its own: any number of them, in any
// number of processes, may use one folder at once. Every change (File,
// Decide, Withdraw, Settle, Sweep) holds the folder's lock file while it
// runs; readers take no lock, because every file appears whole or not at
// all. Locks are advisory and not dependable on network file systems, so
// the folder belongs on a local disk.
type Store struct {
	// Dir is the approvals folder, $WISP_HOME/approvals. File creates it,
	// mode 0700; every method refuses it when it is a symbolic link,
	// belongs to another user, or others can write to it.
	Dir string
	// Now tells the time; nil means time.Now.
	Now func() time.Time
	// Witness keeps the record of who answers (wisp's faces give the
	// audit log). With one, Decide records approval.answered before the
	// decision's file appears, and a decision is taken (Decided, Wait)
	// only when the Witness vouches for it: any other, such as a file
	// written into the folder by hand, is refused, recorded as
	// approval.refused, and removed, and the request waits again. nil:
	// decisions are filed unrecorded and taken as they are.
	Witness wisp.Witness
	// Redact replaces credentials in a request's command, pattern and
	// text before File writes them, so no file in the folder holds one
	// raw; nil: a secrets.Redactor of each call's own. A text a marker
	// makes longer than its bound is cut to fit.
	Redact func(string) string
}

// store is the folder as a spool.Store.
func (s Store) store() spool.Store[Request, Decision] {
	return spool.Store[Request, Decision]{Kind: &ledger, Dir: s.Dir, Now: s.Now, Witness: s.Witness, Redact: s.Redact}
}

func (s Store) now() time.Time { return s.store().Time() }

// ReasonUnvouched is why a decision on file is refused when no record of
// who answered vouches for it.
const ReasonUnvouched = "no approval.answered record vouches for the decision on file"

// decisionEvent is the record of the decision d on r, whose file's
// SHA-256 is sum: approval.answered, the person's, when given, with the
// face (from) and terminal and this process's uid and pid;
// approval.refused, wisp's, when no record vouches for it.
func decisionEvent(r Request, d Decision, sum string, given bool) wisp.Event {
	e := wisp.Event{Session: r.Session, Thread: r.Thread, Turn: r.Turn, Source: wisp.SourceWisp, Approval: r.ID,
		Data: wisp.ApprovalRefusedData{ID: r.ID, Command: r.Command, Scope: d.Scope.String(), From: d.From,
			FileSHA256: sum, Reason: ReasonUnvouched}}
	if !given {
		return e
	}
	data := wisp.ApprovalAnsweredData{ID: r.ID, Command: r.Command, Scope: d.Scope.String(), From: d.From,
		FileSHA256: sum, Terminal: d.Terminal, PID: os.Getpid()}
	if uid, ok := fsx.CurrentUID(); ok {
		data.UID = &uid
	}
	e.Source, e.Data = wisp.SourcePerson, data
	return e
}

// path names the file of kind for the request id, which must be valid.
func (s Store) path(id, kind string) string { return spool.Path(s.Dir, id, kind) }

// File files r, under its own ID, for a person to decide, and returns it
// as filed: with the time asked and its Digest. The ID must be valid
// (ErrBadID) and not filed already (ErrFiled); the rest must be within
// the limits (ErrInvalid): a command of 1 to MaxCommandBytes, a text of at
// most MaxTextBytes, a diff of at most MaxDiffBytes, all valid UTF-8, and
// one or more scopes, narrowest first, none of them ScopeNone. Leftovers
// of an earlier request under the same ID that a crash left behind are
// removed first, so the new request never inherits an old decision.
//
// Credentials in the command, the pattern, the text and the diff are
// replaced by markers (see Redact) before the request is filed, and the
// request as filed is what File returns and what decisions are bound to.
//
// File creates the approvals folder when it is missing and writes
// <id>.request.json, mode 0600, atomically and durably. It waits for the
// folder's lock, giving up when ctx is done.
func (s Store) File(ctx context.Context, r wisp.ApprovalRequest) (Request, error) {
	if err := checkID(r.ID); err != nil {
		return Request{}, err
	}
	req := Request{
		ID:      r.ID,
		Session: r.Session,
		Thread:  r.Thread,
		Turn:    r.Turn,
		Kind:    r.Kind,
		Command: r.Command,
		Pattern: r.Pattern,
		Text:    r.Text,
		Diff:    r.Diff,
		Scopes:  slices.Clone(r.Scopes),
		Asked:   s.now(),
	}
	if !r.Deadline.IsZero() {
		req.Deadline = r.Deadline.UTC().Round(0)
	}
	if err := checkRequest(req); err != nil {
		return Request{}, spool.Line(ErrInvalid, fmt.Sprintf("cannot file approval request %s: %v", r.ID, err))
	}
	// Checked before (so what is too long is refused, not cut) and after.
	redact := s.store().Redactor()
	req.Command = cutBytes(redact(req.Command), MaxCommandBytes)
	req.Pattern = cutBytes(redact(req.Pattern), MaxCommandBytes)
	req.Text = cutBytes(redact(req.Text), MaxTextBytes)
	req.Diff = cutBytes(redact(req.Diff), MaxDiffBytes)
	if err := checkRequest(req); err != nil {
		return Request{}, spool.Line(ErrInvalid, fmt.Sprintf("cannot file approval request %s once its credentials are redacted: %v", r.ID, err))
	}
	err := s.store().File(ctx, func(used map[string]bool) (string, []byte, error) {
		if used[req.ID] {
			there, err := ledger.Present(s.path(req.ID, kindRequest))
			if err != nil {
				return "", nil, err
			}
			if there {
				return "", nil, spool.Line(ErrFiled, fmt.Sprintf("approval request %s is filed already; each request is filed once, under its own ID", req.ID))
			}
			if err := spool.RemoveID(s.Dir, req.ID); err != nil {
				return "", nil, err
			}
		}
		req.Digest = digestOf(req)
		data, err := encodeRequest(req)
		return req.ID, data, err
	})
	if err != nil {
		return Request{}, err
	}
	return req, nil
}

// List returns the requests waiting for a decision: filed, neither
// decided nor withdrawn, and not past their deadline; oldest first (by
// Asked, then ID). It returns no error and no requests when the folder
// does not exist.
//
// List skips files that are not requests wisp wrote (they do not parse,
// or their digest does not match), so one broken file never hides the
// others; Get names what is wrong with one. It fails, naming the file, on
// a file it must not trust: a symbolic link, another user's, or one
// others can write to.
func (s Store) List() ([]Request, error) {
	now := s.now()
	var rs []Request
	for r, err := range s.store().Records() {
		if err != nil {
			return nil, err
		}
		if err := s.ended(r, now); err != nil {
			if errors.Is(err, ErrDecided) || errors.Is(err, ErrWithdrawn) {
				continue
			}
			return nil, err
		}
		rs = append(rs, r)
	}
	slices.SortFunc(rs, func(a, b Request) int {
		return cmp.Or(a.Asked.Compare(b.Asked), strings.Compare(a.ID, b.ID))
	})
	return rs, nil
}

// Get returns the request id while it waits for a decision. It returns
// an error that wraps ErrBadID for an id that is not an approval ID,
// ErrNoRequest when no request id is filed, ErrDecided or ErrWithdrawn
// when it is but takes no decision any more (withdrawn, or past its
// deadline), and ErrUnsafe or ErrMalformed when its files cannot be
// trusted.
func (s Store) Get(id string) (Request, error) {
	if err := checkID(id); err != nil {
		return Request{}, err
	}
	r, err := s.store().Read(id)
	if err != nil {
		return Request{}, err
	}
	if err := s.ended(r, s.now()); err != nil {
		return Request{}, err
	}
	return r, nil
}

// ended returns ErrDecided or ErrWithdrawn when the request r has a
// decision or a withdrawal, or its deadline is before now, and nil while
// it waits.
func (s Store) ended(r Request, now time.Time) error {
	if err := s.store().Ended(r.ID); err != nil {
		return err
	}
	return expired(r, now)
}

// expired refuses the request r, with ErrWithdrawn, when its deadline is
// before now.
func expired(r Request, now time.Time) error {
	if !r.Deadline.IsZero() && !now.Before(r.Deadline) {
		return spool.Line(ErrWithdrawn, fmt.Sprintf("approval request %s ran out of time unanswered and takes no answer", r.ID))
	}
	return nil
}

// Decide files d as the decision on request d.ID, if it is the first.
//
// d.Digest must be the request's Digest as filed: a decision made on
// another request, on an earlier request filed under the same ID, or on a
// request whose file has changed since it was shown is refused with
// ErrStale. A decision that breaks the rules of Decision's fields, or
// whose scope the request does not offer, is refused with ErrInvalid; a
// request that is not filed with ErrNoRequest, one already decided with
// ErrDecided (naming the face that decided it), and one withdrawn or past
// its deadline with ErrWithdrawn.
//
// The first decision wins, across goroutines and processes: it is written
// to <id>.decision.json, mode 0600, whole, synced, and made to appear
// with link(2), which fails when the name exists, so at most one decision
// is ever filed for a request; the folder is synced after. Decide waits
// for the folder's lock, giving up when ctx is done.
//
// With a Witness, once every check has passed and before the file
// appears, Decide records approval.answered, the person's, on the
// request's thread: the request's id and command, the scope (none for a
// denial), the face (from) and terminal, this process's uid and pid, and
// the SHA-256 of the decision's file (fileSHA256). When that cannot be
// recorded, nothing is filed: ErrUnrecorded.
func (s Store) Decide(ctx context.Context, d Decision) error {
	if err := checkID(d.ID); err != nil {
		return err
	}
	if d.At.IsZero() {
		d.At = s.now()
	}
	d.At = d.At.UTC().Round(0)
	if err := checkDecision(d); err != nil {
		return spool.Line(ErrInvalid, fmt.Sprintf("cannot answer approval request %s: %v", d.ID, err))
	}
	data, err := encodeDecision(d)
	if err != nil {
		return err
	}
	return s.store().Give(ctx, d.ID, d, data, func(r Request) error {
		if err := expired(r, s.now()); err != nil {
			return err
		}
		if d.Digest != r.Digest {
			return spool.Line(ErrStale, fmt.Sprintf("approval request %s is not the request that was shown (it changed, or was filed again); show it again (wisp approvals list) and answer that", d.ID))
		}
		if d.Scope != wisp.ScopeNone && !r.Narrows(d.Scope) {
			return spool.Line(ErrInvalid, fmt.Sprintf("cannot answer approval request %s with %s: it offers %s", d.ID, d.Scope, strings.Join(scopeNames(r.Scopes), " or ")))
		}
		return nil
	})
}

// Decided returns the decision filed on request id; ok is false while
// there is none. It returns an error that wraps ErrNoRequest when the
// request is not filed (a decision left behind by an interrupted Settle
// counts for nothing), and ErrStale when the decision on file carries a
// digest other than the request's.
func (s Store) Decided(id string) (d Decision, ok bool, err error) {
	return s.store().Taken(id)
}

// Wait waits for the decision on request id and returns it.
//
// Wait looks at the folder every 100 ms and returns
//
//   - the decision, once one is filed;
//   - an error that wraps ErrWithdrawn once the request is withdrawn;
//   - an error that wraps ErrNoRequest when the request is not filed, or
//     is settled while Wait waits;
//   - context.Cause(ctx) once ctx is done;
//   - any error reading the folder or the request's files (ErrUnsafe,
//     ErrMalformed, ErrStale).
//
// Wait does not watch the request's deadline: whoever filed the request
// does, and withdraws it (as the Approver does). It starts no goroutine.
func (s Store) Wait(ctx context.Context, id string) (Decision, error) {
	return s.store().Wait(ctx, id)
}

// Withdraw marks request id as taking no decision, saying why (one line
// of up to 200 bytes, such as "no answer within 1 min"). Later decisions
// are refused with ErrWithdrawn, which quotes why; List no longer shows
// the request. Withdrawing a withdrawn request does nothing and keeps the
// first reason. Withdraw returns an error that wraps ErrDecided when a
// decision won first (the caller should take it), and ErrNoRequest when
// no request id is filed.
//
// The withdrawal is <id>.withdrawn.json, mode 0600, written atomically
// and durably. Withdraw waits for the folder's lock, giving up when ctx
// is done.
func (s Store) Withdraw(ctx context.Context, id, why string) error {
	return s.store().Withdraw(ctx, id, why)
}

// Settle removes request id and everything filed with it, once its
// decision has been taken or the request given up on. Settling a request
// that is not filed does nothing, so Settle can be run again after a
// crash.
//
// The order makes every crash safe. Settle first removes
// <id>.request.json and syncs the folder: from then on the request is
// gone for every method, and a decision or withdrawal still on disk
// counts for nothing, so no one can decide it again or take its decision
// twice. It then removes the decision, the withdrawal and any temp files
// of the request, and syncs the folder again. A crash between the steps
// leaves only such leftovers, which List and Get ignore, and which the
// next File under the same ID, Settle of it, or Sweep removes. Settle
// waits for the folder's lock, giving up when ctx is done.
func (s Store) Settle(ctx context.Context, id string) error {
	return s.store().Settle(ctx, id)
}

// Sweep removes what is left in the folder of requests nobody waits for
// any more: requests withdrawn more than 10 minutes ago, requests whose
// deadline passed more than 10 minutes ago (their filer is gone), the
// decisions, withdrawals and temp files of requests no longer filed, and
// the temp files of every request (no change is running while Sweep holds
// the lock, so every temp file is a leftover). A request that ended more
// recently is kept, so that a late answer hears why it came too late. It
// leaves other files, and request files it cannot parse, alone. Sweep
// waits for the folder's lock, giving up when ctx is done.
func (s Store) Sweep(ctx context.Context) error {
	return s.store().Sweep(ctx, func(r Request) bool {
		cutoff := s.now().Add(-linger)
		if !r.Deadline.IsZero() && r.Deadline.Before(cutoff) {
			return true
		}
		w, err := ledger.ReadWithdrawal(s.Dir, r.ID)
		return err == nil && w.At.Before(cutoff)
	})
}

// bindDecision refuses the decision d on file at path when it was made on
// another request than r as filed.
func bindDecision(r Request, d Decision, path string) error {
	if d.ID != r.ID || d.Digest != r.Digest {
		return spool.Line(ErrStale, fmt.Sprintf("the decision on file for approval request %s was made on another request; remove it (rm %s)", r.ID, fsx.QuotePath(path)))
	}
	return nil
}

// decidedErr says that request id was decided, and from where when its
// decision d can be read (ok).
func decidedErr(id string, d Decision, ok bool) error {
	msg := fmt.Sprintf("approval request %s was already answered", id)
	if ok {
		msg += " from " + d.From
	}
	return spool.Line(ErrDecided, msg)
}

// withdrawnErr says that request id was withdrawn, and why when its
// withdrawal w can be read (ok).
func withdrawnErr(id string, w spool.Withdrawal, ok bool) error {
	msg := fmt.Sprintf("approval request %s was withdrawn and takes no answer", id)
	if ok {
		msg = fmt.Sprintf("approval request %s was withdrawn (%s) and takes no answer", id, w.Why)
	}
	return spool.Line(ErrWithdrawn, msg)
}

// noRequest says that no request id is filed.
func noRequest(id string) error {
	return spool.Line(ErrNoRequest, fmt.Sprintf("no approval request %s is waiting; wisp approvals list shows those that are", id))
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
