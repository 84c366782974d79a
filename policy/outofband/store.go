package outofband

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/internal/fsx"
	"github.com/wisp-agent/wisp/internal/spool"
)

// pollInterval is how often Wait looks for a decision.
const pollInterval = 100 * time.Millisecond

// linger is how long Sweep leaves a request that has ended (withdrawn,
// or past its deadline), so that a late answer hears why it came too
// late rather than that there is no such request.
const linger = 10 * time.Minute

// The kinds of file a request has, as their names spell them.
const (
	kindRequest   = "request"
	kindDecision  = "decision"
	kindWithdrawn = "withdrawn"
)

// files is the approvals folder's kind of spool.
var files = spool.Spool{
	Folder:       "approvals folder",
	File:         "approvals file",
	Keeps:        "approval requests",
	MaxFileBytes: MaxFileBytes,
	ErrUnsafe:    ErrUnsafe,
	ErrMalformed: ErrMalformed,
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
}

func (s Store) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC().Round(0)
	}
	return time.Now().UTC().Round(0)
}

// path names the file of kind for the request id, which must be valid.
func (s Store) path(id, kind string) string {
	return filepath.Join(s.Dir, spool.Name(id, kind))
}

// File files r, under its own ID, for a person to decide, and returns it
// as filed: with the time asked and its Digest. The ID must be valid
// (ErrBadID) and not filed already (ErrFiled); the rest must be within
// the limits (ErrInvalid): a command of 1 to MaxCommandBytes, a text of at
// most MaxTextBytes, all valid UTF-8, and one or more scopes, narrowest
// first, none of them ScopeNone. Leftovers of an earlier request under the
// same ID that a crash left behind are removed first, so the new request
// never inherits an old decision.
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
		Scopes:  slices.Clone(r.Scopes),
		Asked:   s.now(),
	}
	if !r.Deadline.IsZero() {
		req.Deadline = r.Deadline.UTC().Round(0)
	}
	if err := checkRequest(req); err != nil {
		return Request{}, lineErr(ErrInvalid, fmt.Sprintf("cannot file approval request %s: %v", r.ID, err))
	}
	if err := files.UseDir(s.Dir, true); err != nil {
		return Request{}, err
	}
	unlock, err := spool.Lock(ctx, s.Dir)
	if err != nil {
		return Request{}, err
	}
	defer unlock()

	there, err := files.Present(s.path(req.ID, kindRequest))
	if err != nil {
		return Request{}, err
	}
	if there {
		return Request{}, lineErr(ErrFiled, fmt.Sprintf("approval request %s is filed already; each request is filed once, under its own ID", req.ID))
	}
	used, err := spool.UsedIDs(s.Dir)
	if err != nil {
		return Request{}, err
	}
	if used[req.ID] {
		if err := spool.RemoveID(s.Dir, req.ID); err != nil {
			return Request{}, err
		}
	}
	req.Digest = digestOf(req)
	data, err := encodeRequest(req)
	if err != nil {
		return Request{}, err
	}
	if err := spool.WriteFile(s.path(req.ID, kindRequest), data); err != nil {
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
	if err := files.UseDir(s.Dir, false); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	entries, err := os.ReadDir(s.Dir)
	if err != nil {
		return nil, err
	}
	now := s.now()
	var rs []Request
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), "."+kindRequest+".json")
		if !ok || !ValidID(id) {
			continue
		}
		r, err := s.readRequest(id)
		switch {
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, ErrMalformed):
			continue
		case err != nil:
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

// readRequest reads and parses the request file of id. A missing file
// gives an error that matches fs.ErrNotExist.
func (s Store) readRequest(id string) (Request, error) {
	path := s.path(id, kindRequest)
	data, err := files.ReadFile(path)
	if err != nil {
		return Request{}, err
	}
	r, err := parseRequest(data)
	if err != nil {
		return Request{}, files.Malformed(path, err)
	}
	if r.ID != id {
		return Request{}, files.Malformed(path, fmt.Errorf("it names approval request %s", r.ID))
	}
	return r, nil
}

// request reads the request id for a method that needs it, turning a
// missing folder or file into ErrNoRequest.
func (s Store) request(id string) (Request, error) {
	if err := files.UseDir(s.Dir, false); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Request{}, noRequest(id)
		}
		return Request{}, err
	}
	r, err := s.readRequest(id)
	if errors.Is(err, fs.ErrNotExist) {
		return Request{}, noRequest(id)
	}
	return r, err
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
	r, err := s.request(id)
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
	there, err := files.Present(s.path(r.ID, kindDecision))
	if err != nil {
		return err
	}
	if there {
		return s.decidedErr(r.ID)
	}
	there, err = files.Present(s.path(r.ID, kindWithdrawn))
	if err != nil {
		return err
	}
	if there {
		return s.withdrawnErr(r.ID)
	}
	if !r.Deadline.IsZero() && !now.Before(r.Deadline) {
		return lineErr(ErrWithdrawn, fmt.Sprintf("approval request %s ran out of time unanswered and takes no answer", r.ID))
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
func (s Store) Decide(ctx context.Context, d Decision) error {
	if err := checkID(d.ID); err != nil {
		return err
	}
	if d.At.IsZero() {
		d.At = s.now()
	}
	d.At = d.At.UTC().Round(0)
	if err := checkDecision(d); err != nil {
		return lineErr(ErrInvalid, fmt.Sprintf("cannot answer approval request %s: %v", d.ID, err))
	}
	if err := files.UseDir(s.Dir, false); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return noRequest(d.ID)
		}
		return err
	}
	unlock, err := spool.Lock(ctx, s.Dir)
	if err != nil {
		return err
	}
	defer unlock()

	r, err := s.request(d.ID)
	if err != nil {
		return err
	}
	if err := s.ended(r, s.now()); err != nil {
		return err
	}
	if d.Digest != r.Digest {
		return lineErr(ErrStale, fmt.Sprintf("approval request %s is not the request that was shown (it changed, or was filed again); show it again (wisp approvals list) and answer that", d.ID))
	}
	if d.Scope != wisp.ScopeNone && !r.Offers(d.Scope) {
		return lineErr(ErrInvalid, fmt.Sprintf("cannot answer approval request %s with %s: it offers %s", d.ID, d.Scope, strings.Join(scopeNames(r.Scopes), " or ")))
	}
	data, err := encodeDecision(d)
	if err != nil {
		return err
	}
	err = spool.CreateExclusive(s.path(d.ID, kindDecision), data)
	if errors.Is(err, spool.ErrExists) {
		return s.decidedErr(d.ID)
	}
	return err
}

// Decided returns the decision filed on request id; ok is false while
// there is none. It returns an error that wraps ErrNoRequest when the
// request is not filed (a decision left behind by an interrupted Settle
// counts for nothing), and ErrStale when the decision on file carries a
// digest other than the request's.
func (s Store) Decided(id string) (d Decision, ok bool, err error) {
	if err := checkID(id); err != nil {
		return Decision{}, false, err
	}
	r, err := s.request(id)
	if err != nil {
		return Decision{}, false, err
	}
	return s.decisionOn(r)
}

// decisionOn reads the decision on r, if there is one, and checks that it
// is bound to r.
func (s Store) decisionOn(r Request) (Decision, bool, error) {
	path := s.path(r.ID, kindDecision)
	data, err := files.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Decision{}, false, nil
	}
	if err != nil {
		return Decision{}, false, err
	}
	d, err := parseDecision(data)
	if err != nil {
		return Decision{}, false, files.Malformed(path, err)
	}
	if d.ID != r.ID || d.Digest != r.Digest {
		return Decision{}, false, lineErr(ErrStale, fmt.Sprintf("the decision on file for approval request %s was made on another request; remove it (rm %s)", r.ID, fsx.QuotePath(path)))
	}
	return d, true, nil
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
	if err := checkID(id); err != nil {
		return Decision{}, err
	}
	t := time.NewTicker(pollInterval)
	defer t.Stop()
	for {
		d, done, err := s.poll(id)
		if done {
			return d, err
		}
		select {
		case <-ctx.Done():
			return Decision{}, context.Cause(ctx)
		case <-t.C:
		}
	}
}

// poll looks once for the end of request id; done is false while it
// still waits.
func (s Store) poll(id string) (d Decision, done bool, err error) {
	r, err := s.request(id)
	if err != nil {
		return Decision{}, true, err
	}
	d, ok, err := s.decisionOn(r)
	if err != nil || ok {
		return d, true, err
	}
	there, err := files.Present(s.path(id, kindWithdrawn))
	if err != nil {
		return Decision{}, true, err
	}
	if there {
		return Decision{}, true, s.withdrawnErr(id)
	}
	return Decision{}, false, nil
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
	if err := checkID(id); err != nil {
		return err
	}
	if err := checkWhy(why); err != nil {
		return lineErr(ErrInvalid, fmt.Sprintf("cannot withdraw approval request %s: %v", id, err))
	}
	if err := files.UseDir(s.Dir, false); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return noRequest(id)
		}
		return err
	}
	unlock, err := spool.Lock(ctx, s.Dir)
	if err != nil {
		return err
	}
	defer unlock()

	there, err := files.Present(s.path(id, kindRequest))
	if err != nil {
		return err
	}
	if !there {
		return noRequest(id)
	}
	if there, err := files.Present(s.path(id, kindDecision)); err != nil || there {
		if err == nil {
			err = s.decidedErr(id)
		}
		return err
	}
	if there, err := files.Present(s.path(id, kindWithdrawn)); err != nil || there {
		return err
	}
	data, err := spool.EncodeJSON(withdrawnFile{Version: formatVersion, ID: id, Why: why, At: s.now()})
	if err != nil {
		return err
	}
	return spool.WriteFile(s.path(id, kindWithdrawn), data)
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
	if err := checkID(id); err != nil {
		return err
	}
	if err := files.UseDir(s.Dir, false); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	unlock, err := spool.Lock(ctx, s.Dir)
	if err != nil {
		return err
	}
	defer unlock()
	return s.settle(id)
}

// settle is Settle's work, under the lock.
func (s Store) settle(id string) error {
	if err := spool.Remove(s.path(id, kindRequest)); err != nil {
		return err
	}
	if err := fsx.SyncDir(s.Dir); err != nil {
		return err
	}
	return spool.RemoveID(s.Dir, id)
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
	if err := files.UseDir(s.Dir, false); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	unlock, err := spool.Lock(ctx, s.Dir)
	if err != nil {
		return err
	}
	defer unlock()

	entries, err := os.ReadDir(s.Dir)
	if err != nil {
		return err
	}
	cutoff := s.now().Add(-linger)
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), "."+kindRequest+".json")
		if !ok || !ValidID(id) {
			continue
		}
		r, err := s.readRequest(id)
		switch {
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, ErrMalformed):
			continue
		case err != nil:
			return err
		}
		old := !r.Deadline.IsZero() && r.Deadline.Before(cutoff)
		if !old {
			if data, err := files.ReadFile(s.path(id, kindWithdrawn)); err == nil {
				w, err := parseWithdrawn(data)
				old = err == nil && w.At.Before(cutoff)
			}
		}
		if old {
			if err := s.settle(id); err != nil {
				return err
			}
		}
	}
	return spool.Sweep(s.Dir, kindRequest, kindDecision, kindWithdrawn)
}

// decidedErr says that request id was decided, and from where when the
// decision can be read.
func (s Store) decidedErr(id string) error {
	msg := fmt.Sprintf("approval request %s was already answered", id)
	if data, err := files.ReadFile(s.path(id, kindDecision)); err == nil {
		if d, err := parseDecision(data); err == nil {
			msg += " from " + d.From
		}
	}
	return lineErr(ErrDecided, msg)
}

// withdrawnErr says that request id was withdrawn, and why when the
// withdrawal can be read.
func (s Store) withdrawnErr(id string) error {
	msg := fmt.Sprintf("approval request %s was withdrawn and takes no answer", id)
	if data, err := files.ReadFile(s.path(id, kindWithdrawn)); err == nil {
		if w, err := parseWithdrawn(data); err == nil {
			msg = fmt.Sprintf("approval request %s was withdrawn (%s) and takes no answer", id, w.Why)
		}
	}
	return lineErr(ErrWithdrawn, msg)
}

// noRequest says that no request id is filed.
func noRequest(id string) error {
	return lineErr(ErrNoRequest, fmt.Sprintf("no approval request %s is waiting; wisp approvals list shows those that are", id))
}
