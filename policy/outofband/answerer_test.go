package outofband

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/wisptest"
)

// Answer refuses what cannot be answered here, files a confirmed answer
// with who answered recorded first, leaves a wider scope for the gate to
// narrow, and says what it did.
func TestAnswererAnswer(t *testing.T) {
	open := enable
	open.Deadline = time.Time{} // the person takes as long as they like
	noPerson := errors.New("no person here")
	tests := []struct {
		name      string
		req       wisp.ApprovalRequest
		id        string
		scope     wisp.Scope
		confirm   func(context.Context, Request, wisp.Scope) (bool, error)
		refuse    error
		noWitness bool
		want      error
		wantErr   string
		filed     bool
		wantScope wisp.Scope
		said      []string
	}{
		{name: "approved for the session", req: open, id: open.ID, scope: wisp.ScopeSession, confirm: yes, filed: true, wantScope: wisp.ScopeSession,
			said: []string{"approval 7f3a2c1d: approved session; the request goes ahead"}},
		{name: "denied without confirming", req: open, id: open.ID, scope: wisp.ScopeNone, confirm: failing, filed: true, wantScope: wisp.ScopeNone,
			said: []string{"approval 7f3a2c1d: denied; the request is refused and nothing changes"}},
		{name: "a wider scope is filed as given", req: pull, id: pull.ID, scope: wisp.ScopeSession, confirm: yes, filed: true, wantScope: wisp.ScopeSession,
			said: []string{"approval request 0a0b0c0d does not offer session; it is narrowed to once", "approval 0a0b0c0d: approved once; the request goes ahead"}},
		{name: "not confirmed", req: open, id: open.ID, scope: wisp.ScopeOnce, confirm: no,
			said: []string{"not approved; nothing was filed (wisp approvals deny 7f3a2c1d refuses it; it is refused anyway if nobody answers in time)"}},
		{name: "a scope nothing narrows to", req: sessionOnly, id: sessionOnly.ID, scope: wisp.ScopeOnce, confirm: yes, want: ErrNotOffered,
			wantErr: "approval request 5e5e5e5e does not offer once or a narrower scope; it offers session only, so run wisp approvals approve 5e5e5e5e --scope session"},
		{name: "the input ended", req: open, id: open.ID, scope: wisp.ScopeOnce, confirm: ended, wantErr: "the input ended; nothing was filed"},
		{name: "stopped", req: open, id: open.ID, scope: wisp.ScopeOnce, confirm: failing, wantErr: "stopped; nothing was filed"},
		{name: "out of time", req: enable, id: enable.ID, scope: wisp.ScopeOnce, confirm: waits, wantErr: "ran out of time; nothing was filed"},
		{name: "not an ID", req: open, id: "../x", scope: wisp.ScopeOnce, confirm: yes, want: ErrBadID},
		{name: "no such request", req: open, id: "12345678", scope: wisp.ScopeOnce, confirm: yes, want: ErrNoRequest},
		{name: "refused here", req: open, id: open.ID, scope: wisp.ScopeOnce, confirm: yes, refuse: noPerson, want: noPerson},
		{name: "no person", req: open, id: open.ID, scope: wisp.ScopeOnce, want: ErrNoPerson, wantErr: "approvals approve 7f3a2c1d: "},
		{name: "no witness", req: open, id: open.ID, scope: wisp.ScopeNone, confirm: yes, noWitness: true, want: ErrNoWitness, wantErr: "approvals deny 7f3a2c1d: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := testStore(t)
			rec := &wisptest.Recorder{}
			if !tc.noWitness {
				s.Witness = rec
			}
			r := mustFile(t, s, tc.req)
			var said []string
			shown := 0
			a := &Answerer{Store: s, Confirm: tc.confirm, From: FromTerminal, Terminal: "/dev/pts/3", Commands: "wisp approvals",
				Refuse: func(string, string) error { return tc.refuse },
				Show:   func(Request) { shown++ },
				Say:    func(_ Request, line string) { said = append(said, line) }}
			err := a.Answer(t.Context(), tc.id, tc.scope)
			if tc.want != nil && !errors.Is(err, tc.want) || tc.want == nil && tc.wantErr == "" && err != nil ||
				tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("Answer(%q, %s) = %v, want %v with %q", tc.id, tc.scope, err, tc.want, tc.wantErr)
			}
			if diff := cmp.Diff(tc.said, said); diff != "" {
				t.Errorf("Answer(%q, %s) said (-want +got):\n%s", tc.id, tc.scope, diff)
			}
			d, ok, err := s.Decided(r.ID)
			if err != nil {
				t.Fatal(err)
			}
			if ok != tc.filed || ok && d.Scope != tc.wantScope {
				t.Errorf("Answer(%q, %s) filed %v (%s), want %v (%s)", tc.id, tc.scope, ok, d.Scope, tc.filed, tc.wantScope)
			}
			if tc.filed && len(rec.Events("approval.")) == 0 {
				t.Errorf("Answer(%q, %s) filed with nothing recorded", tc.id, tc.scope)
			}
		})
	}
}

func yes(context.Context, Request, wisp.Scope) (bool, error)   { return true, nil }
func no(context.Context, Request, wisp.Scope) (bool, error)    { return false, nil }
func ended(context.Context, Request, wisp.Scope) (bool, error) { return false, io.EOF }
func failing(context.Context, Request, wisp.Scope) (bool, error) {
	return false, wisp.ErrInterrupted
}

// waits reads until ctx ends, as a person who never answers.
func waits(ctx context.Context, _ Request, _ wisp.Scope) (bool, error) {
	<-ctx.Done()
	return false, ctx.Err()
}
