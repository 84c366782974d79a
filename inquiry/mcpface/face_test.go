package mcpface_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/mcpface"
	"github.com/wisp-agent/wisp/inquiry/pending"
	"github.com/wisp-agent/wisp/policy/outofband"
)

// fakeSession is a client as the face sees it, with no MCP under it: its
// dialog replies with reply (nil: never), and it keeps what it was told.
type fakeSession struct {
	forms bool
	reply func(n int, f mcpface.Form) *mcp.ElicitationResult
	gone  chan struct{}

	mu       sync.Mutex
	shown    []mcpface.Form
	lines    []string // what answer returned for each reply
	notes    []string
	parked   []pending.Question
	answered []string
}

func newSession(forms bool, reply func(n int, f mcpface.Form) *mcp.ElicitationResult) *fakeSession {
	return &fakeSession{forms: forms, reply: reply, gone: make(chan struct{})}
}

func (s *fakeSession) Forms() bool { return s.forms }

func (s *fakeSession) Elicit(ctx context.Context, f mcpface.Form, answer func(context.Context, *mcp.ElicitationResult) string) {
	s.mu.Lock()
	n := len(s.shown)
	s.shown = append(s.shown, f)
	s.mu.Unlock()
	if s.reply == nil {
		return
	}
	go func() {
		r := s.reply(n, f)
		if r == nil {
			return
		}
		line := answer(ctx, r)
		s.mu.Lock()
		s.lines = append(s.lines, line)
		s.mu.Unlock()
	}()
}

func (s *fakeSession) Notify(msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notes = append(s.notes, msg)
}

func (s *fakeSession) Gone() <-chan struct{} { return s.gone }

func (s *fakeSession) Parked(q pending.Question) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.parked = append(s.parked, q)
}

func (s *fakeSession) Answered(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answered = append(s.answered, id)
}

func (s *fakeSession) shownForms() []mcpface.Form {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.shown)
}

func (s *fakeSession) replyLines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.lines)
}

// holds is a clock whose holds the test ends by hand.
type holds struct {
	mu sync.Mutex
	cs []chan time.Time
}

func (h *holds) after(time.Duration) <-chan time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	c := make(chan time.Time)
	h.cs = append(h.cs, c)
	return c
}

func (h *holds) end() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, c := range h.cs {
		select {
		case <-c:
		default:
			close(c)
		}
	}
}

func (h *holds) begun() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.cs)
}

var card = wisp.Card{ID: "c1", Session: "s", Thread: "t-1", Turn: 1, Questions: []wisp.CardQuestion{
	{Header: "Env", Text: "Which environment?", Options: []wisp.Option{{Label: "staging", Recommended: true}, {Label: "production"}}},
	{Text: "Anything else?"},
}}

func fill(n int, o wisp.Outcome, p wisp.Provenance) []wisp.CardAnswer {
	out := make([]wisp.CardAnswer, n)
	for i := range out {
		out[i] = wisp.CardAnswer{Outcome: o, Provenance: p}
	}
	return out
}

// A card the dialog cannot show gets no person's answer, at once, and no
// hold begins: no session, the setting off, a client without forms, a
// secret.
func TestCardWithoutTheDialog(t *testing.T) {
	secret := wisp.Card{ID: "c2", Thread: "t-1", Turn: 1, Questions: []wisp.CardQuestion{{Text: "Which token?", Secret: "GH_TOKEN"}}}
	tests := []struct {
		name        string
		elicitation bool
		session     *fakeSession
		card        wisp.Card
	}{
		{"no session", true, nil, card},
		{"setting off", false, newSession(true, nil), card},
		{"no forms", true, newSession(false, nil), card},
		{"a secret", true, newSession(true, nil), secret},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var h holds
			f := mcpface.New(&mcpface.Options{Elicitation: tc.elicitation, After: h.after})
			ctx := t.Context()
			if tc.session != nil {
				ctx = mcpface.WithSession(ctx, tc.session)
			}
			got, err := f.AskCard(ctx, tc.card)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(fill(len(tc.card.Questions), wisp.OutcomeNoPerson, wisp.FromUnattended), got); diff != "" {
				t.Errorf("AskCard answers (-want +got):\n%s", diff)
			}
			if hold := f.CardHold(ctx, tc.card.Questions); hold != 0 {
				t.Errorf("CardHold = %v, want 0: the card is not shown", hold)
			}
			if tc.session != nil && len(tc.session.shownForms()) != 0 {
				t.Errorf("the dialog was shown %+v", tc.session.shownForms())
			}
			if h.begun() != 0 {
				t.Errorf("%d holds began", h.begun())
			}
		})
	}
}

// How a card shown in the dialog ends: the person's answers; the hold's
// end (a timeout of each question); the client going away (no person);
// the turn's context.
func TestCardEnds(t *testing.T) {
	answer := func(int, mcpface.Form) *mcp.ElicitationResult {
		return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept,
			Content: map[string]any{"q1": "production"}}}
	}
	dismiss := func(int, mcpface.Form) *mcp.ElicitationResult {
		return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionCancel}}
	}
	tests := []struct {
		name  string
		reply func(int, mcpface.Form) *mcp.ElicitationResult
		end   func(s *fakeSession, h *holds, cancel context.CancelFunc)
		want  []wisp.CardAnswer
		err   error
	}{
		{"answered", answer, func(*fakeSession, *holds, context.CancelFunc) {},
			[]wisp.CardAnswer{{Outcome: wisp.OutcomeChose, Chosen: []string{"production"}, Provenance: wisp.FromPerson},
				{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson}}, nil},
		{"the hold ends", nil, func(_ *fakeSession, h *holds, _ context.CancelFunc) { h.end() },
			fill(2, wisp.OutcomeTimedOut, wisp.FromTimeout), nil},
		{"dismissed, then the hold ends", dismiss, func(_ *fakeSession, h *holds, _ context.CancelFunc) { h.end() },
			fill(2, wisp.OutcomeTimedOut, wisp.FromTimeout), nil},
		{"the client goes away", nil, func(s *fakeSession, _ *holds, _ context.CancelFunc) { close(s.gone) },
			fill(2, wisp.OutcomeNoPerson, wisp.FromUnattended), nil},
		{"the turn ends", nil, func(_ *fakeSession, _ *holds, cancel context.CancelFunc) { cancel() },
			nil, context.Canceled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var h holds
			s := newSession(true, tc.reply)
			f := mcpface.New(&mcpface.Options{Elicitation: true, After: h.after})
			if hold := f.CardHold(mcpface.WithSession(t.Context(), s), card.Questions); hold != mcpface.DefaultHold {
				t.Errorf("CardHold = %v, want %v", hold, mcpface.DefaultHold)
			}
			ctx, cancel := context.WithCancel(mcpface.WithSession(t.Context(), s))
			defer cancel()
			type result struct {
				a   []wisp.CardAnswer
				err error
			}
			done := make(chan result, 1)
			go func() {
				a, err := f.AskCard(ctx, card)
				done <- result{a, err}
			}()
			for len(s.shownForms()) == 0 || (tc.reply != nil && tc.want[0].Provenance != wisp.FromPerson && len(s.replyLines()) == 0) {
				time.Sleep(time.Millisecond)
			}
			tc.end(s, &h, cancel)
			r := <-done
			if r.err != tc.err {
				t.Errorf("AskCard error = %v, want %v", r.err, tc.err)
			}
			if diff := cmp.Diff(tc.want, r.a); diff != "" {
				t.Errorf("AskCard answers (-want +got):\n%s", diff)
			}
		})
	}
}

// A form whose answers do not fit is put again, saying why, at most three
// times in all; then the card waits out its hold. A reply that comes
// after the card ended is not used, and the client is told.
func TestCardAskedAgain(t *testing.T) {
	misfit := func(int, mcpface.Form) *mcp.ElicitationResult {
		return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept,
			Content: map[string]any{"q1": "/etc/passwd"}}}
	}
	var h holds
	s := newSession(true, misfit)
	f := mcpface.New(&mcpface.Options{Elicitation: true, After: h.after})
	done := make(chan []wisp.CardAnswer, 1)
	go func() {
		a, _ := f.AskCard(mcpface.WithSession(t.Context(), s), card)
		done <- a
	}()
	for len(s.replyLines()) < 3 {
		time.Sleep(time.Millisecond)
	}
	h.end()
	if diff := cmp.Diff(fill(2, wisp.OutcomeTimedOut, wisp.FromTimeout), <-done); diff != "" {
		t.Errorf("AskCard answers (-want +got):\n%s", diff)
	}
	forms := s.shownForms()
	if len(forms) != 3 {
		t.Fatalf("the card was shown %d times, want 3", len(forms))
	}
	if !strings.Contains(forms[1].Params.Message, "Your last answers were not used: question 1: that is none of its options") {
		t.Errorf("the card put again says %q", forms[1].Params.Message)
	}
	want := "wisp: the dialog's answers to card c1 were not used: question 1: that is none of its options"
	if got := s.replyLines(); !slices.Equal(got, []string{want, want, want}) {
		t.Errorf("lines to the client %q, want %q three times", got, want)
	}

	// A reply to a card that has ended.
	late := newSession(true, nil)
	var h2 holds
	f2 := mcpface.New(&mcpface.Options{Elicitation: true, After: h2.after})
	var answer func(context.Context, *mcp.ElicitationResult) string
	capture := captureSession{fakeSession: late, take: func(a func(context.Context, *mcp.ElicitationResult) string) { answer = a }}
	end := make(chan struct{})
	go func() {
		_, _ = f2.AskCard(mcpface.WithSession(t.Context(), capture), card)
		close(end)
	}()
	for len(late.shownForms()) == 0 {
		time.Sleep(time.Millisecond)
	}
	h2.end()
	<-end
	got := answer(t.Context(), &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionDecline}})
	if want := "wisp: the dialog's answers to card c1 came after the card ended and were not used"; got != want {
		t.Errorf("a late reply's line = %q, want %q", got, want)
	}
}

// captureSession hands the face's answer function to take.
type captureSession struct {
	*fakeSession
	take func(func(context.Context, *mcp.ElicitationResult) string)
}

func (c captureSession) Elicit(ctx context.Context, f mcpface.Form, answer func(context.Context, *mcp.ElicitationResult) string) {
	c.take(answer)
	c.fakeSession.Elicit(ctx, f, answer)
}

// Outside a turn that answers to a client, nothing reaches a person: a
// question gets "no person can answer here"; a request goes to the
// approvals folder alone, and with approval.outOfBand off is refused.
func TestWithoutASession(t *testing.T) {
	dir := t.TempDir()
	f := mcpface.New(&mcpface.Options{Pending: pending.Store{Dir: filepath.Join(dir, "pending")}, Elicitation: true})
	got, err := f.Ask(t.Context(), wisp.Question{ID: "a1b2c3d4", Thread: "t", Turn: 1, Text: "Which config?"})
	if err != nil || got != (wisp.Answer{Outcome: wisp.OutcomeNoPerson, Provenance: wisp.FromUnattended}) {
		t.Errorf("Ask without a session = %+v, %v; want no person", got, err)
	}
	off := mcpface.New(&mcpface.Options{Approvals: outofband.Store{Dir: filepath.Join(dir, "approvals")}})
	d, err := off.Approve(t.Context(), wisp.ApprovalRequest{ID: "0123abcd", Thread: "t", Turn: 1, Command: "models enable x", Scopes: []wisp.Scope{wisp.ScopeOnce}})
	if err != nil || d.Scope != wisp.ScopeNone || d.Reason != mcpface.ReasonOutOfBandOff || d.Provenance != wisp.FromUnattended {
		t.Errorf("Approve with approval.outOfBand off = %+v, %v; want a refusal, no person", d, err)
	}
}

// A question parks when the client goes away, with the dialog left open
// for an answer that reaches the next turn; answered at a terminal
// meanwhile, the dialog is withdrawn and the client told.
func TestQuestionDialog(t *testing.T) {
	t.Run("parks when the client goes away", func(t *testing.T) {
		s := newSession(true, nil)
		store := pending.Store{Dir: filepath.Join(t.TempDir(), "pending")}
		var h holds
		f := mcpface.New(&mcpface.Options{Pending: store, Elicitation: true, After: h.after})
		done := make(chan wisp.Answer, 1)
		go func() {
			a, _ := f.Ask(mcpface.WithSession(t.Context(), s), wisp.Question{ID: "a1b2c3d4", Thread: "t", Turn: 1, Text: "Which config?"})
			done <- a
		}()
		for len(s.shownForms()) == 0 {
			time.Sleep(time.Millisecond)
		}
		close(s.gone)
		if a := <-done; a.Outcome != wisp.OutcomeParked {
			t.Errorf("Ask = %+v, want parked", a)
		}
		if len(s.parked) != 1 || s.parked[0].ID != "a1b2c3d4" {
			t.Errorf("the session was told %+v parked, want the question", s.parked)
		}
	})
	t.Run("answered at a terminal", func(t *testing.T) {
		var withdrawn sync.WaitGroup
		withdrawn.Add(1)
		s := newSession(true, nil)
		store := pending.Store{Dir: filepath.Join(t.TempDir(), "pending")}
		f := mcpface.New(&mcpface.Options{Pending: store, Elicitation: true})
		ws := withdrawSession{fakeSession: s, withdrawn: &withdrawn}
		done := make(chan wisp.Answer, 1)
		go func() {
			a, _ := f.Ask(mcpface.WithSession(t.Context(), ws), wisp.Question{ID: "a1b2c3d4", Thread: "t", Turn: 1, Text: "Which config?"})
			done <- a
		}()
		var qs []pending.Question
		for len(qs) == 0 {
			qs, _ = store.List()
			time.Sleep(time.Millisecond)
		}
		if err := store.Answer(t.Context(), pending.Answer{ID: qs[0].ID, Digest: qs[0].Digest, Outcome: wisp.OutcomeAnswered, Text: "./wisp.json", From: pending.FromTerminal}); err != nil {
			t.Fatal(err)
		}
		if a := <-done; a.Text != "./wisp.json" || a.Provenance != wisp.FromPerson {
			t.Errorf("Ask = %+v, want the terminal's answer, the person's", a)
		}
		withdrawn.Wait()
		want := "wisp: question a1b2c3d4 was answered from terminal; an answer in its dialog will not be used"
		if !slices.Contains(s.notes, want) {
			t.Errorf("the client was told %q, want %q", s.notes, want)
		}
	})
}

// withdrawSession marks withdrawn when the face withdraws its dialog.
type withdrawSession struct {
	*fakeSession
	withdrawn *sync.WaitGroup
}

func (w withdrawSession) Elicit(ctx context.Context, f mcpface.Form, answer func(context.Context, *mcp.ElicitationResult) string) {
	context.AfterFunc(ctx, w.withdrawn.Done)
	w.fakeSession.Elicit(ctx, f, answer)
}

func TestValidForm(t *testing.T) {
	tests := []struct {
		kind, id string
		want     bool
	}{
		{mcpface.KindQuestion, "a1b2c3d4", true},
		{mcpface.KindCard, "c1", true},
		{mcpface.KindApproval, "0123abcd", true},
		{"tool", "a1b2c3d4", false},
		{mcpface.KindQuestion, "", false},
		{mcpface.KindQuestion, "a:b", false},
		{mcpface.KindQuestion, "../x", false},
		{mcpface.KindCard, strings.Repeat("a", 65), false},
	}
	for _, tc := range tests {
		if got := mcpface.ValidForm(tc.kind, tc.id); got != tc.want {
			t.Errorf("ValidForm(%q, %q) = %v, want %v", tc.kind, tc.id, got, tc.want)
		}
	}
}
