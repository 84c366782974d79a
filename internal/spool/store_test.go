package spool_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/internal/spool"
)

var (
	errBadID      = errors.New("not a note ID")
	errUnrecorded = errors.New("not on record")
	errBadWhy     = errors.New("bad reason")
)

// noteKind is the notes ledger as a Store keeps it: a reply is recorded
// as note.replied, and refused as note.refused.
var noteKind = spool.Kind[note, reply]{
	Ledger: notes,
	CheckID: func(id string) error {
		if !spool.ValidID(id) {
			return spool.Line(errBadID, spool.QuoteID(id)+" is not a note ID")
		}
		return nil
	},
	Given: "note.replied",
	Record: func(n note, r reply, sum string, given bool) wisp.Event {
		e := wisp.Event{Source: wisp.SourceWisp, Data: noteData{kind: "note.refused", ID: n.ID, From: r.From, FileSHA256: sum}}
		if given {
			e.Source, e.Data = wisp.SourcePerson, noteData{kind: "note.replied", ID: n.ID, From: r.From, FileSHA256: sum}
		}
		return e
	},
	Unrecorded: func(id string, err error) error {
		return spool.Line(errUnrecorded, "the reply to note "+id+" is not on record: "+err.Error())
	},
	BadWhy: func(id string, err error) error { return spool.Line(errBadWhy, "note "+id+": "+err.Error()) },
}

// noteData is what the notes' records hold.
type noteData struct {
	kind                 string
	ID, From, FileSHA256 string
}

func (d noteData) EventKind() string { return d.kind }

// noteWitness keeps the notes' records, and vouches for a reply one of
// them names; with fail set, it records nothing.
type noteWitness struct {
	fail   bool
	events []wisp.Event
}

func (w *noteWitness) Record(_ context.Context, e wisp.Event) error {
	if w.fail {
		return errors.New("the log is full")
	}
	w.events = append(w.events, e)
	return nil
}

func (w *noteWitness) Vouched(_ context.Context, kind, id, sum string) (bool, error) {
	for _, e := range w.events {
		if d, ok := e.Data.(noteData); ok && e.Kind() == kind && d.ID == id && d.FileSHA256 == sum {
			return true, nil
		}
	}
	return false, nil
}

// of returns the events of kind.
func (w *noteWitness) of(kind string) []wisp.Event {
	var out []wisp.Event
	for _, e := range w.events {
		if e.Kind() == kind {
			out = append(out, e)
		}
	}
	return out
}

// A Store with a Witness records a reply as given before its file
// appears, at the Store's time, and files nothing it could not record; it
// takes only a reply on record, and records the refusal of any other.
func TestStoreWitness(t *testing.T) {
	at := time.Date(2026, 7, 28, 10, 0, 0, 0, time.UTC)
	rec := &noteWitness{}
	s := spool.Store[note, reply]{Kind: &noteKind, Dir: filepath.Join(t.TempDir(), "notes"), Witness: rec,
		Now: func() time.Time { return at }}
	n := fileNote(t, s.Dir, "0000000a", "da")
	data, err := spool.EncodeJSON(reply{ID: n.ID, Digest: "da", From: "person"})
	if err != nil {
		t.Fatal(err)
	}

	// Nothing on record, nothing filed.
	broken := s
	broken.Witness = &noteWitness{fail: true}
	if err := broken.Give(t.Context(), n.ID, reply{From: "person"}, data, func(note) error { return nil }); !errors.Is(err, errUnrecorded) {
		t.Errorf("Give when the Witness fails = %v, want the Kind's Unrecorded line", err)
	}
	if waiting, err := s.Waiting(n.ID); !waiting || err != nil {
		t.Errorf("Waiting = %v, %v; want the note to wait: nothing was filed", waiting, err)
	}

	// On record, then filed, and taken.
	if err := s.Give(t.Context(), n.ID, reply{From: "person"}, data, func(note) error { return nil }); err != nil {
		t.Fatal(err)
	}
	want := []wisp.Event{{Time: at, Source: wisp.SourcePerson,
		Data: noteData{kind: "note.replied", ID: n.ID, From: "person", FileSHA256: spool.Sum(data)}}}
	if diff := cmp.Diff(want, rec.events, cmp.AllowUnexported(noteData{})); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	if got, ok, err := s.Taken(n.ID); !ok || err != nil || got.From != "person" {
		t.Errorf("Taken = %+v, %v, %v; want the reply on record", got, ok, err)
	}

	// A reply written by hand is refused, recorded, and removed.
	m := fileNote(t, s.Dir, "0000000b", "db")
	planted, err := spool.EncodeJSON(reply{ID: m.ID, Digest: "db", From: "hand"})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.Dir, "0000000b.reply.json"), planted, 0o600); err != nil {
		t.Fatal(err)
	}
	if got, ok, err := s.Taken(m.ID); ok || err != nil {
		t.Errorf("Taken of a planted reply = %+v, %v, %v; want none", got, ok, err)
	}
	refused := rec.of("note.refused")
	if len(refused) != 1 || refused[0].Data.(noteData).FileSHA256 != spool.Sum(planted) || !refused[0].Time.Equal(at) {
		t.Errorf("refusals %+v, want the planted reply's, at the Store's time", refused)
	}
}

// The Store checks IDs and reasons with the Kind's lines, and withdraws
// and settles at its own time.
func TestStoreLines(t *testing.T) {
	at := time.Date(2026, 7, 28, 10, 0, 0, 0, time.UTC)
	s := spool.Store[note, reply]{Kind: &noteKind, Dir: filepath.Join(t.TempDir(), "notes"), Now: func() time.Time { return at }}
	n := fileNote(t, s.Dir, "0000000a", "da")
	for _, id := range []string{"../x", "", "0000000A"} {
		if _, err := s.Wait(t.Context(), id); !errors.Is(err, errBadID) {
			t.Errorf("Wait(%q) = %v, want the Kind's ID line", id, err)
		}
		if err := s.Settle(t.Context(), id); !errors.Is(err, errBadID) {
			t.Errorf("Settle(%q) = %v, want the Kind's ID line", id, err)
		}
	}
	if err := s.Withdraw(t.Context(), n.ID, "two\nlines"); !errors.Is(err, errBadWhy) {
		t.Errorf("Withdraw with a reason of two lines = %v, want the Kind's BadWhy line", err)
	}
	if err := s.Withdraw(t.Context(), n.ID, "the turn ended"); err != nil {
		t.Fatal(err)
	}
	w, err := noteKind.ReadWithdrawal(s.Dir, n.ID)
	if err != nil || !w.At.Equal(at) || w.Why != "the turn ended" {
		t.Errorf("withdrawal %+v, %v; want it at the Store's time", w, err)
	}
	if _, err := s.Wait(t.Context(), n.ID); !errors.Is(err, errWithdrawn) || !strings.Contains(err.Error(), "the turn ended") {
		t.Errorf("Wait of a withdrawn note = %v, want the Kind's Withdrawn line", err)
	}
	if err := s.Settle(t.Context(), n.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Read(n.ID); !errors.Is(err, errNotFiled) {
		t.Errorf("Read after Settle = %v, want the Kind's NotFiled line", err)
	}
}
