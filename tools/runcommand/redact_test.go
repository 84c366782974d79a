package runcommand_test

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/policy/secrets/secretstest"
	"github.com/wisp-agent/wisp/tools/runcommand"
)

// shown collects what a face is shown as a command runs.
type shown struct {
	mu  sync.Mutex
	got []wisp.ToolOutput
}

func (s *shown) add(o wisp.ToolOutput) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got = append(s.got, o)
}

func (s *shown) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for _, o := range s.got {
		b.WriteString(o.Text)
	}
	return b.String()
}

// A secret the command is given, and any credential it prints, reach
// neither the face nor the model nor the records: the output passes the
// session's redactor, even a value split across pieces of output.
func TestSecretNeverShown(t *testing.T) {
	f := newFixture(t)
	fake, ok := secretstest.Generate("github-pat", rand.New(rand.NewPCG(1, 2)))
	if !ok {
		t.Fatal("no fake github-pat")
	}
	pat := fake.Text
	pieces := []string{"token: s3cr3t-", "t0ken-value-XYZ\n", "pat " + pat[:10], pat[10:] + "\n", "done"}
	full := strings.Join(pieces, "")
	r := &fakeRunner{pieces: pieces, res: runcommand.Result{Stdout: runcommand.Output{Head: []byte(full), Bytes: int64(len(full))}}}
	var view shown
	res, err := run(t, f.tool(t, r, nil), &approving{}, `{"command":"echo $GH_TOKEN","env":{"GH_TOKEN":"session:GH_TOKEN"}}`, view.add)
	if err != nil {
		t.Fatal(err)
	}
	for what, text := range map[string]string{"the result": res.Content, "the face": view.text()} {
		if strings.Contains(text, token) || strings.Contains(text, pat) {
			t.Errorf("%s shows a secret: %q", what, text)
		}
		if !strings.Contains(text, "[REDACTED:session:GH_TOKEN]") || !strings.Contains(text, "done") {
			t.Errorf("%s = %q; want the vault's marker and the rest of the output", what, text)
		}
	}
	if got := r.ran()[0].Env; !slicesContain(got, "GH_TOKEN="+token) {
		t.Errorf("the command's environment %v has no GH_TOKEN from the vault", got)
	}
	for _, e := range f.events.Events("") {
		if b, err := json.Marshal(e.Data); err != nil || strings.Contains(string(b), token) {
			t.Errorf("%s holds the secret: %s (%v)", e.Kind(), b, err)
		}
	}
	for _, o := range view.got {
		if o.Thread != "t1" || o.CallID != "c1" || o.Tool != runcommand.Name || o.Stream != runcommand.Stdout {
			t.Errorf("face shown %+v; want thread t1, call c1, run_command, stdout", o)
		}
	}
}

func slicesContain(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// Where the runner cut a stream, the partial lines either side of the
// cut are dropped: a secret the cut split is not half shown.
func TestSeam(t *testing.T) {
	f := newFixture(t)
	head := "start\nline two\nkey " + token[:8]
	tail := token[8:] + " rest\nlast line\n"
	r := &fakeRunner{res: runcommand.Result{Stdout: runcommand.Output{Head: []byte(head), Tail: []byte(tail), Bytes: 5 << 20}}}
	res, err := run(t, f.tool(t, r, nil), &approving{}, `{"command":"big"}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "exit status 0 after 0s\nstdout (5.0 MiB, cut):\nstart\nline two\n\n[… 5.0 MiB cut …]\nlast line\nstderr: (none)"
	if res.Content != want {
		t.Errorf("result = %q, want %q", res.Content, want)
	}
	if evs := f.events.Events(wisp.KindCommandEnded); len(evs) != 1 || !evs[0].Data.(wisp.CommandEndedData).Cut {
		t.Errorf("command.ended = %+v, want cut", evs)
	}
}

// The model reads at most MaxStreamBytes of a stream, its start and its
// end, whatever the runner kept.
func TestStreamBounded(t *testing.T) {
	f := newFixture(t)
	out := strings.Repeat("é", runcommand.MaxStreamBytes) // two bytes each
	r := &fakeRunner{res: runcommand.Result{Stderr: runcommand.Output{Head: []byte(out), Bytes: int64(len(out))}}}
	res, err := run(t, f.tool(t, r, nil), &approving{}, `{"command":"big"}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.Content); n > runcommand.MaxStreamBytes+200 || !strings.Contains(res.Content, "16.0 KiB cut") || !strings.Contains(res.Content, "stderr (32.0 KiB, cut):") {
		t.Errorf("result of %d bytes = %.200q…; want at most %d bytes, the middle cut", n, res.Content, runcommand.MaxStreamBytes)
	}
	if strings.ContainsRune(res.Content, '\uFFFD') {
		t.Error("the cut split a character")
	}
}

// The face is shown whole lines as they come; a private key's block is
// held until it ends and shown as its marker; a line too long to show
// and output past MaxLiveBytes are left out with a note.
func TestLiveView(t *testing.T) {
	key := "-----BEGIN RSA PRIVATE KEY-----\n" + strings.Repeat("MIIEFAKEEXAMPLEtestNOTaKEYFAKEEXAMPLEtestNOTaKEY\n", 3) + "-----END RSA PRIVATE KEY-----\n"
	for _, tc := range []struct {
		name   string
		pieces []string
		want   []string // the pieces shown, in order
	}{
		{"whole lines", []string{"a", "b\nc", "\n", "tail"}, []string{"ab\n", "c\n", "tail"}},
		{"key held until it ends", append(strings.SplitAfter(key, "\n"), "after\n"), []string{"[REDACTED:private-key#1]\n", "after\n"}},
		{"key split mid-line", []string{key[:12], key[12:40], key[40:]}, []string{"[REDACTED:private-key#1]\n"}},
		{"key held until the end", []string{key[:60]}, []string{"[REDACTED:private-key#1]"}},
		{"long line left out", []string{strings.Repeat("x", 70<<10), "y\nnext\n"}, []string{"[a line longer than 64 KiB is not shown as it comes; the result keeps what the runner kept of it]\n", "next\n"}},
	} {
		f := newFixture(t)
		var view shown
		r := &fakeRunner{pieces: tc.pieces}
		if _, err := run(t, f.tool(t, r, nil), &approving{}, `{"command":"x"}`, view.add); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, o := range view.got {
			got = append(got, o.Text)
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%s: shown %q, want %q", tc.name, got, tc.want)
		}
	}

	f := newFixture(t)
	var view shown
	line := strings.Repeat("z", 1023) + "\n"
	var pieces []string
	for range 2000 {
		pieces = append(pieces, line)
	}
	if _, err := run(t, f.tool(t, &fakeRunner{pieces: pieces}, nil), &approving{}, `{"command":"yes"}`, view.add); err != nil {
		t.Fatal(err)
	}
	text := view.text()
	if len(text) > runcommand.MaxLiveBytes || !strings.HasSuffix(text, "[the output goes on; no more of it is shown as it comes]\n") {
		t.Errorf("a flood showed %d bytes ending %q; want at most %d, ending in the note", len(text), text[max(0, len(text)-80):], runcommand.MaxLiveBytes)
	}
}
