package outofband

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/internal/spool"
	"github.com/wisp-agent/wisp/internal/spool/spooltest"
)

// TestFileRoundTrip files requests, pins their files, and reads them back
// through List, Get, Decided and Wait.
func TestFileRoundTrip(t *testing.T) {
	s := testStore(t)
	e := mustFile(t, s, enable)
	p := mustFile(t, s, pull)

	wantEnable := Request{
		ID: "7f3a2c1d", Session: "3f2a9c1d", Thread: "t-81b2c3d4", Turn: 3,
		Kind: "modelAction", Command: enable.Command, Pattern: "models enable *", Text: enable.Text,
		Scopes: []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession}, Asked: t0, Deadline: t0.Add(time.Minute),
	}
	wantEnable.Digest = digestOf(wantEnable)
	wantPull := Request{
		ID: "0a0b0c0d", Session: "3f2a9c1d", Thread: "t-81b2c3d4", Turn: 4,
		Kind: "modelAction", Command: pull.Command, Pattern: "models pull *", Text: pull.Text,
		Scopes: []wisp.Scope{wisp.ScopeOnce}, Asked: t0,
	}
	wantPull.Digest = digestOf(wantPull)
	if diff := cmp.Diff(wantEnable, e); diff != "" {
		t.Errorf("File(enable) (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantPull, p); diff != "" {
		t.Errorf("File(pull) (-want +got):\n%s", diff)
	}
	for name, id := range map[string]string{"request-enable.json": e.ID, "request-pull.json": p.ID} {
		spooltest.GoldenFile(t, name, s.path(id, kindRequest), *update)
	}

	got, err := s.List()
	if err != nil {
		t.Fatalf("List() = %v", err)
	}
	// Same time asked: ordered by ID.
	if diff := cmp.Diff([]Request{wantPull, wantEnable}, got); diff != "" {
		t.Errorf("List() (-want +got):\n%s", diff)
	}
	for _, want := range []Request{wantEnable, wantPull} {
		got, err := s.Get(want.ID)
		if err != nil {
			t.Fatalf("Get(%q) = %v", want.ID, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Get(%q) (-want +got):\n%s", want.ID, diff)
		}
	}

	d := Decision{ID: e.ID, Digest: e.Digest, Scope: wisp.ScopeSession, From: FromTerminal, At: t0.Add(12 * time.Second)}
	if err := s.Decide(t.Context(), d); err != nil {
		t.Fatalf("Decide = %v", err)
	}
	spooltest.GoldenFile(t, "decision.json", s.path(e.ID, kindDecision), *update)
	if err := s.Withdraw(t.Context(), p.ID, "no answer within 1 min"); err != nil {
		t.Fatalf("Withdraw = %v", err)
	}
	spooltest.GoldenFile(t, "withdrawn.json", s.path(p.ID, kindWithdrawn), *update)

	gotD, ok, err := s.Decided(e.ID)
	if err != nil || !ok {
		t.Fatalf("Decided(%q) = %v, %v", e.ID, ok, err)
	}
	data, err := os.ReadFile(s.path(e.ID, kindDecision))
	if err != nil {
		t.Fatal(err)
	}
	d.FileSHA256 = spool.Sum(data) // read back, the decision names its file
	if diff := cmp.Diff(d, gotD); diff != "" {
		t.Errorf("Decided (-want +got):\n%s", diff)
	}
	if gotD, err := s.Wait(t.Context(), e.ID); err != nil || gotD != d {
		t.Errorf("Wait = %+v, %v; want the decision", gotD, err)
	}
	if _, err := s.Wait(t.Context(), p.ID); !errors.Is(err, ErrWithdrawn) {
		t.Errorf("Wait on a withdrawn request = %v, want ErrWithdrawn", err)
	}
	if got, err := s.List(); err != nil || len(got) != 0 {
		t.Errorf("List() after a decision and a withdrawal = %v, %v; want none", got, err)
	}
}

// TestList checks oldest first, and that List skips a malformed file and
// requests that ended without hiding the others.
func TestList(t *testing.T) {
	s := testStore(t)
	now := t0
	s.Now = func() time.Time { return now }
	older := mustFile(t, s, withID(pull, "00000002"))
	now = now.Add(time.Second)
	newer := mustFile(t, s, withID(pull, "00000001"))
	expiring := mustFile(t, s, withID(enable, "00000003")) // deadline t0+1min
	decided := mustFile(t, s, withID(pull, "00000004"))
	decide(t, s, decided, wisp.ScopeNone, FromElicitation)
	if err := os.WriteFile(filepath.Join(s.Dir, "deadbeef.request.json"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ids := func() []string {
		t.Helper()
		got, err := s.List()
		if err != nil {
			t.Fatalf("List() = %v", err)
		}
		var ids []string
		for _, r := range got {
			ids = append(ids, r.ID)
		}
		return ids
	}
	if diff := cmp.Diff([]string{older.ID, newer.ID, expiring.ID}, ids()); diff != "" {
		t.Errorf("List() IDs (-want +got):\n%s", diff)
	}
	now = t0.Add(time.Minute)
	if diff := cmp.Diff([]string{older.ID, newer.ID}, ids()); diff != "" {
		t.Errorf("List() IDs at the deadline (-want +got):\n%s", diff)
	}
	if _, err := s.Get(expiring.ID); !errors.Is(err, ErrWithdrawn) || err.Error() != "approval request 00000003 ran out of time unanswered and takes no answer" {
		t.Errorf("Get past the deadline = %v, want ErrWithdrawn saying the time ran out", err)
	}
	if err := s.Decide(t.Context(), Decision{ID: expiring.ID, Digest: expiring.Digest, Scope: wisp.ScopeOnce, From: FromTerminal}); !errors.Is(err, ErrWithdrawn) {
		t.Errorf("Decide past the deadline = %v, want ErrWithdrawn", err)
	}
	if _, err := s.Get("deadbeef"); !errors.Is(err, ErrMalformed) {
		t.Errorf("Get(malformed) = %v, want ErrMalformed", err)
	}
	if got, err := (Store{Dir: filepath.Join(t.TempDir(), "none")}).List(); err != nil || got != nil {
		t.Errorf("List() of a missing folder = %v, %v; want nothing", got, err)
	}
}

// TestFileRefusesInvalid checks File's limits.
func TestFileRefusesInvalid(t *testing.T) {
	with := func(f func(r *wisp.ApprovalRequest)) wisp.ApprovalRequest {
		r := enable
		r.Scopes = append([]wisp.Scope(nil), enable.Scopes...)
		f(&r)
		return r
	}
	tests := []struct {
		name string
		r    wisp.ApprovalRequest
		want error
	}{
		{"no command", with(func(r *wisp.ApprovalRequest) { r.Command = "" }), ErrInvalid},
		{"long command", with(func(r *wisp.ApprovalRequest) { r.Command = strings.Repeat("x", MaxCommandBytes+1) }), ErrInvalid},
		{"long pattern", with(func(r *wisp.ApprovalRequest) { r.Pattern = strings.Repeat("x", MaxCommandBytes+1) }), ErrInvalid},
		{"long text", with(func(r *wisp.ApprovalRequest) { r.Text = strings.Repeat("x", MaxTextBytes+1) }), ErrInvalid},
		{"long kind", with(func(r *wisp.ApprovalRequest) { r.Kind = strings.Repeat("x", 65) }), ErrInvalid},
		{"long thread", with(func(r *wisp.ApprovalRequest) { r.Thread = strings.Repeat("t", 257) }), ErrInvalid},
		{"bad UTF-8", with(func(r *wisp.ApprovalRequest) { r.Text = "\xff" }), ErrInvalid},
		{"negative turn", with(func(r *wisp.ApprovalRequest) { r.Turn = -1 }), ErrInvalid},
		{"no scopes", with(func(r *wisp.ApprovalRequest) { r.Scopes = nil }), ErrInvalid},
		{"scope none", with(func(r *wisp.ApprovalRequest) { r.Scopes = []wisp.Scope{wisp.ScopeNone, wisp.ScopeOnce} }), ErrInvalid},
		{"unknown scope", with(func(r *wisp.ApprovalRequest) { r.Scopes = []wisp.Scope{wisp.ScopeOnce, wisp.Scope(7)} }), ErrInvalid},
		{"scopes out of order", with(func(r *wisp.ApprovalRequest) { r.Scopes = []wisp.Scope{wisp.ScopeSession, wisp.ScopeOnce} }), ErrInvalid},
		{"scope twice", with(func(r *wisp.ApprovalRequest) { r.Scopes = []wisp.Scope{wisp.ScopeOnce, wisp.ScopeOnce} }), ErrInvalid},
		{"deadline past 9999", with(func(r *wisp.ApprovalRequest) { r.Deadline = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) }), ErrInvalid},
		{"bad ID", with(func(r *wisp.ApprovalRequest) { r.ID = "../x" }), ErrBadID},
		{"no ID", with(func(r *wisp.ApprovalRequest) { r.ID = "" }), ErrBadID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := testStore(t)
			_, err := s.File(t.Context(), tt.r)
			if !errors.Is(err, tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("File = %v, want one line wrapping %v", err, tt.want)
			}
			if n := spooltest.Names(t, s.Dir); n != nil {
				t.Errorf("File of an invalid request left %q", n)
			}
		})
	}
	// The longest request that is allowed fits in a file.
	s := testStore(t)
	long := with(func(r *wisp.ApprovalRequest) {
		r.Command = strings.Repeat("\x01", MaxCommandBytes)
		r.Pattern = strings.Repeat("\x02", MaxCommandBytes)
		r.Text = strings.Repeat("\x03", MaxTextBytes)
		r.Kind = strings.Repeat("\x04", 64)
		r.Session = strings.Repeat("\x05", 256)
		r.Thread = strings.Repeat("\x06", 256)
		r.Scopes = []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession, wisp.ScopeProject, wisp.ScopeAlways}
	})
	fr := mustFile(t, s, long)
	if got, err := s.Get(fr.ID); err != nil || got.Digest != fr.Digest {
		t.Errorf("Get of the longest request = %v", err)
	}
}

// TestFileTwice checks that an ID is filed once, and that a new request
// under an ID that a crash left leftovers of does not inherit them.
func TestFileTwice(t *testing.T) {
	s := testStore(t)
	r := mustFile(t, s, enable)
	_, err := s.File(t.Context(), enable)
	if !errors.Is(err, ErrFiled) || err.Error() != "approval request 7f3a2c1d is filed already; each request is filed once, under its own ID" {
		t.Errorf("File again = %v, want ErrFiled", err)
	}
	decide(t, s, r, wisp.ScopeOnce, FromTerminal)
	// A crash in Settle after its first step.
	os.Remove(s.path(r.ID, kindRequest))
	os.WriteFile(filepath.Join(s.Dir, ".7f3a2c1d.decision.json.tmp-1"), nil, 0o600)
	s.Now = func() time.Time { return t0.Add(time.Second) }
	again := mustFile(t, s, enable)
	if _, ok, err := s.Decided(again.ID); ok || err != nil {
		t.Errorf("Decided after refiling = %v, %v; want no decision", ok, err)
	}
	want := []string{".lock", "7f3a2c1d.request.json"}
	if diff := cmp.Diff(want, spooltest.Names(t, s.Dir)); diff != "" {
		t.Errorf("folder after refiling (-want +got):\n%s", diff)
	}
}

// TestDigestBinding checks that a decision binds to the request shown.
func TestDigestBinding(t *testing.T) {
	s := testStore(t)
	r := mustFile(t, s, enable)
	edited := r
	edited.Command = "models enable ollama:evil:latest"
	moreScopes := r
	moreScopes.Scopes = []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession, wisp.ScopeAlways}
	other := r
	other.ID = "ffffffff"
	later := r
	later.Deadline = later.Deadline.Add(time.Hour)
	tests := []struct {
		name, digest string
	}{
		{"empty", ""},
		{"wrong", strings.Repeat("0", 64)},
		{"an edited command", digestOf(edited)},
		{"other scopes", digestOf(moreScopes)},
		{"another request", digestOf(other)},
		{"another deadline", digestOf(later)},
		{"upper case", strings.ToUpper(r.Digest)},
	}
	for _, tt := range tests {
		err := s.Decide(t.Context(), Decision{ID: r.ID, Digest: tt.digest, Scope: wisp.ScopeOnce, From: FromTerminal})
		if !errors.Is(err, ErrStale) {
			t.Errorf("Decide with the digest of %s = %v, want ErrStale", tt.name, err)
		}
	}
	if names := spooltest.Names(t, s.Dir); len(names) != 2 {
		t.Errorf("refused decisions left files: %q", names)
	}

	good := Decision{ID: r.ID, Digest: r.Digest, Scope: wisp.ScopeOnce, From: FromTerminal}
	if err := s.Decide(t.Context(), good); err != nil {
		t.Fatalf("Decide with the right digest = %v", err)
	}
	if err := s.Settle(t.Context(), r.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.Decide(t.Context(), good); !errors.Is(err, ErrNoRequest) {
		t.Errorf("replayed Decide after Settle = %v, want ErrNoRequest", err)
	}
	// The same request filed again under the same ID, a second later.
	s.Now = func() time.Time { return t0.Add(time.Second) }
	again := mustFile(t, s, enable)
	if again.Digest == r.Digest {
		t.Fatal("a request filed again has the digest of the first filing")
	}
	if err := s.Decide(t.Context(), good); !errors.Is(err, ErrStale) {
		t.Errorf("replayed Decide after refiling = %v, want ErrStale", err)
	}

	// A request file edited on disk, digest kept, is not trusted.
	data, err := os.ReadFile(s.path(r.ID, kindRequest))
	if err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.Replace(string(data), "ollama:qwen3:4b on", "ollama:evil on", 1))
	if err := os.WriteFile(s.path(r.ID, kindRequest), data, 0o600); err != nil {
		t.Fatal(err)
	}
	good.Digest = again.Digest
	if err := s.Decide(t.Context(), good); !errors.Is(err, ErrMalformed) {
		t.Errorf("Decide on an edited request file = %v, want ErrMalformed", err)
	}
}

// TestDecideRules checks the rules a decision obeys.
func TestDecideRules(t *testing.T) {
	tests := []struct {
		name string
		r    wisp.ApprovalRequest
		d    Decision
		want error
		line string
	}{
		// Wider than offered: filed as the person answered; the gate
		// narrows it and records downgradedFrom.
		{"session on a once-only request", pull, Decision{Scope: wisp.ScopeSession}, nil, ""},
		{"once on a session-only request", sessionOnly, Decision{Scope: wisp.ScopeOnce}, ErrInvalid,
			"cannot answer approval request 5e5e5e5e with once: it offers session"},
		{"project", enable, Decision{Scope: wisp.ScopeProject}, ErrInvalid,
			"cannot answer approval request 7f3a2c1d: scope project is not one a decision gives; use none (deny), once or session"},
		{"no scope at all", enable, Decision{Scope: wisp.Scope(9)}, ErrInvalid, ""},
		{"unknown face", enable, Decision{Scope: wisp.ScopeOnce, From: "model"}, ErrInvalid,
			`cannot answer approval request 7f3a2c1d: from "model" names no face; use terminal or elicitation`},
		{"no face", enable, Decision{Scope: wisp.ScopeOnce, From: "-"}, ErrInvalid, ""},
		{"deny", pull, Decision{Scope: wisp.ScopeNone}, nil, ""},
		{"once", pull, Decision{Scope: wisp.ScopeOnce}, nil, ""},
		{"session", enable, Decision{Scope: wisp.ScopeSession, From: FromElicitation}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := testStore(t)
			r := mustFile(t, s, tt.r)
			d := tt.d
			d.ID, d.Digest = r.ID, r.Digest
			switch d.From {
			case "":
				d.From = FromTerminal
			case "-":
				d.From = ""
			}
			err := s.Decide(t.Context(), d)
			if tt.want == nil && err != nil || !errors.Is(err, tt.want) {
				t.Fatalf("Decide(%s) = %v, want %v", tt.name, err, tt.want)
			}
			if tt.line != "" && err.Error() != tt.line {
				t.Errorf("Decide(%s) = %q, want %q", tt.name, err, tt.line)
			}
			if tt.want != nil {
				if n := spooltest.Names(t, s.Dir); len(n) != 2 {
					t.Errorf("a refused decision left files: %q", n)
				}
				return
			}
			got, ok, err := s.Decided(d.ID)
			if err != nil || !ok {
				t.Fatalf("Decided = %v, %v", ok, err)
			}
			d.At = t0
			if diff := cmp.Diff(d, got, cmpopts.IgnoreFields(Decision{}, "FileSHA256")); diff != "" {
				t.Errorf("Decided (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWithdraw checks what a withdrawal does.
func TestWithdraw(t *testing.T) {
	s := testStore(t)
	r := mustFile(t, s, pull)
	if err := s.Withdraw(t.Context(), r.ID, "no answer within 1 min"); err != nil {
		t.Fatalf("Withdraw = %v", err)
	}
	if err := s.Withdraw(t.Context(), r.ID, "again"); err != nil {
		t.Errorf("second Withdraw = %v, want nil", err)
	}
	err := s.Decide(t.Context(), Decision{ID: r.ID, Digest: r.Digest, Scope: wisp.ScopeOnce, From: FromTerminal})
	if !errors.Is(err, ErrWithdrawn) || err.Error() != "approval request 0a0b0c0d was withdrawn (no answer within 1 min) and takes no answer" {
		t.Errorf("Decide after Withdraw = %v, want ErrWithdrawn with the first reason", err)
	}
	if _, err := s.Get(r.ID); !errors.Is(err, ErrWithdrawn) {
		t.Errorf("Get after Withdraw = %v, want ErrWithdrawn", err)
	}

	d := mustFile(t, s, enable)
	decide(t, s, d, wisp.ScopeOnce, FromElicitation)
	if err := s.Withdraw(t.Context(), d.ID, "no answer within 1 min"); !errors.Is(err, ErrDecided) {
		t.Errorf("Withdraw after Decide = %v, want ErrDecided", err)
	}
	if _, ok, err := s.Decided(d.ID); !ok || err != nil {
		t.Errorf("Decided after a refused Withdraw = %v, %v; want the decision", ok, err)
	}
	if err := s.Withdraw(t.Context(), "99999999", "gone"); !errors.Is(err, ErrNoRequest) {
		t.Errorf("Withdraw of no request = %v, want ErrNoRequest", err)
	}
	for _, why := range []string{"", "two\nlines", strings.Repeat("x", 201)} {
		if err := s.Withdraw(t.Context(), d.ID, why); !errors.Is(err, ErrInvalid) {
			t.Errorf("Withdraw(%q) = %v, want ErrInvalid", why, err)
		}
	}
}

// TestErrorLines pins the lines a person reads.
func TestErrorLines(t *testing.T) {
	s := testStore(t)
	r := mustFile(t, s, enable)
	decide(t, s, r, wisp.ScopeOnce, FromElicitation)
	late := s.Decide(t.Context(), Decision{ID: r.ID, Digest: r.Digest, Scope: wisp.ScopeNone, From: FromTerminal})
	_, none := s.Get("00000000")
	_, bad := s.Get("../x")
	_, long := s.Get(strings.Repeat("z", 50))
	p := mustFile(t, s, pull)
	stale := s.Decide(t.Context(), Decision{ID: p.ID, Scope: wisp.ScopeOnce, From: FromTerminal})
	tests := []struct {
		err  error
		kind error
		want string
	}{
		{late, ErrDecided, "approval request 7f3a2c1d was already answered from elicitation"},
		{none, ErrNoRequest, "no approval request 00000000 is waiting; wisp approvals list shows those that are"},
		{bad, ErrBadID, `"../x" is not an approval ID; an ID is 8 characters from 0-9 and a-f, such as 7f3a2c1d (wisp approvals list shows them)`},
		{long, ErrBadID, `"zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\u2026" is not an approval ID; an ID is 8 characters from 0-9 and a-f, such as 7f3a2c1d (wisp approvals list shows them)`},
		{stale, ErrStale, "approval request 0a0b0c0d is not the request that was shown (it changed, or was filed again); show it again (wisp approvals list) and answer that"},
	}
	for _, tt := range tests {
		if !errors.Is(tt.err, tt.kind) || tt.err.Error() != tt.want {
			t.Errorf("error = %v, want %q (%v)", tt.err, tt.want, tt.kind)
		}
	}
}

// TestSettle checks that Settle leaves nothing of the request, and that
// settling twice, or a request never filed, does nothing.
func TestSettle(t *testing.T) {
	s := testStore(t)
	r := mustFile(t, s, enable)
	decide(t, s, r, wisp.ScopeOnce, FromTerminal)
	keep := mustFile(t, s, pull)
	for range 2 {
		if err := s.Settle(t.Context(), r.ID); err != nil {
			t.Fatalf("Settle = %v", err)
		}
	}
	if diff := cmp.Diff([]string{".lock", keep.ID + ".request.json"}, spooltest.Names(t, s.Dir)); diff != "" {
		t.Errorf("folder after Settle (-want +got):\n%s", diff)
	}
	if _, _, err := s.Decided(r.ID); !errors.Is(err, ErrNoRequest) {
		t.Errorf("Decided after Settle = %v, want ErrNoRequest", err)
	}
	if err := (Store{Dir: filepath.Join(t.TempDir(), "none")}).Settle(t.Context(), r.ID); err != nil {
		t.Errorf("Settle in a missing folder = %v", err)
	}
}

// TestSweep checks what Sweep removes: leftovers of crashes at once, and
// requests that ended only once they are 10 minutes old.
func TestSweep(t *testing.T) {
	s := testStore(t)
	now := t0
	s.Now = func() time.Time { return now }
	open := mustFile(t, s, withID(pull, "00000001"))      // no deadline: kept
	expires := mustFile(t, s, withID(enable, "00000002")) // deadline t0+1min
	withdrawn := mustFile(t, s, withID(pull, "00000003")) // withdrawn at t0+2min
	decided := mustFile(t, s, withID(pull, "00000004"))   // decided, never settled: kept
	leftover := mustFile(t, s, withID(pull, "00000005"))  // settle crashed
	decide(t, s, decided, wisp.ScopeOnce, FromTerminal)
	decide(t, s, leftover, wisp.ScopeOnce, FromTerminal)
	os.Remove(s.path(leftover.ID, kindRequest))
	for _, name := range []string{".00000001.decision.json.tmp-7", "notes.txt", "deadbeef.request.json"} {
		os.WriteFile(filepath.Join(s.Dir, name), []byte("{}"), 0o600)
	}
	now = t0.Add(2 * time.Minute)
	if err := s.Withdraw(t.Context(), withdrawn.ID, "no answer within 1 min"); err != nil {
		t.Fatal(err)
	}
	all := []string{".lock", "00000001.request.json", "00000002.request.json", "00000003.request.json", "00000003.withdrawn.json",
		"00000004.decision.json", "00000004.request.json", "deadbeef.request.json", "notes.txt"}
	if err := s.Sweep(t.Context()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(all, spooltest.Names(t, s.Dir)); diff != "" {
		t.Errorf("after Sweep at t0+2min (-want +got):\n%s", diff)
	}
	now = t0.Add(11*time.Minute + time.Second)
	if err := s.Sweep(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := []string{".lock", "00000001.request.json", "00000003.request.json", "00000003.withdrawn.json",
		"00000004.decision.json", "00000004.request.json", "deadbeef.request.json", "notes.txt"}
	if diff := cmp.Diff(want, spooltest.Names(t, s.Dir)); diff != "" {
		t.Errorf("after Sweep at t0+11min (-want +got):\n%s", diff)
	}
	now = t0.Add(13 * time.Minute)
	if err := s.Sweep(t.Context()); err != nil {
		t.Fatal(err)
	}
	want = []string{".lock", "00000001.request.json", "00000004.decision.json", "00000004.request.json", "deadbeef.request.json", "notes.txt"}
	if diff := cmp.Diff(want, spooltest.Names(t, s.Dir)); diff != "" {
		t.Errorf("after Sweep at t0+13min (-want +got):\n%s", diff)
	}
	if _, err := s.Get(open.ID); err != nil {
		t.Errorf("Get of the open request after Sweep = %v", err)
	}
	_ = expires
	if err := (Store{Dir: filepath.Join(t.TempDir(), "none")}).Sweep(t.Context()); err != nil {
		t.Errorf("Sweep of a missing folder = %v", err)
	}
}
