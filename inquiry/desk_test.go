package inquiry_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry"
	"github.com/wisp-agent/wisp/wisptest"
)

var fixed = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

func newDesk(p wisp.Inquirer, timeout time.Duration, rec *wisptest.Recorder) *inquiry.Desk {
	n := 0
	opts := &inquiry.Options{
		Session: "s1",
		Timeout: timeout,
		Now:     func() time.Time { return fixed },
		NewID:   func() string { n++; return fmt.Sprintf("q%d", n) },
	}
	if rec != nil {
		opts.Events = rec
	}
	return inquiry.NewDesk(p, opts)
}

// The contract lines, word for word. If one of these changes, the model's
// contract changed.
func TestContractLines(t *testing.T) {
	tests := []struct{ name, got, want string }{
		{"chose none", inquiry.LineChoseNone, "the person chose none of these options"},
		{"declined", inquiry.LineDeclined, "the person declined to answer. Do not ask this again; say in your reply what you needed"},
		{"no person", inquiry.LineNoPerson, "no person can answer here; say in your reply what you need"},
		{"timed out", inquiry.LineTimedOut(5 * time.Minute), "no answer within 5 min. Do not guess what the person would say. Say in your reply what you need, and stop"},
		{"per turn", inquiry.ErrLinePerTurn, "error: you have asked 2 questions this turn; say in your reply what you still need, and stop."},
		{"secret", inquiry.ErrLineSecret, "error: ask does not ask for secrets; tell the person what is needed and where to set it"},
		{"chose", inquiry.LineChose("./wisp.json"), "chose: ./wisp.json"},
		{"answered", inquiry.LineAnswered("release/2.4", false), "answer: release/2.4 (from the person)"},
		{"parked", inquiry.LineParked("Which config?", "a1b2c3d4"), `waiting for the person: "Which config?" (question a1b2c3d4). Their answer reaches you as a note on a later turn. Do not guess it.`},
		{"declined fact", wisp.Fact{ID: "c5", Subject: inquiry.SubjectDeclined, Name: "Which branch?", Value: inquiry.FactDeclined}.String(),
			`c5 declined "Which branch?" = the person declined to answer`},
		{"declined secret fact", wisp.Fact{ID: "c6", Subject: inquiry.SubjectDeclined, Name: "GH_TOKEN", Value: inquiry.FactSecretDeclined}.String(),
			`c6 declined "GH_TOKEN" = the person declined to give this secret`},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s line = %q, want %q", tc.name, tc.got, tc.want)
		}
	}
	if !strings.HasPrefix(inquiry.ErrLineWaiting, "error: a question is already waiting for the person; ") {
		t.Errorf("waiting line = %q, want the prefix the spec gives", inquiry.ErrLineWaiting)
	}
}

func TestWait(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{10 * time.Second, "10 s"}, {90 * time.Second, "90 s"}, {5 * time.Minute, "5 min"},
		{2 * time.Hour, "2 h"}, {90 * time.Minute, "90 min"}, {86400 * time.Second, "24 h"},
	}
	for _, tc := range tests {
		if got := inquiry.Wait(tc.d); got != tc.want {
			t.Errorf("Wait(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestAskOutcomes(t *testing.T) {
	options := []string{"~/.wisp/config.json", "./wisp.json"}
	long := strings.Repeat("é", 1500) // 3,000 bytes
	tests := []struct {
		name    string
		text    string
		options []string
		reply   wisptest.Reply
		timeout time.Duration
		want    string
		refused bool
		fact    string
	}{
		{name: "free text", text: "Which branch?", reply: wisptest.Says("release/2.4"),
			want: "answer: release/2.4 (from the person)", fact: `c0 answer "Which branch?" = release/2.4`},
		{name: "choice", text: "Which config did you mean?", options: options, reply: wisptest.Chooses("./wisp.json"),
			want: "chose: ./wisp.json", fact: `c0 answer "Which config did you mean?" = ./wisp.json`},
		{name: "option typed as text is a choice", text: "Which config?", options: options, reply: wisptest.Says("  ./WISP.json "),
			want: "chose: ./wisp.json", fact: `c0 answer "Which config?" = ./wisp.json`},
		{name: "none of these typed on a choice", text: "Which config?", options: options, reply: wisptest.Says(" None of these"),
			want: "the person chose none of these options", fact: `c0 answer "Which config?" = none of these`},
		{name: "surrounding space and a line break are trimmed", text: "Which branch?", reply: wisptest.Says("  release/2.4\r\n"),
			want: "answer: release/2.4 (from the person)", fact: `c0 answer "Which branch?" = release/2.4`},
		{name: "yes or no", text: "Keep the old file?", options: []string{"yes", "no"}, reply: wisptest.Chooses("yes"),
			want: "chose: yes", fact: `c0 answer "Keep the old file?" = yes`},
		{name: "none of these", text: "Which config?", options: options, reply: wisptest.ChoosesNone(),
			want: "the person chose none of these options", fact: `c0 answer "Which config?" = none of these`},
		{name: "declined", text: "Which branch?", reply: wisptest.Declines(),
			want: "the person declined to answer. Do not ask this again; say in your reply what you needed",
			fact: `c0 declined "Which branch?" = the person declined to answer`},
		{name: "blank answer is a decline", text: "Which branch?", reply: wisptest.Says("   "),
			want: "the person declined to answer. Do not ask this again; say in your reply what you needed",
			fact: `c0 declined "Which branch?" = the person declined to answer`},
		{name: "no person", text: "Which branch?", reply: wisptest.Reply{Answer: wisp.Answer{Outcome: wisp.OutcomeNoPerson}},
			want: "no person can answer here; say in your reply what you need"},
		{name: "credential in the answer", text: "Which account?", reply: wisptest.Says("use AKIAFAKEKEYEXAMPLE77 please"),
			want: "answer: use [REDACTED:aws-access-key#1] please (from the person)", fact: `c0 answer "Which account?" = use [REDACTED:aws-access-key#1] please`},
		{name: "long answer is cut", text: "Describe it", reply: wisptest.Says(long),
			want: "answer: " + strings.Repeat("é", 1000) + " (from the person) (the answer was longer and was cut to 2,000 bytes)",
			fact: `c0 answer "Describe it" = ` + strings.Repeat("é", 1000)},
		{name: "fact named by the question cut to 80", text: strings.Repeat("a", 100) + "?", reply: wisptest.Says("b"),
			want: "answer: b (from the person)", fact: `c0 answer "` + strings.Repeat("a", 79) + `…" = b`},

		// Refusals: the question never reaches the person.
		{name: "empty question", text: "  ", refused: true,
			want: "error: question is empty; ask one question of 1 to 300 characters"},
		{name: "301 characters", text: strings.Repeat("x", 301), refused: true,
			want: "error: question is 301 characters; it must be 1 to 300, one paragraph"},
		{name: "300 characters is fine", text: strings.Repeat("ü", 300), reply: wisptest.Says("ok"),
			want: "answer: ok (from the person)", fact: `c0 answer "` + strings.Repeat("ü", 79) + `…" = ok`},
		{name: "two paragraphs", text: "First.\n\nSecond?", refused: true,
			want: "error: question must be one paragraph, without line breaks"},
		{name: "one option", text: "Which?", options: []string{"a"}, refused: true,
			want: "error: options must be 2 to 6 when given (got 1); leave options out for a free-text answer"},
		{name: "seven options", text: "Which?", options: []string{"a", "b", "c", "d", "e", "f", "g"}, refused: true,
			want: "error: options must be 2 to 6 when given (got 7); leave options out for a free-text answer"},
		{name: "six options is fine", text: "Which?", options: []string{"a", "b", "c", "d", "e", "f"}, reply: wisptest.Chooses("f"),
			want: "chose: f", fact: `c0 answer "Which?" = f`},
		{name: "option of 81", text: "Which?", options: []string{"a", strings.Repeat("o", 81)}, refused: true,
			want: "error: option 2 is 81 characters; each option must be 1 to 80"},
		{name: "empty option", text: "Which?", options: []string{"a", " "}, refused: true,
			want: "error: option 2 is empty; each option must be 1 to 80 characters"},
		{name: "same options", text: "Which?", options: []string{"Main", "dev", "main"}, refused: true,
			want: "error: options 1 and 3 are the same; each option must be different"},
		{name: "none of these is wisp's", text: "Which?", options: []string{"a", "None of these"}, refused: true,
			want: `error: option 2 is "none of these", which wisp adds itself; leave it out`},
		{name: "option with a line break", text: "Which?", options: []string{"a", "b\nc"}, refused: true,
			want: "error: option 2 has a line break; each option must be one line"},
		{name: "asks for a password", text: "What is your password?", refused: true, want: inquiry.ErrLineSecret},
		{name: "asks for a token, spaced and invisible", text: "Paste your A P I\u200b key here", refused: true, want: inquiry.ErrLineSecret},
		{name: "asks for a secret through an option", text: "Which should I use?", options: []string{"your password", "the file"}, refused: true, want: inquiry.ErrLineSecret},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := wisptest.NewPerson(tc.reply)
			rec := &wisptest.Recorder{}
			d := newDesk(p, tc.timeout, rec)
			s, err := d.Ask(context.Background(), inquiry.Request{Thread: "t1", Turn: 1, Text: tc.text, Options: tc.options})
			if err != nil {
				t.Fatalf("Ask(%q) error = %v", tc.text, err)
			}
			if s.Line != tc.want {
				t.Errorf("Ask(%q) line =\n %q\nwant\n %q", tc.text, s.Line, tc.want)
			}
			if s.Refused != tc.refused {
				t.Errorf("Ask(%q) refused = %v, want %v", tc.text, s.Refused, tc.refused)
			}
			if tc.refused {
				if n := len(p.Questions()); n != 0 {
					t.Errorf("a refused question reached the person (%d questions)", n)
				}
				if kinds := rec.Kinds(); len(kinds) != 0 {
					t.Errorf("a refused question recorded %v; want no inquiry events", kinds)
				}
			}
			var fact string
			if s.Fact != nil {
				f := *s.Fact
				f.ID = "c0"
				fact = f.String()
				if f.Source != "person" {
					t.Errorf("fact source = %q, want person", f.Source)
				}
			}
			if fact != tc.fact {
				t.Errorf("Ask(%q) fact = %q, want %q", tc.text, fact, tc.fact)
			}
		})
	}
}

func TestPerTurnLimits(t *testing.T) {
	p := wisptest.NewPerson(wisptest.Says("a"), wisptest.Says("b"), wisptest.Says("c"), wisptest.Says("d"))
	d := newDesk(p, 0, nil)
	ask := func(turn int, text string) inquiry.Settled {
		t.Helper()
		s, err := d.Ask(context.Background(), inquiry.Request{Thread: "t1", Turn: turn, Text: text})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	steps := []struct {
		turn int
		text string
		want string
	}{
		{1, "First question?", "answer: a (from the person)"},
		{1, "first  QUESTION?", inquiry.ErrLineRepeat},
		{1, "Second question?", "answer: b (from the person)"},
		{1, "Third question?", inquiry.ErrLinePerTurn},
		{2, "First question?", "answer: c (from the person)"}, // a new turn starts afresh
	}
	for i, st := range steps {
		if got := ask(st.turn, st.text).Line; got != st.want {
			t.Errorf("step %d: Ask(%q) = %q, want %q", i+1, st.text, got, st.want)
		}
	}
	// Another thread has limits of its own.
	s, err := d.Ask(context.Background(), inquiry.Request{Thread: "t2", Turn: 1, Text: "First question?"})
	if err != nil || s.Line != "answer: d (from the person)" {
		t.Errorf("other thread: Ask = (%q, %v), want an answer", s.Line, err)
	}
}

func TestOneWaitingPerThread(t *testing.T) {
	release := make(chan struct{})
	asked := make(chan struct{})
	face := wisp.InquirerFunc(func(ctx context.Context, q wisp.Question) (wisp.Answer, error) {
		close(asked)
		<-release
		return wisp.Answer{Outcome: wisp.OutcomeAnswered, Text: "done", Provenance: wisp.FromPerson}, nil
	})
	d := newDesk(face, 0, nil)
	first := make(chan inquiry.Settled)
	go func() {
		s, _ := d.Ask(context.Background(), inquiry.Request{Thread: "t1", Turn: 1, Text: "First?"})
		first <- s
	}()
	<-asked
	s, err := d.Ask(context.Background(), inquiry.Request{Thread: "t1", Turn: 2, Text: "Second?"})
	if err != nil || s.Line != inquiry.ErrLineWaiting || !s.Refused {
		t.Errorf("second Ask while one waits = (%+v, %v), want the waiting refusal", s, err)
	}
	close(release)
	if got := (<-first).Line; got != "answer: done (from the person)" {
		t.Errorf("first Ask = %q", got)
	}
}

// Past a positive deadline the question ends unanswered and the model is
// told to stop. synctest's clock makes the five minutes pass at once.
func TestTimedOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &wisptest.Recorder{}
		d := newDesk(wisptest.NewPerson(wisptest.StaysSilent()), 5*time.Minute, rec)
		start := time.Now()
		s, err := d.Ask(context.Background(), inquiry.Request{Thread: "t", Turn: 1, Text: "Which branch?"})
		if err != nil {
			t.Fatal(err)
		}
		if want := "no answer within 5 min. Do not guess what the person would say. Say in your reply what you need, and stop"; s.Line != want {
			t.Errorf("line = %q, want %q", s.Line, want)
		}
		if waited := time.Since(start); waited != 5*time.Minute {
			t.Errorf("waited %v, want exactly the 5 min deadline", waited)
		}
		settled := rec.Events(wisp.KindInquirySettled)
		if len(settled) != 1 || settled[0].Data.(wisp.InquirySettledData).Outcome != "timed-out" || settled[0].Source != wisp.SourceWisp {
			t.Errorf("settled = %+v, want outcome timed-out from wisp", settled)
		}
		if s.Fact != nil {
			t.Errorf("a timed-out question made a fact: %+v", s.Fact)
		}
	})
}

func TestDeadline(t *testing.T) {
	// 0 waits for ever: the face gets no deadline.
	var got time.Time
	var hadDeadline bool
	face := wisp.InquirerFunc(func(ctx context.Context, q wisp.Question) (wisp.Answer, error) {
		got = q.Deadline
		_, hadDeadline = ctx.Deadline()
		return wisp.Answer{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson}, nil
	})
	if _, err := newDesk(face, 0, nil).Ask(context.Background(), inquiry.Request{Thread: "t", Turn: 1, Text: "Q?"}); err != nil {
		t.Fatal(err)
	}
	if !got.IsZero() || hadDeadline {
		t.Errorf("timeout 0: question deadline %v, context deadline %v; want none", got, hadDeadline)
	}
	if _, err := newDesk(face, 5*time.Minute, nil).Ask(context.Background(), inquiry.Request{Thread: "t", Turn: 1, Text: "Q?"}); err != nil {
		t.Fatal(err)
	}
	if want := fixed.Add(5 * time.Minute); !got.Equal(want) || !hadDeadline {
		t.Errorf("timeout 5m: question deadline %v (context deadline %v), want %v", got, hadDeadline, want)
	}
}

func TestStopAndFailure(t *testing.T) {
	tests := []struct {
		name  string
		reply wisptest.Reply
		ctx   func() context.Context
		want  error
	}{
		{"interrupted", wisptest.Interrupts(), context.Background, wisp.ErrInterrupted},
		{"face failure", wisptest.Reply{Err: errors.New("tty gone")}, context.Background, nil},
		{"caller cancelled", wisptest.StaysSilent(), func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(10*time.Millisecond, cancel)
			return ctx
		}, context.Canceled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &wisptest.Recorder{}
			d := newDesk(wisptest.NewPerson(tc.reply), 0, rec)
			_, err := d.Ask(tc.ctx(), inquiry.Request{Thread: "t", Turn: 1, Text: "Q?"})
			if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Fatalf("Ask error = %v, want %v", err, tc.want)
			}
			settled := rec.Events(wisp.KindInquirySettled)
			if len(settled) != 1 || settled[0].Data.(wisp.InquirySettledData).Outcome != "stopped" {
				t.Errorf("settled events = %+v, want one with outcome stopped", settled)
			}
			// The thread is free again.
			d2 := d
			s, err := d2.Ask(context.Background(), inquiry.Request{Thread: "t", Turn: 2, Text: "Again?"})
			if err != nil || s.Refused {
				t.Errorf("after a stopped question, Ask = (%+v, %v), want it asked", s, err)
			}
		})
	}
}

func TestEventsAndRedaction(t *testing.T) {
	const key = "AKIAFAKEKEYEXAMPLE77"
	p := wisptest.NewPerson(wisptest.Says("key "+key+" and again "+key), wisptest.Says("other AKIAFAKEKEYEXAMPLE55"))
	rec := &wisptest.Recorder{}
	d := newDesk(p, 0, rec)
	s1, _ := d.Ask(context.Background(), inquiry.Request{Thread: "t1", Turn: 1, Text: "Which account?"})
	s2, _ := d.Ask(context.Background(), inquiry.Request{Thread: "t1", Turn: 1, Text: "And the other?"})
	if want := "answer: key [REDACTED:aws-access-key#1] and again [REDACTED:aws-access-key#1] (from the person)"; s1.Line != want {
		t.Errorf("first line = %q, want %q", s1.Line, want)
	}
	if want := "answer: other [REDACTED:aws-access-key#2] (from the person)"; s2.Line != want {
		t.Errorf("second line = %q, want %q", s2.Line, want)
	}
	got := rec.Kinds()
	want := []string{wisp.KindInquiryRequested, wisp.KindInquirySettled, wisp.KindInquiryRequested, wisp.KindInquirySettled}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("event kinds (-want +got):\n%s", diff)
	}
	settled := rec.Events(wisp.KindInquirySettled)[0]
	wantData := wisp.InquirySettledData{
		ID: "q1", Question: "Which account?", Outcome: "answered", Provenance: "person",
		Answer:   "key [REDACTED:aws-access-key#1] and again [REDACTED:aws-access-key#1]",
		Redacted: []string{"[REDACTED:aws-access-key#1]"},
	}
	if diff := cmp.Diff(wantData, settled.Data); diff != "" {
		t.Errorf("inquiry.settled data (-want +got):\n%s", diff)
	}
	if settled.Source != wisp.SourcePerson || settled.Thread != "t1" || settled.Turn != 1 || settled.Session != "s1" {
		t.Errorf("inquiry.settled = %+v, want source person on t1 turn 1 session s1", settled)
	}
	for _, e := range rec.Events("") {
		if b, _ := json.Marshal(e.Data); strings.Contains(string(b), key) {
			t.Errorf("%s records the raw credential: %s", e.Kind(), b)
		}
	}
	notices := p.Notices()
	if len(notices) != 2 || notices[0].Kind != "redacted" || !strings.Contains(notices[0].Text, "not passed on") {
		t.Errorf("notices = %+v, want the person told twice that a credential was not passed on", notices)
	}
}

// A declined question is final in its thread, beyond the desk that saw
// the decline: a desk given the thread's facts (another process, or the
// same after a restart) refuses the question, a card holding it, or the
// secret, before the person sees anything. Only the person's own decline
// counts.
func TestDeclinedFromTheThreadsFacts(t *testing.T) {
	person := func(q string) wisp.Fact {
		return wisp.Fact{ID: "c1", Subject: inquiry.SubjectDeclined, Name: q, Value: inquiry.FactDeclined, Source: wisp.SourcePerson, Turn: 1}
	}
	secret := wisp.Fact{ID: "c2", Subject: inquiry.SubjectDeclined, Name: "GH_TOKEN", Value: inquiry.FactSecretDeclined, Source: wisp.SourcePerson, Turn: 1}
	notPerson := person("Which branch?")
	notPerson.Source = wisp.SourceWisp
	answered := wisp.Fact{ID: "c3", Subject: "answer", Name: "Which branch?", Value: "main", Source: wisp.SourcePerson}
	envText := "Which environment should the migration run against?"
	tests := []struct {
		name  string
		facts []wisp.Fact
		card  []wisp.CardQuestion // nil: ask "Which branch?"
		want  string              // the refusal; "" when the person is asked
	}{
		{"declined", []wisp.Fact{person("Which branch?")}, nil, inquiry.ErrLineDeclinedBefore},
		{"declined, spelt apart", []wisp.Fact{person("which   BRANCH?")}, nil, inquiry.ErrLineDeclinedBefore},
		{"another question declined", []wisp.Fact{person("Which tag?")}, nil, ""},
		{"not the person's", []wisp.Fact{notPerson}, nil, ""},
		{"answered, not declined", []wisp.Fact{answered}, nil, ""},
		{"a card's question", []wisp.Fact{person(envText)}, []wisp.CardQuestion{notesQ, {Text: envText, Options: []wisp.Option{{Label: "a"}, {Label: "b"}}}},
			inquiry.ErrLineCardDeclinedBefore(2)},
		{"a secret", []wisp.Fact{secret}, []wisp.CardQuestion{secretQ}, inquiry.ErrLineSecretDeclinedBefore("GH_TOKEN")},
		{"a secret's name is not a question", []wisp.Fact{person("GH_TOKEN")}, []wisp.CardQuestion{secretQ}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := wisptest.NewPerson(wisptest.Says("main"), wisptest.Says("x"))
			var line string
			var refused bool
			if tc.card == nil {
				s, err := newDesk(p, 0, nil).Ask(t.Context(), inquiry.Request{Thread: "t", Turn: 2, Text: "Which branch?", Facts: tc.facts})
				if err != nil {
					t.Fatal(err)
				}
				line, refused = s.Line, s.Refused
			} else {
				s, err := newCardDesk(p, &fakeVault{}, nil).AskCard(t.Context(), inquiry.CardRequest{Thread: "t", Turn: 2, Questions: tc.card, Facts: tc.facts})
				if err != nil {
					t.Fatal(err)
				}
				line, refused = s.Line, s.Refused
			}
			asked := len(p.Questions()) + len(p.Cards())
			switch {
			case tc.want != "" && (line != tc.want || !refused || asked != 0):
				t.Errorf("with facts %v: line %q (refused %v, %d asked), want the refusal %q before anyone is asked", tc.facts, line, refused, asked, tc.want)
			case tc.want == "" && (refused || asked != 1):
				t.Errorf("with facts %v: line %q (refused %v, %d asked), want the person asked", tc.facts, line, refused, asked)
			}
		})
	}
}

// Only an answer a face says is the person's is theirs. A face that
// leaves Provenance zero (unknown), or names someone else, has passed
// nothing on: no answer line, no fact, and the record says who.
func TestAnswerFromNobodyIsNotThePersons(t *testing.T) {
	options := []string{"~/.wisp/config.json", "./wisp.json"}
	tests := []struct {
		name    string
		options []string
		answer  wisp.Answer
		line    string
		data    map[string]any
	}{
		{"typed, provenance unknown", nil, wisp.Answer{Outcome: wisp.OutcomeAnswered, Text: "drop the table"},
			inquiry.LineNoPerson, map[string]any{"outcome": "no-person", "provenance": "unknown"}},
		{"chosen, provenance unknown", options, wisp.Answer{Outcome: wisp.OutcomeChose, Text: "./wisp.json"},
			inquiry.LineNoPerson, map[string]any{"outcome": "no-person", "provenance": "unknown"}},
		{"none of these, provenance unknown", options, wisp.Answer{Outcome: wisp.OutcomeChoseNone},
			inquiry.LineNoPerson, map[string]any{"outcome": "no-person", "provenance": "unknown"}},
		{"declined, provenance unknown", nil, wisp.Answer{Outcome: wisp.OutcomeDeclined},
			inquiry.LineNoPerson, map[string]any{"outcome": "no-person", "provenance": "unknown"}},
		{"a default's choice", options, wisp.Answer{Outcome: wisp.OutcomeChose, Text: "./wisp.json", Provenance: wisp.FromDefault},
			inquiry.LineNoPerson, map[string]any{"outcome": "no-person", "provenance": "default"}},
		{"answered as the deadline", nil, wisp.Answer{Outcome: wisp.OutcomeAnswered, Text: "x", Provenance: wisp.FromTimeout},
			inquiry.LineTimedOut(0), map[string]any{"outcome": "timed-out", "provenance": "timeout"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &wisptest.Recorder{}
			d := newDesk(wisptest.NewPerson(wisptest.Reply{Answer: tc.answer}), 0, rec)
			s, err := d.Ask(context.Background(), inquiry.Request{Thread: "t", Turn: 1, Text: "Which config?", Options: tc.options})
			if err != nil {
				t.Fatalf("Ask error = %v", err)
			}
			if s.Line != tc.line || s.Fact != nil {
				t.Errorf("Ask with %+v = (%q, fact %+v), want (%q, no fact)", tc.answer, s.Line, s.Fact, tc.line)
			}
			settled := rec.Events(wisp.KindInquirySettled)
			if len(settled) != 1 {
				t.Fatalf("settled events = %+v, want one", settled)
			}
			if settled[0].Source == wisp.SourcePerson {
				t.Errorf("inquiry.settled source = %q, want not the person's", settled[0].Source)
			}
			data := settled[0].Data.(wisp.InquirySettledData)
			got := map[string]any{"outcome": data.Outcome, "provenance": data.Provenance}
			if diff := cmp.Diff(tc.data, got); diff != "" {
				t.Errorf("inquiry.settled (-want +got):\n%s", diff)
			}
			if data.Answer != "" {
				t.Errorf("inquiry.settled records an answer nobody gave: %+v", data)
			}
			// A decline nobody gave is not final: the thread may ask again.
			again, err := d.Ask(context.Background(), inquiry.Request{Thread: "t", Turn: 2, Text: "Which config?", Options: tc.options})
			if err != nil || again.Refused {
				t.Errorf("asking again after %s = (%q, %v), want it asked", tc.name, again.Line, err)
			}
		})
	}
}

// An answer must fit its question, whatever the face. A face that passes
// on what the question does not take should have asked again: the turn
// ends with ErrBadAnswer, the question is recorded as stopped, nothing of
// the answer reaches the model, the record or the thread's facts, and
// the thread may ask again.
func TestAnswerMustFit(t *testing.T) {
	options := []string{"~/.wisp/config.json", "./wisp.json"}
	tests := []struct {
		name    string
		options []string
		answer  wisp.Answer
	}{
		{"text on a choice", options, wisp.Answer{Outcome: wisp.OutcomeAnswered, Text: "foo", Provenance: wisp.FromPerson}},
		{"arrow keys on a choice", options, wisp.Answer{Outcome: wisp.OutcomeAnswered, Text: "\x1b[B\x1b[B", Provenance: wisp.FromPerson}},
		{"a choice the question does not offer", options, wisp.Answer{Outcome: wisp.OutcomeChose, Text: "/etc/wisp.json", Provenance: wisp.FromPerson}},
		{"arrow keys on free text", nil, wisp.Answer{Outcome: wisp.OutcomeAnswered, Text: "main\x1b[A", Provenance: wisp.FromPerson}},
		{"a line break within free text", nil, wisp.Answer{Outcome: wisp.OutcomeAnswered, Text: "main\nrm -rf", Provenance: wisp.FromPerson}},
		{"a C1 control in free text", nil, wisp.Answer{Outcome: wisp.OutcomeAnswered, Text: "main\u009b2J", Provenance: wisp.FromPerson}},
		{"none of these on free text", nil, wisp.Answer{Outcome: wisp.OutcomeChoseNone, Provenance: wisp.FromPerson}},
		{"a choice on free text", nil, wisp.Answer{Outcome: wisp.OutcomeChose, Text: "main", Provenance: wisp.FromPerson}},
		{"an outcome no face gives", nil, wisp.Answer{Outcome: wisp.Outcome(42), Text: "main", Provenance: wisp.FromPerson}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &wisptest.Recorder{}
			// A face that passes on whatever it read, once, then declines.
			n := 0
			face := wisp.InquirerFunc(func(context.Context, wisp.Question) (wisp.Answer, error) {
				n++
				if n == 1 {
					return tc.answer, nil
				}
				return wisp.Answer{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson}, nil
			})
			d := newDesk(face, 0, rec)
			s, err := d.Ask(context.Background(), inquiry.Request{Thread: "t", Turn: 1, Text: "Which config?", Options: tc.options})
			if !errors.Is(err, inquiry.ErrBadAnswer) {
				t.Fatalf("Ask with %+v = (%q, %v), want inquiry.ErrBadAnswer", tc.answer, s.Line, err)
			}
			var m *wisp.MisfitError
			if !errors.As(err, &m) || !strings.Contains(m.Line, "this question takes") {
				t.Errorf("Ask error %q does not carry the line that says what the question takes", err)
			}
			if tc.answer.Text != "" && strings.Contains(err.Error(), tc.answer.Text) {
				t.Errorf("Ask error %q quotes the answer", err)
			}
			settled := rec.Events(wisp.KindInquirySettled)
			if len(settled) != 1 || settled[0].Data.(wisp.InquirySettledData).Outcome != "stopped" || settled[0].Source != wisp.SourceWisp {
				t.Fatalf("settled = %+v, want one stopped, from wisp", settled)
			}
			if d := settled[0].Data.(wisp.InquirySettledData); d.Answer != "" {
				t.Errorf("inquiry.settled records the answer that did not fit: %+v", d)
			}
			again, err := d.Ask(context.Background(), inquiry.Request{Thread: "t", Turn: 2, Text: "Which config?", Options: tc.options})
			if err != nil || again.Refused {
				t.Errorf("asking again = (%q, %v), want it asked", again.Line, err)
			}
		})
	}
}
