package spool

import (
	"context"
	"iter"
	"time"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/policy/secrets"
)

// WaitInterval is how often Store.Wait looks for an answer.
const WaitInterval = 100 * time.Millisecond

// A Kind is what a Store keeps: its Ledger (the files, their formats,
// the caller's rules and lines) and how an answer is put on record. The
// parked questions of inquiry/pending and the approval requests of
// policy/outofband are each one Kind.
type Kind[R, A any] struct {
	Ledger[R, A]
	// CheckID refuses, with the caller's line, an id that is not one of
	// the folder's IDs.
	CheckID func(id string) error
	// Given is the kind of the event that records an answer as given
	// (inquiry.answered, approval.answered): with a Witness, Give records
	// it before the answer's file appears, and an answer is taken only
	// when the Witness vouches for one of them naming its file. Record's
	// event of a given answer is of this kind.
	Given string
	// Record returns the event that records the answer a to r, whose
	// file's [Sum] is sum: given (true), the person's, as Give records it
	// through the Witness; or refused (false), wisp's, when no record
	// vouches for the answer on file. The Store sets its Time.
	Record func(r R, a A, sum string, given bool) wisp.Event
	// Unrecorded is the caller's line for an answer to id that the
	// Witness could not record (err): nothing is filed. It should wrap
	// wisp.ErrNotRecorded, as every record that could not be written
	// does.
	Unrecorded func(id string, err error) error
	// BadWhy is the caller's line for a withdrawal of id whose reason
	// CheckWhy refuses (err).
	BadWhy func(id string, err error) error
}

// A Store keeps records of one Kind and their answers in one folder: the
// folder, the clock, the Witness that records who answers, and the
// redactor that keeps credentials out of every file. It holds no state of
// its own: any number of Stores, in any number of processes, may use one
// folder at once, every change under the folder's lock.
//
// inquiry/pending and policy/outofband each wrap one, keeping their own
// public types, file formats and lines; what a parked record goes
// through (answered first, vouched for, waited on, withdrawn, settled) is
// the Store's, once.
type Store[R, A any] struct {
	// Kind is what the folder keeps; required.
	Kind *Kind[R, A]
	// Dir is the folder.
	Dir string
	// Now tells the time; nil means time.Now.
	Now func() time.Time
	// Witness keeps the record of who answers; nil: answers are filed
	// unrecorded and taken as they are.
	Witness wisp.Witness
	// Redact replaces credentials in what the caller files; nil: a
	// secrets.Redactor of each call's own.
	Redact func(string) string
}

// Time returns the time now, in UTC, without its monotonic reading.
func (s Store[R, A]) Time() time.Time {
	if s.Now != nil {
		return s.Now().UTC().Round(0)
	}
	return time.Now().UTC().Round(0)
}

// Redactor returns Redact, or a new secrets.Redactor's when it is nil.
func (s Store[R, A]) Redactor() func(string) string {
	if s.Redact != nil {
		return s.Redact
	}
	r := secrets.NewRedactor()
	return func(text string) string { out, _ := r.Redact(text); return out }
}

// ledger is the Kind's Ledger with the Store's Witness: it takes only the
// answers the Witness vouches for, and records the refusal of any other.
func (s Store[R, A]) ledger() Ledger[R, A] {
	l := s.Kind.Ledger
	if s.Witness == nil {
		return l
	}
	l.Vouch = func(ctx context.Context, id string, _ R, _ A, sum string) (bool, error) {
		return s.Witness.Vouched(ctx, s.Kind.Given, id, sum)
	}
	l.Refuse = func(ctx context.Context, _ string, r R, a A, sum string) error {
		e := s.Kind.Record(r, a, sum, false)
		e.Time = s.Time()
		return wisp.Record(context.WithoutCancel(ctx), s.Witness, e)
	}
	return l
}

// File files a record (see Ledger.File).
func (s Store[R, A]) File(ctx context.Context, record func(used map[string]bool) (id string, data []byte, err error)) error {
	return s.Kind.File(ctx, s.Dir, record)
}

// Records yields the records filed, by ID (see Ledger.Records).
func (s Store[R, A]) Records() iter.Seq2[R, error] { return s.Kind.Records(s.Dir) }

// Read returns the record id (see Ledger.Read).
func (s Store[R, A]) Read(id string) (R, error) { return s.Kind.Read(s.Dir, id) }

// Ended returns the Kind's line when the record id has an answer or was
// withdrawn, and nil while it waits (see Ledger.Ended).
func (s Store[R, A]) Ended(id string) error { return s.Kind.Ended(s.Dir, id) }

// Waiting reports whether the record id has neither an answer nor a
// withdrawal.
func (s Store[R, A]) Waiting(id string) (bool, error) { return s.Kind.Waiting(s.Dir, id) }

// Withdrawn reports whether the record id was withdrawn.
func (s Store[R, A]) Withdrawn(id string) (bool, error) {
	return s.Kind.Present(Path(s.Dir, id, KindWithdrawn))
}

// Damaged returns the record files the Kind cannot read back (see
// Ledger.Damaged).
func (s Store[R, A]) Damaged() ([]Damage, error) { return s.Kind.Damaged(s.Dir) }

// Give files data, the encoding of a, as the answer to the record id, if
// it is the first. Under the folder's lock it refuses, as Ledger.Give
// does, a record not filed, answered or withdrawn, and what check
// refuses; then, with a Witness, it records the answer as given (the
// Kind's Record), and files nothing when that fails (the Kind's
// Unrecorded line).
func (s Store[R, A]) Give(ctx context.Context, id string, a A, data []byte, check func(R) error) error {
	if err := s.Kind.CheckID(id); err != nil {
		return err
	}
	return s.Kind.Give(ctx, s.Dir, id, data, func(r R) error {
		if err := check(r); err != nil {
			return err
		}
		if s.Witness == nil {
			return nil
		}
		e := s.Kind.Record(r, a, Sum(data), true)
		e.Time = s.Time()
		// The Witness's own error, in the Kind's line, which says the
		// answer was not recorded (wisp.ErrNotRecorded).
		if err := s.Witness.Record(context.WithoutCancel(ctx), e); err != nil {
			return s.Kind.Unrecorded(id, err)
		}
		return nil
	})
}

// Answer returns the answer to r, the record filed as id, when there is
// one the Store takes (see Ledger.Answer): with a Witness, only one it
// vouches for.
func (s Store[R, A]) Answer(ctx context.Context, id string, r R) (a A, ok bool, err error) {
	return s.ledger().Answer(ctx, s.Dir, id, r)
}

// Taken returns the answer filed for the record id; ok is false while
// there is none. A record not filed gives the Kind's NotFiled line.
func (s Store[R, A]) Taken(id string) (a A, ok bool, err error) {
	if err := s.Kind.CheckID(id); err != nil {
		return a, false, err
	}
	r, err := s.Read(id)
	if err != nil {
		return a, false, err
	}
	return s.Answer(context.Background(), id, r)
}

// Wait waits for the answer to the record id, looking every
// WaitInterval (see Ledger.Wait).
func (s Store[R, A]) Wait(ctx context.Context, id string) (A, error) {
	if err := s.Kind.CheckID(id); err != nil {
		var none A
		return none, err
	}
	return s.ledger().Wait(ctx, s.Dir, id, WaitInterval)
}

// Withdraw marks the record id as taking no answer, saying why (see
// Ledger.Withdraw); a reason CheckWhy refuses gives the Kind's BadWhy
// line.
func (s Store[R, A]) Withdraw(ctx context.Context, id, why string) error {
	if err := s.Kind.CheckID(id); err != nil {
		return err
	}
	if err := CheckWhy(why); err != nil {
		return s.Kind.BadWhy(id, err)
	}
	return s.Kind.Withdraw(ctx, s.Dir, id, why, s.Time)
}

// Settle removes the record id and everything filed with it (see
// Ledger.Settle).
func (s Store[R, A]) Settle(ctx context.Context, id string) error {
	if err := s.Kind.CheckID(id); err != nil {
		return err
	}
	return s.Kind.Settle(ctx, s.Dir, id)
}

// Sweep clears the folder of what crashes left, settling first each
// record for which over reports that nobody waits for it any more (see
// Ledger.Sweep).
func (s Store[R, A]) Sweep(ctx context.Context, over func(R) bool) error {
	return s.Kind.Sweep(ctx, s.Dir, over)
}
