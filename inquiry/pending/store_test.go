package pending

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/internal/spool/spooltest"
)

// TestFileRoundTrip files questions, pins their files, and reads them back
// through List and Get.
func TestFileRoundTrip(t *testing.T) {
	s := testStore(t, "a1b2c3d4", "0f0f0f0f")
	c := mustFile(t, s, choice)
	f := mustFile(t, s, free)

	wantChoice := Question{
		ID: "a1b2c3d4", Session: "s1", Thread: "t1", Turn: 3,
		Text: choice.Text, Options: choice.Options,
		Asked: t0, Deadline: t0.Add(5 * time.Minute),
	}
	wantChoice.Digest = digestOf(wantChoice)
	wantFree := Question{ID: "0f0f0f0f", Session: "s1", Thread: "t2", Turn: 1, Text: free.Text, Asked: t0}
	wantFree.Digest = digestOf(wantFree)
	if diff := cmp.Diff(wantChoice, c); diff != "" {
		t.Errorf("File(choice) (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantFree, f); diff != "" {
		t.Errorf("File(free) (-want +got):\n%s", diff)
	}
	for name, id := range map[string]string{"question-choice.json": c.ID, "question-free.json": f.ID} {
		spooltest.GoldenFile(t, name, s.path(id, kindQuestion), *update)
	}

	got, err := s.List()
	if err != nil {
		t.Fatalf("List() = %v", err)
	}
	// Same time asked: ordered by ID.
	if diff := cmp.Diff([]Question{wantFree, wantChoice}, got); diff != "" {
		t.Errorf("List() (-want +got):\n%s", diff)
	}
	for _, want := range []Question{wantChoice, wantFree} {
		got, err := s.Get(want.ID)
		if err != nil {
			t.Fatalf("Get(%q) = %v", want.ID, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Get(%q) (-want +got):\n%s", want.ID, diff)
		}
	}

	a := Answer{ID: c.ID, Digest: c.Digest, Outcome: wisp.OutcomeChose, Text: "./wisp.json", From: FromTerminal, At: t0.Add(72 * time.Second)}
	if err := s.Answer(t.Context(), a); err != nil {
		t.Fatalf("Answer = %v", err)
	}
	spooltest.GoldenFile(t, "answer.json", s.path(c.ID, kindAnswer), *update)
	if err := s.Withdraw(t.Context(), f.ID, "the thread ended"); err != nil {
		t.Fatalf("Withdraw = %v", err)
	}
	spooltest.GoldenFile(t, "withdrawn.json", s.path(f.ID, kindWithdrawn), *update)

	gotA, ok, err := s.Answered(c.ID)
	if err != nil || !ok {
		t.Fatalf("Answered(%q) = %v, %v", c.ID, ok, err)
	}
	if diff := cmp.Diff(a, gotA); diff != "" {
		t.Errorf("Answered (-want +got):\n%s", diff)
	}
	if got, err := s.List(); err != nil || len(got) != 0 {
		t.Errorf("List() after answer and withdrawal = %v, %v; want none", got, err)
	}
}

// TestListOrder checks oldest first, and that List skips a malformed file
// without hiding the others.
func TestListOrder(t *testing.T) {
	s := testStore(t, "00000002", "00000001")
	now := t0
	s.Now = func() time.Time { return now }
	older := mustFile(t, s, free)
	now = now.Add(time.Second)
	newer := mustFile(t, s, choice)
	if err := os.WriteFile(filepath.Join(s.Dir, "deadbeef.question.json"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := s.List()
	if err != nil {
		t.Fatalf("List() = %v", err)
	}
	var ids []string
	for _, q := range got {
		ids = append(ids, q.ID)
	}
	if diff := cmp.Diff([]string{older.ID, newer.ID}, ids); diff != "" {
		t.Errorf("List() IDs (-want +got):\n%s", diff)
	}
	if _, err := s.Get("deadbeef"); !errors.Is(err, ErrMalformed) {
		t.Errorf("Get(malformed) = %v, want ErrMalformed", err)
	}
	if got, err := (Store{Dir: filepath.Join(t.TempDir(), "none")}).List(); err != nil || got != nil {
		t.Errorf("List() of a missing folder = %v, %v; want nothing", got, err)
	}
}

// TestFileRefusesInvalid checks File's bounds.
func TestFileRefusesInvalid(t *testing.T) {
	long := strings.Repeat("x", 301)
	tests := []struct {
		name string
		q    wisp.Question
	}{
		{"empty", wisp.Question{}},
		{"too long", wisp.Question{Text: long}},
		{"one option", wisp.Question{Text: "?", Options: []string{"a"}}},
		{"seven options", wisp.Question{Text: "?", Options: []string{"1", "2", "3", "4", "5", "6", "7"}}},
		{"same options", wisp.Question{Text: "?", Options: []string{"a", "a"}}},
		{"empty option", wisp.Question{Text: "?", Options: []string{"a", ""}}},
		{"bad UTF-8", wisp.Question{Text: "\xff"}},
		{"negative turn", wisp.Question{Text: "?", Turn: -1}},
		{"long thread", wisp.Question{Text: "?", Thread: strings.Repeat("t", 257)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := testStore(t)
			if _, err := s.File(t.Context(), tt.q); !errors.Is(err, ErrInvalid) {
				t.Errorf("File(%q) = %v, want ErrInvalid", tt.q.Text, err)
			}
			if n := spooltest.Names(t, s.Dir); n != nil {
				t.Errorf("File of an invalid question left %q", n)
			}
		})
	}
}

// TestIDs checks that File draws again on an ID in use, leftovers
// included, and refuses an ID that is not valid.
func TestIDs(t *testing.T) {
	s := testStore(t, "a1b2c3d4", "a1b2c3d4", "0badcafe", "0badcafe", "12345678")
	if q := mustFile(t, s, free); q.ID != "a1b2c3d4" {
		t.Fatalf("first ID = %q", q.ID)
	}
	if q := mustFile(t, s, free); q.ID != "0badcafe" {
		t.Errorf("second ID = %q, want 0badcafe (a1b2c3d4 is in use)", q.ID)
	}
	// A settle that crashed after removing the question leaves the answer.
	if err := os.WriteFile(filepath.Join(s.Dir, "12345678.answer.json"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s.NewID = func() func() string {
		ids := []string{"12345678", "87654321"}
		return func() string { id := ids[0]; ids = ids[1:]; return id }
	}()
	if q := mustFile(t, s, free); q.ID != "87654321" {
		t.Errorf("ID = %q, want 87654321 (12345678 has a leftover answer)", q.ID)
	}
	s.NewID = func() string { return "../x" }
	if _, err := s.File(t.Context(), free); !errors.Is(err, ErrBadID) {
		t.Errorf("File with NewID ../x = %v, want ErrBadID", err)
	}
	s.NewID = nil
	for range 20 {
		if q := mustFile(t, s, free); !ValidID(q.ID) {
			t.Fatalf("random ID %q is not valid", q.ID)
		}
	}
}

// TestDigestBinding checks that an answer binds to the question shown.
func TestDigestBinding(t *testing.T) {
	s := testStore(t, "a1b2c3d4", "a1b2c3d4")
	q := mustFile(t, s, choice)
	edited := q
	edited.Text = "Which config did you mean to delete?"
	other := q
	other.ID = "ffffffff"
	tests := []struct {
		name, digest string
	}{
		{"empty", ""},
		{"wrong", strings.Repeat("0", 64)},
		{"edited question", digestOf(edited)},
		{"another question", digestOf(other)},
		{"upper case", strings.ToUpper(q.Digest)},
	}
	for _, tt := range tests {
		a := Answer{ID: q.ID, Digest: tt.digest, Outcome: wisp.OutcomeChose, Text: "./wisp.json", From: FromChat}
		if err := s.Answer(t.Context(), a); !errors.Is(err, ErrStale) {
			t.Errorf("Answer with the digest of %s = %v, want ErrStale", tt.name, err)
		}
	}
	if names := spooltest.Names(t, s.Dir); len(names) != 2 {
		t.Errorf("refused answers left files: %q", names)
	}

	good := Answer{ID: q.ID, Digest: q.Digest, Outcome: wisp.OutcomeChose, Text: "./wisp.json", From: FromChat}
	if err := s.Answer(t.Context(), good); err != nil {
		t.Fatalf("Answer with the right digest = %v", err)
	}
	if err := s.Settle(t.Context(), q.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.Answer(t.Context(), good); !errors.Is(err, ErrNoQuestion) {
		t.Errorf("replayed Answer after Settle = %v, want ErrNoQuestion", err)
	}
	// The same question filed again under the same ID, a second later.
	s.Now = func() time.Time { return t0.Add(time.Second) }
	again := mustFile(t, s, choice)
	if again.ID != q.ID || again.Digest == q.Digest {
		t.Fatalf("refiled question: ID %q digest %q; want ID %q and a new digest", again.ID, again.Digest, q.ID)
	}
	if err := s.Answer(t.Context(), good); !errors.Is(err, ErrStale) {
		t.Errorf("replayed Answer after refiling = %v, want ErrStale", err)
	}

	// A question file edited on disk, digest kept, is not trusted.
	data, err := os.ReadFile(s.path(q.ID, kindQuestion))
	if err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.Replace(string(data), "Which config", "Which file", 1))
	if err := os.WriteFile(s.path(q.ID, kindQuestion), data, 0o600); err != nil {
		t.Fatal(err)
	}
	good.Digest = again.Digest
	if err := s.Answer(t.Context(), good); !errors.Is(err, ErrMalformed) {
		t.Errorf("Answer to an edited question file = %v, want ErrMalformed", err)
	}
}

// TestAnswerRules checks the rules an answer obeys.
func TestAnswerRules(t *testing.T) {
	s := testStore(t, "0000000c", "0000000f")
	c := mustFile(t, s, choice)
	f := mustFile(t, s, free)
	tests := []struct {
		name string
		q    Question
		a    Answer
		want error
	}{
		{"chose a non-option", c, Answer{Outcome: wisp.OutcomeChose, Text: "./other.json"}, ErrInvalid},
		{"chose none of free text", f, Answer{Outcome: wisp.OutcomeChoseNone}, ErrInvalid},
		{"chose on free text", f, Answer{Outcome: wisp.OutcomeChose, Text: "8080"}, ErrInvalid},
		{"answered without text", f, Answer{Outcome: wisp.OutcomeAnswered}, ErrInvalid},
		{"declined with text", f, Answer{Outcome: wisp.OutcomeDeclined, Text: "no"}, ErrInvalid},
		{"timed out", f, Answer{Outcome: wisp.OutcomeTimedOut}, ErrInvalid},
		{"parked", f, Answer{Outcome: wisp.OutcomeParked}, ErrInvalid},
		{"unknown face", f, Answer{Outcome: wisp.OutcomeDeclined, From: "model"}, ErrInvalid},
		{"too long", f, Answer{Outcome: wisp.OutcomeAnswered, Text: strings.Repeat("x", MaxAnswerBytes+1)}, ErrInvalid},
		{"bad UTF-8", f, Answer{Outcome: wisp.OutcomeAnswered, Text: "\xff"}, ErrInvalid},
		{"text on a choice", c, Answer{Outcome: wisp.OutcomeAnswered, Text: "foo"}, ErrInvalid},
		{"arrow keys on a choice", c, Answer{Outcome: wisp.OutcomeAnswered, Text: "\x1b[B\x1b[B"}, ErrInvalid},
		{"control characters in text", f, Answer{Outcome: wisp.OutcomeAnswered, Text: strings.Repeat("\x01", MaxAnswerBytes)}, ErrInvalid},
		{"longest", f, Answer{Outcome: wisp.OutcomeAnswered, Text: strings.Repeat("é", MaxAnswerBytes/2)}, nil},
		{"chose none", c, Answer{Outcome: wisp.OutcomeChoseNone}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := tt.a
			a.ID, a.Digest = tt.q.ID, tt.q.Digest
			if a.From == "" {
				a.From = FromTerminal
			}
			err := s.Answer(t.Context(), a)
			if tt.want == nil && err != nil || !errors.Is(err, tt.want) {
				t.Fatalf("Answer(%s) = %v, want %v", tt.name, err, tt.want)
			}
			if tt.want != nil {
				return
			}
			got, ok, err := s.Answered(a.ID)
			if err != nil || !ok {
				t.Fatalf("Answered = %v, %v", ok, err)
			}
			a.At = t0
			if diff := cmp.Diff(a, got); diff != "" {
				t.Errorf("Answered (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWithdraw checks what a withdrawal does.
func TestWithdraw(t *testing.T) {
	s := testStore(t, "0000000a", "0000000b")
	q := mustFile(t, s, free)
	if err := s.Withdraw(t.Context(), q.ID, "the thread ended"); err != nil {
		t.Fatalf("Withdraw = %v", err)
	}
	if err := s.Withdraw(t.Context(), q.ID, "again"); err != nil {
		t.Errorf("second Withdraw = %v, want nil", err)
	}
	a := Answer{ID: q.ID, Digest: q.Digest, Outcome: wisp.OutcomeDeclined, From: FromTerminal}
	err := s.Answer(t.Context(), a)
	if !errors.Is(err, ErrWithdrawn) || err.Error() != "question 0000000a was withdrawn (the thread ended) and takes no answer" {
		t.Errorf("Answer after Withdraw = %v, want ErrWithdrawn with the first reason", err)
	}
	if _, err := s.Get(q.ID); !errors.Is(err, ErrWithdrawn) {
		t.Errorf("Get after Withdraw = %v, want ErrWithdrawn", err)
	}

	answered := mustFile(t, s, free)
	a.ID, a.Digest = answered.ID, answered.Digest
	if err := s.Answer(t.Context(), a); err != nil {
		t.Fatal(err)
	}
	if err := s.Withdraw(t.Context(), answered.ID, "the thread ended"); !errors.Is(err, ErrAnswered) {
		t.Errorf("Withdraw after Answer = %v, want ErrAnswered", err)
	}
	if _, ok, err := s.Answered(answered.ID); !ok || err != nil {
		t.Errorf("Answered after a refused Withdraw = %v, %v; want the answer", ok, err)
	}
	if err := s.Withdraw(t.Context(), "99999999", "gone"); !errors.Is(err, ErrNoQuestion) {
		t.Errorf("Withdraw of no question = %v, want ErrNoQuestion", err)
	}
	for _, why := range []string{"", "two\nlines", strings.Repeat("x", 201)} {
		if err := s.Withdraw(t.Context(), answered.ID, why); !errors.Is(err, ErrInvalid) {
			t.Errorf("Withdraw(%q) = %v, want ErrInvalid", why, err)
		}
	}
}

// TestErrorLines pins the lines a person reads.
func TestErrorLines(t *testing.T) {
	s := testStore(t, "a1b2c3d4")
	q := mustFile(t, s, free)
	if err := s.Answer(t.Context(), Answer{ID: q.ID, Digest: q.Digest, Outcome: wisp.OutcomeAnswered, Text: "8080", From: FromElicitation}); err != nil {
		t.Fatal(err)
	}
	late := s.Answer(t.Context(), Answer{ID: q.ID, Digest: q.Digest, Outcome: wisp.OutcomeDeclined, From: FromTerminal})
	_, none := s.Get("00000000")
	_, bad := s.Get("../x")
	stale := s.Answer(t.Context(), Answer{ID: q.ID, Outcome: wisp.OutcomeDeclined, From: FromTerminal})
	tests := []struct {
		err  error
		kind error
		want string
	}{
		{late, ErrAnswered, "question a1b2c3d4 was already answered from elicitation"},
		{none, ErrNoQuestion, "no question 00000000 is waiting; wisp questions list shows those that are"},
		{bad, ErrBadID, `"../x" is not a question ID; an ID is 8 characters from 0-9 and a-f, such as a1b2c3d4 (wisp questions list shows them)`},
		{stale, ErrAnswered, "question a1b2c3d4 was already answered from elicitation"},
	}
	for _, tt := range tests {
		if !errors.Is(tt.err, tt.kind) || tt.err.Error() != tt.want {
			t.Errorf("error = %v, want %q (%v)", tt.err, tt.want, tt.kind)
		}
	}
}
