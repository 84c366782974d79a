package terminal_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/facetest"
	"github.com/wisp-agent/wisp/inquiry/terminal"
)

// cardKeys are what a person types for an act on a card's question, and
// whether the act types anything (Silent and Interrupt do not).
func cardKeys(p facetest.Person) (string, bool) {
	switch p.Act {
	case facetest.Choose:
		return fmt.Sprintf("%d\n", p.Option+1), true
	case facetest.ChooseSeveral:
		var nums []string
		for _, o := range p.Options {
			nums = append(nums, fmt.Sprint(o+1))
		}
		return strings.Join(nums, ", ") + "\n", true
	case facetest.Type:
		return p.Text + "\n", true
	case facetest.Decline:
		return "\n", true
	}
	return "", false
}

// cardHarness wires a terminal face to a person who types acts into a
// pipe, each once the face prompts for its question, as a person does:
// a secret typed before its prompt showed would be dropped. Ctrl-C comes
// at the prompt of the question it is meant for.
func cardHarness(t *testing.T, acts []facetest.Person, opts *terminal.Options) facetest.CardHarness {
	r, w := io.Pipe()
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop); w.Close() })
	in := terminal.NewInput(r)
	out := &screen{}
	var keys []facetest.Person // one act a prompt, asked again included
	for _, p := range acts {
		keys = append(keys, p.Acts()...)
	}
	go func() {
		for i, p := range keys {
			for strings.Count(out.String(), "› ") <= i {
				select {
				case <-stop:
					return
				case <-time.After(time.Millisecond):
				}
			}
			if p.Act == facetest.Interrupt {
				for !in.Interrupt() {
					select {
					case <-stop:
						return
					case <-time.After(time.Millisecond):
					}
				}
				return
			}
			k, ok := cardKeys(p)
			if !ok {
				return
			}
			if _, err := io.WriteString(w, k); err != nil {
				return
			}
		}
	}()
	return facetest.CardHarness{Face: terminal.NewWithOptions(in, out, opts), Screen: out.String}
}

func TestFaceCardContract(t *testing.T) {
	t.Run("echo hidden", func(t *testing.T) {
		// The pipe echoes nothing; HideEcho says so, and the face reads
		// secrets.
		noEcho := &terminal.Options{HideEcho: func() (func(), error) { return func() {}, nil }}
		facetest.RunCards(t, func(t *testing.T, acts []facetest.Person) facetest.CardHarness {
			return cardHarness(t, acts, noEcho)
		}, nil)
	})
	t.Run("input is a pipe", func(t *testing.T) {
		// Without HideEcho, a pipe is not a terminal whose echo the face
		// can turn off: it reads no secret.
		facetest.RunCards(t, func(t *testing.T, acts []facetest.Person) facetest.CardHarness {
			return cardHarness(t, acts, nil)
		}, &facetest.Options{NoSecrets: true})
	})
}

var (
	ten = time.Date(2026, 11, 30, 10, 0, 0, 0, time.Local)

	envQ = wisp.CardQuestion{Header: "Env", Text: "Which environment should the migration run against?",
		Options: []wisp.Option{
			{Label: "staging", Description: "safe to break; data is a week old", Recommended: true},
			{Label: "production", Description: "real data; needs a maintenance window"},
		}}
	checksQ = wisp.CardQuestion{Header: "Checks", Text: "Which checks should run first?", Multi: true,
		Options: []wisp.Option{
			{Label: "unit tests", Description: "fast; catch most regressions", Recommended: true},
			{Label: "integration tests", Description: "slow; need the database"},
			{Label: "lint"},
		}}
	rolloutQ = wisp.CardQuestion{Header: "Rollout", Text: "How should it roll out?", Other: true,
		Options: []wisp.Option{
			{Label: "all at once", Description: "one short outage", Recommended: true},
			{Label: "canary 5%", Description: "slower; needs the flag service"},
		}}
	severalOtherQ = wisp.CardQuestion{Text: "Which regions?", Multi: true, Other: true,
		Options: []wisp.Option{{Label: "eu"}, {Label: "us"}, {Label: "asia"}}}
	notesQ  = wisp.CardQuestion{Text: "Anything the migration must not touch?"}
	secretQ = wisp.CardQuestion{Header: "GitHub", Text: "Which token should I use to open the pull request?", Secret: "GH_TOKEN"}
)

// showCard runs AskCard at ten o'clock on a card of qs that ends at five
// past, with input as the person's keys, and returns the answers, the
// error and the screen. With a HideEcho in opts, the person types the
// keys once the secret's prompt shows: keys typed before it are dropped.
func showCard(t *testing.T, input io.Reader, opts *terminal.Options, qs ...wisp.CardQuestion) ([]wisp.CardAnswer, error, string) {
	t.Helper()
	o := terminal.Options{Now: func() time.Time { return ten }}
	out := &screen{}
	if opts != nil && opts.HideEcho != nil {
		keys, err := io.ReadAll(input)
		if err != nil {
			t.Fatal(err)
		}
		r, w := io.Pipe()
		t.Cleanup(func() { w.Close() })
		go func() {
			for !strings.HasSuffix(out.String(), terminal.PromptSecret) {
				time.Sleep(time.Millisecond)
			}
			w.Write(keys)
		}()
		input = r
		o.HideEcho = opts.HideEcho
	}
	f := terminal.NewWithOptions(terminal.NewInput(input), out, &o)
	got, err := f.AskCard(context.Background(), wisp.Card{ID: "c1", Questions: qs, Deadline: ten.Add(5 * time.Minute)})
	return got, err, out.String()
}

func TestCardScreen(t *testing.T) {
	noEcho := &terminal.Options{HideEcho: func() (func(), error) { return func() {}, nil }}
	tests := []struct {
		name   string
		qs     []wisp.CardQuestion
		opts   *terminal.Options
		input  string
		want   []wisp.CardAnswer
		screen string
	}{
		{
			name:  "four questions",
			qs:    []wisp.CardQuestion{envQ, checksQ, rolloutQ, notesQ},
			input: "1\n1, 3\nblue-green\n\n",
			want: []wisp.CardAnswer{
				{Outcome: wisp.OutcomeChose, Chosen: []string{"staging"}, Provenance: wisp.FromPerson},
				{Outcome: wisp.OutcomeChose, Chosen: []string{"unit tests", "lint"}, Provenance: wisp.FromPerson},
				{Outcome: wisp.OutcomeAnswered, Text: "blue-green", Provenance: wisp.FromPerson},
				{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson},
			},
			// The keys typed are not on this screen: a pipe does not echo.
			screen: "? the model asks\n" +
				"4 questions · ends in 5 min, at 10:05:00\n" +
				"Questions you leave unanswered by then fall back to their defaults.\n" +
				"\n" +
				"1/4 · Env\n" +
				"Which environment should the migration run against?\n" +
				"  1 staging (recommended)\n" +
				"    safe to break; data is a week old\n" +
				"  2 production\n" +
				"    real data; needs a maintenance window\n" +
				"type a number, or press Enter to decline › \n" +
				"2/4 · Checks\n" +
				"Which checks should run first?\n" +
				"  1 unit tests (recommended)\n" +
				"    fast; catch most regressions\n" +
				"  2 integration tests\n" +
				"    slow; need the database\n" +
				"  3 lint\n" +
				"type one or more numbers, like 1 2, or press Enter to decline › \n" +
				"3/4 · Rollout\n" +
				"How should it roll out?\n" +
				"  1 all at once (recommended)\n" +
				"    one short outage\n" +
				"  2 canary 5%\n" +
				"    slower; needs the flag service\n" +
				"type a number or your own answer, or press Enter to decline › \n" +
				"4/4\n" +
				"Anything the migration must not touch?\n" +
				"type your answer, or press Enter to decline › ",
		},
		{
			name:  "one question",
			qs:    []wisp.CardQuestion{envQ},
			input: "2\n",
			want:  []wisp.CardAnswer{{Outcome: wisp.OutcomeChose, Chosen: []string{"production"}, Provenance: wisp.FromPerson}},
			screen: "? the model asks\n" +
				"1 question · ends in 5 min, at 10:05:00\n" +
				"If you leave it unanswered by then, it falls back to its default.\n" +
				"\n" +
				"Env\n" +
				"Which environment should the migration run against?\n" +
				"  1 staging (recommended)\n" +
				"    safe to break; data is a week old\n" +
				"  2 production\n" +
				"    real data; needs a maintenance window\n" +
				"type a number, or press Enter to decline › ",
		},
		{
			name:  "several or something else, asked again",
			qs:    []wisp.CardQuestion{severalOtherQ},
			input: "4\n2 3\n",
			want:  []wisp.CardAnswer{{Outcome: wisp.OutcomeChose, Chosen: []string{"us", "asia"}, Provenance: wisp.FromPerson}},
			screen: "? the model asks\n" +
				"1 question · ends in 5 min, at 10:05:00\n" +
				"If you leave it unanswered by then, it falls back to its default.\n" +
				"\n" +
				"Which regions?\n" +
				"  1 eu\n" +
				"  2 us\n" +
				"  3 asia\n" +
				"type one or more numbers, like 1 2, or your own answer, or press Enter to decline › " +
				"type numbers from 1 to 3, like 1 2, or your own answer, or press Enter to decline › ",
		},
		{
			name:  "a secret",
			qs:    []wisp.CardQuestion{secretQ},
			opts:  noEcho,
			input: "ghp_s3cret\n",
			want:  []wisp.CardAnswer{{Outcome: wisp.OutcomeAnswered, Text: "ghp_s3cret", Provenance: wisp.FromPerson}},
			screen: "? the model asks\n" +
				"1 question · ends in 5 min, at 10:05:00\n" +
				"If you leave it unanswered by then, it is declined.\n" +
				"\n" +
				"GitHub · secret GH_TOKEN\n" +
				"Which token should I use to open the pull request?\n" +
				"What you type is not shown; the model gets a reference to it, never the value.\n" +
				"type the secret, or press Enter to decline › \n" +
				"(received)\n",
		},
		{
			name:  "a secret declined",
			qs:    []wisp.CardQuestion{secretQ},
			opts:  noEcho,
			input: "\n",
			want:  []wisp.CardAnswer{{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson}},
			screen: "? the model asks\n" +
				"1 question · ends in 5 min, at 10:05:00\n" +
				"If you leave it unanswered by then, it is declined.\n" +
				"\n" +
				"GitHub · secret GH_TOKEN\n" +
				"Which token should I use to open the pull request?\n" +
				"What you type is not shown; the model gets a reference to it, never the value.\n" +
				"type the secret, or press Enter to decline › \n",
		},
		{
			name:  "a secret from a pipe is not read",
			qs:    []wisp.CardQuestion{secretQ},
			input: "ghp_s3cret\n",
			want:  []wisp.CardAnswer{{Outcome: wisp.OutcomeNoPerson, Provenance: wisp.FromUnattended}},
			screen: "? the model asks\n" +
				"1 question · ends in 5 min, at 10:05:00\n" +
				"If you leave it unanswered by then, it is declined.\n" +
				"\n" +
				"GitHub · secret GH_TOKEN\n" +
				"Which token should I use to open the pull request?\n" +
				"What you type is not shown; the model gets a reference to it, never the value.\n" +
				"(wisp cannot hide what you type here, so it does not read the secret; do not type it)\n",
		},
		{
			name:  "the input ends",
			qs:    []wisp.CardQuestion{envQ, notesQ},
			input: "1\n",
			want: []wisp.CardAnswer{
				{Outcome: wisp.OutcomeChose, Chosen: []string{"staging"}, Provenance: wisp.FromPerson},
				{Outcome: wisp.OutcomeNoPerson, Provenance: wisp.FromUnattended},
			},
			screen: "? the model asks\n" +
				"2 questions · ends in 5 min, at 10:05:00\n" +
				"Questions you leave unanswered by then fall back to their defaults.\n" +
				"\n" +
				"1/2 · Env\n" +
				"Which environment should the migration run against?\n" +
				"  1 staging (recommended)\n" +
				"    safe to break; data is a week old\n" +
				"  2 production\n" +
				"    real data; needs a maintenance window\n" +
				"type a number, or press Enter to decline › \n" +
				"2/2\n" +
				"Anything the migration must not touch?\n" +
				"type your answer, or press Enter to decline › \n" +
				"(the input ended; no person can answer)\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err, screen := showCard(t, strings.NewReader(tc.input), tc.opts, tc.qs...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("AskCard with input %q (-want +got):\n%s", tc.input, diff)
			}
			if diff := cmp.Diff(tc.screen, screen); diff != "" {
				t.Errorf("screen (-want +got):\n%s", diff)
			}
		})
	}
}

// Every word of the model's is escaped: ESC, CR, bidirectional overrides
// and invisible characters in the header, question, labels, descriptions
// and the secret's name are written visibly, on the line where the face
// put them.
func TestCardScreenHostile(t *testing.T) {
	noEcho := &terminal.Options{HideEcho: func() (func(), error) { return func() {}, nil }}
	choice := wisp.CardQuestion{
		Header: "\x1b[2J\u202Ey/n",
		Text:   "Approve rm -rf build?\r\x1b]0;wisp\x07 \u202Etxt.exe",
		Multi:  true, Other: true,
		Options: []wisp.Option{
			{Label: "[y]once\x1b[A", Description: "\x1b]8;;https://evil.example\x07click\x1b]8;;\x07", Recommended: true},
			{Label: "no\u2066", Description: "line\rover\u202Ewritten\n! wisp asks your approval"},
		},
	}
	secret := wisp.CardQuestion{Header: "\x1b[31mwisp", Text: "Password?\u200B\r\n", Secret: "TOKEN\x1b[8m\u202E"}
	tests := []struct {
		name   string
		q      wisp.CardQuestion
		opts   *terminal.Options
		input  string
		want   wisp.CardAnswer
		screen string
	}{
		{
			name: "choice", q: choice, input: "1 2\n",
			want: wisp.CardAnswer{Outcome: wisp.OutcomeChose, Chosen: []string{"[y]once\x1b[A", "no\u2066"}, Provenance: wisp.FromPerson},
			screen: "? the model asks\n" +
				"1 question · ends in 5 min, at 10:05:00\n" +
				"If you leave it unanswered by then, it falls back to its default.\n" +
				"\n" +
				`\e[2J\u{202E}y/n` + "\n" +
				`Approve rm -rf build?\r\e]0;wisp\u{7} \u{202E}txt.exe` + "\n" +
				`  1 [y]once\e[A (recommended)` + "\n" +
				`    \e]8;;https://evil.example\u{7}click\e]8;;\u{7}` + "\n" +
				`  2 no\u{2066}` + "\n" +
				`    line\rover\u{202E}written\n! wisp asks your approval` + "\n" +
				terminal.PromptMultiOther,
		},
		{
			name: "typed text with control characters is asked again", q: choice, input: "neither\x1b[1m\nneither\n",
			want: wisp.CardAnswer{Outcome: wisp.OutcomeAnswered, Text: "neither", Provenance: wisp.FromPerson},
		},
		{
			name: "secret", q: secret, opts: noEcho, input: "v\n",
			want: wisp.CardAnswer{Outcome: wisp.OutcomeAnswered, Text: "v", Provenance: wisp.FromPerson},
			screen: "? the model asks\n" +
				"1 question · ends in 5 min, at 10:05:00\n" +
				"If you leave it unanswered by then, it is declined.\n" +
				"\n" +
				`\e[31mwisp · secret TOKEN\e[8m\u{202E}` + "\n" +
				`Password?\u{200B}\r\n` + "\n" +
				terminal.SecretNote + "\n" +
				terminal.PromptSecret + "\n(received)\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err, screen := showCard(t, strings.NewReader(tc.input), tc.opts, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]wisp.CardAnswer{tc.want}, got); diff != "" {
				t.Errorf("AskCard with input %q (-want +got):\n%s", tc.input, diff)
			}
			if tc.screen == "" {
				return
			}
			if diff := cmp.Diff(tc.screen, screen); diff != "" {
				t.Errorf("screen (-want +got):\n%s", diff)
			}
		})
	}
}

// How a line answers a card's question, and which lines ask again.
func TestReadCardLines(t *testing.T) {
	one := wisp.CardQuestion{Text: "Which?", Options: []wisp.Option{{Label: "a"}, {Label: "b"}, {Label: "c"}}}
	oneOther := one
	oneOther.Other = true
	several := one
	several.Multi = true
	severalOther := several
	severalOther.Other = true
	chose := func(labels ...string) wisp.CardAnswer {
		return wisp.CardAnswer{Outcome: wisp.OutcomeChose, Chosen: labels, Provenance: wisp.FromPerson}
	}
	typed := func(s string) wisp.CardAnswer {
		return wisp.CardAnswer{Outcome: wisp.OutcomeAnswered, Text: s, Provenance: wisp.FromPerson}
	}
	declined := wisp.CardAnswer{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson}
	tests := []struct {
		name  string
		q     wisp.CardQuestion
		input string
		want  wisp.CardAnswer
		asked int // prompts shown, the first one included
	}{
		{"one number", one, "2\n", chose("b"), 1},
		{"a number with spaces and CRLF", one, " 3 \r\n", chose("c"), 1},
		{"a leading zero", one, "02\n", chose("b"), 1},
		{"Enter declines", one, "\n", declined, 1},
		{"blanks decline", one, " \t \n", declined, 1},
		{"out of range asks again", one, "4\n0\n1\n", chose("a"), 3},
		{"a huge number asks again", one, "99999999999999999999999\n1\n", chose("a"), 2},
		{"two numbers on a single choice ask again", one, "1 2\n2\n", chose("b"), 2},
		{"text without Other asks again", one, "the b one\nb\n\n", declined, 3},
		{"a negative number is text, asked again", one, "-1\n1\n", chose("a"), 2},
		{"Other: text", oneOther, "the b one\n", typed("the b one"), 1},
		{"Other: text is kept as typed", oneOther, "  spaced out \n", typed("  spaced out "), 1},
		{"Other: a number still chooses", oneOther, "1\n", chose("a"), 1},
		{"Other: out of range asks again", oneOther, "7\nseven\n", typed("seven"), 2},
		{"Other: numbers and words are text", oneOther, "2 cores\n", typed("2 cores"), 1},
		{"Other: Enter declines", oneOther, "\n", declined, 1},
		{"several: spaces", several, "1 3\n", chose("a", "c"), 1},
		{"several: commas", several, "3,1\n", chose("a", "c"), 1},
		{"several: commas and spaces", several, "2 , 3,,1\n", chose("a", "b", "c"), 1},
		{"several: one", several, "2\n", chose("b"), 1},
		{"several: repeats count once", several, "2 2 2\n", chose("b"), 1},
		{"several: options' order", several, "3 2 1\n", chose("a", "b", "c"), 1},
		{"several: one out of range asks again", several, "1 4\n1\n", chose("a"), 2},
		{"several: text without Other asks again", several, "a and c\n\n", declined, 2},
		{"several: a lone comma asks again", several, ",\n1\n", chose("a"), 2},
		{"several, Other: text", severalOther, "all of them\n", typed("all of them"), 1},
		{"several, Other: numbers", severalOther, "1 2\n", chose("a", "b"), 1},
		{"free text: a number is text", notesQ, "42\n", typed("42"), 1},
		{"free text: the last line without newline", notesQ, "main", typed("main"), 1},
		{"free text: Enter declines", notesQ, "\n", declined, 1},
		{"free text: arrow keys ask again", notesQ, "\x1b[A\x1b[A\nmain\n", typed("main"), 2},
		{"Other: arrow keys ask again", oneOther, "\x1b[B\x1b[B\n\n", declined, 2},
		{"Other: a tab within asks again", oneOther, "a\tb\nab\n", typed("ab"), 2},
		{"an arrow key after a number asks again", one, "2\x1b[A\n2\n", chose("b"), 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err, screen := showCard(t, strings.NewReader(tc.input), nil, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]wisp.CardAnswer{tc.want}, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("AskCard with input %q (-want +got):\n%s", tc.input, diff)
			}
			if n := strings.Count(screen, "› "); n != tc.asked {
				t.Errorf("AskCard with input %q prompted %d times, want %d:\n%s", tc.input, n, tc.asked, screen)
			}
		})
	}
}

// The title says how long the card has left, from the face's clock.
func TestCardEndsIn(t *testing.T) {
	tests := []struct {
		left time.Duration
		want string
	}{
		{300 * time.Second, "ends in 5 min, at 10:05:00"},
		{299*time.Second + 900*time.Millisecond, "ends in 5 min, at 10:04:59"},
		{90 * time.Second, "ends in 2 min, at 10:01:30"},
		{61 * time.Second, "ends in 1 min, at 10:01:01"},
		{60 * time.Second, "ends in 1 min, at 10:01:00"},
		{45 * time.Second, "ends in 45 s, at 10:00:45"},
		{200 * time.Millisecond, "ends in 1 s, at 10:00:00"},
		{-time.Second, "ends in 0 s, at 09:59:59"},
	}
	for _, tc := range tests {
		out := &screen{}
		f := terminal.NewWithOptions(terminal.NewInput(strings.NewReader("\n")), out, &terminal.Options{Now: func() time.Time { return ten }})
		if _, err := f.AskCard(context.Background(), wisp.Card{Questions: []wisp.CardQuestion{notesQ}, Deadline: ten.Add(tc.left)}); err != nil {
			t.Fatal(err)
		}
		title := strings.Split(out.String(), "\n")[1]
		if want := "1 question · " + tc.want; title != want {
			t.Errorf("a card with %v left: title %q, want %q", tc.left, title, want)
		}
	}
	// A card without a deadline says nothing of one.
	out := &screen{}
	f := terminal.New(terminal.NewInput(strings.NewReader("\n")), out)
	if _, err := f.AskCard(context.Background(), wisp.Card{Questions: []wisp.CardQuestion{notesQ}}); err != nil {
		t.Fatal(err)
	}
	if want := "? the model asks\n1 question\n\n"; !strings.HasPrefix(out.String(), want) {
		t.Errorf("a card without a deadline: screen %q, want it to start %q", out.String(), want)
	}
}

// At the deadline the answers finished so far come back with the
// context's error, and the person is told the rest fall back.
func TestCardDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		out := &screen{}
		in := terminal.NewInput(typing(t, "2\n"))
		f := terminal.NewWithOptions(in, out, &terminal.Options{Now: time.Now})
		dl := time.Now().Add(5 * time.Minute)
		ctx, cancel := context.WithDeadline(context.Background(), dl)
		defer cancel()
		got, err := f.AskCard(ctx, wisp.Card{Questions: []wisp.CardQuestion{envQ, checksQ, notesQ}, Deadline: dl})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("AskCard past the deadline = %v, want DeadlineExceeded", err)
		}
		if diff := cmp.Diff([]wisp.CardAnswer{{Outcome: wisp.OutcomeChose, Chosen: []string{"production"}, Provenance: wisp.FromPerson}}, got); diff != "" {
			t.Errorf("answers kept (-want +got):\n%s", diff)
		}
		if want := terminal.PromptMulti + "\n(time is up; the questions you did not answer fall back to their defaults)\n"; !strings.HasSuffix(out.String(), want) {
			t.Errorf("screen ends %q, want %q", out.String(), want)
		}
	})
}

// Ctrl-C stops the turn: through Input.Interrupt at the prompt, or through
// the turn's context, whose cause is wisp.ErrInterrupted. The answers
// finished come back with the error.
func TestCardInterrupt(t *testing.T) {
	t.Run("Input.Interrupt", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			out := &screen{}
			in := terminal.NewInput(typing(t, "1\n"))
			f := terminal.New(in, out)
			go func() {
				synctest.Wait() // the face waits for the second answer
				in.Interrupt()
			}()
			got, err := f.AskCard(context.Background(), wisp.Card{Questions: []wisp.CardQuestion{envQ, notesQ}})
			if !errors.Is(err, wisp.ErrInterrupted) {
				t.Fatalf("AskCard = %v, want wisp.ErrInterrupted", err)
			}
			if diff := cmp.Diff([]wisp.CardAnswer{{Outcome: wisp.OutcomeChose, Chosen: []string{"staging"}, Provenance: wisp.FromPerson}}, got); diff != "" {
				t.Errorf("answers kept (-want +got):\n%s", diff)
			}
			if !strings.HasSuffix(out.String(), terminal.PromptText+"\n") {
				t.Errorf("screen ends %q, want the prompt and a newline", out.String())
			}
		})
	})
	t.Run("the turn's context", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			hidden, restored := 0, 0
			opts := &terminal.Options{HideEcho: func() (func(), error) {
				hidden++
				return func() { restored++ }, nil
			}}
			f := terminal.NewWithOptions(terminal.NewInput(typing(t, "")), &screen{}, opts)
			ctx, cancel := context.WithCancelCause(context.Background())
			go func() {
				synctest.Wait()
				cancel(wisp.ErrInterrupted)
			}()
			got, err := f.AskCard(ctx, wisp.Card{Questions: []wisp.CardQuestion{secretQ}})
			if !errors.Is(err, wisp.ErrInterrupted) || len(got) != 0 {
				t.Fatalf("AskCard = (%+v, %v), want no answer and wisp.ErrInterrupted", got, err)
			}
			if hidden != 1 || restored != 1 {
				t.Errorf("echo hidden %d times and restored %d times, want once each", hidden, restored)
			}
		})
	})
}

// A secret's echo is hidden before its prompt shows and restored when the
// read ends; a line read before it was hidden (so echoed) never becomes
// the secret. The face never shows the value.
func TestCardSecretEcho(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, w := io.Pipe()
		defer w.Close()
		in := terminal.NewInput(r)
		out := &screen{}
		var events []string
		opts := &terminal.Options{HideEcho: func() (func(), error) {
			events = append(events, "hide, the screen ends "+lastLine(out.String()))
			return func() { events = append(events, "restore") }, nil
		}}
		f := terminal.NewWithOptions(in, out, opts)
		go io.WriteString(w, "typed ahead\n")
		synctest.Wait() // the Input holds the line
		var got []wisp.CardAnswer
		var err error
		done := make(chan struct{})
		go func() {
			got, err = f.AskCard(context.Background(), wisp.Card{Questions: []wisp.CardQuestion{secretQ}})
			close(done)
		}()
		synctest.Wait() // the face waits for the secret
		if !strings.HasSuffix(out.String(), terminal.PromptSecret) {
			t.Fatalf("the face waits, and the screen is:\n%s", out)
		}
		io.WriteString(w, "ghp_v4lue\n")
		<-done
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]wisp.CardAnswer{{Outcome: wisp.OutcomeAnswered, Text: "ghp_v4lue", Provenance: wisp.FromPerson}}, got); diff != "" {
			t.Errorf("answers (-want +got):\n%s", diff)
		}
		want := []string{"hide, the screen ends " + terminal.SecretNote, "restore"}
		if diff := cmp.Diff(want, events); diff != "" {
			t.Errorf("echo (-want +got):\n%s", diff)
		}
		if strings.Contains(out.String(), "ghp_v4lue") {
			t.Errorf("the screen shows the secret:\n%s", out)
		}
	})
}

// typing returns a reader on which a person types keys and then nothing
// more until the test ends.
func typing(t *testing.T, keys string) io.Reader {
	r, w := io.Pipe()
	t.Cleanup(func() { w.Close() })
	if keys != "" {
		go io.WriteString(w, keys)
	}
	return r
}

// lastLine is the last complete line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// A face that cannot hide the echo reads no secret: not from a pipe that
// is a file, not when HideEcho fails. The line stays unread.
func TestCardSecretNotRead(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	if _, err := io.WriteString(pw, "ghp_v4lue\n"); err != nil {
		t.Fatal(err)
	}
	failing := &terminal.Options{HideEcho: func() (func(), error) { return nil, errors.New("no tty") }}
	for name, tc := range map[string]struct {
		in   io.Reader
		opts *terminal.Options
	}{
		"an os.Pipe":       {pr, nil},
		"HideEcho fails":   {strings.NewReader("ghp_v4lue\n"), failing},
		"any other reader": {strings.NewReader("ghp_v4lue\n"), nil},
	} {
		t.Run(name, func(t *testing.T) {
			got, err, screen := showCard(t, tc.in, tc.opts, secretQ)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]wisp.CardAnswer{{Outcome: wisp.OutcomeNoPerson, Provenance: wisp.FromUnattended}}, got); diff != "" {
				t.Errorf("answers (-want +got):\n%s", diff)
			}
			if !strings.HasSuffix(screen, "do not type it)\n") || strings.Contains(screen, terminal.PromptSecret) {
				t.Errorf("screen:\n%s\nwant the refusal and no prompt", screen)
			}
		})
	}
}

// A secret's value holding control characters (an arrow key pressed at
// the hidden prompt) is never taken: the face says so, without showing
// what was typed, and reads again with the echo still off.
func TestCardSecretWithControlsAskedAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, w := io.Pipe()
		defer w.Close()
		in := terminal.NewInput(r)
		out := &screen{}
		hidden := 0
		opts := &terminal.Options{HideEcho: func() (func(), error) { hidden++; return func() { hidden-- }, nil }}
		f := terminal.NewWithOptions(in, out, opts)
		var got []wisp.CardAnswer
		var err error
		done := make(chan struct{})
		go func() {
			got, err = f.AskCard(context.Background(), wisp.Card{Questions: []wisp.CardQuestion{secretQ}})
			close(done)
		}()
		synctest.Wait()
		io.WriteString(w, "ghp_\x1b[Dv4lue\n")
		synctest.Wait()
		if hidden != 1 || !strings.HasSuffix(out.String(), "control characters, such as an arrow key or Esc, are never taken as typed text; "+terminal.PromptSecret) {
			t.Fatalf("after a value with control characters (echo hidden %d), the screen is:\n%s", hidden, out)
		}
		io.WriteString(w, "ghp_v4lue\n")
		<-done
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]wisp.CardAnswer{{Outcome: wisp.OutcomeAnswered, Text: "ghp_v4lue", Provenance: wisp.FromPerson}}, got); diff != "" {
			t.Errorf("answers (-want +got):\n%s", diff)
		}
		if strings.Contains(out.String(), "v4lue") || hidden != 0 {
			t.Errorf("the screen shows the secret, or the echo stayed off (%d):\n%s", hidden, out)
		}
	})
}
