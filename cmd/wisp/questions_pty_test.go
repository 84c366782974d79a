//go:build unix

package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/pending"
	"github.com/wisp-agent/wisp/internal/cmdline"
)

// A question parked by wisp mcp is answered, or declined, with wisp
// questions at a real terminal: the question is shown escaped, under "the
// model asks", after the note that the answer is not private; the answer
// is filed bound to what was shown, and recorded as inquiry.answered.
func TestQuestionsAtTerminal(t *testing.T) {
	const hostile = "Which \x1b[31mconfig\x1b[0m did you mean?\u202e"
	choice := wisp.Question{Session: "s-mcp", Thread: "t-deploy", Turn: 3, Text: hostile, Options: []string{"~/.wisp/config.json", "./wisp.json"}}
	free := wisp.Question{Session: "s-mcp", Thread: "t-free", Turn: 2, Text: "Which account should I deploy with?"}

	tests := []struct {
		name string
		q    wisp.Question
		verb string // answer or decline
		// meanwhile, when set, runs once the prompt shows and before the
		// keys are pressed, as another process would.
		meanwhile func(t *testing.T, s pending.Store, q pending.Question)
		keys      string
		screen    []string // besides the question and the privacy note
		exit      int
		want      *pending.Answer // nil: none filed
		audit     map[string]any  // the inquiry.answered data; nil: none recorded
	}{
		{
			name: "an option by its number", q: choice, verb: "answer", keys: "2\r",
			screen: []string{"question a1b2c3d4: you chose ./wisp.json; the thread that asked gets it"},
			want:   &pending.Answer{Outcome: wisp.OutcomeChose, Text: "./wisp.json", From: pending.FromTerminal},
			audit:  map[string]any{"id": "a1b2c3d4", "question": hostile, "outcome": "chose", "answer": "./wisp.json", "from": "terminal"},
		},
		{
			name: "none of these", q: choice, verb: "answer", keys: "3\r",
			screen: []string{"question a1b2c3d4: you chose none of these"},
			want:   &pending.Answer{Outcome: wisp.OutcomeChoseNone, From: pending.FromTerminal},
			audit:  map[string]any{"id": "a1b2c3d4", "question": hostile, "outcome": "chose-none", "from": "terminal"},
		},
		{
			name: "Enter alone declines", q: choice, verb: "answer", keys: "\r",
			screen: []string{"question a1b2c3d4: you declined it"},
			want:   &pending.Answer{Outcome: wisp.OutcomeDeclined, From: pending.FromTerminal},
			audit:  map[string]any{"id": "a1b2c3d4", "question": hostile, "outcome": "declined", "from": "terminal"},
		},
		{
			name: "free text with a credential", q: free, verb: "answer", keys: "use AKIAFAKEKEYEXAMPLE77 for staging\r",
			screen: []string{
				"! wisp: your answer looked like it held a credential; it is not passed on",
				"question a1b2c3d4: your answer was filed; the thread that asked gets it",
			},
			// Redacted before it is filed: the answer file never holds it.
			want:  &pending.Answer{Outcome: wisp.OutcomeAnswered, Text: "use [REDACTED:aws-access-key#1] for staging", From: pending.FromTerminal},
			audit: map[string]any{"id": "a1b2c3d4", "question": free.Text, "outcome": "answered", "answer": "use [REDACTED:aws-access-key#1] for staging", "from": "terminal"},
		},
		{
			name: "decline", q: choice, verb: "decline",
			screen: []string{"1 ~/.wisp/config.json", "3 none of these", "question a1b2c3d4: you declined it; the thread that asked gets it"},
			want:   &pending.Answer{Outcome: wisp.OutcomeDeclined, From: pending.FromTerminal},
			audit:  map[string]any{"id": "a1b2c3d4", "question": hostile, "outcome": "declined", "from": "terminal"},
		},
		{
			name: "Ctrl-C files nothing", q: choice, verb: "answer", keys: "\x03",
			screen: []string{"wisp: stopped; nothing was filed for question a1b2c3d4 (wisp questions answer a1b2c3d4 asks again)"},
			exit:   cmdline.ExitInterrupted,
		},
		{
			name: "filed again while shown", q: choice, verb: "answer", keys: "1\r",
			meanwhile: func(t *testing.T, s pending.Store, q pending.Question) {
				if err := s.Settle(context.Background(), q.ID); err != nil {
					t.Fatal(err)
				}
				if _, err := s.File(context.Background(), choice); err != nil {
					t.Fatal(err)
				}
			},
			screen: []string{"wisp: question a1b2c3d4 was filed again while you answered, so your answer to what you were shown was not filed; run wisp questions answer a1b2c3d4 to see it as it is now"},
			exit:   1,
		},
		{
			name: "answered elsewhere first", q: choice, verb: "answer", keys: "2\r",
			meanwhile: func(t *testing.T, s pending.Store, q pending.Question) {
				a := pending.Answer{ID: q.ID, Digest: q.Digest, Outcome: wisp.OutcomeChose, Text: "~/.wisp/config.json", From: pending.FromChat}
				if err := s.Answer(context.Background(), a); err != nil {
					t.Fatal(err)
				}
			},
			screen: []string{"wisp: question a1b2c3d4 was already answered from chat; the first answer wins, so yours was not filed"},
			exit:   1,
			want:   &pending.Answer{Outcome: wisp.OutcomeChose, Text: "~/.wisp/config.json", From: pending.FromChat},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := filepath.Join(t.TempDir(), "home")
			store := pending.Store{Dir: filepath.Join(home, "pending"), NewID: func() string { return "a1b2c3d4" }}
			q, err := store.File(context.Background(), tc.q)
			if err != nil {
				t.Fatal(err)
			}
			r := startPTY(t, home, "questions", tc.verb, q.ID)
			r.waitFor("your answer is not private from the agent that called wisp: it can read this thread's output, context, facts and audit through wisp://threads/" + q.Thread)
			r.waitFor("? the model asks")
			if tc.q.Text == hostile {
				r.waitFor(`Which \e[31mconfig\e[0m did you mean?\u{202E}`)
			}
			if tc.verb == "answer" {
				r.waitFor("type ")
				if tc.meanwhile != nil {
					tc.meanwhile(t, store, q)
				}
				r.press(tc.keys)
			}
			for _, s := range tc.screen {
				r.waitFor(s)
			}
			if got := r.exit(); got != tc.exit {
				t.Errorf("wisp questions %s %s = exit %d, want %d:\n%s", tc.verb, q.ID, got, tc.exit, r.shown())
			}
			screen := r.shown()
			if strings.Contains(screen, "\x1b[31m") || strings.Contains(screen, "\u202e") {
				t.Errorf("the terminal showed the model's text raw:\n%q", screen)
			}
			if strings.Index(screen, "is not private") > strings.Index(screen, "? the model asks") {
				t.Errorf("the privacy note came after the question:\n%s", screen)
			}

			got, ok, err := store.Answered(q.ID)
			if err != nil {
				t.Fatalf("Answered(%s): %v", q.ID, err)
			}
			var gotp *pending.Answer
			if ok {
				if got.Digest != q.Digest {
					t.Errorf("the answer carries digest %s, want the shown question's %s", got.Digest, q.Digest)
				}
				gotp = &pending.Answer{Outcome: got.Outcome, Text: got.Text, From: got.From}
			}
			if diff := cmp.Diff(tc.want, gotp); diff != "" {
				t.Errorf("the answer on file (-want +got):\n%s", diff)
			}
			var want []answerRecord
			if tc.audit != nil {
				want = []answerRecord{{Thread: q.Thread, Turn: q.Turn, Source: wisp.SourcePerson, Data: tc.audit}}
			}
			recs, sessions := answerRecords(t, home, wisp.KindInquiryAnswered)
			if diff := cmp.Diff(want, recs); diff != "" {
				t.Errorf("inquiry.answered records (-want +got):\n%s", diff)
			}
			for _, s := range sessions {
				if s == "" || s == q.Session {
					t.Errorf("inquiry.answered recorded in session %q, want a new session of the answering process", s)
				}
			}
		})
	}
}

// A plain chat at a terminal notes each waiting question once, before a
// prompt, and answers and declines them with /questions.
func TestChatQuestionsAtTerminal(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	script := filepath.Join(dir, "ok.jsonl")
	if err := os.WriteFile(script, []byte(`{"content":"ok"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ids := []string{"a1b2c3d4", "0badcafe"}
	store := pending.Store{Dir: filepath.Join(home, "pending"), NewID: func() string { id := ids[0]; ids = ids[1:]; return id }}
	first, err := store.File(context.Background(), wisp.Question{Session: "s-mcp", Thread: "t-deploy", Turn: 3,
		Text: "Which config did you mean?", Options: []string{"~/.wisp/config.json", "./wisp.json"}})
	if err != nil {
		t.Fatal(err)
	}

	r := startPTY(t, home, "chat", "--model", "script:"+script)
	const note1 = `? a question waits for you (a1b2c3d4): "Which config did you mean?" — /questions answer a1b2c3d4`
	r.waitFor(note1)
	r.waitFor("› ")
	r.press("\r") // a second prompt: the question is not noted again
	r.waitForN("› ", 2)
	r.press("/questions answer a1b2c3d4\r")
	r.waitFor("wisp://threads/t-deploy")
	r.waitFor("type a number, or press Enter to decline › ")
	r.press("1\r")
	r.waitFor("question a1b2c3d4: you chose ~/.wisp/config.json; the thread that asked gets it")

	// A question parked while the chat runs is noted before the next prompt.
	second, err := store.File(context.Background(), wisp.Question{Session: "s-mcp", Thread: "t-deploy", Turn: 4, Text: "Deploy \u202enow?"})
	if err != nil {
		t.Fatal(err)
	}
	r.press("\r")
	r.waitFor(`? a question waits for you (0badcafe): "Deploy \u{202E}now?" — /questions answer 0badcafe`)
	r.press("/questions decline 0badcafe\r")
	r.waitFor("question 0badcafe: you declined it; the thread that asked gets it")
	r.press("\r")
	r.press("\x04") // Ctrl-D leaves
	if got := r.exit(); got != 0 {
		t.Errorf("wisp chat = exit %d, want 0:\n%s", got, r.shown())
	}
	if n := strings.Count(r.shown(), note1); n != 1 {
		t.Errorf("the chat noted question a1b2c3d4 %d times, want once:\n%s", n, r.shown())
	}

	type filed struct {
		ID      string
		Outcome wisp.Outcome
		Text    string
		From    string
	}
	var got []filed
	for _, q := range []pending.Question{first, second} {
		a, ok, err := store.Answered(q.ID)
		if err != nil || !ok {
			t.Fatalf("Answered(%s) = %v, %v; want the chat's answer", q.ID, ok, err)
		}
		got = append(got, filed{a.ID, a.Outcome, a.Text, a.From})
	}
	want := []filed{
		{"a1b2c3d4", wisp.OutcomeChose, "~/.wisp/config.json", pending.FromChat},
		{"0badcafe", wisp.OutcomeDeclined, "", pending.FromChat},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the answers on file (-want +got):\n%s", diff)
	}
	wantAudit := []answerRecord{
		{Thread: "t-deploy", Turn: 3, Source: wisp.SourcePerson, Data: map[string]any{
			"id": "a1b2c3d4", "question": "Which config did you mean?", "outcome": "chose", "answer": "~/.wisp/config.json", "from": "chat"}},
		{Thread: "t-deploy", Turn: 4, Source: wisp.SourcePerson, Data: map[string]any{
			"id": "0badcafe", "question": "Deploy \u202enow?", "outcome": "declined", "from": "chat"}},
	}
	recs, sessions := answerRecords(t, home, wisp.KindInquiryAnswered)
	if diff := cmp.Diff(wantAudit, recs); diff != "" {
		t.Errorf("inquiry.answered records (-want +got):\n%s", diff)
	}
	// The chat records them in its own session.
	if len(sessions) == 2 && (sessions[0] == "" || sessions[0] != sessions[1] || sessions[0] == first.Session) {
		t.Errorf("inquiry.answered recorded in sessions %q, want the chat's session for both", sessions)
	}
}
