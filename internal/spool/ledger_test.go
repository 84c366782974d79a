package spool_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp/internal/spool"
	"github.com/wisp-agent/wisp/internal/spool/spooltest"
)

// note and reply are a ledger's records and answers in these tests.
type note struct {
	ID     string `json:"id"`
	Digest string `json:"digest"`
}

type reply struct {
	ID     string `json:"id"`
	Digest string `json:"digest"`
	From   string `json:"from"`
}

// The lines of the notes ledger wrap these.
var (
	errNotFiled  = errors.New("no such note")
	errAnswered  = errors.New("note answered")
	errWithdrawn = errors.New("note withdrawn")
	errStale     = errors.New("reply to another note")
)

var notes = spool.Ledger[note, reply]{
	Spool: spool.Spool{
		Folder: "notes folder", File: "notes file", Keeps: "notes", MaxFileBytes: 1 << 10,
		ErrUnsafe: errMine, ErrMalformed: errBroken,
	},
	RecordKind: "note",
	AnswerKind: "reply",
	Version:    1,
	ParseRecord: func(id string, data []byte) (note, error) {
		var n note
		err := spool.DecodeJSON(data, &n)
		if err == nil && n.ID != id {
			err = fmt.Errorf("it names note %s", n.ID)
		}
		return n, err
	},
	ParseAnswer: func(data []byte) (reply, error) {
		var r reply
		return r, spool.DecodeJSON(data, &r)
	},
	ParseWithdrawal: func(data []byte) (spool.Withdrawal, error) { return spool.ParseWithdrawal(data, 1, "note ID") },
	Bind: func(n note, r reply, path string) error {
		if r.ID != n.ID || r.Digest != n.Digest {
			return spool.Line(errStale, "the reply at "+path+" is to another note")
		}
		return nil
	},
	NotFiled: func(id string) error { return spool.Line(errNotFiled, "no note "+id) },
	Answered: func(id string, r reply, ok bool) error {
		return spool.Line(errAnswered, fmt.Sprintf("note %s was answered (%v) from %q", id, ok, r.From))
	},
	Withdrawn: func(id string, w spool.Withdrawal, ok bool) error {
		return spool.Line(errWithdrawn, fmt.Sprintf("note %s was withdrawn (%v): %q", id, ok, w.Why))
	},
}

// fileNote files the note id with digest, or fails the test.
func fileNote(t *testing.T, dir, id, digest string) note {
	t.Helper()
	n := note{ID: id, Digest: digest}
	err := notes.File(t.Context(), dir, func(used map[string]bool) (string, []byte, error) {
		data, err := spool.EncodeJSON(n)
		return id, data, err
	})
	if err != nil {
		t.Fatalf("File(%s) = %v", id, err)
	}
	return n
}

// give files a reply to n from from.
func give(t *testing.T, dir string, n note, digest, from string) error {
	data, err := spool.EncodeJSON(reply{ID: n.ID, Digest: digest, From: from})
	if err != nil {
		t.Fatal(err)
	}
	return notes.Give(t.Context(), dir, n.ID, data, func(filed note) error {
		if filed.Digest != digest {
			return spool.Line(errStale, "stale")
		}
		return nil
	})
}

// records collects what Records yields.
func records(dir string) ([]note, error) {
	var ns []note
	for n, err := range notes.Records(dir) {
		if err != nil {
			return ns, err
		}
		ns = append(ns, n)
	}
	return ns, nil
}

var t0 = time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)

func now() time.Time { return t0 }

func TestLedger(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "notes")
	if ns, err := records(dir); ns != nil || err != nil {
		t.Errorf("Records of a missing folder = %v, %v; want nothing", ns, err)
	}
	if err := give(t, dir, note{ID: "0000000a"}, "", "x"); !errors.Is(err, errNotFiled) {
		t.Errorf("Give in a missing folder = %v, want the NotFiled line", err)
	}
	for name, err := range map[string]error{
		"Settle": notes.Settle(t.Context(), dir, "0000000a"),
		"Sweep":  notes.Sweep(t.Context(), dir, nil),
	} {
		if err != nil {
			t.Errorf("%s in a missing folder = %v", name, err)
		}
	}

	a := fileNote(t, dir, "0000000a", "da")
	b := fileNote(t, dir, "0000000b", "db")
	if err := os.WriteFile(spool.Path(dir, "0000000c", "note"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if ns, err := records(dir); err != nil || !cmp.Equal(ns, []note{a, b}) {
		t.Errorf("Records = %v, %v; want a and b, not the malformed note", ns, err)
	}
	if _, err := notes.Read(dir, "0000000c"); !errors.Is(err, errBroken) {
		t.Errorf("Read of a malformed note = %v, want the caller's ErrMalformed", err)
	}
	if _, err := notes.Read(dir, "0000000d"); !errors.Is(err, errNotFiled) {
		t.Errorf("Read of no note = %v, want the NotFiled line", err)
	}

	// The first reply wins; a stale one is refused by check.
	if err := give(t, dir, a, "other", "x"); !errors.Is(err, errStale) {
		t.Errorf("Give with another digest = %v, want check's line", err)
	}
	if err := give(t, dir, a, "da", "first"); err != nil {
		t.Fatalf("Give = %v", err)
	}
	err := give(t, dir, a, "da", "second")
	if want := `note 0000000a was answered (true) from "first"`; !errors.Is(err, errAnswered) || err.Error() != want {
		t.Errorf("second Give = %v, want %q", err, want)
	}
	if got, ok, err := notes.Answer(t.Context(), dir, a.ID, a); err != nil || !ok || got.From != "first" {
		t.Errorf("Answer = %+v, %v, %v; want the first reply", got, ok, err)
	}
	if _, _, err := notes.Answer(t.Context(), dir, a.ID, note{ID: a.ID, Digest: "refiled"}); !errors.Is(err, errStale) {
		t.Errorf("Answer bound to another filing = %v, want Bind's line", err)
	}
	if err := notes.Withdraw(t.Context(), dir, a.ID, "late", now); !errors.Is(err, errAnswered) {
		t.Errorf("Withdraw of an answered note = %v, want the Answered line", err)
	}

	// The first withdrawal stays; a withdrawn note takes no reply.
	for _, why := range []string{"first", "second"} {
		if err := notes.Withdraw(t.Context(), dir, b.ID, why, now); err != nil {
			t.Fatalf("Withdraw(%s) = %v", why, err)
		}
	}
	err = give(t, dir, b, "db", "x")
	if want := `note 0000000b was withdrawn (true): "first"`; !errors.Is(err, errWithdrawn) || err.Error() != want {
		t.Errorf("Give to a withdrawn note = %v, want %q", err, want)
	}
	if w, err := notes.ReadWithdrawal(dir, b.ID); err != nil || w != (spool.Withdrawal{Version: 1, ID: b.ID, Why: "first", At: t0}) {
		t.Errorf("ReadWithdrawal = %+v, %v", w, err)
	}
	for id, want := range map[string]error{a.ID: errAnswered, b.ID: errWithdrawn} {
		if waiting, err := notes.Waiting(dir, id); waiting || err != nil {
			t.Errorf("Waiting(%s) = %v, %v; want false", id, waiting, err)
		}
		if err := notes.Ended(dir, id); !errors.Is(err, want) {
			t.Errorf("Ended(%s) = %v, want %v", id, err, want)
		}
	}
	if err := notes.Withdraw(t.Context(), dir, "0000000d", "gone", now); !errors.Is(err, errNotFiled) {
		t.Errorf("Withdraw of no note = %v, want the NotFiled line", err)
	}

	for range 2 {
		if err := notes.Settle(t.Context(), dir, a.ID); err != nil {
			t.Fatalf("Settle = %v", err)
		}
	}
	want := []string{".lock", "0000000b.note.json", "0000000b.withdrawn.json", "0000000c.note.json"}
	if diff := cmp.Diff(want, spooltest.Names(t, dir)); diff != "" {
		t.Errorf("after Settle (-want +got):\n%s", diff)
	}
}

func TestLedgerFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "notes")
	fileNote(t, dir, "0000000a", "da")
	os.WriteFile(spool.Path(dir, "0000000b", "reply"), nil, 0o600)
	var used map[string]bool
	errNo := errors.New("no")
	err := notes.File(t.Context(), dir, func(u map[string]bool) (string, []byte, error) {
		used = u
		return "", nil, errNo
	})
	if err != errNo {
		t.Errorf("File = %v, want record's error as it is", err)
	}
	if diff := cmp.Diff(map[string]bool{"0000000a": true, "0000000b": true}, used); diff != "" {
		t.Errorf("IDs in use (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{".lock", "0000000a.note.json", "0000000b.reply.json"}, spooltest.Names(t, dir)); diff != "" {
		t.Errorf("a refused File wrote (-want +got):\n%s", diff)
	}
}

func TestLedgerSweep(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "notes")
	a := fileNote(t, dir, "0000000a", "da")
	b := fileNote(t, dir, "0000000b", "db")
	if err := give(t, dir, b, "db", "x"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"0000000c.reply.json", ".0000000a.reply.json.tmp-1", "notes.txt"} {
		os.WriteFile(filepath.Join(dir, name), nil, 0o600)
	}
	var seen []note
	err := notes.Sweep(t.Context(), dir, func(n note) bool {
		seen = append(seen, n)
		return n.ID == b.ID
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]note{a, b}, seen); diff != "" {
		t.Errorf("Sweep asked about (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{".lock", "0000000a.note.json", "notes.txt"}, spooltest.Names(t, dir)); diff != "" {
		t.Errorf("after Sweep (-want +got):\n%s", diff)
	}
}

func TestLedgerWait(t *testing.T) {
	errDone := errors.New("done")
	tests := []struct {
		name string
		end  func(t *testing.T, dir string, n note, cancel context.CancelCauseFunc)
		want error
	}{
		{"reply", func(t *testing.T, dir string, n note, cancel context.CancelCauseFunc) {
			if err := give(t, dir, n, n.Digest, "x"); err != nil {
				t.Error(err)
			}
		}, nil},
		{"withdrawn", func(t *testing.T, dir string, n note, cancel context.CancelCauseFunc) {
			notes.Withdraw(context.Background(), dir, n.ID, "why", now)
		}, errWithdrawn},
		{"settled", func(t *testing.T, dir string, n note, cancel context.CancelCauseFunc) {
			notes.Settle(context.Background(), dir, n.ID)
		}, errNotFiled},
		{"ctx", func(t *testing.T, dir string, n note, cancel context.CancelCauseFunc) { cancel(errDone) }, errDone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				dir := filepath.Join(t.TempDir(), "notes")
				n := fileNote(t, dir, "0000000a", "da")
				ctx, cancel := context.WithCancelCause(context.Background())
				defer cancel(nil)
				type result struct {
					r   reply
					err error
				}
				done := make(chan result, 1)
				go func() {
					r, err := notes.Wait(ctx, dir, n.ID, time.Second)
					done <- result{r, err}
				}()
				time.Sleep(10 * time.Second)
				synctest.Wait()
				if len(done) != 0 {
					t.Fatal("Wait returned before its end")
				}
				tt.end(t, dir, n, cancel)
				time.Sleep(time.Second)
				synctest.Wait()
				var got result
				select {
				case got = <-done:
				default:
					t.Fatal("Wait did not return within its interval of its end")
				}
				if !errors.Is(got.err, tt.want) || tt.want == nil && (got.err != nil || got.r.From != "x") {
					t.Errorf("Wait = %+v, %v; want %v", got.r, got.err, tt.want)
				}
			})
		})
	}
}

// A ledger with Vouch takes only the replies it vouches for: any other is
// refused (Refuse records it, under the lock) and removed, and the note
// waits again, so the reply that is vouched for can still come.
func TestLedgerVouch(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "notes")
	n := fileNote(t, dir, "0000000a", "da")
	vouched := map[string]bool{} // sums vouched for
	var refused []string         // "from sum"
	l := notes
	l.Vouch = func(_ context.Context, _ string, got note, r reply, sum string) (bool, error) {
		if got != n {
			t.Errorf("Vouch(%+v), want the note filed %+v", got, n)
		}
		return vouched[sum], nil
	}
	l.Refuse = func(_ context.Context, _ string, _ note, r reply, sum string) error {
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
		defer cancel()
		if unlock, err := spool.Lock(ctx, dir); err == nil {
			unlock()
			t.Error("Refuse ran without the folder's lock held")
		}
		refused = append(refused, r.From+" "+sum)
		return nil
	}
	replyFile := filepath.Join(dir, "0000000a.reply.json")
	planted, err := spool.EncodeJSON(reply{ID: n.ID, Digest: "da", From: "planted"})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(replyFile, planted, 0o600); err != nil {
		t.Fatal(err)
	}
	if got, ok, err := l.Answer(t.Context(), dir, n.ID, n); ok || err != nil {
		t.Fatalf("Answer with a reply nobody vouches for = %+v, %v, %v; want none", got, ok, err)
	}
	if want := []string{"planted " + spool.Sum(planted)}; !cmp.Equal(want, refused) {
		t.Errorf("refused %q, want %q", refused, want)
	}
	if _, err := os.Stat(replyFile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused reply is still on file: %v", err)
	}
	if waiting, err := l.Waiting(dir, n.ID); !waiting || err != nil {
		t.Errorf("Waiting = %v, %v; want the note to wait again", waiting, err)
	}

	// A reply vouched for is taken, through Wait too.
	if err := give(t, dir, n, "da", "person"); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(replyFile)
	if err != nil {
		t.Fatal(err)
	}
	vouched[spool.Sum(data)] = true
	if got, err := l.Wait(t.Context(), dir, n.ID, time.Millisecond); err != nil || got.From != "person" {
		t.Errorf("Wait = %+v, %v; want the person's reply", got, err)
	}
	if len(refused) != 1 {
		t.Errorf("refused %q; want only the planted reply", refused)
	}

	// Wait refuses a planted reply and goes on waiting for the vouched one.
	if err := os.Remove(replyFile); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(replyFile, planted, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if got, err := l.Wait(ctx, dir, n.ID, time.Millisecond); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Wait with only a planted reply = %+v, %v; want it to wait until ctx ends", got, err)
	}
	if len(refused) != 2 {
		t.Errorf("refused %q; want the planted reply refused again", refused)
	}

	// A refusal that cannot be recorded keeps the reply, and is an error.
	if err := os.WriteFile(replyFile, planted, 0o600); err != nil {
		t.Fatal(err)
	}
	l.Refuse = func(context.Context, string, note, reply, string) error { return errors.New("no record") }
	if _, ok, err := l.Answer(t.Context(), dir, n.ID, n); ok || err == nil {
		t.Errorf("Answer when the refusal cannot be recorded = %v, %v; want an error", ok, err)
	}
	if _, err := os.Stat(replyFile); err != nil {
		t.Errorf("the reply was removed though its refusal was not recorded: %v", err)
	}
	// A Vouch that fails is an error, and refuses nothing.
	l.Vouch = func(context.Context, string, note, reply, string) (bool, error) {
		return false, errors.New("cannot look")
	}
	if _, ok, err := l.Answer(t.Context(), dir, n.ID, n); ok || err == nil || err.Error() != "cannot look" {
		t.Errorf("Answer when Vouch fails = %v, %v; want its error", ok, err)
	}
}

// Damaged names the record files Records skips, with why and what can be
// read of them; good records and other files are left out.
func TestLedgerDamaged(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "notes")
	if ds, err := notes.Damaged(dir); ds != nil || err != nil {
		t.Fatalf("Damaged of a missing folder = %v, %v; want nothing", ds, err)
	}
	fileNote(t, dir, "0000000a", "da")
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("0000000b.note.json", `{"id":"0000000b","dig`)                   // cut short
	write("0000000c.note.json", `{"id":"0000000d","digest":"x"}`)          // another record's
	write("0000000e.note.json", `{"id":"0000000e","digest":"x","more":1}`) // unknown key
	big := `{"id":"0000000f","digest":"` + strings.Repeat("x", 2000) + `"}`
	write("0000000f.note.json", big) // too large
	write("0000000b.reply.json", `{}`)
	write("notes.txt", `not a record`)
	ds, err := notes.Damaged(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range ds {
		if !errors.Is(d.Err, spool.ErrMalformed) || !strings.Contains(d.Err.Error(), d.ID+".note.json") {
			t.Errorf("Damage %s: %v; want a malformed line naming the file", d.ID, d.Err)
		}
		got = append(got, fmt.Sprintf("%s %d", d.ID, len(d.Head)))
	}
	want := []string{"0000000b 21", "0000000c 30", "0000000e 39", "0000000f 1024"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Damaged (-want +got):\n%s", diff)
	}
	// A file it must not trust fails, as in Records.
	os.Remove(filepath.Join(dir, "0000000b.note.json"))
	if err := os.Symlink(filepath.Join(dir, "0000000a.note.json"), filepath.Join(dir, "0000000b.note.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := notes.Damaged(dir); !errors.Is(err, spool.ErrUnsafe) {
		t.Errorf("Damaged with a symlinked record = %v, want ErrUnsafe", err)
	}
}
