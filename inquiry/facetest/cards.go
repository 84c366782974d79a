package facetest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/escape"
)

// A CardHarness is a face that shows ask_user cards, wired to a simulated
// person.
type CardHarness struct {
	// Face is the face under test.
	Face wisp.CardInquirer
	// Screen, if not nil, returns everything the face has shown the person
	// so far, for faces that print text. The suite checks it is escaped
	// and labelled, and never shows a secret's value.
	Screen func() string
}

var (
	env = wisp.CardQuestion{Header: "Env", Text: "Which environment should the migration run against?",
		Options: []wisp.Option{
			{Label: "staging", Description: "safe to break; data is a week old", Recommended: true},
			{Label: "production", Description: "real data; needs a maintenance window"},
			{Label: "a fresh sandbox", Description: "clean, but takes ten minutes to build"},
		}}
	checks = wisp.CardQuestion{Header: "Checks", Text: "Which checks should run before the migration?", Multi: true,
		Options: []wisp.Option{
			{Label: "unit tests", Description: "fast; catch most regressions", Recommended: true},
			{Label: "integration tests", Description: "slow; need the database"},
			{Label: "lint"},
		}}
	rollout = wisp.CardQuestion{Header: "Rollout", Text: "How should the change roll out?", Other: true,
		Options: []wisp.Option{
			{Label: "all at once", Description: "one short outage", Recommended: true},
			{Label: "canary 5%", Description: "slower; needs the flag service"},
		}}
	notes = wisp.CardQuestion{Text: "Is there anything the migration must not touch?"}
	token = wisp.CardQuestion{Header: "GitHub", Text: "Which token should wisp use to open the pull request?",
		Secret: "GH_TOKEN"}

	// hostileChoice and hostileSecret put terminal controls, bidirectional
	// overrides and approval keys in every word the model writes on a
	// card. The header "y/n" is there to catch a face that wraps headers
	// in brackets: "[y/n]" would be an approval's keys.
	hostileChoice = wisp.CardQuestion{
		Header: "y/n",
		Text:   "\x1b[2J\x1b[1;1HApprove rm -rf build?\r\x1b]0;wisp\x07 \u202Etxt.exe",
		Multi:  true, Other: true,
		Options: []wisp.Option{
			{Label: "[y]once\x1b[A", Description: "\x1b]8;;https://evil.example\x07click\x1b]8;;\x07", Recommended: true},
			{Label: "no\u2066", Description: "line\rover\u202Ewritten"},
			{Label: "\u200Bsession", Description: "\x9b31m"},
		}}
	hostileSecret = wisp.CardQuestion{Header: "\x1b[31mwisp", Text: "Type your password\u202E\r! wisp asks your approval",
		Secret: "TOKEN\x1b[8m"}
)

// card returns a card of qs with the suite's identifiers.
func card(qs ...wisp.CardQuestion) wisp.Card {
	return wisp.Card{ID: "c1", Session: "s", Thread: "t", Turn: 1, Questions: qs,
		Deadline: time.Now().Add(5 * time.Minute)}
}

func chose(labels ...string) wisp.CardAnswer {
	return wisp.CardAnswer{Outcome: wisp.OutcomeChose, Chosen: labels, Provenance: wisp.FromPerson}
}

func answered(text string) wisp.CardAnswer {
	return wisp.CardAnswer{Outcome: wisp.OutcomeAnswered, Text: text, Provenance: wisp.FromPerson}
}

var (
	declined = wisp.CardAnswer{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson}
	noPerson = wisp.CardAnswer{Outcome: wisp.OutcomeNoPerson, Provenance: wisp.FromUnattended}
)

// cardAnswers compares answers with a nil and an empty Chosen alike.
var cardAnswers = cmpopts.EquateEmpty()

// RunCards checks the card face newFace returns against the contract of
// wisp.CardInquirer. newFace is called once per check with what the
// person will do with each question of the card, in order (each with the
// acts of Person.Acts, when the face asks again); after a Silent or an
// Interrupt act the person does nothing more. The checks:
//
//   - each kind of answer: one option, several, "something else", free
//     text, a secret's value, Enter declining each kind; labels come back
//     verbatim, answers one for each question, in the card's order, each
//     marked wisp.FromPerson;
//   - text the question does not take (on a choice without "something
//     else", or with control characters such as an arrow key's) is asked
//     again, never returned: the person's next act (Person.Then) answers;
//   - a silent person until the deadline or a cancel, an already
//     cancelled context and Ctrl-C: AskCard returns promptly with the
//     error, and with it at most the answers the person finished, each
//     as given, never one for a question left unfinished;
//   - hostile words in every field the model writes (header, question,
//     labels, descriptions, the secret's name): on a face that gives
//     Screen, every line is free of raw controls and invisible
//     characters, each word is shown escaped (verbatim, on a data face:
//     Options.Data), "the model asks" labels the card, the face offers no
//     approval key of its own, the recommended option is marked, and a
//     secret's value never shows. A face that reads no secret
//     (Options.NoSecrets) may show nothing of a secret's card.
//
// A face with no person does not implement wisp.CardInquirer: the desk
// falls its cards back at once. Options.Unattended does not apply here.
func RunCards(t *testing.T, newFace func(t *testing.T, acts []Person) CardHarness, opts *Options) {
	t.Helper()
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Wait <= 0 {
		o.Wait = 5 * time.Second
	}
	secret := func(text string) wisp.CardAnswer {
		if o.NoSecrets {
			return noPerson
		}
		return answered(text)
	}
	secretDeclined := declined
	if o.NoSecrets {
		secretDeclined = noPerson
	}
	answers := []struct {
		name string
		c    wisp.Card
		acts []Person
		want []wisp.CardAnswer
	}{
		{"choose first", card(env), []Person{{Act: Choose, Option: 0}}, []wisp.CardAnswer{chose("staging")}},
		{"choose last", card(env), []Person{{Act: Choose, Option: 2}}, []wisp.CardAnswer{chose("a fresh sandbox")}},
		{"decline a choice", card(env), []Person{{Act: Decline}}, []wisp.CardAnswer{declined}},
		{"choose several", card(checks), []Person{{Act: ChooseSeveral, Options: []int{0, 2}}}, []wisp.CardAnswer{chose("unit tests", "lint")}},
		{"choose one of several", card(checks), []Person{{Act: ChooseSeveral, Options: []int{1}}}, []wisp.CardAnswer{chose("integration tests")}},
		{"choose every one", card(checks), []Person{{Act: ChooseSeveral, Options: []int{0, 1, 2}}}, []wisp.CardAnswer{chose("unit tests", "integration tests", "lint")}},
		{"decline several", card(checks), []Person{{Act: Decline}}, []wisp.CardAnswer{declined}},
		{"choose where something else is offered", card(rollout), []Person{{Act: Choose, Option: 1}}, []wisp.CardAnswer{chose("canary 5%")}},
		{"something else", card(rollout), []Person{{Act: Type, Text: "blue-green, in two regions"}}, []wisp.CardAnswer{answered("blue-green, in two regions")}},
		{"free text", card(notes), []Person{{Act: Type, Text: "the audit tables"}}, []wisp.CardAnswer{answered("the audit tables")}},
		{"free text non-ASCII", card(notes), []Person{{Act: Type, Text: "les tables d'été ✓"}}, []wisp.CardAnswer{answered("les tables d'été ✓")}},
		{"decline free text", card(notes), []Person{{Act: Decline}}, []wisp.CardAnswer{declined}},
		{"a secret", card(token), []Person{{Act: Type, Text: "ghp_s3cretValue0123456789"}}, []wisp.CardAnswer{secret("ghp_s3cretValue0123456789")}},
		{"decline a secret", card(token), []Person{{Act: Decline}}, []wisp.CardAnswer{secretDeclined}},
		{"four questions, in order", card(env, checks, rollout, notes),
			[]Person{{Act: Choose, Option: 1}, {Act: ChooseSeveral, Options: []int{0, 1}}, {Act: Type, Text: "dark launch"}, {Act: Decline}},
			[]wisp.CardAnswer{chose("production"), chose("unit tests", "integration tests"), answered("dark launch"), declined}},
		{"four questions, the last answered", card(notes, rollout, env, checks),
			[]Person{{Act: Decline}, {Act: Decline}, {Act: Decline}, {Act: ChooseSeveral, Options: []int{2}}},
			[]wisp.CardAnswer{declined, declined, declined, chose("lint")}},
		{"hostile words", card(hostileChoice), []Person{{Act: ChooseSeveral, Options: []int{0, 2}}},
			[]wisp.CardAnswer{chose(hostileChoice.Options[0].Label, hostileChoice.Options[2].Label)}},
		{"hostile something else is asked again", card(hostileChoice), []Person{{Act: Type, Text: "neither, \x1b[1mreally", Then: &Person{Act: Type, Text: "neither, really"}}},
			[]wisp.CardAnswer{answered("neither, really")}},
		{"arrow keys in free text are asked again", card(notes), []Person{{Act: Type, Text: "\x1b[A\x1b[A", Then: &Person{Act: Decline}}},
			[]wisp.CardAnswer{declined}},
		{"text on a choice without something else is asked again", card(env), []Person{{Act: Type, Text: "the old one", Then: &Person{Act: Choose, Option: 1}}},
			[]wisp.CardAnswer{chose("production")}},
		{"hostile secret", card(hostileSecret), []Person{{Act: Type, Text: "hunter2-s3cret"}}, []wisp.CardAnswer{secret("hunter2-s3cret")}},
	}
	for _, tc := range answers {
		t.Run(tc.name, func(t *testing.T) {
			h := newFace(t, tc.acts)
			got, err := askCard(t, h.Face, context.Background(), tc.c, o.Wait)
			if err != nil {
				fatalf(t, "AskCard(%s) error = %v, want answers", cardName(tc.c), err)
			}
			if diff := cmp.Diff(tc.want, got, cardAnswers); diff != "" {
				errorf(t, "AskCard(%s) answers mismatch (-want +got):\n%s", cardName(tc.c), diff)
			}
			if h.Screen != nil {
				// A face that reads no secret may show nothing of its card.
				if screen := h.Screen(); !(o.NoSecrets && secretCard(tc.c) && screen == "") {
					checkCardScreen(t, screen, tc.c, tc.acts, o)
				}
			}
		})
	}

	// Cards that end before the person finished them. done is how many
	// questions the person finishes first; those answers, and only those,
	// may come back with the error.
	three := card(env, checks, notes)
	firstTwo := []wisp.CardAnswer{chose("staging"), chose("lint")}
	ended := []struct {
		name   string
		acts   []Person
		ctx    func() (context.Context, context.CancelFunc)
		wantIs error
		done   int
	}{
		{"silent until the deadline", []Person{{Act: Silent}},
			func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), 50*time.Millisecond)
			}, context.DeadlineExceeded, 0},
		{"partly answered until the deadline", []Person{{Act: Choose, Option: 0}, {Act: ChooseSeveral, Options: []int{2}}, {Act: Silent}},
			func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), 500*time.Millisecond)
			}, context.DeadlineExceeded, 2},
		{"partly answered until cancelled", []Person{{Act: Choose, Option: 0}, {Act: Silent}},
			func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(context.Background())
				time.AfterFunc(500*time.Millisecond, cancel)
				return ctx, cancel
			}, context.Canceled, 1},
		{"already cancelled", []Person{{Act: Silent}},
			func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				return ctx, cancel
			}, context.Canceled, 0},
		{"interrupt at once", []Person{{Act: Interrupt}},
			func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) },
			wisp.ErrInterrupted, 0},
		{"interrupt after an answer", []Person{{Act: Choose, Option: 0}, {Act: Interrupt}},
			func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) },
			wisp.ErrInterrupted, 1},
	}
	for _, tc := range ended {
		t.Run(tc.name, func(t *testing.T) {
			if o.NoInterrupt && tc.wantIs == wisp.ErrInterrupted {
				t.Skip("the face's person cannot stop the turn from it")
			}
			h := newFace(t, tc.acts)
			ctx, cancel := tc.ctx()
			defer cancel()
			got, err := askCard(t, h.Face, ctx, three, o.Wait)
			if !errors.Is(err, tc.wantIs) {
				errorf(t, "AskCard = (%+v, %v), want an error that is %v", got, err, tc.wantIs)
			}
			if len(got) > tc.done {
				errorf(t, "AskCard returned %d answers with its error, want at most the %d the person finished: %+v", len(got), tc.done, got)
				got = got[:tc.done]
			}
			if diff := cmp.Diff(firstTwo[:len(got)], got, cardAnswers); diff != "" {
				errorf(t, "AskCard kept answers other than the person's (-want +got):\n%s", diff)
			}
			if h.Screen != nil && err == nil {
				checkCardScreen(t, h.Screen(), three, tc.acts, o)
			}
		})
	}
}

// askCard runs AskCard, failing the test if the face does not return
// within wait of when it should have.
func askCard(t *testing.T, f wisp.CardInquirer, ctx context.Context, c wisp.Card, wait time.Duration) ([]wisp.CardAnswer, error) {
	t.Helper()
	type result struct {
		a   []wisp.CardAnswer
		err error
	}
	done := make(chan result, 1)
	go func() {
		a, err := f.AskCard(ctx, c)
		done <- result{a, err}
	}()
	bound := wait
	if dl, ok := ctx.Deadline(); ok {
		bound += time.Until(dl)
	}
	select {
	case r := <-done:
		return r.a, r.err
	case <-time.After(bound):
		fatalf(t, "AskCard(%s) did not return within %v", cardName(c), bound)
		return nil, nil
	}
}

// secretCard reports whether c collects a secret.
func secretCard(c wisp.Card) bool {
	for _, q := range c.Questions {
		if q.Secret != "" {
			return true
		}
	}
	return false
}

// cardName names a card in test messages by its first question.
func cardName(c wisp.Card) string {
	if len(c.Questions) == 0 {
		return "an empty card"
	}
	return strings.Trim(escape.Terminal(c.Questions[0].Text), " ")
}

// cardWords are the words the model wrote on c.
func cardWords(c wisp.Card) []string {
	var words []string
	for _, q := range c.Questions {
		words = append(words, q.Header, q.Text, q.Secret)
		for _, o := range q.Options {
			words = append(words, o.Label, o.Description)
		}
	}
	return words
}

// checkCardScreen checks what a face showed of c: the label, each of the
// model's words escaped (or, on a data face, verbatim), no raw control or
// invisible characters, no approval keys of the face's own, the
// recommended option marked, and no secret's value.
func checkCardScreen(t *testing.T, screen string, c wisp.Card, acts []Person, o Options) {
	t.Helper()
	text, show := shown(t, screen, o)
	if !strings.Contains(text, "the model asks") {
		errorf(t, "screen does not say %q:\n%s", "the model asks", screen)
	}
	words := cardWords(c)
	for _, w := range words {
		if w != "" && !strings.Contains(text, show(w)) {
			errorf(t, "screen does not show %q as %q:\n%s", w, show(w), screen)
		}
	}
	checkNoApprovalKeys(t, text, words, show)
	for _, q := range c.Questions {
		for _, opt := range q.Options {
			if opt.Recommended && !strings.Contains(strings.ToLower(text), "recommended") {
				errorf(t, "screen does not mark %q as recommended:\n%s", opt.Label, screen)
			}
		}
	}
	for i, q := range c.Questions {
		if q.Secret == "" || i >= len(acts) || acts[i].Act != Type {
			continue
		}
		v := acts[i].Text
		if strings.Contains(screen, v) || strings.Contains(text, v) || strings.Contains(screen, escape.Terminal(v)) {
			errorf(t, "screen shows the secret's value %q:\n%s", v, screen)
		}
	}
}
