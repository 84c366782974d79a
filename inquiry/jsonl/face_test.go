package jsonl_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry"
	"github.com/wisp-agent/wisp/inquiry/facetest"
	"github.com/wisp-agent/wisp/inquiry/jsonl"
)

// client is the far end of a Face: it sees every line the face writes,
// and sends lines to the face's Serve through a pipe.
type client struct {
	t    *testing.T
	face *jsonl.Face

	mu     sync.Mutex
	out    bytes.Buffer    // every line the face wrote
	lines  []jsonl.Line    // and decoded
	seen   chan jsonl.Line // each decoded line, as it comes
	onLine func(jsonl.Line)

	in     *io.PipeWriter
	wmu    sync.Mutex
	served chan error
}

// newClient returns a face wired to a client. onLine, if not nil, is
// called (on a goroutine of its own) with each line the face writes.
func newClient(t *testing.T, opts *jsonl.Options, onLine func(c *client, l jsonl.Line)) *client {
	t.Helper()
	c := &client{t: t, seen: make(chan jsonl.Line, 1000), served: make(chan error, 1)}
	if onLine != nil {
		c.onLine = func(l jsonl.Line) { go onLine(c, l) }
	}
	c.face = jsonl.NewFace(c, opts)
	pr, pw := io.Pipe()
	c.in = pw
	ctx, cancel := context.WithCancel(context.Background())
	go func() { c.served <- c.face.Serve(ctx, pr) }()
	t.Cleanup(func() {
		cancel()
		pw.Close()
	})
	return c
}

// Write receives one line from the face.
func (c *client) Write(p []byte) (int, error) {
	l, err := jsonl.Decode(p)
	if err != nil {
		c.t.Errorf("the face wrote a line that does not decode (%v): %q", err, p)
	}
	c.mu.Lock()
	c.out.Write(p)
	c.lines = append(c.lines, l)
	c.mu.Unlock()
	c.seen <- l
	if c.onLine != nil {
		c.onLine(l)
	}
	return len(p), nil
}

// send writes raw lines to the face, as the client would.
func (c *client) send(raw ...string) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	for _, r := range raw {
		if _, err := io.WriteString(c.in, r+"\n"); err != nil {
			c.t.Errorf("sending %q: %v", r, err)
		}
	}
}

// sendLine encodes l and sends it.
func (c *client) sendLine(l jsonl.Line) {
	b, err := jsonl.Encode(l)
	if err != nil {
		c.t.Fatal(err)
	}
	c.send(strings.TrimSuffix(string(b), "\n"))
}

// screen returns what the face wrote so far.
func (c *client) screen() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out.String()
}

// next waits for the face's next line.
func (c *client) next() jsonl.Line {
	c.t.Helper()
	select {
	case l := <-c.seen:
		return l
	case <-time.After(5 * time.Second):
		c.t.Fatalf("the face wrote no line in 5 s; it wrote:\n%s", c.screen())
		return nil
	}
}

// expect waits for the face's next lines and compares them with want.
func (c *client) expect(want ...jsonl.Line) {
	c.t.Helper()
	var got []jsonl.Line
	for range want {
		got = append(got, c.next())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		c.t.Errorf("the face's lines mismatch (-want +got):\n%s", diff)
	}
}

// acts are what facetest's person does with a choice, as client lines:
// one an act, the next for when the face refuses the one before.
func acts(id string, p facetest.Person) []jsonl.Line {
	var lines []jsonl.Line
	for _, a := range p.Acts() {
		if l := act(id, a); l != nil {
			lines = append(lines, l)
		}
	}
	return lines
}

// act is what facetest's person does with a choice, as a client line.
func act(id string, p facetest.Person) jsonl.Line {
	switch p.Act {
	case facetest.Choose:
		return jsonl.Choose{ID: id, Option: p.Option + 1}
	case facetest.ChooseNone:
		return jsonl.Choose{ID: id, None: true}
	case facetest.Type:
		return jsonl.Choose{ID: id, Text: p.Text}
	case facetest.Decline:
		return jsonl.Choose{ID: id, Decline: true}
	case facetest.Interrupt:
		return jsonl.Cancel{}
	}
	return nil
}

// actCards are what facetest's person does with a card: a choose line
// with an answer a question, or a cancel, or nothing; and, when some
// answer is one the face refuses (Person.Then), the line sent after it.
func actCards(id string, people []facetest.Person) []jsonl.Line {
	var lines []jsonl.Line
	for round := 0; ; round++ {
		more := false
		now := make([]facetest.Person, len(people))
		for i, p := range people {
			a := p.Acts()
			now[i] = a[min(round, len(a)-1)]
			more = more || round+1 < len(a)
		}
		if l := actCard(id, now); l != nil {
			lines = append(lines, l)
		}
		if !more {
			return lines
		}
	}
}

// actCard is what facetest's person does with a card: one choose line
// with an answer a question, or a cancel, or nothing.
func actCard(id string, acts []facetest.Person) jsonl.Line {
	ch := jsonl.Choose{ID: id}
	for _, p := range acts {
		switch p.Act {
		case facetest.Silent:
			return nil
		case facetest.Interrupt:
			return jsonl.Cancel{}
		case facetest.Choose:
			ch.Answers = append(ch.Answers, jsonl.CardAnswer{Option: p.Option + 1})
		case facetest.ChooseSeveral:
			var opts []int
			for _, o := range p.Options {
				opts = append(opts, o+1)
			}
			ch.Answers = append(ch.Answers, jsonl.CardAnswer{Options: opts})
		case facetest.Type:
			ch.Answers = append(ch.Answers, jsonl.CardAnswer{Text: p.Text})
		default:
			ch.Answers = append(ch.Answers, jsonl.CardAnswer{Decline: true})
		}
	}
	return ch
}

// TestContract runs the face contract suite: the person's acts arrive as
// client lines through Serve, and the suite reads the lines the face
// wrote as data.
func TestContract(t *testing.T) {
	facetest.Run(t, func(t *testing.T, p facetest.Person) facetest.Harness {
		c := newClient(t, nil, func(c *client, l jsonl.Line) {
			if q, ok := l.(jsonl.Question); ok {
				for _, a := range acts(q.ID, p) {
					c.sendLine(a)
				}
			}
		})
		return facetest.Harness{Face: c.face, Screen: c.screen}
	}, &facetest.Options{Data: true})
}

func TestContractCards(t *testing.T) {
	facetest.RunCards(t, func(t *testing.T, acts []facetest.Person) facetest.CardHarness {
		c := newClient(t, nil, func(c *client, l jsonl.Line) {
			if card, ok := l.(jsonl.Card); ok {
				for _, a := range actCards(card.ID, acts) {
					c.sendLine(a)
				}
			}
		})
		return facetest.CardHarness{Face: c.face, Screen: c.screen}
	}, &facetest.Options{Data: true})
}

var (
	choiceQ = wisp.Question{ID: "q1", Session: "s", Thread: "t", Turn: 1, Text: "Which config did you mean?",
		Options: []string{"~/.wisp/config.json", "./wisp.json"}}
	textQ    = wisp.Question{ID: "q2", Session: "s", Thread: "t", Turn: 1, Text: "Which branch?"}
	approval = wisp.ApprovalRequest{ID: "a1", Session: "s", Thread: "t", Turn: 1, Kind: "modelAction",
		Command: "models enable ollama:qwen3:4b", Text: "turns it on", Scopes: []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession}}
	card = wisp.Card{ID: "c1", Session: "s", Thread: "t", Turn: 1, Questions: []wisp.CardQuestion{
		{Text: "Which environment?", Header: "Env", Options: []wisp.Option{{Label: "staging", Recommended: true}, {Label: "production"}}},
		{Text: "Which checks?", Multi: true, Other: true, Options: []wisp.Option{{Label: "unit"}, {Label: "lint"}, {Label: "e2e"}}},
		{Text: "Anything else?"},
	}}
)

type asked struct {
	answer   wisp.Answer
	cards    []wisp.CardAnswer
	decision wisp.Decision
	err      error
}

// ask runs f in a goroutine and returns where its result arrives.
func ask(f func() asked) <-chan asked {
	ch := make(chan asked, 1)
	go func() { ch <- f() }()
	return ch
}

func wait(t *testing.T, ch <-chan asked) asked {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(5 * time.Second):
		t.Fatal("the face did not return in 5 s")
		return asked{}
	}
}

// TestBadLines: every kind of bad line gets an error line naming it, and
// changes nothing: the question still waits, and takes the good answer.
func TestBadLines(t *testing.T) {
	c := newClient(t, nil, nil)
	got := ask(func() asked {
		a, err := c.face.Ask(context.Background(), choiceQ)
		return asked{answer: a, err: err}
	})
	c.next() // the choice
	long := `{"type":"message","text":"` + strings.Repeat("x", jsonl.MaxLine) + `"}`
	bad := []struct {
		raw  string
		says string
	}{
		{`not json`, "the line is not a JSON object: invalid character"},
		{`{"type":"shout"}`, `unknown line type "shout"`},
		{long, "the line is too long: it holds more than 65536 bytes"},
		{`{"type":"choose","id":"nope","option":1}`, `no such choice: no choice has the id "nope"`},
		{`{"type":"choose","id":"q1","option":3}`, "option 3 is out of range: choice q1 has options 1 to 2; send option 1 to 2, none, decline"},
		{`{"type":"choose","id":"q1","text":"the first"}`, "choice q1 does not take text"},
		{`{"type":"choose","id":"q1","answers":[{"option":1}]}`, "choice q1 is a question, not a card"},
		{`{"type":"choose","id":"q1","option":1,"option":2}`, `the line does not fit its type: key "option" is set twice; keep one`},
		{`{"type":"choose","id":"q1","option":1,"Option":2}`, `keys "option" and "Option" are one key, set twice`},
		{`{"type":"approve","id":"q1","scope":"once"}`, "choice q1 is a question (the model asks), not an approval; answer it with choose"},
		{`{"type":"deny","id":"q1"}`, "not an approval"},
		{`{"type":"hello","protocol":"wisp-chat"}`, "hello is a line wisp writes, not one it reads"},
		{`{"type":"message","text":"hi"}`, "this session takes no messages"},
	}
	for i, b := range bad {
		c.send(b.raw)
		l := c.next()
		e, ok := l.(jsonl.Error)
		if !ok || e.Line != i+1 || !strings.Contains(e.Error, b.says) {
			t.Errorf("line %d %.60q: the face wrote %+v, want an error line %d saying %q", i+1, b.raw, l, i+1, b.says)
		}
	}
	c.send(`{"type":"choose","id":"q1","option":2}`)
	r := wait(t, got)
	if diff := cmp.Diff(asked{answer: wisp.Answer{Outcome: wisp.OutcomeChose, Text: "./wisp.json", Provenance: wisp.FromPerson}}, r, cmp.AllowUnexported(asked{})); diff != "" {
		t.Errorf("Ask after bad lines mismatch (-want +got):\n%s", diff)
	}
	c.expect(jsonl.Settled{ID: "q1", Outcome: jsonl.OutcomeChose})
	c.send(`{"type":"choose","id":"q1","option":1}`)
	c.expect(jsonl.Error{Error: "the choice has already settled: choice q1 settled already (chose); nothing changed", Line: len(bad) + 2})
}

func TestQuestionOutcomes(t *testing.T) {
	tests := []struct {
		name    string
		q       wisp.Question
		send    string
		want    wisp.Answer
		outcome string
	}{
		{"option", choiceQ, `{"type":"choose","id":"q1","option":1}`, wisp.Answer{Outcome: wisp.OutcomeChose, Text: "~/.wisp/config.json", Provenance: wisp.FromPerson}, jsonl.OutcomeChose},
		{"none", choiceQ, `{"type":"choose","id":"q1","none":true}`, wisp.Answer{Outcome: wisp.OutcomeChoseNone, Provenance: wisp.FromPerson}, jsonl.OutcomeChoseNone},
		{"decline", choiceQ, `{"type":"choose","id":"q1","decline":true}`, wisp.Answer{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson}, jsonl.OutcomeDeclined},
		{"text", textQ, `{"type":"choose","id":"q2","text":"release/2.4"}`, wisp.Answer{Outcome: wisp.OutcomeAnswered, Text: "release/2.4", Provenance: wisp.FromPerson}, jsonl.OutcomeAnswered},
		{"decline text", textQ, `{"type":"choose","id":"q2","decline":true}`, wisp.Answer{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson}, jsonl.OutcomeDeclined},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(t, nil, nil)
			got := ask(func() asked {
				a, err := c.face.Ask(context.Background(), tc.q)
				return asked{answer: a, err: err}
			})
			c.next()
			c.send(tc.send)
			r := wait(t, got)
			if r.err != nil || r.answer != tc.want {
				t.Errorf("Ask = (%+v, %v), want %+v", r.answer, r.err, tc.want)
			}
			c.expect(jsonl.Settled{ID: tc.q.ID, Outcome: tc.outcome})
		})
	}
}

func TestFreeTextRefusesOptions(t *testing.T) {
	c := newClient(t, nil, nil)
	got := ask(func() asked {
		a, err := c.face.Ask(context.Background(), textQ)
		return asked{answer: a, err: err}
	})
	c.expect(jsonl.Question{ID: "q2", Thread: "t", Turn: 1, Title: jsonl.TitleModelAsks, Text: "Which branch?", AcceptsText: true})
	c.send(`{"type":"choose","id":"q2","option":1}`, `{"type":"choose","id":"q2","none":true}`)
	c.expect(
		jsonl.Error{Error: "the answer does not fit the choice: choice q2 takes free text and has no options; send text, decline", Line: 1},
		jsonl.Error{Error: "the answer does not fit the choice: choice q2 does not offer none of these; send text, decline", Line: 2},
	)
	c.send(`{"type":"choose","id":"q2","text":"main"}`)
	if r := wait(t, got); r.answer.Text != "main" {
		t.Errorf("Ask = %+v, want main", r)
	}
}

func TestCard(t *testing.T) {
	c := newClient(t, nil, nil)
	got := ask(func() asked {
		a, err := c.face.AskCard(context.Background(), card)
		return asked{cards: a, err: err}
	})
	if l, ok := c.next().(jsonl.Card); !ok || len(l.Questions) != 3 || !l.Questions[1].AcceptsText || !l.Questions[2].AcceptsText || l.Questions[0].AcceptsText {
		t.Fatalf("the card line is %+v", l)
	}
	bad := []struct{ raw, says string }{
		{`{"type":"choose","id":"c1","option":1}`, "choice c1 is a card; send answers"},
		{`{"type":"choose","id":"c1","answers":[{"option":1}]}`, "card c1 has 3 questions, and the line has 1 answer;"},
		{`{"type":"choose","id":"c1","answers":[{"option":3},{"decline":true},{"decline":true}]}`, "question 1: option 3 is out of range: the question has options 1 to 2"},
		{`{"type":"choose","id":"c1","answers":[{"options":[1]},{"decline":true},{"decline":true}]}`, "question 1: it is a single choice; send option, not options"},
		{`{"type":"choose","id":"c1","answers":[{"text":"qa"},{"decline":true},{"decline":true}]}`, "question 1: it does not take text"},
		{`{"type":"choose","id":"c1","answers":[{"decline":true},{"options":[1,4]},{"decline":true}]}`, "question 2: option 4 is out of range"},
		{`{"type":"choose","id":"c1","answers":[{"decline":true},{"decline":true},{"option":1}]}`, "question 3: it takes free text and has no options"},
		{`{"type":"approve","id":"c1","scope":"once"}`, "choice c1 is a card (the model asks), not an approval"},
	}
	for i, b := range bad {
		c.send(b.raw)
		if e, ok := c.next().(jsonl.Error); !ok || e.Line != i+1 || !strings.Contains(e.Error, b.says) {
			t.Errorf("line %d %s: the face wrote %+v, want an error saying %q", i+1, b.raw, e, b.says)
		}
	}
	c.send(`{"type":"choose","id":"c1","answers":[{"option":2},{"options":[3,1],"text":"smoke"},{"text":"the audit tables"}]}`)
	r := wait(t, got)
	want := []wisp.CardAnswer{
		{Outcome: wisp.OutcomeChose, Chosen: []string{"production"}, Provenance: wisp.FromPerson},
		{Outcome: wisp.OutcomeChose, Chosen: []string{"unit", "e2e"}, Text: "smoke", Provenance: wisp.FromPerson},
		{Outcome: wisp.OutcomeAnswered, Text: "the audit tables", Provenance: wisp.FromPerson},
	}
	if diff := cmp.Diff(want, r.cards); diff != "" || r.err != nil {
		t.Errorf("AskCard = %v, mismatch (-want +got):\n%s", r.err, diff)
	}
	c.expect(jsonl.Settled{ID: "c1", Outcome: jsonl.OutcomeAnswered})
}

// TestCardOptionsAndTextThroughDesk: on a multi-select question that
// takes text, options and "something else" text sent together both reach
// the model, as the person's.
func TestCardOptionsAndTextThroughDesk(t *testing.T) {
	c := newClient(t, nil, func(c *client, l jsonl.Line) {
		if card, ok := l.(jsonl.Card); ok {
			c.send(`{"type":"choose","id":"` + card.ID + `","answers":[{"options":[1,3],"text":"the smoke test"}]}`)
		}
	})
	desk := inquiry.NewDesk(c.face, nil)
	s, err := desk.AskCard(context.Background(), inquiry.CardRequest{Thread: "t", Turn: 1, Questions: []wisp.CardQuestion{
		{Text: "Which checks?", Header: "Checks", Multi: true, Other: true, Options: []wisp.Option{{Label: "unit"}, {Label: "lint"}, {Label: "e2e"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "1 (Checks): chose: unit, e2e; answer: the smoke test (from the person)"; s.Line != want {
		t.Errorf("the model reads %q, want %q", s.Line, want)
	}
}

// TestCardCountsSaid: the count of questions and answers is said in
// words that fit it: 1 question, 2 answers.
func TestCardCountsSaid(t *testing.T) {
	c := newClient(t, nil, nil)
	one := wisp.Card{ID: "c9", Thread: "t", Turn: 1, Questions: card.Questions[:1]}
	got := ask(func() asked {
		a, err := c.face.AskCard(context.Background(), one)
		return asked{cards: a, err: err}
	})
	c.next()
	c.send(`{"type":"choose","id":"c9","answers":[{"option":1},{"option":2}]}`)
	want := "the answer does not fit the choice: card c9 has 1 question, and the line has 2 answers; send one a question, in order"
	if e, ok := c.next().(jsonl.Error); !ok || e.Error != want {
		t.Errorf("the face wrote %+v, want the error %q", e, want)
	}
	c.send(`{"type":"choose","id":"c9","answers":[{"option":2}]}`)
	if r := wait(t, got); r.err != nil || len(r.cards) != 1 || r.cards[0].Chosen[0] != "production" {
		t.Errorf("AskCard = %+v", r)
	}
}

func TestCardDeclinedWhole(t *testing.T) {
	c := newClient(t, nil, nil)
	got := ask(func() asked {
		a, err := c.face.AskCard(context.Background(), card)
		return asked{cards: a, err: err}
	})
	c.next()
	c.send(`{"type":"choose","id":"c1","decline":true}`)
	r := wait(t, got)
	declined := wisp.CardAnswer{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson}
	if diff := cmp.Diff([]wisp.CardAnswer{declined, declined, declined}, r.cards); diff != "" || r.err != nil {
		t.Errorf("AskCard declined = %v, mismatch (-want +got):\n%s", r.err, diff)
	}
	c.expect(jsonl.Settled{ID: "c1", Outcome: jsonl.OutcomeDeclined})
}

func TestApproval(t *testing.T) {
	tests := []struct {
		name    string
		send    []string
		errs    []string
		want    wisp.Decision
		outcome string
	}{
		{"once", []string{`{"type":"approve","id":"a1","scope":"once"}`}, nil, wisp.Decision{Scope: wisp.ScopeOnce, Provenance: wisp.FromPerson}, jsonl.OutcomeApproved},
		{"session", []string{`{"type":"approve","id":"a1","scope":"session"}`}, nil, wisp.Decision{Scope: wisp.ScopeSession, Provenance: wisp.FromPerson}, jsonl.OutcomeApproved},
		// Wider than offered: passed on as the person answered, for the gate
		// to narrow and record as downgradedFrom.
		{"always, wider than offered", []string{`{"type":"approve","id":"a1","scope":"always"}`}, nil, wisp.Decision{Scope: wisp.ScopeAlways, Provenance: wisp.FromPerson}, jsonl.OutcomeApproved},
		{"deny", []string{`{"type":"deny","id":"a1"}`}, nil, wisp.Decision{Provenance: wisp.FromPerson}, jsonl.OutcomeRefused},
		{"bad, then deny", []string{
			`{"type":"approve","id":"a1","scope":"sometimes"}`,
			`{"type":"choose","id":"a1","option":1}`,
			`{"type":"choose","id":"a1","decline":true}`,
			`{"type":"deny","id":"a1"}`,
		}, []string{
			`unknown scope "sometimes"`,
			"choice a1 is an approval (wisp asks your approval), not a question; answer it with approve or deny",
			"choice a1 is an approval",
		}, wisp.Decision{Provenance: wisp.FromPerson}, jsonl.OutcomeRefused},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(t, nil, nil)
			got := ask(func() asked {
				d, err := c.face.Approve(context.Background(), approval)
				return asked{decision: d, err: err}
			})
			c.expect(jsonl.Approval{ID: "a1", Thread: "t", Turn: 1, Title: jsonl.TitleApproval, Command: "models enable ollama:qwen3:4b",
				Text: "turns it on", Scopes: []string{"once", "session"}})
			c.send(tc.send...)
			for i, says := range tc.errs {
				if e, ok := c.next().(jsonl.Error); !ok || !strings.Contains(e.Error, says) || e.Line != i+1 {
					t.Errorf("line %d: got %+v, want an error saying %q", i+1, e, says)
				}
			}
			r := wait(t, got)
			if r.err != nil || r.decision != tc.want {
				t.Errorf("Approve = (%+v, %v), want %+v", r.decision, r.err, tc.want)
			}
			c.expect(jsonl.Settled{ID: "a1", Outcome: tc.outcome})
		})
	}
}

// A scope narrower than every scope the approval offers has nothing to be
// narrowed to: it is refused with a line, and the approval still waits.
func TestApprovalNarrowerThanOffered(t *testing.T) {
	c := newClient(t, nil, nil)
	r := approval
	r.Scopes = []wisp.Scope{wisp.ScopeSession}
	got := ask(func() asked {
		d, err := c.face.Approve(context.Background(), r)
		return asked{decision: d, err: err}
	})
	c.next()
	c.send(`{"type":"approve","id":"a1","scope":"once"}`, `{"type":"approve","id":"a1","scope":"project"}`)
	want := `the answer does not fit the choice: approval a1 does not offer the scope "once", nor one narrower; send approve with one of its scopes (session), or deny`
	if e, ok := c.next().(jsonl.Error); !ok || e.Error != want {
		t.Errorf("approve once on a session-only approval: got %+v, want the error %q", e, want)
	}
	if a := wait(t, got); a.err != nil || a.decision != (wisp.Decision{Scope: wisp.ScopeProject, Provenance: wisp.FromPerson}) {
		t.Errorf("Approve = (%+v, %v), want project, for the gate to narrow", a.decision, a.err)
	}
	c.expect(jsonl.Settled{ID: "a1", Outcome: jsonl.OutcomeApproved})
}

// TestCancel: a cancel line ends every waiting choice with
// wisp.ErrInterrupted, settles it "cancelled", and calls Options.Cancel.
func TestCancel(t *testing.T) {
	cancelled := make(chan struct{}, 1)
	c := newClient(t, &jsonl.Options{Cancel: func() { cancelled <- struct{}{} }}, nil)
	q := ask(func() asked {
		a, err := c.face.Ask(context.Background(), choiceQ)
		return asked{answer: a, err: err}
	})
	c.next()
	a := ask(func() asked {
		d, err := c.face.Approve(context.Background(), approval)
		return asked{decision: d, err: err}
	})
	c.next()
	c.send(`{"type":"cancel"}`)
	for _, r := range []asked{wait(t, q), wait(t, a)} {
		if !errors.Is(r.err, wisp.ErrInterrupted) || r.answer != (wisp.Answer{}) || r.decision.Approved() {
			t.Errorf("after cancel: %+v, want wisp.ErrInterrupted and nothing passed on", r)
		}
	}
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("Options.Cancel was not called")
	}
	outcomes := map[string]string{}
	for range 2 {
		s := c.next().(jsonl.Settled)
		outcomes[s.ID] = s.Outcome
	}
	if diff := cmp.Diff(map[string]string{"q1": "cancelled", "a1": "cancelled"}, outcomes); diff != "" {
		t.Errorf("settled lines mismatch (-want +got):\n%s", diff)
	}
}

// TestDeadline: a choice whose ctx passes its deadline settles
// "timed-out"; one whose turn ends settles "cancelled".
func TestDeadline(t *testing.T) {
	c := newClient(t, nil, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := c.face.Ask(ctx, choiceQ); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Ask past its deadline = %v", err)
	}
	c.next()
	c.expect(jsonl.Settled{ID: "q1", Outcome: jsonl.OutcomeTimedOut})
	c.send(`{"type":"choose","id":"q1","option":1}`)
	if e, ok := c.next().(jsonl.Error); !ok || !strings.Contains(e.Error, "settled already (timed-out)") {
		t.Errorf("an answer after the deadline: %+v", e)
	}

	turn, stop := context.WithCancelCause(context.Background())
	time.AfterFunc(50*time.Millisecond, func() { stop(wisp.ErrInterrupted) })
	if _, err := c.face.Approve(turn, approval); !errors.Is(err, wisp.ErrInterrupted) {
		t.Errorf("Approve when the turn stops = %v, want its cause", err)
	}
	c.next()
	c.expect(jsonl.Settled{ID: "a1", Outcome: jsonl.OutcomeCancelled})
}

// TestClose: when the client's input ends, what waits, and every choice
// asked after, ends with no person to answer it: never answered, never the
// person's decline (no person saw it), and an approval refused.
func TestClose(t *testing.T) {
	nobody := wisp.Answer{Outcome: wisp.OutcomeNoPerson, Provenance: wisp.FromUnattended}
	c := newClient(t, nil, nil)
	q := ask(func() asked {
		a, err := c.face.Ask(context.Background(), choiceQ)
		return asked{answer: a, err: err}
	})
	c.next()
	c.in.Close()
	if err := <-c.served; err != nil {
		t.Errorf("Serve at the end of the input = %v, want nil", err)
	}
	if r := wait(t, q); r.err != nil || r.answer != nobody {
		t.Errorf("Ask when the input ends = %+v, want %+v", r, nobody)
	}
	c.expect(jsonl.Settled{ID: "q1", Outcome: jsonl.OutcomeClosed})

	if a, err := c.face.Ask(context.Background(), textQ); err != nil || a != nobody {
		t.Errorf("Ask after the end = (%+v, %v), want %+v", a, err, nobody)
	}
	c.next()
	c.expect(jsonl.Settled{ID: "q2", Outcome: jsonl.OutcomeClosed})

	cards, err := c.face.AskCard(context.Background(), card)
	if err != nil || len(cards) != 3 {
		t.Fatalf("AskCard after the end = (%v, %v)", cards, err)
	}
	for i, a := range cards {
		// Nobody's: the desk falls a choice back, marked unattended.
		if !cmp.Equal(a, wisp.CardAnswer{Outcome: wisp.OutcomeNoPerson, Provenance: wisp.FromUnattended}) {
			t.Errorf("question %d after the end = %+v, want no person, unattended", i+1, a)
		}
	}
	c.next()
	c.expect(jsonl.Settled{ID: "c1", Outcome: jsonl.OutcomeClosed})

	d, err := c.face.Approve(context.Background(), approval)
	if err != nil || d.Approved() || d.Reason != jsonl.ReasonClosed {
		t.Errorf("Approve after the end = (%+v, %v), want refused: %s", d, err, jsonl.ReasonClosed)
	}
	c.next()
	c.expect(jsonl.Settled{ID: "a1", Outcome: jsonl.OutcomeRefused})
}

// TestCloseThroughDesk: through the inquiry desk, a question and a card
// that wait when the client's input ends are told to the model as no
// person to answer, recorded with provenance unattended, and not
// remembered as declined: the same question may be asked on a later turn.
func TestCloseThroughDesk(t *testing.T) {
	var mu sync.Mutex
	var events []wisp.Event
	sink := wisp.EventSinkFunc(func(_ context.Context, e wisp.Event) error {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, e)
		return nil
	})
	c := newClient(t, nil, nil)
	desk := inquiry.NewDesk(c.face, &inquiry.Options{Session: "s", Events: sink,
		Vault: inquiry.VaultFunc(func(name, _ string) (string, error) { return "session:" + name, nil })})
	ctx := context.Background()

	asked := make(chan inquiry.Settled, 1)
	go func() {
		s, err := desk.Ask(ctx, inquiry.Request{Thread: "t", Turn: 1, Text: "Which config?", Options: []string{"a", "b"}})
		if err != nil {
			t.Errorf("Ask: %v", err)
		}
		asked <- s
	}()
	if _, ok := c.next().(jsonl.Question); !ok {
		t.Fatal("no question line")
	}
	c.in.Close()
	<-c.served
	var s inquiry.Settled
	select {
	case s = <-asked:
	case <-time.After(5 * time.Second):
		t.Fatal("Ask did not return when the input ended")
	}
	if s.Line != inquiry.LineNoPerson || s.Answer.Provenance != wisp.FromUnattended {
		t.Errorf("the question at the end of the input = %q (%v), want %q (unattended)", s.Line, s.Answer.Provenance, inquiry.LineNoPerson)
	}
	c.expect(jsonl.Settled{ID: s.Question.ID, Outcome: jsonl.OutcomeClosed})

	// Not the person's decline: a later turn may ask it again.
	if s, err := desk.Ask(ctx, inquiry.Request{Thread: "t", Turn: 2, Text: "Which config?", Options: []string{"a", "b"}}); err != nil || s.Refused {
		t.Errorf("asking again on a later turn = (%q, %v), want it put to the face", s.Line, err)
	}

	cs, err := desk.AskCard(ctx, inquiry.CardRequest{Thread: "t", Turn: 3, Questions: []wisp.CardQuestion{
		{Text: "Which environment?", Header: "Env", Options: []wisp.Option{{Label: "staging"}, {Label: "production", Recommended: true}}},
		{Text: "Which checks?", Multi: true, Other: true, Options: []wisp.Option{{Label: "unit"}, {Label: "lint"}}},
		{Text: "Anything else?"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"1 (Env): fallback: production (the recommended option; no person can answer here, so the person did not choose it)",
		"2: fallback: unit (the first option; no person can answer here, so the person did not choose it)",
		"3: no person can answer here; this question has no default. Do not guess what the person would say",
	}
	if diff := cmp.Diff(strings.Join(want, "\n"), cs.Line); diff != "" {
		t.Errorf("the card's line (-want +got):\n%s", diff)
	}
	for i, q := range cs.Questions {
		if q.Provenance != wisp.FromUnattended || q.Outcome == wisp.OutcomeDeclined {
			t.Errorf("card question %d = %v (%v), want unattended and not declined", i+1, q.Outcome, q.Provenance)
		}
	}
	sec, err := desk.AskCard(ctx, inquiry.CardRequest{Thread: "t", Turn: 4, Questions: []wisp.CardQuestion{
		{Text: "The token for the deploy", Secret: "GH_TOKEN"}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "1: no person can answer here, so GH_TOKEN is declined: a secret has no default. Going on without it is your own decision, so say so in your reply"; sec.Line != want {
		t.Errorf("the secret's line = %q, want %q", sec.Line, want)
	}

	mu.Lock()
	defer mu.Unlock()
	settled := 0
	for _, e := range events {
		if e.Kind() != wisp.KindInquirySettled {
			continue
		}
		settled++
		d := e.Data.(wisp.InquirySettledData)
		if e.Source == wisp.SourcePerson {
			t.Errorf("inquiry.settled at the end of the input has source person: %+v", d)
		}
		prov := []string{d.Provenance}
		if d.Questions != nil {
			prov = prov[:0]
			for _, q := range d.Questions {
				prov = append(prov, q.Provenance)
			}
		}
		for _, p := range prov {
			if p != "unattended" {
				t.Errorf("inquiry.settled at the end of the input has provenance %v: %+v", p, d)
			}
		}
	}
	if settled != 4 {
		t.Errorf("%d inquiry.settled events, want 4", settled)
	}
}

// TestMessage: message lines go to Options.Message, whose error becomes
// an error line naming the line.
func TestMessage(t *testing.T) {
	var mu sync.Mutex
	var got []string
	c := newClient(t, &jsonl.Options{Message: func(text string) error {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, text)
		if len(got) > 1 {
			return errors.New("a turn is running; wait for its end line, or send cancel")
		}
		return nil
	}}, nil)
	c.send(`{"type":"message","text":"first"}`, `{"type":"message","text":"second"}`)
	c.expect(jsonl.Error{Error: "a turn is running; wait for its end line, or send cancel", Line: 2})
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff([]string{"first", "second"}, got); diff != "" {
		t.Errorf("messages mismatch (-want +got):\n%s", diff)
	}
}

func TestHelloAndBye(t *testing.T) {
	var b bytes.Buffer
	f := jsonl.NewFace(&b, &jsonl.Options{MaxLine: 1024})
	if err := f.Hello(jsonl.Hello{Wisp: "devel", Session: "s1", Thread: "t-s1", Model: "script:x.jsonl"}); err != nil {
		t.Fatal(err)
	}
	if err := f.Send(jsonl.Bye{}); err != nil {
		t.Fatal(err)
	}
	if err := f.Notify(context.Background(), wisp.Notice{Kind: "pull", Text: "late"}); !errors.Is(err, jsonl.ErrEnded) {
		t.Errorf("Notify after Bye = %v, want ErrEnded", err)
	}
	want := `{"type":"hello","protocol":"wisp-chat","version":1,"wisp":"devel","session":"s1","thread":"t-s1","model":"script:x.jsonl","tools":[],"accepts":["message","choose","approve","deny","cancel"],"choices":["question","card","approval"],"maxLine":1024}
{"type":"bye"}
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestNotify(t *testing.T) {
	var b bytes.Buffer
	f := jsonl.NewFace(&b, nil)
	for _, n := range []wisp.Notice{
		{Kind: "unverified-claim", Thread: "t", Text: "the reply says the person chose"},
		{Kind: "redacted", Thread: "t", Text: "not passed on"},
		{Kind: "something-new", Text: "x"},
	} {
		if err := f.Notify(context.Background(), n); err != nil {
			t.Fatal(err)
		}
	}
	want := `{"type":"note","kind":"flag","thread":"t","text":"the reply says the person chose"}
{"type":"note","kind":"redacted","thread":"t","text":"not passed on"}
{"type":"note","kind":"something-new","text":"x"}
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

// TestWriteFails: a face that cannot write its choice fails closed.
func TestWriteFails(t *testing.T) {
	f := jsonl.NewFace(errWriter{errors.New("broken pipe")}, nil)
	if a, err := f.Ask(context.Background(), choiceQ); err == nil || a != (wisp.Answer{}) {
		t.Errorf("Ask on a broken writer = (%+v, %v), want an error", a, err)
	}
	if d, err := f.Approve(context.Background(), approval); err == nil || d.Approved() {
		t.Errorf("Approve on a broken writer = (%+v, %v), want an error", d, err)
	}
}

type errWriter struct{ err error }

func (w errWriter) Write([]byte) (int, error) { return 0, w.err }

// TestServeContext: Serve returns when its ctx ends, closing the face.
func TestServeContext(t *testing.T) {
	var b bytes.Buffer
	f := jsonl.NewFace(&b, nil)
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.Serve(ctx, pr) }()
	stop := errors.New("stop")
	cancel(stop)
	select {
	case err := <-done:
		if !errors.Is(err, stop) {
			t.Errorf("Serve = %v, want the cause", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return when its ctx ended")
	}
	if d, _ := f.Approve(context.Background(), approval); d.Approved() || d.Reason != jsonl.ReasonClosed {
		t.Errorf("Approve after Serve ended = %+v, want refused", d)
	}
}

// TestChoiceWithoutID: a choice the caller gave no id gets one.
func TestChoiceWithoutID(t *testing.T) {
	c := newClient(t, nil, nil)
	q := textQ
	q.ID = ""
	got := ask(func() asked {
		a, err := c.face.Ask(context.Background(), q)
		return asked{answer: a, err: err}
	})
	l := c.next().(jsonl.Question)
	if l.ID == "" {
		t.Fatal("a choice went out without an id")
	}
	c.sendLine(jsonl.Choose{ID: l.ID, Text: "main"})
	if r := wait(t, got); r.answer.Text != "main" {
		t.Errorf("Ask = %+v", r)
	}
}

// TestQuestionsLines: a questions line goes to Options.Questions, whose
// error becomes an error line; a face without it refuses the line and
// does not announce it in hello. AskParked puts a parked question as a
// choice marked parked, answered as any question.
func TestQuestionsLines(t *testing.T) {
	var mu sync.Mutex
	var got []jsonl.Questions
	c := newClient(t, &jsonl.Options{Questions: func(q jsonl.Questions) error {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, q)
		if q.ID == "ffffffff" {
			return errors.New("no question ffffffff is waiting")
		}
		return nil
	}}, nil)
	c.send(`{"type":"questions","action":"list"}`, `{"type":"questions","action":"answer","id":"a1b2c3d4"}`,
		`{"type":"questions","action":"decline","id":"ffffffff"}`)
	c.expect(jsonl.Error{Error: "no question ffffffff is waiting", Line: 3})
	mu.Lock()
	want := []jsonl.Questions{{Action: "list"}, {Action: "answer", ID: "a1b2c3d4"}, {Action: "decline", ID: "ffffffff"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("questions lines (-want +got):\n%s", diff)
	}
	mu.Unlock()

	parked := wisp.Question{ID: "a1b2c3d4", Thread: "t-81b2c3d4", Turn: 3, Text: "Which config?", Options: []string{"a", "b"}}
	r := ask(func() asked {
		a, err := c.face.AskParked(context.Background(), parked)
		return asked{answer: a, err: err}
	})
	c.expect(jsonl.Question{ID: "a1b2c3d4", Thread: "t-81b2c3d4", Turn: 3, Title: jsonl.TitleModelAsks, Text: "Which config?",
		Options: []string{"a", "b"}, NoneOfThese: true, Parked: true})
	c.send(`{"type":"choose","id":"a1b2c3d4","option":2}`)
	if a := wait(t, r); a.err != nil || a.answer != (wisp.Answer{Outcome: wisp.OutcomeChose, Text: "b", Provenance: wisp.FromPerson}) {
		t.Errorf("AskParked = %+v, want chose b", a)
	}
	c.expect(jsonl.Settled{ID: "a1b2c3d4", Outcome: jsonl.OutcomeChose})

	var b bytes.Buffer
	if err := jsonl.NewFace(&b, &jsonl.Options{Questions: func(jsonl.Questions) error { return nil }}).Hello(jsonl.Hello{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"accepts":["message","choose","approve","deny","cancel","questions"]`) {
		t.Errorf("hello of a face that takes questions lines = %s", b.String())
	}

	plain := newClient(t, nil, nil)
	plain.send(`{"type":"questions","action":"list"}`)
	if l, ok := plain.next().(jsonl.Error); !ok || !strings.Contains(l.Error, "this session does not take questions lines") {
		t.Errorf("a face without Options.Questions wrote %+v, want the refusal", l)
	}
}

// TestCommandLines: a command line runs Options.Command while the session
// reads on, one command at a time in the order they came, and what it
// said, or why it failed, comes as a note of kind command; a face without
// it refuses the line and does not announce it.
func TestCommandLines(t *testing.T) {
	release := make(chan struct{})
	c := newClient(t, &jsonl.Options{Command: func(ctx context.Context, cmd jsonl.Command) (string, error) {
		switch cmd.Name {
		case "models":
			<-release
			return "  ollama:qwen3:4b  enabled\n", nil
		case "config":
			return "", errors.New(`unknown key "nope"`)
		}
		return "", fmt.Errorf("unknown command %q", cmd.Name)
	}}, nil)
	// While the first command runs, the session reads on; the next
	// command waits for it.
	c.send(`{"type":"command","name":"models","args":["list"]}`, `{"type":"command","name":"config","args":["get","nope"]}`, `{"type":"deny"}`)
	if l, ok := c.next().(jsonl.Error); !ok || l.Line != 3 {
		t.Errorf("while a command ran, the face wrote %+v, want the error line of line 3", l)
	}
	close(release)
	c.expect(jsonl.Note{Kind: jsonl.NoteCommand, Text: "  ollama:qwen3:4b  enabled"})
	c.expect(jsonl.Note{Kind: jsonl.NoteCommand, Text: `unknown key "nope"`})

	var b bytes.Buffer
	run := func(context.Context, jsonl.Command) (string, error) { return "", nil }
	if err := jsonl.NewFace(&b, &jsonl.Options{Command: run}).Hello(jsonl.Hello{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"accepts":["message","choose","approve","deny","cancel","command"]`) {
		t.Errorf("hello of a face that takes command lines = %s", b.String())
	}
	plain := newClient(t, nil, nil)
	plain.send(`{"type":"command","name":"models","args":["list"]}`)
	if l, ok := plain.next().(jsonl.Error); !ok || !strings.Contains(l.Error, "this session does not take command lines") {
		t.Errorf("a face without Options.Command wrote %+v, want the refusal", l)
	}
}

// Serve returns once the commands it started have ended.
func TestServeWaitsForCommands(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var b bytes.Buffer
		done := make(chan struct{})
		face := jsonl.NewFace(&b, &jsonl.Options{Command: func(ctx context.Context, cmd jsonl.Command) (string, error) {
			<-done
			return "done", nil
		}})
		served := make(chan error, 1)
		go func() {
			served <- face.Serve(context.Background(), strings.NewReader(`{"type":"command","name":"models"}`+"\n"))
		}()
		synctest.Wait()
		select {
		case err := <-served:
			t.Fatalf("Serve = %v before its command ended", err)
		default:
		}
		close(done)
		if err := <-served; err != nil {
			t.Fatalf("Serve = %v", err)
		}
		if want := `{"type":"note","kind":"command","text":"done"}` + "\n"; b.String() != want {
			t.Errorf("Serve wrote %q, want %q", b.String(), want)
		}
	})
}

// Text that holds control characters is never taken as an answer, on a
// question or on a card: the client gets an error line that says what
// the question takes, and the choice still waits.
func TestControlCharactersAreNoAnswer(t *testing.T) {
	c := newClient(t, nil, nil)
	got := ask(func() asked {
		a, err := c.face.Ask(context.Background(), textQ)
		return asked{answer: a, err: err}
	})
	c.next() // the choice
	c.send(`{"type":"choose","id":"q2","text":"main\u001b[A\u001b[A"}`)
	l := c.next()
	if e, ok := l.(jsonl.Error); !ok || !strings.Contains(e.Error, "control characters, such as an arrow key or Esc, are never taken as typed text; this question takes a line of text, or nothing to decline") {
		t.Errorf("text with control characters: the face wrote %+v, want an error line that says what the question takes", l)
	}
	c.send(`{"type":"choose","id":"q2","text":" main "}`)
	r := wait(t, got)
	if diff := cmp.Diff(asked{answer: wisp.Answer{Outcome: wisp.OutcomeAnswered, Text: "main", Provenance: wisp.FromPerson}}, r, cmp.AllowUnexported(asked{})); diff != "" {
		t.Errorf("Ask after a refused answer mismatch (-want +got):\n%s", diff)
	}

	got = ask(func() asked {
		a, err := c.face.AskCard(context.Background(), card)
		return asked{cards: a, err: err}
	})
	for {
		if _, ok := c.next().(jsonl.Card); ok {
			break
		}
	}
	c.send(`{"type":"choose","id":"c1","answers":[{"option":1},{"options":[1],"text":"and\u0007more"},{"decline":true}]}`)
	for {
		l := c.next()
		if e, ok := l.(jsonl.Error); ok {
			if !strings.Contains(e.Error, "card c1, question 2: control characters") {
				t.Errorf("card text with a control character: error %q", e.Error)
			}
			break
		}
	}
	c.send(`{"type":"choose","id":"c1","answers":[{"option":1},{"options":[1],"text":"and more"},{"decline":true}]}`)
	r = wait(t, got)
	if r.err != nil || len(r.cards) != 3 || r.cards[1].Text != "and more" {
		t.Errorf("AskCard after a refused line = %+v, want the second line's answers", r)
	}
}

// An approval request's diff is a field of its choice line.
func TestApprovalDiff(t *testing.T) {
	c := newClient(t, nil, nil)
	r := approval
	r.Command, r.Text = "edit_file replace main.go", "replaces 1 line in main.go with 1 line"
	r.Diff = "--- a/main.go\n+++ b/main.go\n@@ -1 +1 @@\n-package x\n+package main\n"
	got := ask(func() asked {
		d, err := c.face.Approve(context.Background(), r)
		return asked{decision: d, err: err}
	})
	c.expect(jsonl.Approval{ID: "a1", Thread: "t", Turn: 1, Title: jsonl.TitleApproval, Command: r.Command,
		Text: r.Text, Diff: r.Diff, Scopes: []string{"once", "session"}})
	c.send(`{"type":"deny","id":"a1"}`)
	if res := wait(t, got); res.err != nil || res.decision.Approved() {
		t.Errorf("Approve = (%+v, %v), want refused", res.decision, res.err)
	}
	c.expect(jsonl.Settled{ID: "a1", Outcome: jsonl.OutcomeRefused})
}
