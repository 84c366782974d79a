package pending

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/policy/secrets/secretstest"
	"github.com/wisp-agent/wisp/wisptest"
)

// told gathers what an Answerer says and shows.
type told struct {
	mu    sync.Mutex
	lines []string
}

func (t *told) say(q wisp.Question, line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, q.ID+": "+line)
}

func (t *told) show(q Question, decline bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, "show "+q.ID+map[bool]string{true: " to decline", false: ""}[decline])
}

func (t *told) got() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.lines...)
}

// witnessed is testStore with a Witness that records who answers.
func witnessed(t *testing.T, ids ...string) Store {
	s := testStore(t, ids...)
	s.Witness = &wisptest.Recorder{}
	return s
}

// Check refuses, in this order, what is not an ID, a question that does
// not wait, one already answered, and then where no person can answer:
// Refuse's refusal, or no face at all.
func TestAnswererCheck(t *testing.T) {
	person := wisptest.NewPerson()
	noPerson := errors.New("no person here")
	tests := []struct {
		name     string
		id       string
		face     wisp.Inquirer
		refuse   error
		decline  bool
		wantVerb string
		want     error
		wantText string
		// unwitnessed: the store has no Witness
		unwitnessed bool
	}{
		{name: "waits", id: "a1b2c3d4", face: person, wantVerb: "questions answer"},
		{name: "decline", id: "a1b2c3d4", face: person, decline: true, wantVerb: "questions decline"},
		{name: "not an ID", id: "a1b2", face: person, refuse: noPerson, want: ErrBadID},
		{name: "not waiting", id: "12345678", face: person, refuse: noPerson, want: ErrNoQuestion},
		{name: "answered", id: "0badcafe", face: person, refuse: noPerson, want: ErrAnswered, wantText: "; the first answer wins"},
		{name: "refused", id: "a1b2c3d4", face: person, refuse: noPerson, want: noPerson, wantVerb: "questions answer"},
		{name: "no face", id: "a1b2c3d4", want: ErrNoPerson, wantText: "questions answer a1b2c3d4: ", wantVerb: "questions answer"},
		{name: "no witness", id: "a1b2c3d4", face: person, unwitnessed: true, want: ErrNoWitness, wantText: "questions answer a1b2c3d4: ", wantVerb: "questions answer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := witnessed(t, "a1b2c3d4", "0badcafe")
			if tc.unwitnessed {
				s.Witness = nil
			}
			mustFile(t, s, choice)
			done := mustFile(t, s, free)
			if err := s.Answer(t.Context(), Answer{ID: done.ID, Digest: done.Digest, Outcome: wisp.OutcomeDeclined, From: FromChat}); err != nil {
				t.Fatal(err)
			}
			var verb string
			a := &Answerer{Store: s, Face: tc.face, Commands: "wisp questions", Refuse: func(v, id string) error {
				verb = v
				return tc.refuse
			}}
			q, err := a.Check(tc.id, tc.decline)
			if !errors.Is(err, tc.want) || err != nil && !strings.Contains(err.Error(), tc.wantText) {
				t.Fatalf("Check(%q) = %v, want %v with %q", tc.id, err, tc.want, tc.wantText)
			}
			if verb != tc.wantVerb {
				t.Errorf("Check(%q) asked Refuse about %q, want %q", tc.id, verb, tc.wantVerb)
			}
			if tc.want != nil {
				return
			}
			want := wisp.Question{ID: "a1b2c3d4", Session: "s1", Thread: "t1", Turn: 3, Text: choice.Text, Options: choice.Options, Deadline: choice.Deadline}
			if diff := cmp.Diff(want, q); diff != "" {
				t.Errorf("Check(%q) (-want +got):\n%s", tc.id, diff)
			}
			if fresh, _ := a.Fresh(); len(fresh) != 0 {
				t.Errorf("after Check, Fresh = %v, want the question told", fresh)
			}
		})
	}
}

// Answer shows the question, reads the person's answer, files it with who
// answered recorded first, and says what was filed.
func TestAnswererFiles(t *testing.T) {
	choice := choice
	choice.Deadline = time.Time{} // the person takes as long as they like
	tests := []struct {
		name    string
		q       wisp.Question
		reply   wisptest.Reply
		decline bool
		outcome string
		text    string
		said    string
	}{
		{"chose", choice, wisptest.Chooses("./wisp.json"), false, "chose", "./wisp.json", "you chose ./wisp.json"},
		{"chose none", choice, wisptest.ChoosesNone(), false, "chose-none", "", "you chose none of these"},
		{"typed", free, wisptest.Says("8080"), false, "answered", "8080", "your answer was filed"},
		{"declined at the prompt", free, wisptest.Declines(), false, "declined", "", "you declined it"},
		{"declined", choice, wisptest.Chooses("./wisp.json"), true, "declined", "", "you declined it"},
		{"an escape in an option", wisp.Question{Thread: "t1", Text: "Which?", Options: []string{"a\x1b[2J", "b"}}, wisptest.ChoosesNth(1), false, "chose", "a\x1b[2J", `you chose a\e[2J`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := testStore(t, "a1b2c3d4")
			rec := &wisptest.Recorder{}
			s.Witness = rec
			mustFile(t, s, tc.q)
			person := wisptest.NewPerson(tc.reply)
			var out told
			flushed := 0
			a := &Answerer{Store: s, Face: person, From: FromTerminal, Terminal: "/dev/pts/3", Commands: "wisp questions",
				Flush: func() { flushed++ }, Show: out.show, Say: out.say}
			if err := a.Answer(t.Context(), "a1b2c3d4", tc.decline); err != nil {
				t.Fatalf("Answer = %v", err)
			}
			show := "show a1b2c3d4"
			if tc.decline {
				show += " to decline"
			}
			want := []string{show, "a1b2c3d4: question a1b2c3d4: " + tc.said + "; the thread that asked gets it"}
			if diff := cmp.Diff(want, out.got()); diff != "" {
				t.Errorf("Answer told (-want +got):\n%s", diff)
			}
			if asked := len(person.Questions()); asked != map[bool]int{true: 0, false: 1}[tc.decline] || flushed != asked {
				t.Errorf("Answer asked the face %d times and flushed %d times", asked, flushed)
			}
			got, ok, err := s.Answered("a1b2c3d4")
			if err != nil || !ok {
				t.Fatalf("Answered = %v, %v; want the answer taken", ok, err)
			}
			if got.Outcome.String() != tc.outcome || got.Text != tc.text || got.From != FromTerminal {
				t.Errorf("filed %s %q from %s, want %s %q from terminal", got.Outcome, got.Text, got.From, tc.outcome, tc.text)
			}
			evs := rec.Events("inquiry.answered")
			if len(evs) != 1 || evs[0].Data.(wisp.InquiryAnsweredData).Terminal != "/dev/pts/3" {
				t.Errorf("recorded %v, want one inquiry.answered at /dev/pts/3", evs)
			}
		})
	}
}

// Nothing is filed when the person stops, the input ends, the deadline
// passes, or another answer came first; each says so.
func TestAnswererFilesNothing(t *testing.T) {
	nobody := wisp.InquirerFunc(func(context.Context, wisp.Question) (wisp.Answer, error) {
		return wisp.Answer{Outcome: wisp.OutcomeNoPerson, Provenance: wisp.FromUnattended}, nil
	})
	tests := []struct {
		name     string
		deadline time.Duration // from now; 0: none
		face     func(Store) wisp.Inquirer
		want     string
	}{
		{"stopped", 0, func(Store) wisp.Inquirer { return wisptest.NewPerson(wisptest.Interrupts()) },
			"stopped; nothing was filed for question a1b2c3d4 (/questions answer a1b2c3d4 asks again)"},
		{"the input ended", 0, func(Store) wisp.Inquirer { return nobody },
			"the input ended; nothing was filed for question a1b2c3d4 (/questions answer a1b2c3d4 asks again)"},
		{"the deadline passed", -time.Minute, func(Store) wisp.Inquirer { return wisptest.NewPerson(wisptest.StaysSilent()) },
			"question a1b2c3d4 reached its deadline; nothing was filed, and the thread that asked has given up on it"},
		{"answered meanwhile", 0, func(s Store) wisp.Inquirer {
			return wisp.InquirerFunc(func(ctx context.Context, q wisp.Question) (wisp.Answer, error) {
				pq, err := s.Get(q.ID)
				if err != nil {
					return wisp.Answer{}, err
				}
				if err := s.Answer(ctx, Answer{ID: q.ID, Digest: pq.Digest, Outcome: wisp.OutcomeDeclined, From: FromElicitation}); err != nil {
					return wisp.Answer{}, err
				}
				return wisp.Answer{Outcome: wisp.OutcomeAnswered, Text: "mine", Provenance: wisp.FromPerson}, nil
			})
		}, "question a1b2c3d4 was already answered from elicitation; the first answer wins, so yours was not filed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := witnessed(t, "a1b2c3d4")
			q := free
			if tc.deadline != 0 {
				now := time.Now()
				s.Now = func() time.Time { return now.Add(-time.Hour) }
				q.Deadline = now.Add(tc.deadline)
			}
			mustFile(t, s, q)
			var out told
			a := &Answerer{Store: s, Face: tc.face(s), From: FromChat, Commands: "/questions", Say: out.say}
			err := a.Answer(t.Context(), "a1b2c3d4", false)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Answer = %v, want %q", err, tc.want)
			}
			if len(out.got()) != 0 {
				t.Errorf("Answer told %q, want nothing", out.got())
			}
		})
	}
}

// Typed text is filed as valid UTF-8 of at most MaxAnswerBytes, and the
// person is told when it was cut and when it held a credential.
func TestAnswererFitsText(t *testing.T) {
	long := strings.Repeat("é", MaxAnswerBytes) // 2 bytes each
	tests := []struct {
		name string
		text string
		want []string
		size int
	}{
		{"long", long, []string{"! wisp: your answer was 16384 bytes; its first 8192 bytes were filed, and the model gets at most 2,000"}, MaxAnswerBytes},
		{"a credential", "use " + ghp(t), []string{"! wisp: your answer looked like it held a credential; it is not passed on: the model and the audit log see a marker in its place"}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := witnessed(t, "a1b2c3d4")
			mustFile(t, s, free)
			var out told
			a := &Answerer{Store: s, Face: wisptest.NewPerson(wisptest.Says(tc.text)), From: FromChat, Commands: "/questions", Say: out.say}
			if err := a.Answer(t.Context(), "a1b2c3d4", false); err != nil {
				t.Fatalf("Answer = %v", err)
			}
			got := out.got()
			for i := range got {
				got[i] = strings.TrimPrefix(got[i], "a1b2c3d4: ")
			}
			want := append(tc.want, "question a1b2c3d4: your answer was filed; the thread that asked gets it")
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Answer told (-want +got):\n%s", diff)
			}
			if tc.size > 0 {
				a, _, _ := s.Answered("a1b2c3d4")
				if len(a.Text) != tc.size {
					t.Errorf("filed %d bytes, want %d", len(a.Text), tc.size)
				}
			}
		})
	}
}

// Fresh returns each waiting question once; Waiting and Tell mark
// questions told; a folder that cannot be read is an error once.
func TestAnswererFresh(t *testing.T) {
	s := testStore(t, "a1b2c3d4", "0badcafe", "c0ffee00")
	mustFile(t, s, choice)
	mustFile(t, s, free)
	a := &Answerer{Store: s}
	ids := func(qs []wisp.Question, err error) []string {
		t.Helper()
		if err != nil {
			t.Fatalf("Fresh = %v", err)
		}
		var out []string
		for _, q := range qs {
			out = append(out, q.ID)
		}
		return out
	}
	if diff := cmp.Diff([]string{"0badcafe", "a1b2c3d4"}, ids(a.Fresh())); diff != "" {
		t.Errorf("Fresh (-want +got):\n%s", diff)
	}
	if got := ids(a.Fresh()); got != nil {
		t.Errorf("Fresh again = %v, want none", got)
	}
	mustFile(t, s, wisp.Question{Thread: "t3", Text: "Which port?"})
	if diff := cmp.Diff([]string{"c0ffee00"}, ids(a.Fresh())); diff != "" {
		t.Errorf("Fresh after a third (-want +got):\n%s", diff)
	}

	b := &Answerer{Store: s}
	b.Tell("0badcafe")
	if diff := cmp.Diff([]string{"a1b2c3d4", "c0ffee00"}, ids(b.Fresh())); diff != "" {
		t.Errorf("Fresh after Tell (-want +got):\n%s", diff)
	}
	c := &Answerer{Store: s}
	if diff := cmp.Diff([]string{"0badcafe", "a1b2c3d4", "c0ffee00"}, ids(c.Waiting())); diff != "" {
		t.Errorf("Waiting (-want +got):\n%s", diff)
	}
	if got := ids(c.Fresh()); got != nil {
		t.Errorf("Fresh after Waiting = %v, want none", got)
	}

	// A folder that is a symbolic link is refused: said once.
	link := filepath.Join(t.TempDir(), "pending")
	if err := os.Symlink(s.Dir, link); err != nil {
		t.Fatal(err)
	}
	d := &Answerer{Store: Store{Dir: link}}
	if _, err := d.Fresh(); !errors.Is(err, ErrUnsafe) {
		t.Errorf("Fresh on a linked folder = %v, want %v", err, ErrUnsafe)
	}
	if qs, err := d.Fresh(); qs != nil || err != nil {
		t.Errorf("Fresh on a linked folder again = %v, %v; want nothing said twice", qs, err)
	}
}

// ghp is a fake GitHub token.
func ghp(t *testing.T) string {
	f, ok := secretstest.Generate("github-pat", rand.New(rand.NewPCG(1, 2)))
	if !ok {
		t.Fatal("no fake github-pat")
	}
	return f.Text
}

func TestCutUTF8(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 5, "abc"},
		{"abc", 2, "ab"},
		{"aé", 2, "a"},
		{"aé", 3, "aé"},
		{"€€", 4, "€"},
	}
	for _, tc := range tests {
		if got := cutUTF8(tc.s, tc.n); got != tc.want {
			t.Errorf("cutUTF8(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

// The person's words after /questions, as every face reads them.
func TestParseCommand(t *testing.T) {
	const usage = "/questions takes list, answer ID or decline ID"
	tests := []struct {
		args        []string
		command, id string
		err         string
	}{
		{nil, CommandList, "", ""},
		{[]string{"list"}, CommandList, "", ""},
		{[]string{"answer", "a1b2c3d4"}, CommandAnswer, "a1b2c3d4", ""},
		{[]string{"decline", "a1b2c3d4"}, CommandDecline, "a1b2c3d4", ""},
		{[]string{"answer"}, "", "", usage},
		{[]string{"list", "x"}, "", "", usage},
		{[]string{"answer", "a1b2c3d4", "more"}, "", "", usage},
		{[]string{"show", "a1b2c3d4"}, "", "", usage},
	}
	for _, tc := range tests {
		command, id, err := ParseCommand(tc.args)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if command != tc.command || id != tc.id || got != tc.err {
			t.Errorf("ParseCommand(%q) = %q, %q, %q; want %q, %q, %q", tc.args, command, id, got, tc.command, tc.id, tc.err)
		}
	}
}
