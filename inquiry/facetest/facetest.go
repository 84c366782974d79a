// Package facetest is the contract suite for faces: any wisp.Inquirer that
// shows questions to a person, or stands in for one, runs Run in a test to
// check that it reads answers as the contract says (each marked
// wisp.FromPerson, and never one the question does not take), ends its
// wait with the context, fails closed, and shows the model's words escaped
// and labelled, never as an approval.
//
//	func TestContract(t *testing.T) {
//		facetest.Run(t, func(t *testing.T, p facetest.Person) facetest.Harness {
//			return facetest.Harness{Face: myface.New(…wired so p acts…)}
//		}, nil)
//	}
//
// A face that also shows ask_user cards (a wisp.CardInquirer) runs
// RunCards as well, with what the person does with each question of a
// card.
//
// A failure message shows the face's screen, and whatever the face
// returned, with every line that holds a raw control or invisible
// character escaped by escape.Terminal: a face that fails the suite cannot
// clear, retitle or rewrite the terminal the tests run in.
package facetest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/escape"
)

// Act is what the simulated person does when a question is shown.
type Act int

// The acts.
const (
	// Choose picks option Person.Option (0-based) by the face's own means.
	Choose Act = iota
	// ChooseNone picks "none of these".
	ChooseNone
	// Type answers with Person.Text.
	Type
	// Decline declines to answer (Enter alone on a terminal).
	Decline
	// Silent does nothing: the wait must end with the context.
	Silent
	// Interrupt asks to stop the turn, as Ctrl-C does.
	Interrupt
	// ChooseSeveral picks Person.Options (0-based, in the options' order)
	// on a multi-select question of a card.
	ChooseSeveral
)

// Person tells a harness what its person will do with the next question.
type Person struct {
	Act    Act
	Option int
	// Options are the options ChooseSeveral picks.
	Options []int
	// Text is what Type types: an answer, "something else" on a card's
	// choice, or a secret's value.
	Text string
	// Then is what the person does when the face asks again, after a Type
	// whose text the question does not take: text on a choice that names
	// none of its options, or text holding control characters, as arrow
	// keys and Esc leave on a line. The face must never return such text;
	// it says what the question takes (wisp.Question.Takes, or the line of
	// a wisp.MisfitError) and reads again. A harness plays Acts in order.
	Then *Person
}

// Acts returns what the person does, in order: p, then p.Then, and so on.
func (p Person) Acts() []Person {
	var acts []Person
	for q := &p; q != nil; q = q.Then {
		a := *q
		a.Then = nil
		acts = append(acts, a)
	}
	return acts
}

// A Harness is a face wired to a simulated person.
type Harness struct {
	// Face is the face under test.
	Face wisp.Inquirer
	// Screen, if not nil, returns everything the face has shown the person
	// so far, for faces that print text. The suite checks it is escaped
	// and labelled.
	Screen func() string
}

// Options adjust the suite. A nil *Options checks an attended face.
type Options struct {
	// Unattended says the face has no person: every question must end at
	// once with wisp.OutcomeNoPerson.
	Unattended bool
	// Wait bounds how long the suite waits for a face to return after it
	// should have (default 5 s). It is a bound on a hang, not a speed test.
	Wait time.Duration
	// NoSecrets says the face does not read secrets, because it cannot
	// keep what the person types from showing (a chat room, a pipe):
	// RunCards checks that it answers a secret question at once with
	// wisp.OutcomeNoPerson and wisp.FromUnattended, reading nothing.
	NoSecrets bool
	// NoInterrupt says the face's person has no way to stop the turn
	// from the face, as under wisp mcp, where the client's dialog offers
	// none (a client that goes away parks the question instead): the
	// suite plays no Interrupt.
	NoInterrupt bool
	// Data says the face writes data for a program, not text for a
	// person: one JSON value a line, as wisp chat --json does for a front
	// end. Escaping the model's words for a screen is then the program's
	// job, and the face must pass them on exactly as the model wrote them.
	// Screen returns the lines the face wrote, and instead of escaped
	// words the suite checks that every line is JSON free of raw control
	// and invisible characters (a JSON encoder can write each as a \u
	// escape), that each of the model's words arrives verbatim in a
	// decoded string, that "the model asks" labels it, that the face's
	// own keys and strings offer no approval key, that a card marks its
	// recommended option (a key or a string holding "recommended"), and
	// that a secret's value never shows. Bytes of the model's that are
	// not valid UTF-8 may arrive as U+FFFD, since JSON strings hold only
	// Unicode. How a data face offers "none of these" is its protocol's
	// business; the answers check it reads it.
	Data bool
}

var (
	choice = wisp.Question{ID: "q1", Session: "s", Thread: "t", Turn: 1,
		Text: "Which config did you mean?", Options: []string{"~/.wisp/config.json", "./wisp.json", "neither file"}}
	freeText = wisp.Question{ID: "q2", Session: "s", Thread: "t", Turn: 1,
		Text: "What is the name of the staging branch?"}
	// hostile tries to pass for wisp's own approval gate and to move the
	// cursor, clear the screen, set the title and reorder text.
	hostile = wisp.Question{ID: "q3", Session: "s", Thread: "t", Turn: 1,
		Text:    "\x1b[2J\x1b[1;1HApprove rm -rf build? [y/n]\r\x1b]0;wisp\x07 \u202Etxt.exe",
		Options: []string{"yes\x1b[A", "no\u2066"}}
)

// Run checks the face newFace returns against the contract. newFace is
// called once per check with what the person will do.
func Run(t *testing.T, newFace func(t *testing.T, p Person) Harness, opts *Options) {
	t.Helper()
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Wait <= 0 {
		o.Wait = 5 * time.Second
	}
	if o.Unattended {
		runUnattended(t, newFace, o)
		return
	}
	answers := []struct {
		name string
		q    wisp.Question
		p    Person
		want wisp.Answer
	}{
		{"choose first", choice, Person{Act: Choose, Option: 0}, wisp.Answer{Outcome: wisp.OutcomeChose, Text: "~/.wisp/config.json", Provenance: wisp.FromPerson}},
		{"choose last", choice, Person{Act: Choose, Option: 2}, wisp.Answer{Outcome: wisp.OutcomeChose, Text: "neither file", Provenance: wisp.FromPerson}},
		{"choose none", choice, Person{Act: ChooseNone}, wisp.Answer{Outcome: wisp.OutcomeChoseNone, Provenance: wisp.FromPerson}},
		{"decline choice", choice, Person{Act: Decline}, wisp.Answer{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson}},
		{"type answer", freeText, Person{Act: Type, Text: "release/2.4"}, wisp.Answer{Outcome: wisp.OutcomeAnswered, Text: "release/2.4", Provenance: wisp.FromPerson}},
		{"type non-ASCII", freeText, Person{Act: Type, Text: "branche-été ✓"}, wisp.Answer{Outcome: wisp.OutcomeAnswered, Text: "branche-été ✓", Provenance: wisp.FromPerson}},
		{"decline text", freeText, Person{Act: Decline}, wisp.Answer{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson}},

		// What the question does not take is asked again, never passed on.
		{"text on a choice is asked again", choice, Person{Act: Type, Text: "the one in /etc", Then: &Person{Act: Choose, Option: 1}},
			wisp.Answer{Outcome: wisp.OutcomeChose, Text: "./wisp.json", Provenance: wisp.FromPerson}},
		{"arrow keys on a choice are asked again", choice, Person{Act: Type, Text: "\x1b[B\x1b[B", Then: &Person{Act: Decline}},
			wisp.Answer{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson}},
		{"control characters in text are asked again", freeText, Person{Act: Type, Text: "main\x1b[A\x1b[A", Then: &Person{Act: Type, Text: "release/2.4"}},
			wisp.Answer{Outcome: wisp.OutcomeAnswered, Text: "release/2.4", Provenance: wisp.FromPerson}},
		{"asked again until it fits", choice, Person{Act: Type, Text: "\x1b[A", Then: &Person{Act: Type, Text: "foo", Then: &Person{Act: ChooseNone}}},
			wisp.Answer{Outcome: wisp.OutcomeChoseNone, Provenance: wisp.FromPerson}},
	}
	for _, tc := range answers {
		t.Run(tc.name, func(t *testing.T) {
			h := newFace(t, tc.p)
			got, err := ask(t, h.Face, context.Background(), tc.q, o.Wait)
			if err != nil {
				fatalf(t, "Ask(%q) error = %v, want an answer", tc.q.Text, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				errorf(t, "Ask(%q) answer mismatch (-want +got):\n%s", tc.q.Text, diff)
			}
			if h.Screen != nil {
				checkScreen(t, h.Screen(), tc.q, o)
			}
		})
	}

	t.Run("silent until the deadline", func(t *testing.T) {
		h := newFace(t, Person{Act: Silent})
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		got, err := ask(t, h.Face, ctx, freeText, o.Wait)
		if !errors.Is(err, context.DeadlineExceeded) {
			errorf(t, "Ask past the deadline = (%+v, %v), want an error that is context.DeadlineExceeded", got, err)
		}
		failsClosed(t, got)
	})
	t.Run("silent until cancelled", func(t *testing.T) {
		h := newFace(t, Person{Act: Silent})
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		got, err := ask(t, h.Face, ctx, choice, o.Wait)
		if !errors.Is(err, context.Canceled) {
			errorf(t, "Ask after cancel = (%+v, %v), want an error that is context.Canceled", got, err)
		}
		failsClosed(t, got)
	})
	t.Run("already cancelled", func(t *testing.T) {
		h := newFace(t, Person{Act: Silent})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		got, err := ask(t, h.Face, ctx, choice, o.Wait)
		if err == nil {
			errorf(t, "Ask on a cancelled context = %+v, want an error", got)
		}
		failsClosed(t, got)
	})
	t.Run("interrupt stops the turn", func(t *testing.T) {
		if o.NoInterrupt {
			t.Skip("the face's person cannot stop the turn from it")
		}
		h := newFace(t, Person{Act: Interrupt})
		got, err := ask(t, h.Face, context.Background(), choice, o.Wait)
		if !errors.Is(err, wisp.ErrInterrupted) {
			errorf(t, "Ask interrupted = (%+v, %v), want wisp.ErrInterrupted", got, err)
		}
		failsClosed(t, got)
	})
	t.Run("hostile question is shown escaped, never as an approval", func(t *testing.T) {
		h := newFace(t, Person{Act: Choose, Option: 1})
		got, err := ask(t, h.Face, context.Background(), hostile, o.Wait)
		if err != nil {
			fatalf(t, "Ask(hostile) error = %v", err)
		}
		if diff := cmp.Diff(wisp.Answer{Outcome: wisp.OutcomeChose, Text: hostile.Options[1], Provenance: wisp.FromPerson}, got); diff != "" {
			errorf(t, "Ask(hostile) answer mismatch (-want +got):\n%s", diff)
		}
		if h.Screen != nil {
			checkScreen(t, h.Screen(), hostile, o)
		}
	})
}

func runUnattended(t *testing.T, newFace func(t *testing.T, p Person) Harness, o Options) {
	for _, p := range []Person{{Act: Choose}, {Act: Type, Text: "x"}, {Act: Decline}, {Act: Silent}} {
		for _, q := range []wisp.Question{choice, freeText, hostile} {
			h := newFace(t, p)
			got, err := ask(t, h.Face, context.Background(), q, o.Wait)
			if err != nil {
				fatalf(t, "unattended Ask(%q) error = %v", q.Text, err)
			}
			want := wisp.Answer{Outcome: wisp.OutcomeNoPerson, Provenance: wisp.FromUnattended}
			if diff := cmp.Diff(want, got); diff != "" {
				errorf(t, "unattended Ask(%q) mismatch (-want +got):\n%s", q.Text, diff)
			}
		}
	}
	h := newFace(t, Person{Act: Silent})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got, err := ask(t, h.Face, ctx, choice, o.Wait); err == nil {
		errorf(t, "unattended Ask on a cancelled context = %+v, want an error", got)
	}
}

// ask runs Ask, failing the test if the face does not return within wait
// of when it should have.
func ask(t *testing.T, f wisp.Inquirer, ctx context.Context, q wisp.Question, wait time.Duration) (wisp.Answer, error) {
	t.Helper()
	type result struct {
		a   wisp.Answer
		err error
	}
	done := make(chan result, 1)
	go func() {
		a, err := f.Ask(ctx, q)
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
		fatalf(t, "Ask(%q) did not return within %v", q.Text, bound)
		return wisp.Answer{}, nil
	}
}

// failsClosed checks that a face that returned an error passed nothing on.
func failsClosed(t *testing.T, a wisp.Answer) {
	t.Helper()
	if a.Outcome == wisp.OutcomeAnswered || a.Outcome == wisp.OutcomeChose || a.Text != "" {
		errorf(t, "a failed Ask returned %+v; a face that fails must pass no answer on", a)
	}
}

// approvalKeys are what wisp's own approval gate offers; a question must
// never be offered them.
var approvalKeys = []string{"[y/n]", "[Y/n]", "[y/N]", "[y]once", "[n]o", "[a]lways", "[s]ession"}

// checkNoApprovalKeys checks that a face offers no approval key of its
// own: every one on the screen is inside the model's words as shown. A
// face that wrapped a model's word "y/n" in brackets would offer "[y/n]".
func checkNoApprovalKeys(t *testing.T, screen string, words []string, show func(string) string) {
	t.Helper()
	for _, k := range approvalKeys {
		inWords := 0
		for _, w := range words {
			if e := show(w); e != "" {
				inWords += strings.Count(e, k) * strings.Count(screen, e)
			}
		}
		if strings.Count(screen, k) > inWords {
			errorf(t, "screen offers the approval key %q outside the model's words:\n%s", k, screen)
		}
	}
}

// shown returns what the suite looks for on a face's screen, and how the
// face shows one of the model's words there: for a face that prints text,
// the screen and escape.Terminal; for a data face (Options.Data), every
// key and string of its lines, one a line, and the word as it is.
func shown(t *testing.T, screen string, o Options) (string, func(string) string) {
	t.Helper()
	for i, line := range strings.Split(screen, "\n") {
		if !escape.Clean(line) {
			errorf(t, "screen line %d holds a raw control or invisible character: %q", i+1, line)
		}
	}
	if !o.Data {
		return screen, escape.Terminal
	}
	var strs []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			strs = append(strs, v)
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for k, e := range v {
				strs = append(strs, k)
				walk(e)
			}
		}
	}
	for i, line := range strings.Split(screen, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var v any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			errorf(t, "line %d of a data face is not JSON (%v): %q", i+1, err, line)
			continue
		}
		walk(v)
	}
	return strings.Join(strs, "\n"), unicodeOnly
}

// unicodeOnly returns s with each byte that is not valid UTF-8 replaced
// by U+FFFD, as JSON strings, which hold only Unicode, carry it (and as
// encoding/json writes it).
func unicodeOnly(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// checkScreen checks what a face showed: the label, the model's words only
// escaped (or, on a data face, verbatim), no raw control or invisible
// characters, no approval keys of the face's own.
func checkScreen(t *testing.T, screen string, q wisp.Question, o Options) {
	t.Helper()
	text, show := shown(t, screen, o)
	if !strings.Contains(text, "the model asks") {
		errorf(t, "screen does not say %q:\n%s", "the model asks", screen)
	}
	words := append([]string{q.Text}, q.Options...)
	for _, w := range words {
		if !strings.Contains(text, show(w)) {
			errorf(t, "screen does not show %q as %q:\n%s", w, show(w), screen)
		}
	}
	checkNoApprovalKeys(t, text, words, show)
	if !o.Data && !q.FreeText() && !strings.Contains(text, "none of these") {
		errorf(t, "a choice does not offer %q:\n%s", "none of these", screen)
	}
}
