package inquiry_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry"
	"github.com/wisp-agent/wisp/wisptest"
)

// cardFace is a face that shows cards: it answers each card with the next
// of its replies.
type cardFace struct {
	mu      sync.Mutex
	replies []cardReply
	cards   []wisp.Card
	notices []wisp.Notice
}

// cardReply is what the face does with one card: return answers and err
// at once, or, with silent, wait for the deadline and then return them
// with ctx's cause.
type cardReply struct {
	answers []wisp.CardAnswer
	err     error
	silent  bool
}

var (
	_ wisp.CardInquirer = (*cardFace)(nil)
	_ wisp.Inquirer     = (*cardFace)(nil)
	_ wisp.Notifier     = (*cardFace)(nil)
)

func newCardFace(replies ...cardReply) *cardFace { return &cardFace{replies: replies} }

func (f *cardFace) AskCard(ctx context.Context, c wisp.Card) ([]wisp.CardAnswer, error) {
	f.mu.Lock()
	f.cards = append(f.cards, c)
	if len(f.replies) == 0 {
		f.mu.Unlock()
		return nil, errors.New("the fake face has no reply left")
	}
	r := f.replies[0]
	f.replies = f.replies[1:]
	f.mu.Unlock()
	if r.silent {
		<-ctx.Done()
		return r.answers, context.Cause(ctx)
	}
	return r.answers, r.err
}

func (f *cardFace) Ask(ctx context.Context, q wisp.Question) (wisp.Answer, error) {
	return wisp.Answer{Outcome: wisp.OutcomeAnswered, Text: "an answer to ask", Provenance: wisp.FromPerson}, nil
}

func (f *cardFace) Notify(ctx context.Context, n wisp.Notice) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.notices = append(f.notices, n)
	return nil
}

func (f *cardFace) Cards() []wisp.Card {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]wisp.Card(nil), f.cards...)
}

// fakeVault keeps what it is given, as the session's vault would.
type fakeVault struct {
	mu     sync.Mutex
	values map[string]string
	err    error
}

func (v *fakeVault) Put(name, value string) (string, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.err != nil {
		return "", v.err
	}
	if v.values == nil {
		v.values = map[string]string{}
	}
	v.values[name] = value
	return "session:" + name, nil
}

// plainFace is a face that cannot render a card, as the unattended face
// and wisp mcp's are not.
var plainFace = wisp.InquirerFunc(func(ctx context.Context, q wisp.Question) (wisp.Answer, error) {
	return wisp.Answer{Outcome: wisp.OutcomeNoPerson, Provenance: wisp.FromUnattended}, nil
})

func newCardDesk(face wisp.Inquirer, vault inquiry.Vault, rec *wisptest.Recorder) *inquiry.Desk {
	n := 0
	opts := &inquiry.Options{
		Session: "s1",
		Vault:   vault,
		Now:     func() time.Time { return fixed },
		NewID:   func() string { n++; return fmt.Sprintf("c%d", n) },
	}
	if rec != nil {
		opts.Events = rec
	}
	return inquiry.NewDesk(face, opts)
}

// Questions used across the tests.
var (
	envQ = wisp.CardQuestion{Text: "Which environment should the migration run against?", Header: "Env", Options: []wisp.Option{
		{Label: "staging", Description: "safe to break; data is a week old", Recommended: true},
		{Label: "production", Description: "real data; needs a window"},
	}}
	regionsQ = wisp.CardQuestion{Text: "Which regions?", Header: "Regions", Multi: true, Other: true, Options: []wisp.Option{
		{Label: "eu-west-1"}, {Label: "us-east-1"}, {Label: "ap-south-1"},
	}}
	configQ = wisp.CardQuestion{Text: "Which config did you mean?", Other: true, Options: []wisp.Option{
		{Label: "~/.wisp/config.json"}, {Label: "./wisp.json"},
	}}
	notesQ  = wisp.CardQuestion{Text: "Anything I should know first?"}
	secretQ = wisp.CardQuestion{Text: "Paste a GitHub token with repo scope.", Secret: "GH_TOKEN"}
)

func chose(labels ...string) wisp.CardAnswer {
	return wisp.CardAnswer{Outcome: wisp.OutcomeChose, Chosen: labels, Provenance: wisp.FromPerson}
}

func says(text string) wisp.CardAnswer {
	return wisp.CardAnswer{Outcome: wisp.OutcomeAnswered, Text: text, Provenance: wisp.FromPerson}
}

// The lines of ask_user, word for word. If one of these changes, the
// model's contract changed.
func TestCardContractLines(t *testing.T) {
	tests := []struct{ name, got, want string }{
		{"numbered with header", inquiry.LineCardQuestion(1, "Env", "chose: staging (from the person)"), "1 (Env): chose: staging (from the person)"},
		{"numbered", inquiry.LineCardQuestion(2, "", "x"), "2: x"},
		{"chose", inquiry.LineCardAnswer([]string{"staging"}, "", false), "chose: staging (from the person)"},
		{"chose several", inquiry.LineCardAnswer([]string{"eu-west-1", "us-east-1"}, "", false), "chose: eu-west-1, us-east-1 (from the person)"},
		{"chose and other", inquiry.LineCardAnswer([]string{"eu-west-1"}, "my laptop", false), "chose: eu-west-1; answer: my laptop (from the person)"},
		{"other", inquiry.LineCardAnswer(nil, "the one in /etc", false), "answer: the one in /etc (from the person)"},
		{"other cut", inquiry.LineCardAnswer(nil, "x", true), "answer: x (from the person) (the answer was longer and was cut to 2,000 bytes)"},
		{"fallback recommended after timeout", inquiry.LineFallback("staging", true, wisp.FromTimeout, 5*time.Minute),
			"fallback: staging (the recommended option; no answer within 5 min, so the person did not choose it)"},
		{"fallback first unattended", inquiry.LineFallback("staging", false, wisp.FromUnattended, 0),
			"fallback: staging (the first option; no person can answer here, so the person did not choose it)"},
		{"no default after timeout", inquiry.LineNoDefault(wisp.FromTimeout, 30*time.Second),
			"no answer within 30 s; this question has no default. Do not guess what the person would say"},
		{"no default unattended", inquiry.LineNoDefault(wisp.FromUnattended, 0),
			"no person can answer here; this question has no default. Do not guess what the person would say"},
		{"secret stored", inquiry.LineSecretStored("session:GH_TOKEN"),
			"stored: session:GH_TOKEN (from the person). You never see the value; give the reference to the tools that need it"},
		{"secret declined", inquiry.LineSecretDeclined("GH_TOKEN", wisp.FromPerson, 0),
			"the person declined to give GH_TOKEN. Do not ask for it again. Going on without it is your own decision, so say so in your reply"},
		{"secret timed out", inquiry.LineSecretDeclined("GH_TOKEN", wisp.FromTimeout, 5*time.Minute),
			"no answer within 5 min, so GH_TOKEN is declined: a secret has no default. Going on without it is your own decision, so say so in your reply"},
		{"secret unattended", inquiry.LineSecretDeclined("GH_TOKEN", wisp.FromUnattended, 0),
			"no person can answer here, so GH_TOKEN is declined: a secret has no default. Going on without it is your own decision, so say so in your reply"},
		{"secret not stored", inquiry.LineSecretNotStored("GH_TOKEN", "the secret GH_TOKEN is too short: a secret is 4 bytes at least"),
			"GH_TOKEN was not stored: the secret GH_TOKEN is too short: a secret is 4 bytes at least. Going on without it is your own decision, so say so in your reply"},
		{"declined before (ask)", inquiry.ErrLineDeclinedBefore,
			"error: the person already declined this question in this thread, and a declined question is final. Do not ask it again; say in your reply what you needed"},
		{"declined before (card)", inquiry.ErrLineCardDeclinedBefore(2),
			"error: the person already declined question 2 in this thread, and a declined question is final. Do not ask it again; ask the others without it, or say in your reply what you needed"},
		{"secret declined before", inquiry.ErrLineSecretDeclinedBefore("GH_TOKEN"),
			"error: the person already declined to give GH_TOKEN in this thread, and a declined question is final. Do not ask for it again. Going on without it is your own decision, so say so in your reply"},
		{"per turn", inquiry.ErrLineCardPerTurn,
			"error: you have asked the person twice this turn (each ask or ask_user call counts once); say in your reply what you still need, and stop."},
		{"repeat", inquiry.ErrLineCardRepeat(1), "error: question 1 was asked already this turn; use the answer you got and do not ask it again"},
		{"secret alone", inquiry.ErrLineSecretAlone, "error: a secret question must be alone in its call; ask the other questions in a call of their own"},
		{"no vault", inquiry.ErrLineNoVault, "error: this session cannot keep secrets; tell the person what is needed and where to set it"},
		{"credential question", inquiry.ErrLineCardSecret(3),
			`error: question 3 asks for a secret; collect a credential only with a secret question, alone in its call: {"secret": {"name": "GH_TOKEN", "question": "…"}}`},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s line =\n %q\nwant\n %q", tc.name, tc.got, tc.want)
		}
	}
}

// Every way a question of a card ends: who chose, what the model reads,
// what the thread learns.
func TestAskCardOutcomes(t *testing.T) {
	long := strings.Repeat("é", 1500) // 3,000 bytes
	answer := func(name, value string) wisp.Fact {
		return wisp.Fact{Subject: "answer", Name: name, Value: value, Source: "person", Turn: 1}
	}
	fallback := func(name, value string) wisp.Fact {
		return wisp.Fact{Subject: "fallback", Name: name, Value: value, Source: "wisp", Turn: 1}
	}
	declined := func(name string) wisp.Fact {
		return wisp.Fact{Subject: "declined", Name: name, Value: inquiry.FactDeclined, Source: "person", Turn: 1}
	}
	tests := []struct {
		name      string
		face      wisp.Inquirer
		questions []wisp.CardQuestion
		timeout   time.Duration
		wantLine  string
		wantQs    []inquiry.SettledQuestion
		wantFacts []wisp.Fact
	}{
		{name: "single choice",
			face: newCardFace(cardReply{answers: []wisp.CardAnswer{chose("production")}}), questions: []wisp.CardQuestion{envQ},
			wantLine:  "1 (Env): chose: production (from the person)",
			wantQs:    []inquiry.SettledQuestion{{Outcome: wisp.OutcomeChose, Chosen: []string{"production"}, Line: "chose: production (from the person)", Provenance: wisp.FromPerson}},
			wantFacts: []wisp.Fact{answer(envQ.Text, "production")}},
		{name: "a label matches ignoring case and space",
			face: newCardFace(cardReply{answers: []wisp.CardAnswer{chose(" Production ")}}), questions: []wisp.CardQuestion{envQ},
			wantLine:  "1 (Env): chose: production (from the person)",
			wantQs:    []inquiry.SettledQuestion{{Outcome: wisp.OutcomeChose, Chosen: []string{"production"}, Line: "chose: production (from the person)", Provenance: wisp.FromPerson}},
			wantFacts: []wisp.Fact{answer(envQ.Text, "production")}},
		{name: "multi-select, in the options' order",
			face: newCardFace(cardReply{answers: []wisp.CardAnswer{chose("us-east-1", "eu-west-1")}}), questions: []wisp.CardQuestion{regionsQ},
			wantLine:  "1 (Regions): chose: eu-west-1, us-east-1 (from the person)",
			wantQs:    []inquiry.SettledQuestion{{Outcome: wisp.OutcomeChose, Chosen: []string{"eu-west-1", "us-east-1"}, Line: "chose: eu-west-1, us-east-1 (from the person)", Provenance: wisp.FromPerson}},
			wantFacts: []wisp.Fact{answer("Which regions?", "eu-west-1, us-east-1")}},
		{name: "multi-select with other text",
			face:      newCardFace(cardReply{answers: []wisp.CardAnswer{{Outcome: wisp.OutcomeChose, Chosen: []string{"eu-west-1"}, Text: "my laptop", Provenance: wisp.FromPerson}}}),
			questions: []wisp.CardQuestion{regionsQ},
			wantLine:  "1 (Regions): chose: eu-west-1; answer: my laptop (from the person)",
			wantQs: []inquiry.SettledQuestion{{Outcome: wisp.OutcomeChose, Chosen: []string{"eu-west-1"}, Text: "my laptop",
				Line: "chose: eu-west-1; answer: my laptop (from the person)", Provenance: wisp.FromPerson}},
			wantFacts: []wisp.Fact{answer("Which regions?", "eu-west-1; my laptop")}},
		{name: "something else",
			face: newCardFace(cardReply{answers: []wisp.CardAnswer{says(" the one in /etc\n")}}), questions: []wisp.CardQuestion{configQ},
			wantLine:  "1: answer: the one in /etc (from the person)",
			wantQs:    []inquiry.SettledQuestion{{Outcome: wisp.OutcomeAnswered, Text: "the one in /etc", Line: "answer: the one in /etc (from the person)", Provenance: wisp.FromPerson}},
			wantFacts: []wisp.Fact{answer(configQ.Text, "the one in /etc")}},
		{name: "text that names an option is that choice",
			face: newCardFace(cardReply{answers: []wisp.CardAnswer{says("./WISP.json")}}), questions: []wisp.CardQuestion{configQ},
			wantLine:  "1: chose: ./wisp.json (from the person)",
			wantQs:    []inquiry.SettledQuestion{{Outcome: wisp.OutcomeChose, Chosen: []string{"./wisp.json"}, Line: "chose: ./wisp.json (from the person)", Provenance: wisp.FromPerson}},
			wantFacts: []wisp.Fact{answer(configQ.Text, "./wisp.json")}},
		{name: "free text",
			face: newCardFace(cardReply{answers: []wisp.CardAnswer{says("the CI is flaky")}}), questions: []wisp.CardQuestion{notesQ},
			wantLine:  "1: answer: the CI is flaky (from the person)",
			wantQs:    []inquiry.SettledQuestion{{Outcome: wisp.OutcomeAnswered, Text: "the CI is flaky", Line: "answer: the CI is flaky (from the person)", Provenance: wisp.FromPerson}},
			wantFacts: []wisp.Fact{answer(notesQ.Text, "the CI is flaky")}},
		{name: "a credential in free text becomes its marker",
			face: newCardFace(cardReply{answers: []wisp.CardAnswer{says("use AKIAFAKEKEYEXAMPLE77")}}), questions: []wisp.CardQuestion{notesQ},
			wantLine: "1: answer: use [REDACTED:aws-access-key#1] (from the person)",
			wantQs: []inquiry.SettledQuestion{{Outcome: wisp.OutcomeAnswered, Text: "use [REDACTED:aws-access-key#1]",
				Redacted: []string{"[REDACTED:aws-access-key#1]"}, Line: "answer: use [REDACTED:aws-access-key#1] (from the person)", Provenance: wisp.FromPerson}},
			wantFacts: []wisp.Fact{answer(notesQ.Text, "use [REDACTED:aws-access-key#1]")}},
		{name: "a long answer is cut",
			face: newCardFace(cardReply{answers: []wisp.CardAnswer{says(long)}}), questions: []wisp.CardQuestion{notesQ},
			wantLine: "1: answer: " + strings.Repeat("é", 1000) + " (from the person) (the answer was longer and was cut to 2,000 bytes)",
			wantQs: []inquiry.SettledQuestion{{Outcome: wisp.OutcomeAnswered, Text: strings.Repeat("é", 1000), Cut: true,
				Line: "answer: " + strings.Repeat("é", 1000) + " (from the person) (the answer was longer and was cut to 2,000 bytes)", Provenance: wisp.FromPerson}},
			wantFacts: []wisp.Fact{answer(notesQ.Text, strings.Repeat("é", 1000))}},
		{name: "none of these",
			face: newCardFace(cardReply{answers: []wisp.CardAnswer{{Outcome: wisp.OutcomeChoseNone, Provenance: wisp.FromPerson}}}), questions: []wisp.CardQuestion{envQ},
			wantLine:  "1 (Env): the person chose none of these options",
			wantQs:    []inquiry.SettledQuestion{{Outcome: wisp.OutcomeChoseNone, Line: inquiry.LineChoseNone, Provenance: wisp.FromPerson}},
			wantFacts: []wisp.Fact{answer(envQ.Text, "none of these")}},
		{name: "a person's decline does not fall back",
			face: newCardFace(cardReply{answers: []wisp.CardAnswer{{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson}}}), questions: []wisp.CardQuestion{envQ},
			wantLine:  "1 (Env): " + inquiry.LineDeclined,
			wantQs:    []inquiry.SettledQuestion{{Outcome: wisp.OutcomeDeclined, Line: inquiry.LineDeclined, Provenance: wisp.FromPerson}},
			wantFacts: []wisp.Fact{declined(envQ.Text)}},
		{name: "a blank answer declines",
			face: newCardFace(cardReply{answers: []wisp.CardAnswer{says("  "), chose()}}), questions: []wisp.CardQuestion{notesQ, envQ},
			wantLine:  "1: " + inquiry.LineDeclined + "\n2 (Env): " + inquiry.LineDeclined,
			wantQs:    []inquiry.SettledQuestion{{Outcome: wisp.OutcomeDeclined, Line: inquiry.LineDeclined, Provenance: wisp.FromPerson}, {Outcome: wisp.OutcomeDeclined, Line: inquiry.LineDeclined, Provenance: wisp.FromPerson}},
			wantFacts: []wisp.Fact{declined(notesQ.Text), declined(envQ.Text)}},
		{name: "none of these on free text declines",
			face: newCardFace(cardReply{answers: []wisp.CardAnswer{{Outcome: wisp.OutcomeChoseNone, Provenance: wisp.FromPerson}}}), questions: []wisp.CardQuestion{notesQ},
			wantLine:  "1: " + inquiry.LineDeclined,
			wantQs:    []inquiry.SettledQuestion{{Outcome: wisp.OutcomeDeclined, Line: inquiry.LineDeclined, Provenance: wisp.FromPerson}},
			wantFacts: []wisp.Fact{declined(notesQ.Text)}},

		// Fallbacks: nobody answered.
		{name: "a face that cannot show a card gets the defaults at once",
			face: plainFace, questions: []wisp.CardQuestion{envQ, configQ, notesQ},
			wantLine: "1 (Env): fallback: staging (the recommended option; no person can answer here, so the person did not choose it)\n" +
				"2: fallback: ~/.wisp/config.json (the first option; no person can answer here, so the person did not choose it)\n" +
				"3: no person can answer here; this question has no default. Do not guess what the person would say",
			wantQs: []inquiry.SettledQuestion{
				{Outcome: wisp.OutcomeChose, Provenance: wisp.FromUnattended, Fallback: true, Chosen: []string{"staging"},
					Line: "fallback: staging (the recommended option; no person can answer here, so the person did not choose it)"},
				{Outcome: wisp.OutcomeChose, Provenance: wisp.FromUnattended, Fallback: true, Chosen: []string{"~/.wisp/config.json"},
					Line: "fallback: ~/.wisp/config.json (the first option; no person can answer here, so the person did not choose it)"},
				{Outcome: wisp.OutcomeNoPerson, Provenance: wisp.FromUnattended,
					Line: "no person can answer here; this question has no default. Do not guess what the person would say"},
			},
			wantFacts: []wisp.Fact{
				fallback(envQ.Text, "staging (no person can answer here; not the person's choice)"),
				fallback(configQ.Text, "~/.wisp/config.json (no person can answer here; not the person's choice)"),
			}},
		{name: "a card face with no person",
			face: newCardFace(cardReply{answers: []wisp.CardAnswer{
				{Outcome: wisp.OutcomeNoPerson, Provenance: wisp.FromUnattended}, {Outcome: wisp.OutcomeParked}}}),
			questions: []wisp.CardQuestion{regionsQ, notesQ},
			wantLine: "1 (Regions): fallback: eu-west-1 (the first option; no person can answer here, so the person did not choose it)\n" +
				"2: no person can answer here; this question has no default. Do not guess what the person would say",
			wantQs: []inquiry.SettledQuestion{
				{Outcome: wisp.OutcomeChose, Provenance: wisp.FromUnattended, Fallback: true, Chosen: []string{"eu-west-1"},
					Line: "fallback: eu-west-1 (the first option; no person can answer here, so the person did not choose it)"},
				{Outcome: wisp.OutcomeNoPerson, Provenance: wisp.FromUnattended,
					Line: "no person can answer here; this question has no default. Do not guess what the person would say"},
			},
			wantFacts: []wisp.Fact{fallback("Which regions?", "eu-west-1 (no person can answer here; not the person's choice)")}},
		{name: "a face that reports the timeout itself",
			face: newCardFace(cardReply{answers: []wisp.CardAnswer{
				{Outcome: wisp.OutcomeTimedOut}, {Outcome: wisp.OutcomeChose, Chosen: []string{"./wisp.json"}, Provenance: wisp.FromTimeout}}}),
			questions: []wisp.CardQuestion{envQ, configQ}, timeout: 45 * time.Second,
			wantLine: "1 (Env): fallback: staging (the recommended option; no answer within 45 s, so the person did not choose it)\n" +
				"2: fallback: ~/.wisp/config.json (the first option; no answer within 45 s, so the person did not choose it)",
			wantQs: []inquiry.SettledQuestion{
				{Outcome: wisp.OutcomeChose, Provenance: wisp.FromTimeout, Fallback: true, Chosen: []string{"staging"},
					Line: "fallback: staging (the recommended option; no answer within 45 s, so the person did not choose it)"},
				{Outcome: wisp.OutcomeChose, Provenance: wisp.FromTimeout, Fallback: true, Chosen: []string{"~/.wisp/config.json"},
					Line: "fallback: ~/.wisp/config.json (the first option; no answer within 45 s, so the person did not choose it)"},
			},
			wantFacts: []wisp.Fact{
				fallback(envQ.Text, "staging (no answer within 45 s; not the person's choice)"),
				fallback(configQ.Text, "~/.wisp/config.json (no answer within 45 s; not the person's choice)"),
			}},
		{name: "the recommended option need not be first",
			face: plainFace, questions: []wisp.CardQuestion{{Text: "Which branch?", Options: []wisp.Option{{Label: "main"}, {Label: "release", Recommended: true}}}},
			wantLine: "1: fallback: release (the recommended option; no person can answer here, so the person did not choose it)",
			wantQs: []inquiry.SettledQuestion{{Outcome: wisp.OutcomeChose, Provenance: wisp.FromUnattended, Fallback: true, Chosen: []string{"release"},
				Line: "fallback: release (the recommended option; no person can answer here, so the person did not choose it)"}},
			wantFacts: []wisp.Fact{fallback("Which branch?", "release (no person can answer here; not the person's choice)")}},
		{name: "an answer not from a person is no answer",
			face: newCardFace(cardReply{answers: []wisp.CardAnswer{
				{Outcome: wisp.OutcomeChose, Chosen: []string{"production"}, Provenance: wisp.FromDefault}}}),
			questions: []wisp.CardQuestion{envQ},
			wantLine:  "1 (Env): fallback: staging (the recommended option; no person can answer here, so the person did not choose it)",
			wantQs: []inquiry.SettledQuestion{{Outcome: wisp.OutcomeChose, Provenance: wisp.FromUnattended, Fallback: true, Chosen: []string{"staging"},
				Line: "fallback: staging (the recommended option; no person can answer here, so the person did not choose it)"}},
			wantFacts: []wisp.Fact{fallback(envQ.Text, "staging (no person can answer here; not the person's choice)")}},
		{name: "an answer that does not say who gave it is no answer",
			face: newCardFace(cardReply{answers: []wisp.CardAnswer{
				{Outcome: wisp.OutcomeChose, Chosen: []string{"production"}}, {Outcome: wisp.OutcomeAnswered, Text: "the audit tables"}}}),
			questions: []wisp.CardQuestion{envQ, notesQ},
			wantLine: "1 (Env): fallback: staging (the recommended option; no person can answer here, so the person did not choose it)\n" +
				"2: no person can answer here; this question has no default. Do not guess what the person would say",
			wantQs: []inquiry.SettledQuestion{
				{Outcome: wisp.OutcomeChose, Provenance: wisp.FromUnknown, Fallback: true, Chosen: []string{"staging"},
					Line: "fallback: staging (the recommended option; no person can answer here, so the person did not choose it)"},
				{Outcome: wisp.OutcomeNoPerson, Provenance: wisp.FromUnknown,
					Line: "no person can answer here; this question has no default. Do not guess what the person would say"},
			},
			wantFacts: []wisp.Fact{fallback(envQ.Text, "staging (no person can answer here; not the person's choice)")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &wisptest.Recorder{}
			d := newCardDesk(tc.face, nil, rec)
			s, err := d.AskCard(context.Background(), inquiry.CardRequest{Thread: "t1", Turn: 1, Questions: tc.questions, Timeout: tc.timeout})
			if err != nil {
				t.Fatalf("AskCard error = %v", err)
			}
			if s.Line != tc.wantLine || s.Refused {
				t.Errorf("AskCard line =\n %q (refused %v)\nwant\n %q", s.Line, s.Refused, tc.wantLine)
			}
			if diff := cmp.Diff(tc.wantQs, s.Questions, cmpopts.IgnoreUnexported(inquiry.SettledQuestion{}), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("AskCard questions (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantFacts, s.Facts, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("AskCard facts (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{wisp.KindInquiryRequested, wisp.KindInquirySettled}, rec.Kinds()); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			for _, f := range s.Facts {
				if f.Subject == "answer" && f.Source != wisp.SourcePerson {
					t.Errorf("fact %v reads as an answer but is not the person's", f)
				}
				if f.Source == wisp.SourcePerson && f.Subject == "fallback" {
					t.Errorf("fallback fact %v claims the person as its source", f)
				}
			}
		})
	}
}

// Every limit of a card, and the refusals that never reach the face.
func TestAskCardRefusals(t *testing.T) {
	opts := func(labels ...string) []wisp.Option {
		out := make([]wisp.Option, len(labels))
		for i, l := range labels {
			out[i] = wisp.Option{Label: l}
		}
		return out
	}
	choice := func(text string, o []wisp.Option) wisp.CardQuestion { return wisp.CardQuestion{Text: text, Options: o} }
	q := func(text string) wisp.CardQuestion { return wisp.CardQuestion{Text: text} }
	tests := []struct {
		name      string
		questions []wisp.CardQuestion
		timeout   time.Duration
		noVault   bool
		want      string // "" when the card is fine and reaches the face
	}{
		{name: "no questions", want: "error: the call asks nothing; send 1 to 4 questions, or one secret alone"},
		{name: "five questions", questions: []wisp.CardQuestion{q("A?"), q("B?"), q("C?"), q("D?"), q("E?")},
			want: "error: ask 1 to 4 questions in a call (got 5); ask the rest once you have the answers"},
		{name: "four questions is fine", questions: []wisp.CardQuestion{q("A?"), q("B?"), q("C?"), q("D?")}},
		{name: "empty question", questions: []wisp.CardQuestion{q("A?"), q(" ")},
			want: "error: question 2 is empty; each question must be 1 to 300 characters"},
		{name: "301 characters", questions: []wisp.CardQuestion{q(strings.Repeat("x", 301))},
			want: "error: question 1 is 301 characters; each question must be 1 to 300, one paragraph"},
		{name: "300 characters is fine", questions: []wisp.CardQuestion{q(strings.Repeat("ü", 300))}},
		{name: "two paragraphs", questions: []wisp.CardQuestion{q("First.\n\nSecond?")},
			want: "error: question 1 must be one paragraph, without line breaks"},
		{name: "the same question twice", questions: []wisp.CardQuestion{q("Which one?"), q("which  ONE?")},
			want: "error: questions 1 and 2 are the same; ask each question once"},
		{name: "header of 13", questions: []wisp.CardQuestion{{Text: "A?", Header: strings.Repeat("h", 13)}},
			want: "error: the header of question 1 is 13 characters; a header is at most 12, a word or two"},
		{name: "header of 12 is fine", questions: []wisp.CardQuestion{{Text: "A?", Header: strings.Repeat("ĥ", 12)}}},
		{name: "header with a line break", questions: []wisp.CardQuestion{{Text: "A?", Header: "a\nb"}},
			want: "error: the header of question 1 has a line break; a header is one line"},
		{name: "one option", questions: []wisp.CardQuestion{choice("A?", opts("a"))},
			want: "error: question 1 has 1 options; give 2 to 6, or none for a free-text answer"},
		{name: "seven options", questions: []wisp.CardQuestion{choice("A?", opts("a", "b", "c", "d", "e", "f", "g"))},
			want: "error: question 1 has 7 options; give 2 to 6, or none for a free-text answer"},
		{name: "six options is fine", questions: []wisp.CardQuestion{choice("A?", opts("a", "b", "c", "d", "e", "f"))}},
		{name: "empty label", questions: []wisp.CardQuestion{choice("A?", opts("a", " "))},
			want: "error: option 2 of question 1 has an empty label; each label must be 1 to 80 characters"},
		{name: "label of 81", questions: []wisp.CardQuestion{choice("A?", opts("a", strings.Repeat("o", 81)))},
			want: "error: the label of option 2 of question 1 is 81 characters; each label must be 1 to 80"},
		{name: "label of 80 is fine", questions: []wisp.CardQuestion{choice("A?", opts("a", strings.Repeat("ö", 80)))}},
		{name: "label with a line break", questions: []wisp.CardQuestion{choice("A?", opts("a", "b\nc"))},
			want: "error: the label of option 2 of question 1 has a line break; each label is one line"},
		{name: "same labels", questions: []wisp.CardQuestion{q("A?"), choice("B?", opts("Main", "dev", "main"))},
			want: "error: options 1 and 3 of question 2 have the same label; each label must be different"},
		{name: "description of 201", questions: []wisp.CardQuestion{choice("A?", []wisp.Option{{Label: "a", Description: strings.Repeat("d", 201)}, {Label: "b"}})},
			want: "error: the description of option 1 of question 1 is 201 characters; say the trade-off in at most 200"},
		{name: "description of 200 is fine", questions: []wisp.CardQuestion{choice("A?", []wisp.Option{{Label: "a", Description: strings.Repeat("d", 200)}, {Label: "b"}})}},
		{name: "description with a line break", questions: []wisp.CardQuestion{choice("A?", []wisp.Option{{Label: "a"}, {Label: "b", Description: "x\ny"}})},
			want: "error: the description of option 2 of question 1 has a line break; each description is one line"},
		{name: "two recommended", questions: []wisp.CardQuestion{choice("A?", []wisp.Option{{Label: "a", Recommended: true}, {Label: "b", Recommended: true}})},
			want: "error: question 1 marks 2 options recommended; mark one, or none to fall back to the first"},
		{name: "multiSelect on free text", questions: []wisp.CardQuestion{{Text: "A?", Multi: true}},
			want: "error: question 1 has no options, so it takes free text and multiSelect does not apply; give 2 to 6 options or leave multiSelect out"},
		{name: "allowOther on free text", questions: []wisp.CardQuestion{{Text: "A?", Other: true}},
			want: "error: question 1 has no options, so it takes free text already; give 2 to 6 options or leave allowOther out"},
		{name: "timeout of 9 s", questions: []wisp.CardQuestion{q("A?")}, timeout: 9 * time.Second,
			want: "error: timeout_seconds must be 10 to 300; leave it out to wait the full 300"},
		{name: "timeout of 301 s", questions: []wisp.CardQuestion{q("A?")}, timeout: 301 * time.Second,
			want: "error: timeout_seconds must be 10 to 300; leave it out to wait the full 300"},
		{name: "timeout of 10 s is fine", questions: []wisp.CardQuestion{q("A?")}, timeout: 10 * time.Second},
		{name: "timeout of 300 s is fine", questions: []wisp.CardQuestion{q("A?")}, timeout: 300 * time.Second},
		{name: "asks for a password", questions: []wisp.CardQuestion{q("Which branch?"), q("What is your password?")},
			want: inquiry.ErrLineCardSecret(2)},
		{name: "asks for a token through a label", questions: []wisp.CardQuestion{choice("Which should I use?", opts("your API key", "the file"))},
			want: inquiry.ErrLineCardSecret(1)},
		{name: "asks for a secret through the header", questions: []wisp.CardQuestion{{Text: "What should I use?", Header: "Password"}},
			want: inquiry.ErrLineCardSecret(1)},
		{name: "a description may name a credential", questions: []wisp.CardQuestion{choice("Which backend?",
			[]wisp.Option{{Label: "OpenAI", Description: "needs an API key"}, {Label: "Ollama", Description: "local"}})}},
		{name: "a secret with other questions", questions: []wisp.CardQuestion{q("A?"), secretQ}, want: inquiry.ErrLineSecretAlone},
		{name: "a secret after other questions", questions: []wisp.CardQuestion{secretQ, q("A?")}, want: inquiry.ErrLineSecretAlone},
		{name: "a secret alone is fine", questions: []wisp.CardQuestion{secretQ}},
		{name: "a secret without a vault", questions: []wisp.CardQuestion{secretQ}, noVault: true, want: inquiry.ErrLineNoVault},
		{name: "a secret's name in lower case", questions: []wisp.CardQuestion{{Text: "Paste it.", Secret: "gh_token"}},
			want: `error: "gh_token" cannot name a secret: use a capital letter, then up to 63 capital letters, digits or _, like GH_TOKEN`},
		{name: "a secret's name of 65", questions: []wisp.CardQuestion{{Text: "Paste it.", Secret: "A" + strings.Repeat("B", 64)}},
			want: `error: "` + "A" + strings.Repeat("B", 64) + `" cannot name a secret: use a capital letter, then up to 63 capital letters, digits or _, like GH_TOKEN`},
		{name: "a secret named PATH", questions: []wisp.CardQuestion{{Text: "Paste it.", Secret: "PATH"}},
			want: "error: PATH cannot name a secret: in a command's environment it changes how commands run; choose a name of the secret's own, like GH_TOKEN"},
		{name: "a secret named LD_PRELOAD", questions: []wisp.CardQuestion{{Text: "Paste it.", Secret: "LD_PRELOAD"}},
			want: "error: LD_PRELOAD cannot name a secret: in a command's environment it changes how commands run; choose a name of the secret's own, like GH_TOKEN"},
		{name: "a secret's name of 64 is fine", questions: []wisp.CardQuestion{{Text: "Paste it.", Secret: "A" + strings.Repeat("B", 63)}}},
		{name: "a secret with options", questions: []wisp.CardQuestion{{Text: "Paste it.", Secret: "GH_TOKEN", Options: opts("a", "b")}},
			want: "error: a secret question takes no options, multiSelect or allowOther; send only its name and question"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			face := newCardFace(cardReply{answers: make([]wisp.CardAnswer, len(tc.questions))})
			rec := &wisptest.Recorder{}
			var vault inquiry.Vault = &fakeVault{}
			if tc.noVault {
				vault = nil
			}
			s, err := newCardDesk(face, vault, rec).AskCard(context.Background(),
				inquiry.CardRequest{Thread: "t", Turn: 1, Questions: tc.questions, Timeout: tc.timeout})
			if err != nil {
				t.Fatalf("AskCard error = %v", err)
			}
			if tc.want == "" {
				if s.Refused || len(face.Cards()) != 1 {
					t.Errorf("AskCard = %q (refused %v), want the card put to the face", s.Line, s.Refused)
				}
				return
			}
			if s.Line != tc.want || !s.Refused {
				t.Errorf("AskCard line =\n %q (refused %v)\nwant the refusal\n %q", s.Line, s.Refused, tc.want)
			}
			if n := len(face.Cards()); n != 0 {
				t.Errorf("a refused card reached the face (%d cards)", n)
			}
			if kinds := rec.Kinds(); len(kinds) != 0 {
				t.Errorf("a refused card recorded %v; want no inquiry events", kinds)
			}
		})
	}
}

// The card the face gets: trimmed, with its ids and deadline.
func TestAskCardPutsTheCard(t *testing.T) {
	face := newCardFace(cardReply{answers: make([]wisp.CardAnswer, 2)})
	padded := wisp.CardQuestion{Text: "  Which regions? ", Header: " Regions ", Multi: true, Other: true,
		Options: []wisp.Option{{Label: " eu-west-1 ", Description: " near "}, {Label: "us-east-1"}, {Label: "ap-south-1"}}}
	if _, err := newCardDesk(face, nil, nil).AskCard(context.Background(),
		inquiry.CardRequest{Thread: "t1", Turn: 4, Questions: []wisp.CardQuestion{envQ, padded}, Timeout: 30 * time.Second}); err != nil {
		t.Fatal(err)
	}
	want := wisp.Card{ID: "c1", Session: "s1", Thread: "t1", Turn: 4, Deadline: fixed.Add(30 * time.Second),
		Questions: []wisp.CardQuestion{envQ, {Text: "Which regions?", Header: "Regions", Multi: true, Other: true,
			Options: []wisp.Option{{Label: "eu-west-1", Description: "near"}, {Label: "us-east-1"}, {Label: "ap-south-1"}}}}}
	if diff := cmp.Diff([]wisp.Card{want}, face.Cards()); diff != "" {
		t.Errorf("cards put to the face (-want +got):\n%s", diff)
	}
}

// At the card's deadline the answers the person finished are kept and the
// rest fall back; the wait is the model's shorter timeout, exactly.
func TestAskCardDeadlineKeepsPartialAnswers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		face := newCardFace(cardReply{silent: true, answers: []wisp.CardAnswer{chose("production"), {Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson}}})
		rec := &wisptest.Recorder{}
		d := newCardDesk(face, nil, rec)
		start := time.Now()
		s, err := d.AskCard(context.Background(), inquiry.CardRequest{Thread: "t", Turn: 1, Timeout: 30 * time.Second,
			Questions: []wisp.CardQuestion{envQ, configQ, regionsQ, notesQ}})
		if err != nil {
			t.Fatal(err)
		}
		if waited := time.Since(start); waited != 30*time.Second {
			t.Errorf("waited %v, want exactly the 30 s the model asked for", waited)
		}
		want := "1 (Env): chose: production (from the person)\n" +
			"2: " + inquiry.LineDeclined + "\n" +
			"3 (Regions): fallback: eu-west-1 (the first option; no answer within 30 s, so the person did not choose it)\n" +
			"4: no answer within 30 s; this question has no default. Do not guess what the person would say"
		if s.Line != want {
			t.Errorf("line =\n%s\nwant\n%s", s.Line, want)
		}
		var got []string
		for _, q := range s.Questions {
			got = append(got, q.Outcome.String()+"/"+q.Provenance.String())
		}
		if diff := cmp.Diff([]string{"chose/person", "declined/person", "chose/timeout", "timed-out/timeout"}, got); diff != "" {
			t.Errorf("outcome/provenance (-want +got):\n%s", diff)
		}
		settled := rec.Events(wisp.KindInquirySettled)
		if len(settled) != 1 || settled[0].Source != wisp.SourcePerson {
			t.Fatalf("settled = %+v, want one, from the person", settled)
		}
	})
}

// With no answer at all by the deadline, everything falls back and the
// settled event is wisp's.
func TestAskCardTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &wisptest.Recorder{}
		d := newCardDesk(newCardFace(cardReply{silent: true}), nil, rec)
		start := time.Now()
		s, err := d.AskCard(context.Background(), inquiry.CardRequest{Thread: "t", Turn: 1, Questions: []wisp.CardQuestion{envQ}})
		if err != nil {
			t.Fatal(err)
		}
		if waited := time.Since(start); waited != inquiry.CardTimeout {
			t.Errorf("waited %v, want the default %v", waited, inquiry.CardTimeout)
		}
		if want := "1 (Env): fallback: staging (the recommended option; no answer within 5 min, so the person did not choose it)"; s.Line != want {
			t.Errorf("line = %q, want %q", s.Line, want)
		}
		settled := rec.Events(wisp.KindInquirySettled)
		if len(settled) != 1 || settled[0].Source != wisp.SourceWisp {
			t.Errorf("settled = %+v, want one from wisp", settled)
		}
	})
}

// heldFace is a card face that shows a card for hold at most, and stays
// silent.
type heldFace struct {
	*cardFace
	hold time.Duration
}

func (f heldFace) CardHold(context.Context, []wisp.CardQuestion) time.Duration { return f.hold }

// A face that holds a card for less than its timeout shortens the wait:
// the card's deadline, the wait itself and the fallback's line say the
// hold. A hold of 0, or one longer than the timeout, changes nothing.
func TestAskCardHeldByTheFace(t *testing.T) {
	tests := []struct {
		name    string
		hold    time.Duration
		timeout time.Duration
		want    time.Duration
	}{
		{"a minute's hold", time.Minute, 0, time.Minute},
		{"no hold", 0, 0, inquiry.CardTimeout},
		{"a hold longer than the timeout", time.Minute, 30 * time.Second, 30 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				face := heldFace{cardFace: newCardFace(cardReply{silent: true}), hold: tc.hold}
				d := newCardDesk(face, nil, nil)
				start := time.Now()
				s, err := d.AskCard(context.Background(), inquiry.CardRequest{Thread: "t", Turn: 1, Questions: []wisp.CardQuestion{envQ}, Timeout: tc.timeout})
				if err != nil {
					t.Fatal(err)
				}
				if waited := time.Since(start); waited != tc.want {
					t.Errorf("waited %v, want %v", waited, tc.want)
				}
				if cards := face.Cards(); len(cards) != 1 || !cards[0].Deadline.Equal(fixed.Add(tc.want)) {
					t.Errorf("cards %+v, want one with the deadline %v", cards, fixed.Add(tc.want))
				}
				want := "1 (Env): fallback: staging (the recommended option; no answer within " + inquiry.Wait(tc.want) + ", so the person did not choose it)"
				if s.Line != want {
					t.Errorf("line = %q, want %q", s.Line, want)
				}
			})
		})
	}
}

// What the audit log records of a card: the kind, each question's outcome
// and provenance, and the whole answer with markers applied.
func TestAskCardEvents(t *testing.T) {
	face := newCardFace(cardReply{answers: []wisp.CardAnswer{
		{Outcome: wisp.OutcomeChose, Chosen: []string{"us-east-1"}, Text: "and AKIAFAKEKEYEXAMPLE77", Provenance: wisp.FromPerson},
		{Outcome: wisp.OutcomeTimedOut},
	}})
	rec := &wisptest.Recorder{}
	if _, err := newCardDesk(face, nil, rec).AskCard(context.Background(), inquiry.CardRequest{Thread: "t1", Turn: 2,
		Questions: []wisp.CardQuestion{regionsQ, envQ}, Timeout: time.Minute}); err != nil {
		t.Fatal(err)
	}
	requested := rec.Events(wisp.KindInquiryRequested)
	wantRequested := wisp.InquiryRequestedData{
		ID: "c1", Kind: "ask_user", Deadline: "2026-11-30T10:01:00Z",
		Questions: []wisp.CardQuestionRequest{
			{Question: "Which regions?", Header: "Regions", MultiSelect: true, AllowOther: true,
				Options: []wisp.CardOptionRecord{{Label: "eu-west-1"}, {Label: "us-east-1"}, {Label: "ap-south-1"}}},
			{Question: envQ.Text, Header: "Env", MultiSelect: false, AllowOther: false,
				Options: []wisp.CardOptionRecord{
					{Label: "staging", Description: "safe to break; data is a week old", Recommended: true},
					{Label: "production", Description: "real data; needs a window"}}},
		},
	}
	if len(requested) != 1 {
		t.Fatalf("requested = %+v, want one", requested)
	}
	if diff := cmp.Diff(wantRequested, requested[0].Data); diff != "" {
		t.Errorf("inquiry.requested data (-want +got):\n%s", diff)
	}
	if e := requested[0]; e.Source != wisp.SourceTool || e.Thread != "t1" || e.Turn != 2 || e.Session != "s1" {
		t.Errorf("inquiry.requested = %+v, want source tool on t1 turn 2 session s1", e)
	}
	settled := rec.Events(wisp.KindInquirySettled)
	wantSettled := wisp.InquirySettledData{
		ID: "c1", Kind: "ask_user",
		Questions: []wisp.CardQuestionSettled{
			{Question: "Which regions?", Outcome: "chose", Provenance: "person", Chosen: []string{"us-east-1"},
				Answer: "and [REDACTED:aws-access-key#1]", Redacted: []string{"[REDACTED:aws-access-key#1]"}},
			{Question: envQ.Text, Outcome: "chose", Provenance: "timeout", Fallback: true, Chosen: []string{"staging"}},
		},
	}
	if len(settled) != 1 {
		t.Fatalf("settled = %+v, want one", settled)
	}
	if diff := cmp.Diff(wantSettled, settled[0].Data); diff != "" {
		t.Errorf("inquiry.settled data (-want +got):\n%s", diff)
	}
	if settled[0].Source != wisp.SourcePerson {
		t.Errorf("inquiry.settled source = %q, want person", settled[0].Source)
	}
	if _, err := json.Marshal(settled[0].Data); err != nil {
		t.Errorf("inquiry.settled data does not marshal: %v", err)
	}
	notices := face.notices
	if len(notices) != 1 || notices[0].Kind != "redacted" || !strings.Contains(notices[0].Text, "question 1") {
		t.Errorf("notices = %+v, want the person told that question 1's credential was not passed on", notices)
	}
}

// A secret's value goes to the vault and nowhere else: not the line, not
// the events, not the facts, not anything AskCard returns.
func TestAskCardSecret(t *testing.T) {
	const value = "ghp_FAKE0test1EXAMPLE2not3real4Token5w6x"
	again := cardReply{answers: []wisp.CardAnswer{{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson}}} // for the second time it is asked
	tests := []struct {
		name      string
		face      func() wisp.Inquirer
		vault     *fakeVault
		wantLine  string
		wantQ     inquiry.SettledQuestion
		wantFacts []wisp.Fact
		stored    bool
		final     bool // the person declined: asking again is refused
	}{
		{name: "stored", face: func() wisp.Inquirer {
			return newCardFace(cardReply{answers: []wisp.CardAnswer{says(" " + value + "\n")}}, again)
		},
			vault:     &fakeVault{},
			wantLine:  "1: stored: session:GH_TOKEN (from the person). You never see the value; give the reference to the tools that need it",
			wantQ:     inquiry.SettledQuestion{Outcome: wisp.OutcomeAnswered, Ref: "session:GH_TOKEN", Line: inquiry.LineSecretStored("session:GH_TOKEN"), Provenance: wisp.FromPerson},
			wantFacts: []wisp.Fact{{Subject: "secret", Name: "GH_TOKEN", Value: "session:GH_TOKEN", Source: "person", Turn: 1}},
			stored:    true},
		{name: "declined", face: func() wisp.Inquirer {
			return newCardFace(cardReply{answers: []wisp.CardAnswer{{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson}}}, again)
		},
			vault:     &fakeVault{},
			wantLine:  "1: " + inquiry.LineSecretDeclined("GH_TOKEN", wisp.FromPerson, 0),
			wantQ:     inquiry.SettledQuestion{Outcome: wisp.OutcomeDeclined, Line: inquiry.LineSecretDeclined("GH_TOKEN", wisp.FromPerson, 0), Provenance: wisp.FromPerson},
			wantFacts: []wisp.Fact{{Subject: "declined", Name: "GH_TOKEN", Value: inquiry.FactSecretDeclined, Source: "person", Turn: 1}},
			final:     true},
		{name: "blank is a decline", face: func() wisp.Inquirer { return newCardFace(cardReply{answers: []wisp.CardAnswer{says("   ")}}, again) },
			vault:     &fakeVault{},
			wantLine:  "1: " + inquiry.LineSecretDeclined("GH_TOKEN", wisp.FromPerson, 0),
			wantQ:     inquiry.SettledQuestion{Outcome: wisp.OutcomeDeclined, Line: inquiry.LineSecretDeclined("GH_TOKEN", wisp.FromPerson, 0), Provenance: wisp.FromPerson},
			wantFacts: []wisp.Fact{{Subject: "declined", Name: "GH_TOKEN", Value: inquiry.FactSecretDeclined, Source: "person", Turn: 1}},
			final:     true},
		{name: "no person", face: func() wisp.Inquirer { return plainFace },
			vault:    &fakeVault{},
			wantLine: "1: no person can answer here, so GH_TOKEN is declined: a secret has no default. Going on without it is your own decision, so say so in your reply",
			wantQ: inquiry.SettledQuestion{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromUnattended,
				Line: inquiry.LineSecretDeclined("GH_TOKEN", wisp.FromUnattended, 0)}},
		{name: "timed out", face: func() wisp.Inquirer {
			return newCardFace(cardReply{answers: []wisp.CardAnswer{{Outcome: wisp.OutcomeTimedOut}}}, again)
		},
			vault:    &fakeVault{},
			wantLine: "1: no answer within 5 min, so GH_TOKEN is declined: a secret has no default. Going on without it is your own decision, so say so in your reply",
			wantQ: inquiry.SettledQuestion{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromTimeout,
				Line: inquiry.LineSecretDeclined("GH_TOKEN", wisp.FromTimeout, 5*time.Minute)}},
		{name: "the vault refuses it", face: func() wisp.Inquirer { return newCardFace(cardReply{answers: []wisp.CardAnswer{says(value)}}, again) },
			vault:    &fakeVault{err: errors.New("the secret GH_TOKEN is too short: a secret is 4 bytes at least")},
			wantLine: "1: GH_TOKEN was not stored: the secret GH_TOKEN is too short: a secret is 4 bytes at least. Going on without it is your own decision, so say so in your reply",
			wantQ: inquiry.SettledQuestion{Outcome: wisp.OutcomeAnswered,
				Line: inquiry.LineSecretNotStored("GH_TOKEN", "the secret GH_TOKEN is too short: a secret is 4 bytes at least"), Provenance: wisp.FromPerson}},
		{name: "the vault's reason holds the value", face: func() wisp.Inquirer { return newCardFace(cardReply{answers: []wisp.CardAnswer{says(value)}}, again) },
			vault:    &fakeVault{err: errors.New("cannot store " + value)},
			wantLine: "1: GH_TOKEN was not stored: the session's vault refused it. Going on without it is your own decision, so say so in your reply",
			wantQ:    inquiry.SettledQuestion{Outcome: wisp.OutcomeAnswered, Line: inquiry.LineSecretNotStored("GH_TOKEN", "the session's vault refused it"), Provenance: wisp.FromPerson}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &wisptest.Recorder{}
			face := tc.face()
			d := newCardDesk(face, tc.vault, rec)
			req := inquiry.CardRequest{Thread: "t", Turn: 1, Questions: []wisp.CardQuestion{secretQ}}
			s, err := d.AskCard(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if s.Line != tc.wantLine {
				t.Errorf("line =\n %q\nwant\n %q", s.Line, tc.wantLine)
			}
			if diff := cmp.Diff([]inquiry.SettledQuestion{tc.wantQ}, s.Questions, cmpopts.IgnoreUnexported(inquiry.SettledQuestion{})); diff != "" {
				t.Errorf("questions (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantFacts, s.Facts, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("facts (-want +got):\n%s", diff)
			}
			if got := tc.vault.values["GH_TOKEN"]; (got == value) != tc.stored {
				t.Errorf("vault holds %q, want the value stored: %v", got, tc.stored)
			}
			// Bytes: the value is nowhere but the vault.
			everything := fmt.Sprintf("%#v", s)
			for _, e := range rec.Events("") {
				b, err := json.Marshal(e)
				if err != nil {
					t.Fatal(err)
				}
				everything += string(b)
			}
			if f, ok := face.(*cardFace); ok {
				everything += fmt.Sprintf("%#v", f.notices)
			}
			if strings.Contains(everything, value) {
				t.Errorf("the secret's value leaked:\n%s", everything)
			}
			// Declined by the person is final; by a timeout or no person it is not.
			s, err = d.AskCard(context.Background(), inquiry.CardRequest{Thread: "t", Turn: 2, Questions: []wisp.CardQuestion{{Text: "Your token, please.", Secret: "GH_TOKEN"}}})
			if err != nil {
				t.Fatal(err)
			}
			if refusedAgain := s.Line == inquiry.ErrLineSecretDeclinedBefore("GH_TOKEN"); refusedAgain != tc.final {
				t.Errorf("asking again = %q, want refused: %v", s.Line, tc.final)
			}
		})
	}
}

// A card counts as one of the turn's two questions, waits like one, and
// may not repeat one.
func TestAskCardThreadRules(t *testing.T) {
	face := newCardFace(
		cardReply{answers: []wisp.CardAnswer{chose("staging")}},
		cardReply{answers: []wisp.CardAnswer{chose("staging"), says("x")}},
		cardReply{answers: []wisp.CardAnswer{chose("staging")}},
	)
	d := newCardDesk(face, nil, nil)
	ctx := context.Background()
	card := func(turn int, qs ...wisp.CardQuestion) string {
		t.Helper()
		s, err := d.AskCard(ctx, inquiry.CardRequest{Thread: "t1", Turn: turn, Questions: qs})
		if err != nil {
			t.Fatal(err)
		}
		return s.Line
	}
	ask := func(turn int, text string) string {
		t.Helper()
		s, err := d.Ask(ctx, inquiry.Request{Thread: "t1", Turn: turn, Text: text})
		if err != nil {
			t.Fatal(err)
		}
		return s.Line
	}
	steps := []struct {
		got, want string
	}{
		{card(1, envQ), "1 (Env): chose: staging (from the person)"},
		{card(1, notesQ, envQ), inquiry.ErrLineCardRepeat(2)},                                   // refused: counts towards nothing
		{ask(1, "Anything I should know first?"), "answer: an answer to ask (from the person)"}, // the second call
		{card(1, configQ), inquiry.ErrLineCardPerTurn},
		{ask(1, "Which branch?"), inquiry.ErrLinePerTurn},
		{card(2, envQ, notesQ), "1 (Env): chose: staging (from the person)\n2: answer: x (from the person)"}, // a new turn
		{ask(2, "which environment should the migration run against?"), inquiry.ErrLineRepeat},
		{card(2, envQ), inquiry.ErrLineCardRepeat(1)}, // the refused ask counted for nothing
	}
	for i, st := range steps {
		if st.got != st.want {
			t.Errorf("step %d = %q, want %q", i+1, st.got, st.want)
		}
	}
	// Another thread has limits of its own.
	s, err := d.AskCard(ctx, inquiry.CardRequest{Thread: "t2", Turn: 2, Questions: []wisp.CardQuestion{envQ}})
	if err != nil || s.Refused {
		t.Errorf("other thread: AskCard = (%q, %v), want it asked", s.Line, err)
	}
}

func TestAskCardOneWaitingPerThread(t *testing.T) {
	release := make(chan struct{})
	asked := make(chan struct{})
	face := wisp.InquirerFunc(func(ctx context.Context, q wisp.Question) (wisp.Answer, error) {
		close(asked)
		<-release
		return wisp.Answer{Outcome: wisp.OutcomeAnswered, Text: "done", Provenance: wisp.FromPerson}, nil
	})
	d := newCardDesk(face, nil, nil)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = d.Ask(context.Background(), inquiry.Request{Thread: "t1", Turn: 1, Text: "First?"})
	}()
	<-asked
	s, err := d.AskCard(context.Background(), inquiry.CardRequest{Thread: "t1", Turn: 2, Questions: []wisp.CardQuestion{envQ}})
	if err != nil || s.Line != inquiry.ErrLineWaiting || !s.Refused {
		t.Errorf("AskCard while a question waits = (%+v, %v), want the waiting refusal", s, err)
	}
	close(release)
	<-done
}

// A question the person declined is final in the thread, whichever tool
// asks it again; one that timed out is not.
func TestDeclinedIsFinal(t *testing.T) {
	face := newCardFace(
		cardReply{answers: []wisp.CardAnswer{{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson}, {Outcome: wisp.OutcomeTimedOut}}},
		cardReply{answers: []wisp.CardAnswer{chose("./wisp.json")}},
	)
	d := newCardDesk(face, nil, nil)
	ctx := context.Background()
	if _, err := d.AskCard(ctx, inquiry.CardRequest{Thread: "t1", Turn: 1, Questions: []wisp.CardQuestion{envQ, configQ}}); err != nil {
		t.Fatal(err)
	}
	s, _ := d.AskCard(ctx, inquiry.CardRequest{Thread: "t1", Turn: 2, Questions: []wisp.CardQuestion{notesQ, {Text: " which ENVIRONMENT should the migration run against? ", Options: envQ.Options}}})
	if s.Line != inquiry.ErrLineCardDeclinedBefore(2) || !s.Refused {
		t.Errorf("card asking the declined question again = %q, want %q", s.Line, inquiry.ErrLineCardDeclinedBefore(2))
	}
	a, _ := d.Ask(ctx, inquiry.Request{Thread: "t1", Turn: 2, Text: envQ.Text})
	if a.Line != inquiry.ErrLineDeclinedBefore || !a.Refused {
		t.Errorf("ask asking the declined question again = %q, want %q", a.Line, inquiry.ErrLineDeclinedBefore)
	}
	s, _ = d.AskCard(ctx, inquiry.CardRequest{Thread: "t1", Turn: 2, Questions: []wisp.CardQuestion{configQ}})
	if s.Refused {
		t.Errorf("a question that timed out was refused again: %q", s.Line)
	}
	// Another thread may ask it.
	s, _ = d.AskCard(ctx, inquiry.CardRequest{Thread: "t2", Turn: 1, Questions: []wisp.CardQuestion{envQ}})
	if strings.HasPrefix(s.Line, "error: the person already declined") {
		t.Errorf("another thread was refused: %q", s.Line)
	}

	// And ask's declines are final for ask_user too.
	p := wisptest.NewPerson(wisptest.Declines())
	d = newCardDesk(p, nil, nil)
	if _, err := d.Ask(ctx, inquiry.Request{Thread: "t", Turn: 1, Text: "Which branch?"}); err != nil {
		t.Fatal(err)
	}
	// Within the turn, asking again is a repeat.
	a, _ = d.Ask(ctx, inquiry.Request{Thread: "t", Turn: 1, Text: "Which branch?"})
	if a.Line != inquiry.ErrLineRepeat {
		t.Errorf("ask after ask's decline in the same turn = %q, want the repeat refusal %q", a.Line, inquiry.ErrLineRepeat)
	}
	s, _ = d.AskCard(ctx, inquiry.CardRequest{Thread: "t", Turn: 2, Questions: []wisp.CardQuestion{{Text: "Which branch?"}}})
	if s.Line != inquiry.ErrLineCardDeclinedBefore(1) {
		t.Errorf("card after ask's decline = %q, want %q", s.Line, inquiry.ErrLineCardDeclinedBefore(1))
	}
	a, _ = d.Ask(ctx, inquiry.Request{Thread: "t", Turn: 3, Text: "which  branch?"})
	if a.Line != inquiry.ErrLineDeclinedBefore {
		t.Errorf("ask after ask's decline on a later turn = %q, want %q", a.Line, inquiry.ErrLineDeclinedBefore)
	}
}

// Faces fail closed: an answer that does not fit the card, a stop or a
// failure ends the turn, records the card as stopped, and frees the thread.
func TestAskCardFaceFailures(t *testing.T) {
	tests := []struct {
		name  string
		reply cardReply
		ctx   func() context.Context
		want  error
	}{
		{"a label not offered", cardReply{answers: []wisp.CardAnswer{chose("qa"), {}}}, context.Background, inquiry.ErrBadAnswer},
		{"two labels on a single choice", cardReply{answers: []wisp.CardAnswer{chose("staging", "production"), {}}}, context.Background, inquiry.ErrBadAnswer},
		{"a label and text on a single choice", cardReply{answers: []wisp.CardAnswer{{}, {Outcome: wisp.OutcomeChose, Chosen: []string{"./wisp.json"}, Text: "and more", Provenance: wisp.FromPerson}}}, context.Background, inquiry.ErrBadAnswer},
		{"text where no text is taken", cardReply{answers: []wisp.CardAnswer{says("qa"), {}}}, context.Background, inquiry.ErrBadAnswer},
		{"too few answers", cardReply{answers: []wisp.CardAnswer{chose("staging")}}, context.Background, inquiry.ErrBadAnswer},
		{"too many answers", cardReply{answers: make([]wisp.CardAnswer, 3)}, context.Background, inquiry.ErrBadAnswer},
		{"too many answers at the deadline", cardReply{answers: make([]wisp.CardAnswer, 3), silent: true}, func() context.Context {
			return context.Background()
		}, inquiry.ErrBadAnswer},
		{"interrupted", cardReply{answers: []wisp.CardAnswer{chose("staging")}, err: wisp.ErrInterrupted}, context.Background, wisp.ErrInterrupted},
		{"face failure", cardReply{err: errors.New("tty gone")}, context.Background, nil},
		{"caller cancelled", cardReply{silent: true, answers: []wisp.CardAnswer{chose("staging")}}, func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(10*time.Millisecond, cancel)
			return ctx
		}, context.Canceled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rec := &wisptest.Recorder{}
				d := newCardDesk(newCardFace(tc.reply, cardReply{answers: make([]wisp.CardAnswer, 1)}), nil, rec)
				_, err := d.AskCard(tc.ctx(), inquiry.CardRequest{Thread: "t", Turn: 1, Questions: []wisp.CardQuestion{envQ, configQ}})
				if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
					t.Fatalf("AskCard error = %v, want %v", err, tc.want)
				}
				settled := rec.Events(wisp.KindInquirySettled)
				if len(settled) != 1 || settled[0].Data.(wisp.InquirySettledData).Outcome != "stopped" || settled[0].Data.(wisp.InquirySettledData).Kind != "ask_user" {
					t.Errorf("settled events = %+v, want one ask_user card with outcome stopped", settled)
				}
				s, err := d.AskCard(context.Background(), inquiry.CardRequest{Thread: "t", Turn: 2, Questions: []wisp.CardQuestion{notesQ}})
				if err != nil || s.Refused {
					t.Errorf("after a stopped card, AskCard = (%q, %v), want it asked", s.Line, err)
				}
			})
		})
	}
}

// A turn already over settles nothing, even on a face with no person.
func TestAskCardCancelledTurn(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, face := range []wisp.Inquirer{plainFace, newCardFace(cardReply{answers: make([]wisp.CardAnswer, 1)})} {
		rec := &wisptest.Recorder{}
		_, err := newCardDesk(face, nil, rec).AskCard(ctx, inquiry.CardRequest{Thread: "t", Turn: 1, Questions: []wisp.CardQuestion{envQ}})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("AskCard(%T) on a cancelled turn = %v, want context.Canceled", face, err)
		}
		if settled := rec.Events(wisp.KindInquirySettled); len(settled) != 1 || settled[0].Data.(wisp.InquirySettledData).Outcome != "stopped" {
			t.Errorf("settled = %+v, want the card stopped", settled)
		}
	}
}
