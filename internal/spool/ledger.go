package spool

import (
	"context"
	"errors"
	"io/fs"
	"iter"
	"os"
	"time"

	"github.com/wisp-agent/wisp/internal/fsx"
)

// A Ledger is a spool folder of filed records, each waiting for one
// answer: the parked questions of inquiry/pending, the approval requests
// of policy/outofband. A record with the ID a1b2c3d4 has these files:
//
//	a1b2c3d4.<RecordKind>.json  the record, written by File
//	a1b2c3d4.<AnswerKind>.json  the first answer, written by Give
//	a1b2c3d4.withdrawn.json     the withdrawal, written by Withdraw
//
// A record is filed exactly while its record file exists, and waits
// while it has neither an answer nor a withdrawal. An answer or a
// withdrawal without a record file is a leftover of an interrupted
// Settle: it counts for nothing, and Settle or Sweep removes it. The
// first answer wins ([CreateExclusive]), and every change holds the
// folder's lock, so an answer and a withdrawal cannot both win.
//
// R is the record's type and A the answer's. A Ledger reads their files
// with its caller's parsers and refuses with its caller's lines, so each
// caller keeps its own formats, rules and words. Like a Spool it holds no
// path: its methods take the folder, and every ID they are given must be
// valid ([ValidID]).
type Ledger[R, A any] struct {
	Spool
	// RecordKind and AnswerKind are the kinds of a record's file and of
	// its answer's, such as "question" and "answer".
	RecordKind, AnswerKind string
	// Version is the format version a withdrawal carries.
	Version int

	// ParseRecord reads the record file of id, refusing what the caller
	// could not have written for id (a record of another ID included);
	// ParseAnswer and ParseWithdrawal read an answer's file and a
	// withdrawal's. Their errors say why a file is malformed.
	ParseRecord     func(id string, data []byte) (R, error)
	ParseAnswer     func(data []byte) (A, error)
	ParseWithdrawal func(data []byte) (Withdrawal, error)
	// Bind checks that a, read from path, was given to r as r is filed
	// now (to its ID and digest), and returns the caller's line when not.
	Bind func(r R, a A, path string) error

	// NotFiled, Answered and Withdrawn return the caller's lines for a
	// record id that is not filed; that has an answer, a, if ok (it can
	// be read); and that was withdrawn, w, if ok.
	NotFiled  func(id string) error
	Answered  func(id string, a A, ok bool) error
	Withdrawn func(id string, w Withdrawal, ok bool) error

	// Vouch, when not nil, reports whether the answer a to r, the record
	// filed as id, whose file's [Sum] is sum, is on record as given by
	// whoever may give one. An answer it does not vouch for is refused
	// wherever an answer is taken (Answer, Wait): Refuse records the
	// refusal, under the folder's lock, and the answer's file is removed,
	// so that the record waits for another. nil: every answer is taken.
	Vouch  func(ctx context.Context, id string, r R, a A, sum string) (bool, error)
	Refuse func(ctx context.Context, id string, r R, a A, sum string) error
}

// change checks the folder dir and takes its lock for a change. A
// missing folder gives the error missing, or when missing is nil a nil
// unlock and a nil error: there is nothing to change.
func (l Ledger[R, A]) change(ctx context.Context, dir string, missing error) (unlock func() error, err error) {
	if err := l.UseDir(dir, false); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, missing
		}
		return nil, err
	}
	return Lock(ctx, dir)
}

// readAs reads the file at path as ReadFile does and parses it, calling
// a file that does not parse malformed.
func readAs[T any](s Spool, path string, parse func([]byte) (T, error)) (T, error) {
	var v T
	data, err := s.ReadFile(path)
	if err != nil {
		return v, err
	}
	v, err = parse(data)
	if err != nil {
		return v, s.Malformed(path, err)
	}
	return v, nil
}

// File files a record. It creates the folder dir when it is missing (as
// UseDir does), takes its lock, and calls record with the IDs that any
// file in the folder names, leftovers included; record returns the ID and
// the file of the record to file, or an error, which File returns as it
// is. File writes the record to <id>.<RecordKind>.json atomically and
// durably.
func (l Ledger[R, A]) File(ctx context.Context, dir string, record func(used map[string]bool) (id string, data []byte, err error)) error {
	if err := l.UseDir(dir, true); err != nil {
		return err
	}
	unlock, err := Lock(ctx, dir)
	if err != nil {
		return err
	}
	defer unlock()

	used, err := UsedIDs(dir)
	if err != nil {
		return err
	}
	id, data, err := record(used)
	if err != nil {
		return err
	}
	return WriteFile(Path(dir, id, l.RecordKind), data)
}

// Read returns the record id, giving the NotFiled line when the folder
// or the record file is missing.
func (l Ledger[R, A]) Read(dir, id string) (R, error) {
	if err := l.UseDir(dir, false); err != nil {
		var r R
		if errors.Is(err, fs.ErrNotExist) {
			return r, l.NotFiled(id)
		}
		return r, err
	}
	r, err := l.readRecord(dir, id)
	if errors.Is(err, fs.ErrNotExist) {
		return r, l.NotFiled(id)
	}
	return r, err
}

// readRecord reads and parses the record file of id. A missing file
// gives an error that matches fs.ErrNotExist.
func (l Ledger[R, A]) readRecord(dir, id string) (R, error) {
	return readAs(l.Spool, Path(dir, id, l.RecordKind), func(data []byte) (R, error) { return l.ParseRecord(id, data) })
}

// Records yields the records filed in the folder dir, by ID. It skips
// files that are not records the caller wrote (ParseRecord refuses them),
// so one broken file never hides the others, and yields nothing when the
// folder is missing. It stops after yielding an error, such as a file it
// must not trust.
func (l Ledger[R, A]) Records(dir string) iter.Seq2[R, error] {
	return func(yield func(R, error) bool) {
		l.records(dir, func(_ string, r R, err error) bool { return yield(r, err) })
	}
}

// records is Records, which yields each record's ID as well.
func (l Ledger[R, A]) records(dir string, yield func(id string, r R, err error) bool) {
	var none R
	if err := l.UseDir(dir, false); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			yield("", none, err)
		}
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		yield("", none, err)
		return
	}
	for _, e := range entries {
		id, ok := idOfKind(e.Name(), l.RecordKind)
		if !ok {
			continue
		}
		r, err := l.readRecord(dir, id)
		switch {
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, ErrMalformed):
			continue
		case err != nil:
			yield(id, none, err)
			return
		}
		if !yield(id, r, nil) {
			return
		}
	}
}

// state reports whether the record id has an answer and, when it has
// none, whether it was withdrawn.
func (l Ledger[R, A]) state(dir, id string) (answered, withdrawn bool, err error) {
	answered, err = l.Present(Path(dir, id, l.AnswerKind))
	if err != nil || answered {
		return answered, false, err
	}
	withdrawn, err = l.Present(Path(dir, id, KindWithdrawn))
	return false, withdrawn, err
}

// Waiting reports whether the record id has neither an answer nor a
// withdrawal.
func (l Ledger[R, A]) Waiting(dir, id string) (bool, error) {
	answered, withdrawn, err := l.state(dir, id)
	return err == nil && !answered && !withdrawn, err
}

// Ended returns the Answered line when the record id has an answer, the
// Withdrawn line when it was withdrawn, and nil while it waits.
func (l Ledger[R, A]) Ended(dir, id string) error {
	answered, withdrawn, err := l.state(dir, id)
	switch {
	case err != nil:
		return err
	case answered:
		return l.answered(dir, id)
	case withdrawn:
		return l.withdrawn(dir, id)
	}
	return nil
}

// answered returns the Answered line for id, with the answer when it can
// be read.
func (l Ledger[R, A]) answered(dir, id string) error {
	a, err := readAs(l.Spool, Path(dir, id, l.AnswerKind), l.ParseAnswer)
	return l.Answered(id, a, err == nil)
}

// withdrawn returns the Withdrawn line for id, with the withdrawal when
// it can be read.
func (l Ledger[R, A]) withdrawn(dir, id string) error {
	w, err := l.ReadWithdrawal(dir, id)
	return l.Withdrawn(id, w, err == nil)
}

// ReadWithdrawal reads the withdrawal of the record id. A missing file
// gives an error that matches fs.ErrNotExist.
func (l Ledger[R, A]) ReadWithdrawal(dir, id string) (Withdrawal, error) {
	return readAs(l.Spool, Path(dir, id, KindWithdrawn), l.ParseWithdrawal)
}

// Answer returns the answer to r, the record filed as id; ok is false
// while there is none. An answer that Bind refuses gives its line; one
// that Vouch does not vouch for is refused and removed, and ok is false.
func (l Ledger[R, A]) Answer(ctx context.Context, dir, id string, r R) (a A, ok bool, err error) {
	var none A
	path := Path(dir, id, l.AnswerKind)
	data, err := l.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return none, false, nil
	}
	if err != nil {
		return none, false, err
	}
	if a, err = l.ParseAnswer(data); err != nil {
		return none, false, l.Malformed(path, err)
	}
	if err := l.Bind(r, a, path); err != nil {
		return none, false, err
	}
	if l.Vouch == nil {
		return a, true, nil
	}
	sum := Sum(data)
	vouched, err := l.Vouch(ctx, id, r, a, sum)
	switch {
	case err != nil:
		return none, false, err
	case !vouched:
		return none, false, l.refuse(ctx, dir, id, r, a, sum)
	}
	return a, true, nil
}

// refuse refuses the answer a to r, the record filed as id, whose file's
// Sum is sum: under the folder's lock, if the record is still filed and
// the answer's file still holds those bytes, Refuse records it and the
// file is removed.
func (l Ledger[R, A]) refuse(ctx context.Context, dir, id string, r R, a A, sum string) error {
	unlock, err := l.change(ctx, dir, nil)
	if unlock == nil {
		return err
	}
	defer unlock()
	there, err := l.Present(Path(dir, id, l.RecordKind))
	if err != nil || !there {
		return err
	}
	path := Path(dir, id, l.AnswerKind)
	data, err := l.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // settled, or refused by another, meanwhile
	}
	if err != nil {
		return err
	}
	if Sum(data) != sum {
		return nil // another answer now; it is judged when it is taken
	}
	if err := l.Refuse(ctx, id, r, a, sum); err != nil {
		return err
	}
	if err := Remove(path); err != nil {
		return err
	}
	return fsx.SyncDir(dir)
}

// Give files data as the answer to the record id, if it is the first.
// Under the folder's lock it reads the record (the NotFiled line when it
// is not filed), refuses it as Ended does when it has an answer or a
// withdrawal, lets check refuse the answer (given to another record, or
// not one the record takes), and creates <id>.<AnswerKind>.json with
// CreateExclusive, giving the Answered line when another answer is there
// first.
func (l Ledger[R, A]) Give(ctx context.Context, dir, id string, data []byte, check func(R) error) error {
	unlock, err := l.change(ctx, dir, l.NotFiled(id))
	if err != nil {
		return err
	}
	defer unlock()

	r, err := l.Read(dir, id)
	if err != nil {
		return err
	}
	if err := l.Ended(dir, id); err != nil {
		return err
	}
	if err := check(r); err != nil {
		return err
	}
	err = CreateExclusive(Path(dir, id, l.AnswerKind), data)
	if errors.Is(err, ErrExists) {
		return l.answered(dir, id)
	}
	return err
}

// Wait waits for the answer to the record id, looking at the folder every
// interval, and returns
//
//   - the answer, once one is filed;
//   - the Withdrawn line once the record is withdrawn;
//   - the NotFiled line when the record is not filed, or is settled while
//     Wait waits;
//   - context.Cause(ctx) once ctx is done;
//   - any error reading the folder or the record's files.
//
// It starts no goroutine.
func (l Ledger[R, A]) Wait(ctx context.Context, dir, id string, interval time.Duration) (A, error) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		a, done, err := l.poll(ctx, dir, id)
		if done {
			return a, err
		}
		select {
		case <-ctx.Done():
			var none A
			return none, context.Cause(ctx)
		case <-t.C:
		}
	}
}

// poll looks once for the end of the record id; done is false while it
// still waits.
func (l Ledger[R, A]) poll(ctx context.Context, dir, id string) (a A, done bool, err error) {
	r, err := l.Read(dir, id)
	if err != nil {
		return a, true, err
	}
	a, ok, err := l.Answer(ctx, dir, id, r)
	if err != nil || ok {
		return a, true, err
	}
	there, err := l.Present(Path(dir, id, KindWithdrawn))
	if err != nil {
		return a, true, err
	}
	if there {
		return a, true, l.withdrawn(dir, id)
	}
	return a, false, nil
}

// Withdraw marks the record id as taking no answer, saying why, at the
// time now tells once the folder's lock is held. Withdrawing a withdrawn
// record does nothing and keeps the first withdrawal. It gives the
// NotFiled line when the record is not filed, and the Answered line when
// an answer won first. The withdrawal is <id>.withdrawn.json, written
// atomically and durably.
func (l Ledger[R, A]) Withdraw(ctx context.Context, dir, id, why string, now func() time.Time) error {
	unlock, err := l.change(ctx, dir, l.NotFiled(id))
	if err != nil {
		return err
	}
	defer unlock()

	there, err := l.Present(Path(dir, id, l.RecordKind))
	if err != nil {
		return err
	}
	if !there {
		return l.NotFiled(id)
	}
	answered, withdrawn, err := l.state(dir, id)
	if err != nil || withdrawn {
		return err
	}
	if answered {
		return l.answered(dir, id)
	}
	data, err := EncodeJSON(Withdrawal{Version: l.Version, ID: id, Why: why, At: now()})
	if err != nil {
		return err
	}
	return WriteFile(Path(dir, id, KindWithdrawn), data)
}

// Settle removes the record id and everything filed with it. Settling a
// record that is not filed, or in a missing folder, does nothing.
//
// The order makes every crash safe. Settle first removes the record file
// and syncs the folder: from then on the record is gone for every method,
// and an answer or withdrawal still on disk counts for nothing. It then
// removes the answer, the withdrawal and any temp files of the record,
// and syncs the folder again. Settle waits for the folder's lock, giving
// up when ctx is done.
func (l Ledger[R, A]) Settle(ctx context.Context, dir, id string) error {
	unlock, err := l.change(ctx, dir, nil)
	if unlock == nil {
		return err
	}
	defer unlock()
	return l.settle(dir, id)
}

// settle is Settle's work, under the lock.
func (l Ledger[R, A]) settle(dir, id string) error {
	if err := Remove(Path(dir, id, l.RecordKind)); err != nil {
		return err
	}
	if err := fsx.SyncDir(dir); err != nil {
		return err
	}
	return RemoveID(dir, id)
}

// Sweep clears the folder dir under its lock: it settles every record
// for which over reports that nobody waits for it any more (over nil:
// none), and then removes what crashes left, as the package's Sweep does:
// the answers, withdrawals and temp files of records no longer filed, and
// every temp file. It leaves other files, and record files that do not
// parse, alone. A missing folder is left missing.
func (l Ledger[R, A]) Sweep(ctx context.Context, dir string, over func(R) bool) error {
	unlock, err := l.change(ctx, dir, nil)
	if unlock == nil {
		return err
	}
	defer unlock()

	if over != nil {
		l.records(dir, func(id string, r R, rerr error) bool {
			if err = rerr; err == nil && over(r) {
				err = l.settle(dir, id)
			}
			return err == nil
		})
		if err != nil {
			return err
		}
	}
	return Sweep(dir, l.RecordKind, l.AnswerKind, KindWithdrawn)
}
